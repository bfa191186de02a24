/* Engine-owned snapshots: a deep copy that actions can be applied to, so the
 * simulator and the tests can play decisions forward. Every running job of
 * an owned snapshot has its own malloc'ed allocation array. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void morph_policy_snapshot_free(morph_policy_snapshot *snap)
{
  if (!snap)
    return;
  for (int j = 0; j < snap->nrunning; j++)
    free((void *)snap->running[j].alloc);
  free(snap->nodes);
  free(snap->running);
  free(snap->pending);
  free(snap);
}

static void *dup_array(const void *src, size_t n, size_t elem)
{
  void *p = malloc(n ? n * elem : 1);
  if (p && n)
    memcpy(p, src, n * elem);
  return p;
}

int morph_policy_snapshot_clone(const morph_policy_snapshot *src, morph_policy_snapshot **out)
{
  if (!src || !out || src->nnodes < 0 || src->nrunning < 0 || src->npending < 0)
    return MORPH_EINVAL;
  *out = NULL;
  morph_policy_snapshot *s = calloc(1, sizeof(*s));
  if (!s)
    return MORPH_ENOMEM;
  *s = *src;
  s->priv_owned = 1;
  s->nodes = dup_array(src->nodes, (size_t)src->nnodes, sizeof(*s->nodes));
  s->running = dup_array(src->running, (size_t)src->nrunning, sizeof(*s->running));
  s->pending = dup_array(src->pending, (size_t)src->npending, sizeof(*s->pending));
  int ok = s->nodes && s->running && s->pending;
  for (int j = 0; j < src->nrunning && ok; j++) {
    s->running[j].alloc = dup_array(src->running[j].alloc, (size_t)src->running[j].nalloc,
                                    sizeof(morph_policy_alloc));
    ok = s->running[j].alloc != NULL;
    s->nrunning = j + 1; /* so that free() stops at the last copied job */
  }
  if (!ok) {
    if (!s->running)
      s->nrunning = 0;
    morph_policy_snapshot_free(s);
    return MORPH_ENOMEM;
  }
  *out = s;
  return MORPH_OK;
}

/* New allocation of job after action act: old pieces plus added ones
 * (merged per node) or minus released ones (from the last piece back). */
static morph_policy_alloc *resized_alloc(const morph_policy_job *job,
                                         const morph_policy_actions *acts,
                                         const morph_policy_action *act, int *nalloc)
{
  int n = job->nalloc;
  morph_policy_alloc *v = malloc(sizeof(*v) * (size_t)(n + act->alloc_count));
  if (!v)
    return NULL;
  memcpy(v, job->alloc, sizeof(*v) * (size_t)n);
  for (int k = 0; k < act->alloc_count; k++) {
    morph_policy_alloc p = acts->allocs[act->alloc_first + k];
    int m = n - 1;
    while (m >= 0 && v[m].node != p.node)
      m--;
    if (act->op == MORPH_POLICY_EXPAND && m < 0)
      v[n++] = p;
    else if (act->op == MORPH_POLICY_EXPAND)
      v[m].slots += p.slots;
    for (; act->op == MORPH_POLICY_SHRINK && p.slots > 0 && m >= 0; m--) {
      int take = v[m].node != p.node ? 0 : v[m].slots < p.slots ? v[m].slots : p.slots;
      v[m].slots -= take;
      p.slots -= take;
    }
  }
  int w = 0;
  for (int k = 0; k < n; k++)
    if (v[k].slots > 0)
      v[w++] = v[k];
  *nalloc = w;
  return v;
}

/* Builds the new allocation of every job an action touches, into allocs[a]
 * (NULL for none); MORPH_ENOMEM leaves the snapshot as it was. */
static int build_allocs(const morph_policy_snapshot *snap, const morph_policy_actions *acts,
                        morph_policy_alloc **allocs, int *nallocs)
{
  for (int a = 0; a < acts->n; a++) {
    const morph_policy_action *act = &acts->v[a];
    if (act->op == MORPH_POLICY_START) {
      nallocs[a] = act->alloc_count;
      allocs[a] = dup_array(&acts->allocs[act->alloc_first], (size_t)act->alloc_count,
                            sizeof(morph_policy_alloc));
    } else {
      allocs[a] = resized_alloc(&snap->running[act->job_index], acts, act, &nallocs[a]);
    }
    if (!allocs[a])
      return MORPH_ENOMEM;
  }
  return MORPH_OK;
}

static void apply_nodes(morph_policy_snapshot *snap, const morph_policy_actions *acts)
{
  for (int a = 0; a < acts->n; a++) {
    const morph_policy_action *act = &acts->v[a];
    int sign = act->op == MORPH_POLICY_SHRINK ? -1 : 1;
    for (int k = 0; k < act->alloc_count; k++) {
      const morph_policy_alloc *p = &acts->allocs[act->alloc_first + k];
      snap->nodes[p->node].used += sign * p->slots;
    }
  }
}

/* Moves started jobs to the end of running and closes the gaps in pending;
 * `running` already has room for them. */
static void apply_jobs(morph_policy_snapshot *snap, const morph_policy_actions *acts,
                       morph_policy_alloc **allocs, const int *nallocs, char *gone)
{
  memset(gone, 0, (size_t)snap->npending);
  for (int a = 0; a < acts->n; a++) {
    const morph_policy_action *act = &acts->v[a];
    morph_policy_job *job;
    if (act->op == MORPH_POLICY_START) {
      job = &snap->running[snap->nrunning++];
      *job = snap->pending[act->job_index];
      gone[act->job_index] = 1;
      job->start_time = snap->now;
      job->resizing = 0;
    } else {
      job = &snap->running[act->job_index];
      free((void *)job->alloc);
    }
    job->size = act->to;
    job->alloc = allocs[a];
    job->nalloc = nallocs[a];
    job->last_change = snap->now;
  }
  int w = 0;
  for (int p = 0; p < snap->npending; p++)
    if (!gone[p])
      snap->pending[w++] = snap->pending[p];
  snap->npending = w;
}

int morph_policy_snapshot_apply(morph_policy_snapshot *snap, const morph_policy_actions *actions,
                                char *msg, size_t msgsize)
{
  if (!snap || !snap->priv_owned) {
    if (msg && msgsize)
      snprintf(msg, msgsize, "snapshot not made by morph_policy_snapshot_clone()");
    return MORPH_EINVAL;
  }
  int rc = morph_policy_actions_check(snap, actions, msg, msgsize);
  if (rc)
    return rc;
  size_t n = (size_t)actions->n + 1;
  morph_policy_alloc **allocs = calloc(n, sizeof(*allocs));
  int *nallocs = calloc(n, sizeof(int));
  char *gone = malloc((size_t)snap->npending + 1);
  morph_policy_job *running =
      realloc(snap->running, sizeof(*running) * ((size_t)snap->nrunning + n));
  if (running)
    snap->running = running;
  rc = allocs && nallocs && gone && running ? build_allocs(snap, actions, allocs, nallocs) : MORPH_ENOMEM;
  if (rc == MORPH_OK) {
    apply_nodes(snap, actions);
    apply_jobs(snap, actions, allocs, nallocs, gone);
  } else if (allocs) {
    for (int a = 0; a < actions->n; a++)
      free(allocs[a]);
  }
  free(allocs);
  free(nallocs);
  free(gone);
  return rc;
}
