/* Booking resources and emitting actions. Every phase goes through these
 * helpers so that the free pool stays exact and no slot is booked twice. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

int morph__pass_fail(morph__pass *run, int rc, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(run->msg, run->msgsize, fmt, ap);
  va_end(ap);
  return rc;
}

static int is_malleable(const morph_policy_job *job)
{
  return job->kind == MORPH_POLICY_JOB_MALLEABLE || job->kind == MORPH_POLICY_JOB_FLEXIBLE;
}

/* A job may get an action if it is malleable, not resizing, has not failed
 * too often and has no action yet in this decision (one per job keeps the
 * caller's bookkeeping simple). */
int morph__resizable(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  return is_malleable(job) && !job->resizing && !run->s->touched[j] &&
         job->failed_resizes < run->params->max_failed_resizes;
}

/* DMRlib's scheduling period (paper 000 Table 5): no resize within it. */
int morph__inhibited(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  double period = job->sched_period > 0 ? job->sched_period : run->params->sched_period;
  return period > 0 && run->snap->now - job->last_change < period;
}

long morph__free_units(const morph__pass *run)
{
  return run->total_free;
}

static int grow_actions(morph_policy_actions *a)
{
  if (a->n < a->cap)
    return MORPH_OK;
  int cap = a->cap ? 2 * a->cap : 64;
  morph_policy_action *v = realloc(a->v, (size_t)cap * sizeof(*v));
  if (!v)
    return MORPH_ENOMEM;
  a->v = v;
  a->cap = cap;
  return MORPH_OK;
}

int morph__emit(morph__pass *run, morph_policy_op op, int job_index, int from, int to, int depends)
{
  morph_policy_actions *a = run->out;
  if (grow_actions(a))
    return morph__pass_fail(run, MORPH_ENOMEM, "out of memory for actions");
  const morph_policy_job *job =
      op == MORPH_POLICY_START ? &run->snap->pending[job_index] : &run->snap->running[job_index];
  a->v[a->n] = (morph_policy_action){.op = op, .job = job->id, .job_index = job_index,
                                     .from = from, .to = to, .alloc_first = a->nallocs,
                                     .alloc_count = 0, .depends = depends,
                                     .release = MORPH_POLICY_RELEASE_ANY};
  return a->n++;
}

int morph__emit_piece(morph__pass *run, int node, int slots)
{
  morph_policy_actions *a = run->out;
  morph_policy_action *last = &a->v[a->n - 1];
  /* Consecutive pieces on one node merge (slot units), keeping lists short. */
  if (last->alloc_count > 0 && run->snap->unit == MORPH_POLICY_UNIT_SLOT &&
      a->allocs[a->nallocs - 1].node == node) {
    a->allocs[a->nallocs - 1].slots += slots;
    return MORPH_OK;
  }
  if (a->nallocs == a->cap_allocs) {
    int cap = a->cap_allocs ? 2 * a->cap_allocs : 256;
    morph_policy_alloc *v = realloc(a->allocs, (size_t)cap * sizeof(*v));
    if (!v)
      return morph__pass_fail(run, MORPH_ENOMEM, "out of memory for allocations");
    a->allocs = v;
    a->cap_allocs = cap;
  }
  a->allocs[a->nallocs++] = (morph_policy_alloc){.node = node, .slots = slots};
  a->v[a->n - 1].alloc_count++;
  return MORPH_OK;
}

/* Takes up to `*units` from node i; returns MORPH_OK or MORPH_ENOMEM. */
static int take_node(morph__pass *run, int i, int *units)
{
  int f = run->s->node_free[i];
  if (f == 0 || *units == 0)
    return MORPH_OK;
  int whole = run->snap->unit == MORPH_POLICY_UNIT_NODE;
  int slots = whole ? f : (f < *units ? f : *units);
  run->s->node_free[i] -= slots;
  *units -= whole ? 1 : slots;
  run->total_free -= whole ? 1 : slots;
  return morph__emit_piece(run, i, slots);
}

int morph__take(morph__pass *run, int units, int prefer_job)
{
  int rc = MORPH_OK;
  /* Slot units: fill the job's own nodes first, for locality. */
  if (prefer_job >= 0 && run->snap->unit == MORPH_POLICY_UNIT_SLOT) {
    const morph_policy_job *job = &run->snap->running[prefer_job];
    for (int k = 0; k < job->nalloc && units > 0 && rc == MORPH_OK; k++)
      rc = take_node(run, job->alloc[k].node, &units);
  }
  while (units > 0 && rc == MORPH_OK && run->cursor < run->snap->nnodes) {
    rc = take_node(run, run->cursor, &units);
    if (run->s->node_free[run->cursor] == 0)
      run->cursor++;
  }
  return rc;
}

static int node_up(const morph__pass *run, int node)
{
  return run->snap->nodes[node].state == MORPH_POLICY_NODE_UP;
}

/* Units of piece k of job that a shrink may release: the first piece holds
 * the master process (Elastic MPI keeps the master node, paper 002 3.4.2). */
static int piece_releasable(const morph__pass *run, const morph_policy_job *job, int k)
{
  int u = morph__piece_units(run->snap, &job->alloc[k]);
  return k == 0 ? u - 1 : u;
}

