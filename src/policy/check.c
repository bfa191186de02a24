/* Checking actions against a snapshot (feasibility: nothing double-booked,
 * limits kept), and the action list's memory. The check replays the actions
 * in order on a copy of the free slots, so it is independent of how the
 * policy counted and the placement stage chose them: tests and the
 * simulator use it as the referee. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void morph_policy_actions_init(morph_policy_actions *actions)
{
  if (actions)
    memset(actions, 0, sizeof(*actions));
}

void morph_policy_actions_free(morph_policy_actions *actions)
{
  if (!actions)
    return;
  free(actions->v);
  free(actions->allocs);
  memset(actions, 0, sizeof(*actions));
}

typedef struct replay {
  const morph_policy_snapshot *snap;
  const morph_policy_actions *acts;
  int *avail;       /* slots - used per node, as actions go */
  int *held;        /* slots released by the SHRINK the current START depends on */
  char *serves;     /* per action: a SHRINK that already serves a START */
  char *done_run;   /* running job already has an action */
  char *done_pend;  /* pending job already started */
  char *msg;
  size_t msgsize;
} replay;

__attribute__((format(printf, 2, 3))) static int no(replay *r, const char *fmt, ...)
{
  if (r->msg && r->msgsize) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->msg, r->msgsize, fmt, ap);
    va_end(ap);
  }
  return MORPH_EINVAL;
}

static int is_malleable(const morph_policy_job *job)
{
  return job->kind == MORPH_POLICY_JOB_MALLEABLE || job->kind == MORPH_POLICY_JOB_FLEXIBLE;
}

/* Books the pieces of action a on UP nodes: free slots, and for a START
 * the slots its SHRINK released (`held`), those first. */
static int book(replay *r, int a)
{
  const morph_policy_action *act = &r->acts->v[a];
  int whole = r->snap->unit == MORPH_POLICY_UNIT_NODE;
  long units = 0;
  for (int k = 0; k < act->alloc_count; k++) {
    const morph_policy_alloc *p = &r->acts->allocs[act->alloc_first + k];
    if (p->node < 0 || p->node >= r->snap->nnodes || p->slots < 1)
      return no(r, "action %d: piece %d is not a valid node/slots", a, k);
    const morph_policy_node *n = &r->snap->nodes[p->node];
    int *held = &r->held[p->node], cap = r->avail[p->node] + *held;
    if (n->state != MORPH_POLICY_NODE_UP)
      return no(r, "action %d: node index %d is not up", a, p->node);
    if (whole && (p->slots != n->slots || cap != n->slots))
      return no(r, "action %d: node index %d is not a whole free node", a, p->node);
    if (p->slots > cap)
      return no(r, "action %d: node index %d double-booked (%d > %d free)", a, p->node, p->slots,
                cap);
    int h = p->slots < *held ? p->slots : *held;
    *held -= h;
    r->avail[p->node] -= p->slots - h;
    units += morph__piece_units(r->snap, p);
  }
  return units == act->to - act->from ? MORPH_OK
                                      : no(r, "action %d: pieces hold %ld units, not %d", a, units,
                                           act->to - act->from);
}

/* Slots of running job j on node, from its allocation. */
static int held(const morph_policy_job *job, int node, int *first)
{
  int s = 0;
  for (int k = 0; k < job->nalloc; k++)
    if (job->alloc[k].node == node) {
      s += job->alloc[k].slots;
      if (k == 0)
        *first = 1;
    }
  return s;
}

/* Checks that a SHRINK releases slots the job holds, keeping its master,
 * on UP nodes if its rule says so. Released slots do not become free: only
 * the START that depends on this SHRINK may book them. */
static int unbook(replay *r, int a, const morph_policy_job *job)
{
  const morph_policy_action *act = &r->acts->v[a];
  const morph_policy_alloc *pieces = &r->acts->allocs[act->alloc_first];
  if (act->release != MORPH_POLICY_RELEASE_ANY && act->release != MORPH_POLICY_RELEASE_UP)
    return no(r, "action %d: unknown release rule %d", a, (int)act->release);
  long units = 0;
  for (int k = 0; k < act->alloc_count; k++) {
    int node = pieces[k].node, first = 0, rel = 0;
    for (int m = 0; m < act->alloc_count; m++)
      rel += pieces[m].node == node ? pieces[m].slots : 0;
    int have = node >= 0 && node < r->snap->nnodes ? held(job, node, &first) : 0;
    if (pieces[k].slots < 1 || rel > have - first ||
        (r->snap->unit == MORPH_POLICY_UNIT_NODE && first))
      return no(r, "action %d: releases slots job %ld does not hold (or its master)", a,
                (long)job->id);
    if (act->release == MORPH_POLICY_RELEASE_UP &&
        r->snap->nodes[node].state != MORPH_POLICY_NODE_UP)
      return no(r, "action %d: releases node index %d, which is not up, against its rule", a,
                node);
    units += morph__piece_units(r->snap, &pieces[k]);
  }
  return units == act->from - act->to ? MORPH_OK
                                      : no(r, "action %d: releases %ld units, not %d", a, units,
                                           act->from - act->to);
}

/* Books a START that depends on SHRINK d: what d released is held for it
 * alone, and what it does not take stays unbooked until the next decision. */
