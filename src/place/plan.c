/* The driver of a placement: checks each action against the snapshot and
 * the units left, lets the strategy choose its units, and checks that it
 * got exactly what the action counts. Free units are tracked as actions
 * go; units a SHRINK releases never join them: only the START that
 * depends on the SHRINK may take them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "internal.h"

static int reserve(morph__place_scratch *s, const morph_policy_snapshot *snap, int nactions)
{
  if (morph__array_grow((void **)&s->free, &s->nodes_cap, snap->nnodes, sizeof(int)) ||
      morph__array_grow((void **)&s->touched, &s->running_cap, snap->nrunning, 1) ||
      morph__array_grow((void **)&s->started, &s->pending_cap, snap->npending, 1) ||
      morph__array_grow((void **)&s->serves, &s->actions_cap, nactions, 1))
    return MORPH_ENOMEM;
  memset(s->touched, 0, (size_t)snap->nrunning);
  memset(s->started, 0, (size_t)snap->npending);
  memset(s->serves, 0, (size_t)nactions);
  return MORPH_OK;
}

/* Free slots per node, as the policy counts them: UP nodes only, and in
 * NODE units wholly free nodes only. Checks the nodes on the way. */
static int pool_init(morph__plan *pl)
{
  const morph_policy_snapshot *snap = pl->snap;
  pl->total_free = 0;
  pl->cursor = 0;
  for (int i = 0; i < snap->nnodes; i++) {
    const morph_policy_node *n = &snap->nodes[i];
    if (n->slots < 1 || n->used < 0 || n->used > n->slots || n->state < MORPH_POLICY_NODE_UP ||
        n->state > MORPH_POLICY_NODE_DOWN)
      return morph__plan_fail(pl, MORPH_EINVAL, "node %ld (index %d): slots < 1, used outside "
                              "0..slots or unknown state", (long)n->id, i);
    int f = n->state == MORPH_POLICY_NODE_UP ? n->slots - n->used : 0;
    if (pl->whole && f != n->slots)
      f = 0;
    pl->s->free[i] = f;
    pl->total_free += pl->whole ? f > 0 : f;
  }
  return MORPH_OK;
}

/* The snapshot's arrays; nodes are checked by pool_init(), the allocation
 * of a job when an action resizes it: placement reads nothing else. */
static int check_arrays(morph__plan *pl)
{
  const morph_policy_snapshot *snap = pl->snap;
  if (snap->unit != MORPH_POLICY_UNIT_SLOT && snap->unit != MORPH_POLICY_UNIT_NODE)
    return morph__plan_fail(pl, MORPH_EINVAL, "unknown unit %d", (int)snap->unit);
  if (snap->nnodes < 0 || snap->nrunning < 0 || snap->npending < 0 ||
      (snap->nnodes && !snap->nodes) || (snap->nrunning && !snap->running) ||
      (snap->npending && !snap->pending))
    return morph__plan_fail(pl, MORPH_EINVAL, "negative count or NULL array (%d nodes, %d "
                            "running, %d pending)", snap->nnodes, snap->nrunning, snap->npending);
  return MORPH_OK;
}

/* A resized job's pieces: valid nodes, whole nodes in NODE units, adding
 * up to its size. */
static int check_alloc(morph__plan *pl, const morph_policy_job *job)
{
  long units = 0;
  for (int k = 0; k < job->nalloc && job->alloc; k++) {
    const morph_policy_alloc *a = &job->alloc[k];
    if (a->node < 0 || a->node >= pl->snap->nnodes || a->slots < 1 ||
        (pl->whole && a->slots != pl->snap->nodes[a->node].slots))
      return morph__plan_fail(pl, MORPH_EINVAL, "running job %ld: allocation piece %d is not a "
                              "valid node/slots", (long)job->id, k);
    units += pl->whole ? 1 : a->slots;
  }
  if (units != job->size || job->nalloc < 1)
    return morph__plan_fail(pl, MORPH_EINVAL, "running job %ld: allocation holds %ld units, not "
                            "its size %d", (long)job->id, units, job->size);
  return MORPH_OK;
}

static int check_start(morph__plan *pl, const morph_policy_action *a)
{
  const morph_policy_snapshot *snap = pl->snap;
  if (a->job_index < 0 || a->job_index >= snap->npending ||
      snap->pending[a->job_index].id != a->job || pl->s->started[a->job_index]++)
    return morph__plan_fail(pl, MORPH_EINVAL, "action %d: start of job %ld: no such pending job "
                            "at index %d, or started twice", pl->act, (long)a->job, a->job_index);
  if (a->from != 0 || a->to < 1)
    return morph__plan_fail(pl, MORPH_EINVAL, "action %d: start of job %ld from %d to %d",
                            pl->act, (long)a->job, a->from, a->to);
  const morph_policy_action *d = a->depends >= 0 && a->depends < pl->act ? &pl->out->v[a->depends]
                                                                        : NULL;
  if (a->depends != -1 && (!d || d->op != MORPH_POLICY_SHRINK || pl->s->serves[a->depends]++))
    return morph__plan_fail(pl, MORPH_EINVAL, "action %d: depends on %d, which is not an earlier "
                            "shrink serving no other start", pl->act, a->depends);
  return MORPH_OK;
}

