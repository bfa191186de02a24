/* Counting units and emitting actions. Every phase goes through these
 * helpers so that the count of free units stays exact: the placement stage
 * (morph/place.h) later finds units for exactly what was counted. */
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

long morph__incoming_units(const morph__pass *run)
{
  long n = 0;
  for (int j = 0; j < run->snap->nrunning; j++) {
    const morph_policy_job *job = &run->snap->running[j];
    if (job->resizing && job->resize_to > 0 && job->resize_to < job->size)
      n += job->size - job->resize_to;
  }
  return n;
}

long morph__queue_reserve(const morph__pass *run, long avail, long cap, int *blocked)
{
  long reserved = 0;
  *blocked = 0;
  for (int p = 0; p < run->snap->npending && !*blocked; p++) {
    long need = run->s->started[p] ? 0 : run->snap->pending[p].req_min;
    if (reserved + need > avail + cap)
      *blocked = 1; /* waits for jobs to end, keeping what is left */
    else
      reserved += need;
  }
  return reserved;
}

long morph__spare_units(const morph__pass *run)
{
  int blocked;
  long reserved = morph__queue_reserve(run, run->total_free, 0, &blocked);
  return blocked ? 0 : run->total_free - reserved;
}

int morph__shrink_floor(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  return run->params->shrink_to_min ? job->min : job->pref;
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
                                     .from = from, .to = to, .depends = depends,
                                     .release = MORPH_POLICY_RELEASE_ANY};
  return a->n++;
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

int morph__start_job(morph__pass *run, int p, int n, int depends)
{
  int a = morph__emit(run, MORPH_POLICY_START, p, 0, n, depends);
  if (a < 0)
    return a;
  /* A start that depends on a shrink takes what the shrink released first:
   * those units were kept for it and for nothing else. The rest is free. */
  int released = 0;
  if (depends >= 0)
    released = run->out->v[depends].from - run->out->v[depends].to;
  run->total_free -= released < n ? n - released : 0;
  run->s->started[p] = 1;
  morph__tree_remove(&run->s->tree, p);
  return MORPH_OK;
}

int morph__expand_job(morph__pass *run, int j, int to)
{
  int from = run->s->size[j];
  int a = morph__emit(run, MORPH_POLICY_EXPAND, j, from, to, -1);
  if (a < 0)
    return a;
  run->s->size[j] = to;
  run->s->touched[j] = 1;
  run->total_free -= to - from;
  return MORPH_OK;
}

/* The released units are not free in this decision: the processes must
 * leave first, and only a START that depends on the shrink may use them. */
int morph__shrink_job(morph__pass *run, int j, int to, morph_policy_release release)
{
  int a = morph__emit(run, MORPH_POLICY_SHRINK, j, run->s->size[j], to, -1);
  if (a < 0)
    return a;
  run->out->v[a].release = release;
  run->s->size[j] = to;
  run->s->touched[j] = 1;
  return MORPH_OK;
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