static int book_after(replay *r, int a, int d)
{
  const morph_policy_action *sh = &r->acts->v[d];
  if (r->serves[d]++)
    return no(r, "action %d: shrink %d already serves another start", a, d);
  const morph_policy_alloc *rel = &r->acts->allocs[sh->alloc_first];
  for (int k = 0; k < sh->alloc_count; k++)
    r->held[rel[k].node] += rel[k].slots;
  int rc = book(r, a);
  for (int k = 0; k < sh->alloc_count; k++)
    r->held[rel[k].node] = 0;
  return rc;
}

static int check_start(replay *r, int a)
{
  const morph_policy_action *act = &r->acts->v[a];
  if (act->job_index < 0 || act->job_index >= r->snap->npending)
    return no(r, "action %d: no pending job index %d", a, act->job_index);
  const morph_policy_job *job = &r->snap->pending[act->job_index];
  if (job->id != act->job || r->done_pend[act->job_index]++)
    return no(r, "action %d: job %ld id mismatch or started twice", a, (long)act->job);
  if (act->from != 0 || act->to < job->req_min || act->to > job->req_max)
    return no(r, "action %d: start of job %ld at %d outside its request %d-%d", a, (long)job->id,
              act->to, job->req_min, job->req_max);
  if (act->depends != -1 &&
      (act->depends < 0 || act->depends >= a || r->acts->v[act->depends].op != MORPH_POLICY_SHRINK))
    return no(r, "action %d: depends on %d, which is not an earlier shrink", a, act->depends);
  return act->depends >= 0 ? book_after(r, a, act->depends) : book(r, a);
}

static int check_resize(replay *r, int a)
{
  const morph_policy_action *act = &r->acts->v[a];
  if (act->job_index < 0 || act->job_index >= r->snap->nrunning)
    return no(r, "action %d: no running job index %d", a, act->job_index);
  const morph_policy_job *job = &r->snap->running[act->job_index];
  if (job->id != act->job || r->done_run[act->job_index]++)
    return no(r, "action %d: job %ld id mismatch or two actions", a, (long)act->job);
  if (!is_malleable(job) || job->resizing || act->from != job->size || act->depends != -1)
    return no(r, "action %d: job %ld not malleable, resizing, or size %d != %d", a,
              (long)job->id, job->size, act->from);
  if (act->op == MORPH_POLICY_EXPAND)
    return act->to > act->from && act->to <= job->max
               ? book(r, a)
               : no(r, "action %d: expand of job %ld to %d outside (size, max]", a, (long)job->id,
                    act->to);
  return act->to < act->from && act->to >= job->min
             ? unbook(r, a, job)
             : no(r, "action %d: shrink of job %ld to %d outside [min, size)", a, (long)job->id,
                  act->to);
}

static int replay_all(replay *r)
{
  for (int i = 0; i < r->snap->nnodes; i++)
    r->avail[i] = r->snap->nodes[i].slots - r->snap->nodes[i].used;
  for (int a = 0; a < r->acts->n; a++) {
    morph_policy_op op = r->acts->v[a].op;
    int rc = op == MORPH_POLICY_START                                 ? check_start(r, a)
             : op == MORPH_POLICY_EXPAND || op == MORPH_POLICY_SHRINK ? check_resize(r, a)
                                                                      : no(r, "action %d: op %d "
                                                                              "not supported",
                                                                           a, (int)op);
    if (rc)
      return rc;
  }
  return MORPH_OK;
}

int morph_policy_snapshot_check(const morph_policy_snapshot *snap, char *msg, size_t msgsize)
{
  if (msg && msgsize)
    msg[0] = '\0';
  if (!snap) {
    if (msg && msgsize)
      snprintf(msg, msgsize, "NULL snapshot");
    return MORPH_EINVAL;
  }
  int *booked = malloc(sizeof(int) * ((size_t)(snap->nnodes > 0 ? snap->nnodes : 0) + 1));
  int rc = booked ? morph__validate(snap, booked, msg, msgsize) : MORPH_ENOMEM;
  free(booked);
  return rc;
}

int morph_policy_actions_check(const morph_policy_snapshot *snap,
                               const morph_policy_actions *actions, char *msg, size_t msgsize)
{
  replay r = {.snap = snap, .acts = actions, .msg = msg, .msgsize = msgsize};
  if (msg && msgsize)
    msg[0] = '\0';
  if (!snap || !actions)
    return no(&r, "NULL snapshot or actions");
  int rc = morph_policy_snapshot_check(snap, msg, msgsize);
  if (rc)
    return rc;
  r.avail = malloc(sizeof(int) * (size_t)(snap->nnodes + 1));
  r.held = calloc((size_t)snap->nnodes + 1, sizeof(int));
  r.serves = calloc((size_t)actions->n + 1, 1);
  r.done_run = calloc((size_t)snap->nrunning + 1, 1);
  r.done_pend = calloc((size_t)snap->npending + 1, 1);
  rc = r.avail && r.held && r.serves && r.done_run && r.done_pend ? replay_all(&r) : MORPH_ENOMEM;
  free(r.avail);
  free(r.held);
  free(r.serves);
  free(r.done_run);
  free(r.done_pend);
  return rc;
}