static int check_resize(morph__plan *pl, const morph_policy_action *a)
{
  const morph_policy_snapshot *snap = pl->snap;
  if (a->job_index < 0 || a->job_index >= snap->nrunning ||
      snap->running[a->job_index].id != a->job || pl->s->touched[a->job_index]++)
    return morph__plan_fail(pl, MORPH_EINVAL, "action %d: job %ld: no such running job at index "
                            "%d, or two actions", pl->act, (long)a->job, a->job_index);
  int grows = a->op == MORPH_POLICY_EXPAND;
  if (a->from != snap->running[a->job_index].size || a->depends != -1 ||
      (grows ? a->to <= a->from : a->to >= a->from || a->to < 1))
    return morph__plan_fail(pl, MORPH_EINVAL, "action %d: %s of job %ld from %d (size %d) to %d",
                            pl->act, grows ? "expand" : "shrink", (long)a->job, a->from,
                            snap->running[a->job_index].size, a->to);
  if (!grows && a->release != MORPH_POLICY_RELEASE_ANY && a->release != MORPH_POLICY_RELEASE_UP)
    return morph__plan_fail(pl, MORPH_EINVAL, "action %d: unknown release rule %d", pl->act,
                            (int)a->release);
  return check_alloc(pl, &snap->running[a->job_index]);
}

/* A START may take what its SHRINK released, then free units. Sets
 * *reuse to the released units it must take. */
static int fit_start(morph__plan *pl, const morph_policy_action *a, int *reuse)
{
  pl->nreuse = 0;
  *reuse = 0;
  if (a->depends >= 0) {
    const morph_policy_action *d = &pl->out->v[a->depends];
    if (morph__array_grow((void **)&pl->s->reuse, &pl->s->reuse_cap, d->alloc_count,
                          sizeof(*pl->s->reuse)))
      return morph__plan_fail(pl, MORPH_ENOMEM, "out of memory for released pieces");
    memcpy(pl->s->reuse, &pl->out->allocs[d->alloc_first],
           sizeof(*pl->s->reuse) * (size_t)d->alloc_count);
    pl->nreuse = d->alloc_count;
    *reuse = d->from - d->to < a->to ? d->from - d->to : a->to;
  }
  if (a->to - *reuse > pl->total_free)
    return morph__plan_fail(pl, MORPH_EBUSY, "action %d: start of job %ld needs %d free units, "
                            "%ld are free", pl->act, (long)a->job, a->to - *reuse, pl->total_free);
  return MORPH_OK;
}

/* Units each piece of a shrinking job may give back: its master keeps the
 * first piece's last unit; RELEASE_UP leaves pieces on other nodes. */
static int fit_shrink(morph__plan *pl, const morph_policy_action *a, const morph_policy_job *job)
{
  if (morph__array_grow((void **)&pl->s->left, &pl->s->left_cap, job->nalloc, sizeof(int)))
    return morph__plan_fail(pl, MORPH_ENOMEM, "out of memory for the job's pieces");
  long total = 0;
  for (int k = 0; k < job->nalloc; k++) {
    int u = pl->whole ? 1 : job->alloc[k].slots;
    int keep =
        a->release == MORPH_POLICY_RELEASE_UP && !morph__plan_node_up(pl, job->alloc[k].node);
    pl->s->left[k] = keep ? 0 : k == 0 ? u - 1 : u;
    total += pl->s->left[k];
  }
  pl->job = job;
  if (a->from - a->to > total)
    return morph__plan_fail(pl, MORPH_EBUSY, "action %d: shrink of job %ld gives back %d units, "
                            "it may give back %ld", pl->act, (long)a->job, a->from - a->to, total);
  return MORPH_OK;
}

/* An EXPAND takes only nodes at or above the job's expand_from (Slurm's
 * batch host rule: docs/slurm.md); asking for more than is free there, it
 * is trimmed to what is. Units free below stay free for later actions. */
static void trim_expand(morph__plan *pl, morph_policy_action *a, const morph_policy_job *job)
{
  pl->floor = job->expand_from > 0 ? job->expand_from : 0;
  long avail = 0;
  for (int i = pl->floor; i < pl->snap->nnodes; i++)
    avail += morph__plan_free_units(pl, i);
  if (a->to - a->from > avail)
    a->to = a->from + (int)avail;
}

