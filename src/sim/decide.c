/* One scheduling decision: snapshot the simulated cluster, ask the policy
 * engine, carry out its actions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void job_limits(const morph__sjob *j, morph_policy_job *p)
{
  p->kind = (morph_policy_kind)j->w->kind; /* same order as Table 3 */
  p->req_min = j->req_min;
  p->req_max = j->req_max;
  p->min = j->min;
  p->max = j->max;
  p->pref = j->pref;
  p->submit_time = j->w->submit;
  p->sched_period = j->w->model.inhibit_s;
  p->efficiency = p->mtct_avg = p->mtct_trend = -1;
}

/* Pending entries never change while they wait, so the queue's snapshot
 * is kept up to date on submission and start instead of rebuilt for every
 * decision: with thousands of waiting jobs this is most of the cost. */
void morph__sim_pending_add(morph_sim *sim, int job)
{
  const morph__sjob *j = &sim->jobs[job];
  morph_policy_job *p = &sim->ppend[sim->npend];
  memset(p, 0, sizeof *p);
  p->id = job;
  job_limits(j, p);
  /* Estimates are exact: the longest run the request allows. */
  p->walltime = morph_model_time(&j->w->model, j->req_min);
  sim->pending[sim->npend++] = job;
}

/* Remaining time at the current size, as EASY needs for its reservation. */
static double remaining(const morph__sjob *j)
{
  return (1.0 - j->done) * morph_model_time(&j->w->model, j->size);
}

static void fill_running(morph_sim *sim)
{
  morph_policy_alloc *a = sim->palloc;
  for (size_t i = 0; i < sim->nrun; i++) {
    morph__sjob *j = &sim->jobs[sim->running[i]];
    morph_policy_job *p = &sim->prun[i];
    memset(p, 0, sizeof *p);
    p->id = sim->running[i];
    job_limits(j, p);
    if (j->rstate != R_RECONF)
      morph__sim_advance(sim, j);
    p->size = j->size;
    p->alloc = a;
    p->nalloc = j->nn;
    for (int k = 0; k < j->nn; k++)
      *a++ = (morph_policy_alloc){j->nodes[k], 1};
    p->start_time = j->start;
    p->last_change = j->last_change;
    p->resizing = j->rstate != R_NONE;
    /* rdmr counts the nodes of a shrink in flight as soon free. */
    p->resize_to = j->rstate != R_NONE ? j->target : 0;
    p->walltime = sim->now - j->start + remaining(j);
  }
}

static void fill_snapshot(morph_sim *sim, morph_policy_snapshot *s)
{
  for (int n = 0; n < sim->cfg.nodes; n++)
    sim->pnodes[n].used = sim->owner[n] >= 0;
  fill_running(sim);
  memset(s, 0, sizeof *s);
  s->now = sim->now;
  s->unit = MORPH_POLICY_UNIT_NODE;
  s->nodes = sim->pnodes;
  s->nnodes = sim->cfg.nodes;
  s->running = sim->prun;
  s->nrunning = (int)sim->nrun;
  s->pending = sim->ppend;
  s->npending = (int)sim->npend;
  if (sim->cfg.queue_depth > 0 && s->npending > sim->cfg.queue_depth)
    s->npending = sim->cfg.queue_depth;
}

static void remove_pending(morph_sim *sim, int job)
{
  size_t i = 0;
  while (i < sim->npend && sim->pending[i] != job)
    i++;
  if (i < sim->npend) {
    memmove(sim->pending + i, sim->pending + i + 1, (sim->npend - i - 1) * sizeof(int));
    memmove(sim->ppend + i, sim->ppend + i + 1, (sim->npend - i - 1) * sizeof *sim->ppend);
  }
  sim->npend -= i < sim->npend;
}

static int take_nodes(morph_sim *sim, int job, const morph_policy_action *a, int **out, int cap)
{
  const morph_policy_alloc *al = sim->acts.allocs + a->alloc_first;
  int *v = malloc((size_t)(cap > 0 ? cap : 1) * sizeof *v);
  if (!v)
    return MORPH_ENOMEM;
  for (int i = 0; i < a->alloc_count; i++) {
    int n = al[i].node;
    v[i] = n;
    if (sim->owner[n] < 0) {
      sim->owner[n] = job;
      sim->nfree--;
    } else if (sim->next_owner[n] < 0 && sim->jobs[sim->owner[n]].rstate == R_WAIT_POINT) {
      sim->next_owner[n] = job; /* handed over when the shrink is done */
      sim->jobs[job].missing++;
    } else {
      free(v);
      return morph__sim_fail(sim, MORPH_EPROTO, "policy gave busy node %d to job %d", n, job);
    }
  }
  *out = v;
  return MORPH_OK;
}

