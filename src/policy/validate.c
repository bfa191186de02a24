/* Checking a caller's snapshot before deciding on it, and counting the
 * free units. A bad snapshot would make the engine double-book, so each
 * inconsistency is an error that names the node or job. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/array.h"
#include "internal.h"

/* Grows the scratch arrays to the snapshot's sizes; the caps are shared by
 * arrays of the same length, so they grow together. */
int morph__scratch_reserve(morph__scratch *s, const morph_policy_snapshot *snap)
{
  if (morph__array_grow((void **)&s->node_booked, &s->nodes_cap, snap->nnodes, sizeof(int)))
    return MORPH_ENOMEM;
  int cap = s->running_cap;
  if (morph__array_grow((void **)&s->size, &cap, snap->nrunning, sizeof(int)))
    return MORPH_ENOMEM;
  cap = s->running_cap;
  if (morph__array_grow((void **)&s->touched, &cap, snap->nrunning, 1))
    return MORPH_ENOMEM;
  s->running_cap = cap;
  cap = s->pending_cap;
  if (morph__array_grow((void **)&s->started, &cap, snap->npending, 1))
    return MORPH_ENOMEM;
  s->pending_cap = cap;
  if (morph__array_grow((void **)&s->pairs, &s->pairs_cap, 6 * snap->nrunning, sizeof(int)))
    return MORPH_ENOMEM;
  /* easy keeps (end, units) pairs of running and just-started jobs, and
   * as much again to sort them. */
  return morph__array_grow((void **)&s->ends, &s->ends_cap, 4 * (snap->nrunning + snap->npending),
                           sizeof(double));
}

void morph__scratch_free(morph__scratch *s)
{
  free(s->node_booked);
  free(s->size);
  free(s->touched);
  free(s->started);
  free(s->ends);
  free(s->pairs);
  free(s->tree.v);
  memset(s, 0, sizeof(*s));
}

int morph__piece_units(const morph_policy_snapshot *snap, const morph_policy_alloc *piece)
{
  return snap->unit == MORPH_POLICY_UNIT_NODE ? 1 : piece->slots;
}

__attribute__((format(printf, 3, 4))) static int bad(char *msg, size_t size, const char *fmt, ...)
{
  if (msg && size) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, size, fmt, ap);
    va_end(ap);
  }
  return MORPH_EINVAL;
}

static int check_nodes(const morph_policy_snapshot *snap, char *msg, size_t size)
{
  for (int i = 0; i < snap->nnodes; i++) {
    const morph_policy_node *n = &snap->nodes[i];
    if (n->slots < 1 || n->used < 0 || n->used > n->slots)
      return bad(msg, size, "node %ld (index %d): slots < 1 or used outside 0..slots",
                 (long)n->id, i);
    if (n->state < MORPH_POLICY_NODE_UP || n->state > MORPH_POLICY_NODE_DOWN)
      return bad(msg, size, "node %ld (index %d): unknown state", (long)n->id, i);
  }
  return MORPH_OK;
}

static int malleable(const morph_policy_job *job)
{
  return job->kind == MORPH_POLICY_JOB_MALLEABLE || job->kind == MORPH_POLICY_JOB_FLEXIBLE;
}

static int check_limits(const morph_policy_job *job, char *msg, size_t size)
{
  if (job->kind < MORPH_POLICY_JOB_RIGID || job->kind > MORPH_POLICY_JOB_FLEXIBLE)
    return bad(msg, size, "job %ld: unknown kind %ld", (long)job->id, (long)job->kind);
  if (job->req_min < 1 || job->req_max < job->req_min)
    return bad(msg, size, "job %ld: request needs 1 <= req_min <= req_max (req_min %d)",
               (long)job->id, job->req_min);
  if (malleable(job) && !(job->min >= 1 && job->min <= job->pref && job->pref <= job->max))
    return bad(msg, size, "job %ld: limits need 1 <= min <= pref <= max (min %d)",
               (long)job->id, job->min);
  return MORPH_OK;
}

/* Adds a running job's pieces to node_booked and checks they add up. */
static int check_alloc(const morph_policy_snapshot *snap, const morph_policy_job *job, int *booked,
                       char *msg, size_t size)
{
  if (job->size < 1 || job->nalloc < 1 || !job->alloc)
    return bad(msg, size, "running job %ld: size %d with no allocation", (long)job->id, job->size);
  long units = 0;
  for (int k = 0; k < job->nalloc; k++) {
    const morph_policy_alloc *a = &job->alloc[k];
    if (a->node < 0 || a->node >= snap->nnodes || a->slots < 1)
      return bad(msg, size, "running job %ld: allocation piece %d is not a valid node/slots",
                 (long)job->id, k);
    if (snap->unit == MORPH_POLICY_UNIT_NODE && a->slots != snap->nodes[a->node].slots)
      return bad(msg, size, "running job %ld: node units but piece %d is not a whole node",
                 (long)job->id, k);
    booked[a->node] += a->slots;
    if (booked[a->node] > snap->nodes[a->node].used)
      return bad(msg, size, "node index %d: jobs hold more slots than `used` (job %ld)",
                 a->node, (long)job->id);
    units += morph__piece_units(snap, a);
  }
  if (units != job->size)
    return bad(msg, size, "running job %ld: allocation holds %ld units, not its size",
               (long)job->id, units);
  return MORPH_OK;
}

static int check_arrays(const morph_policy_snapshot *snap, char *msg, size_t size)
{
  if (snap->unit != MORPH_POLICY_UNIT_SLOT && snap->unit != MORPH_POLICY_UNIT_NODE)
    return bad(msg, size, "unknown unit %d", (int)snap->unit);
  if (snap->nnodes < 0 || snap->nrunning < 0 || snap->npending < 0 ||
      (snap->nnodes && !snap->nodes) || (snap->nrunning && !snap->running) ||
      (snap->npending && !snap->pending))
    return bad(msg, size, "negative count or NULL array (%d nodes, %d running, %d pending)",
               snap->nnodes, snap->nrunning, snap->npending);
  return MORPH_OK;
}

int morph__validate(const morph_policy_snapshot *snap, int *booked, char *msg, size_t size)
{
  int rc = check_arrays(snap, msg, size);
  if (rc == MORPH_OK)
    rc = check_nodes(snap, msg, size);
  if (rc)
    return rc;
  memset(booked, 0, sizeof(int) * (size_t)snap->nnodes);
  for (int j = 0; j < snap->nrunning && rc == MORPH_OK; j++) {
    rc = check_limits(&snap->running[j], msg, size);
    if (rc == MORPH_OK)
      rc = check_alloc(snap, &snap->running[j], booked, msg, size);
  }
  for (int p = 0; p < snap->npending && rc == MORPH_OK; p++)
    rc = check_limits(&snap->pending[p], msg, size);
  return rc;
}

/* Free units: slots on UP nodes; in NODE units wholly free UP nodes. */
void morph__pass_count_free(morph__pass *run)
{
  const morph_policy_snapshot *snap = run->snap;
  int whole = snap->unit == MORPH_POLICY_UNIT_NODE;
  run->total_free = 0;
  for (int i = 0; i < snap->nnodes; i++) {
    const morph_policy_node *n = &snap->nodes[i];
    int f = n->state == MORPH_POLICY_NODE_UP ? n->slots - n->used : 0;
    run->total_free += whole ? f == n->slots : f;
  }
  for (int j = 0; j < snap->nrunning; j++) {
    run->s->size[j] = snap->running[j].size;
    run->s->touched[j] = 0;
  }
  memset(run->s->started, 0, (size_t)snap->npending);
}