static int run_op(morph_place *place, morph__plan *pl, morph_policy_action *a)
{
  const morph_policy_snapshot *snap = pl->snap;
  int reuse = 0, rc;
  if (a->op == MORPH_POLICY_START) {
    rc = check_start(pl, a);
    if (rc == MORPH_OK)
      rc = fit_start(pl, a, &reuse);
    if (rc == MORPH_OK)
      rc = place->ops->start(pl, &snap->pending[a->job_index], a->to);
  } else if (a->op == MORPH_POLICY_EXPAND) {
    rc = check_resize(pl, a);
    if (rc == MORPH_OK && a->to - a->from > pl->total_free)
      rc = morph__plan_fail(pl, MORPH_EBUSY, "action %d: expand of job %ld needs %d free units, "
                            "%ld are free", pl->act, (long)a->job, a->to - a->from, pl->total_free);
    if (rc == MORPH_OK)
      trim_expand(pl, a, &snap->running[a->job_index]);
    if (rc == MORPH_OK && a->to > a->from)
      rc = place->ops->expand(pl, &snap->running[a->job_index], a->to - a->from);
    pl->floor = 0;
  } else if (a->op == MORPH_POLICY_SHRINK) {
    rc = check_resize(pl, a);
    if (rc == MORPH_OK)
      rc = fit_shrink(pl, a, &snap->running[a->job_index]);
    if (rc == MORPH_OK)
      rc = place->ops->shrink(pl, &snap->running[a->job_index], a->from - a->to);
  } else {
    rc = morph__plan_fail(pl, MORPH_EINVAL, "action %d: op %d is not placed", pl->act, (int)a->op);
  }
  if (rc == MORPH_OK && (pl->placed != abs(a->to - a->from) || pl->reused != reuse))
    rc = morph__plan_fail(pl, MORPH_EINVAL, "action %d: strategy %s placed %d units (%d released "
                          "ones), not %d (%d)", pl->act, place->ops->name, pl->placed, pl->reused,
                          abs(a->to - a->from), reuse);
  return rc;
}

static int place_all(morph_place *place, morph__plan *pl)
{
  morph_policy_actions *out = pl->out;
  int rc = MORPH_OK;
  for (int i = 0; i < out->n && rc == MORPH_OK; i++) {
    pl->act = i;
    pl->placed = pl->reused = pl->nreuse = 0;
    out->v[i].alloc_first = out->nallocs;
    out->v[i].alloc_count = 0;
    rc = run_op(place, pl, &out->v[i]);
  }
  return rc;
}

/* Removes the EXPANDs trimmed to nothing (to == from); the `depends` of
 * the actions after them follow. */
static void drop_empty(morph_policy_actions *out)
{
  int n = 0;
  for (int i = 0; i < out->n; i++) {
    morph_policy_action *a = &out->v[i];
    if (a->op == MORPH_POLICY_EXPAND && a->to == a->from) {
      for (int j = i + 1; j < out->n; j++)
        if (out->v[j].depends > n)
          out->v[j].depends--;
      continue;
    }
    out->v[n++] = *a;
  }
  out->n = n;
}

static void clear_pieces(morph_policy_actions *actions)
{
  for (int i = 0; i < actions->n; i++)
    actions->v[i].alloc_first = actions->v[i].alloc_count = 0;
  actions->nallocs = 0;
}

int morph_place_actions(morph_place *place, const morph_policy_snapshot *snap,
                        morph_policy_actions *actions)
{
  if (!place || !snap || !actions) {
    if (actions)
      clear_pieces(actions);
    if (place)
      snprintf(place->errmsg, sizeof place->errmsg, "NULL snapshot or actions");
    return MORPH_EINVAL;
  }
  clear_pieces(actions);
  place->errmsg[0] = '\0';
  morph__plan pl = {.snap = snap, .out = actions, .s = &place->s, .ctx = place->ctx,
                    .whole = snap->unit == MORPH_POLICY_UNIT_NODE, .msg = place->errmsg,
                    .msgsize = sizeof place->errmsg};
  int rc = check_arrays(&pl);
  if (rc == MORPH_OK && reserve(&place->s, snap, actions->n))
    rc = morph__plan_fail(&pl, MORPH_ENOMEM, "out of memory for %d nodes and %d actions",
                          snap->nnodes, actions->n);
  if (rc == MORPH_OK)
    rc = pool_init(&pl);
  if (rc == MORPH_OK)
    rc = place_all(place, &pl);
  if (rc == MORPH_OK)
    drop_empty(actions);
  if (rc)
    clear_pieces(actions);
  return rc;
}