static int apply_start(morph_sim *sim, const morph_policy_action *a)
{
  int job = (int)a->job;
  morph__sjob *j = &sim->jobs[job];
  if (j->state != J_PENDING || a->alloc_count != a->to)
    return morph__sim_fail(sim, MORPH_EPROTO, "policy started job %d, not pending", job);
  remove_pending(sim, job);
  j->ncap = j->max > j->req_max ? j->max : j->req_max;
  j->missing = 0;
  int rc = take_nodes(sim, job, a, &j->nodes, j->ncap);
  if (rc)
    return rc;
  j->nn = a->to;
  j->state = J_STARTING;
  return j->missing ? MORPH_OK : morph__sim_start(sim, job);
}

/* The resize happens at the job's next iteration end (its reconfiguration
 * point); a job with no point left before its end ends first and the
 * resize is dropped (see on_end). */
static int schedule_point(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  int it = j->w->model.iterations;
  double frac = it > 0 ? (floor(j->done * it + 1e-9) + 1.0) / it : j->done;
  if (frac >= 1.0 - 1e-12)
    return MORPH_OK;
  return morph__sim_push(sim, sim->now + (frac - j->done) / j->rate, EV_POINT, job);
}

static int apply_resize(morph_sim *sim, const morph_policy_action *a)
{
  int job = (int)a->job;
  morph__sjob *j = &sim->jobs[job];
  if (j->state != J_RUNNING || j->rstate != R_NONE || a->from != j->size)
    return morph__sim_fail(sim, MORPH_EPROTO, "policy resized job %d in a wrong state", job);
  const morph_policy_alloc *al = sim->acts.allocs + a->alloc_first;
  j->delta = realloc(j->delta, (size_t)(a->alloc_count + 1) * sizeof *j->delta);
  if (!j->delta)
    return MORPH_ENOMEM;
  for (int i = 0; i < a->alloc_count; i++) {
    int n = al[i].node;
    j->delta[i] = n;
    if (a->op == MORPH_POLICY_EXPAND && sim->owner[n] >= 0)
      return morph__sim_fail(sim, MORPH_EPROTO, "policy expanded job %d on busy node %d", job, n);
    if (a->op == MORPH_POLICY_EXPAND)
      sim->owner[n] = job, sim->nfree--;
  }
  j->nd = a->alloc_count;
  j->target = a->to;
  j->rstate = R_WAIT_POINT;
  return schedule_point(sim, job);
}

static int apply(morph_sim *sim)
{
  int rc = MORPH_OK;
  for (int i = 0; i < sim->acts.n && !rc; i++) {
    const morph_policy_action *a = &sim->acts.v[i];
    if (a->op == MORPH_POLICY_START)
      rc = apply_start(sim, a);
    else if (a->op == MORPH_POLICY_EXPAND || a->op == MORPH_POLICY_SHRINK)
      rc = apply_resize(sim, a);
    else
      rc = morph__sim_fail(sim, MORPH_EPROTO, "policy action %d not simulated", (int)a->op);
  }
  return rc;
}

/* Earliest time an inhibited malleable job may be resized again: a tick
 * before it, with nothing changed, would decide the same as the last one.
 * The stepping policy also acts when a job's step period has passed. */
static double next_wake(const morph_sim *sim)
{
  double wake = INFINITY;
  int stepping = strncmp(sim->policy_name, "stepping", 8) == 0;
  for (size_t i = 0; i < sim->nrun; i++) {
    const morph__sjob *j = &sim->jobs[sim->running[i]];
    double t = j->last_change + j->w->model.inhibit_s;
    double step = j->last_change + sim->cfg.params.step_period;
    if (stepping && step > t)
      t = step;
    if (morph_job_kind_malleable(j->w->kind) && t > sim->now && t < wake)
      wake = t;
  }
  return wake;
}

int morph__sim_decide(morph_sim *sim)
{
  morph_policy_snapshot snap;
  fill_snapshot(sim, &snap);
  sim->st.decisions++;
  int rc = morph_policy_decide(sim->pol, &snap, &sim->acts);
  if (rc)
    return morph__sim_fail(sim, rc, "policy: %s", morph_policy_errmsg(sim->pol));
  sim->dirty = 0;
  rc = apply(sim);
  sim->wake = next_wake(sim);
  return rc;
}