int morph__releasable_up(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  int n = 0;
  for (int k = 0; k < job->nalloc; k++)
    if (node_up(run, job->alloc[k].node))
      n += piece_releasable(run, job, k);
  return n;
}

int morph__bad_units(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  int n = 0;
  for (int k = 0; k < job->nalloc; k++)
    if (!node_up(run, job->alloc[k].node))
      n += piece_releasable(run, job, k);
  return n;
}

/* Releases from the last piece backwards pieces whose node is (or is not)
 * UP, as `want_up` says; *units falls by what was released. */
static int release_pass(morph__pass *run, const morph_policy_job *job, int *units, int want_up)
{
  int whole = run->snap->unit == MORPH_POLICY_UNIT_NODE;
  for (int k = job->nalloc - 1; k >= 0 && *units > 0; k--) {
    const morph_policy_alloc *a = &job->alloc[k];
    int r = piece_releasable(run, job, k);
    if (r == 0 || node_up(run, a->node) != want_up)
      continue;
    int u = r < *units ? r : *units;
    if (morph__emit_piece(run, a->node, whole ? a->slots : u))
      return MORPH_ENOMEM;
    *units -= u;
  }
  return MORPH_OK;
}

int morph__release(morph__pass *run, int j, int units, int bad_first)
{
  const morph_policy_job *job = &run->snap->running[j];
  if (bad_first && release_pass(run, job, &units, 0))
    return MORPH_ENOMEM;
  return release_pass(run, job, &units, 1);
}

/* Books for the last action up to *units of what action `shrink` released.
 * Released units it does not need stay unbooked until the next decision:
 * they are free only once the shrink completes. */
static int copy_released(morph__pass *run, int shrink, int *units)
{
  const morph_policy_action *sh = &run->out->v[shrink];
  int whole = run->snap->unit == MORPH_POLICY_UNIT_NODE;
  for (int k = 0; k < sh->alloc_count && *units > 0; k++) {
    morph_policy_alloc piece = run->out->allocs[sh->alloc_first + k];
    int u = morph__piece_units(run->snap, &piece);
    if (u > *units)
      u = *units;
    if (morph__emit_piece(run, piece.node, whole ? piece.slots : u))
      return MORPH_ENOMEM;
    *units -= u;
  }
  return MORPH_OK;
}

int morph__start_job(morph__pass *run, int p, int n, int depends)
{
  int a = morph__emit(run, MORPH_POLICY_START, p, 0, n, depends);
  if (a < 0)
    return a;
  int units = n;
  /* A start that depends on a shrink first takes what the shrink released:
   * those slots were booked for it and for nothing else. */
  if (depends >= 0 && copy_released(run, depends, &units))
    return MORPH_ENOMEM;
  run->s->started[p] = 1;
  morph__tree_remove(&run->s->tree, p);
  return morph__take(run, units, -1);
}

int morph__expand_job(morph__pass *run, int j, int to)
{
  int from = run->s->size[j];
  int a = morph__emit(run, MORPH_POLICY_EXPAND, j, from, to, -1);
  if (a < 0)
    return a;
  run->s->size[j] = to;
  run->s->touched[j] = 1;
  return morph__take(run, to - from, j);
}

int morph__shrink_job(morph__pass *run, int j, int to, morph_policy_release release)
{
  int from = run->s->size[j];
  int a = morph__emit(run, MORPH_POLICY_SHRINK, j, from, to, -1);
  if (a < 0)
    return a;
  run->out->v[a].release = release;
  int bad_first = release == MORPH_POLICY_RELEASE_ANY;
  run->s->size[j] = to;
  run->s->touched[j] = 1;
  return morph__release(run, j, from - to, bad_first);
}

int morph__tree_build(morph__mintree *t, const morph_policy_snapshot *snap, const char *started)
{
  int size = 1;
  while (size < snap->npending)
    size *= 2;
  if (2 * size > t->cap) {
    int *v = realloc(t->v, sizeof(int) * 2 * (size_t)size);
    if (!v)
      return MORPH_ENOMEM;
    t->v = v;
    t->cap = 2 * size;
  }
  t->size = size;
  for (int i = 0; i < size; i++)
    t->v[size + i] = i < snap->npending && !started[i] ? snap->pending[i].req_min : INT32_MAX;
  for (int i = size - 1; i >= 1; i--)
    t->v[i] = t->v[2 * i] < t->v[2 * i + 1] ? t->v[2 * i] : t->v[2 * i + 1];
  return MORPH_OK;
}

void morph__tree_remove(morph__mintree *t, int p)
{
  if (!t->v || p >= t->size)
    return;
  int i = t->size + p;
  t->v[i] = INT32_MAX;
  for (i /= 2; i >= 1; i /= 2)
    t->v[i] = t->v[2 * i] < t->v[2 * i + 1] ? t->v[2 * i] : t->v[2 * i + 1];
}

int morph__tree_first_le(const morph__mintree *t, long x)
{
  if (!t->v || t->size == 0 || t->v[1] > x)
    return -1;
  int i = 1;
  while (i < t->size)
    i = t->v[2 * i] <= x ? 2 * i : 2 * i + 1;
  return i - t->size;
}
