/* One scheduling decision: snapshot the simulated cluster, ask the policy
 * engine how many nodes, the placement stage which ones, carry out the
 * actions. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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
  morph__sim_pending_remove(sim, job);
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
  morph__sim_snapshot(sim, &snap);
  sim->st.decisions++;
  int rc = morph_policy_decide(sim->pol, &snap, &sim->acts);
  if (rc)
    return morph__sim_fail(sim, rc, "policy: %s", morph_policy_errmsg(sim->pol));
  rc = morph_place_actions(sim->place, &snap, &sim->acts);
  if (rc)
    return morph__sim_fail(sim, rc, "placement: %s", morph_place_errmsg(sim->place));
  sim->dirty = 0;
  rc = apply(sim);
  sim->wake = next_wake(sim);
  return rc;
}
