/* What the scheduler knows of run times and where jobs are killed
 * (morph/sim.h, morph_sim_estimates): the mode of a run, each job's time
 * limit, its stretch when the job runs below its reference size, and the
 * estimates handed to the policy. */
#include <math.h>

#include "internal.h"

/* A limit is given for req_max: below it, a job that scales no better
 * than linearly runs at most ref / size times longer. */
static double stretch(const morph__sjob *j, int size)
{
  return size > 0 && j->w->req_max > size ? (double)j->w->req_max / size : 1.0;
}

static double run_time(const morph__sjob *j, int size)
{
  return morph_model_time(&j->w->model, size);
}

void morph__sim_limits_setup(morph_sim *sim)
{
  double largest = 0;
  size_t given = morph_workload_walltimes(sim->wl, &largest);
  sim->est = sim->cfg.estimates;
  if (sim->est == MORPH_SIM_EST_REQUESTED && given == 0)
    sim->est = MORPH_SIM_EST_EXACT; /* nothing requested: the former model */
  sim->st.estimates = sim->est;
  sim->st.default_limits = sim->est == MORPH_SIM_EST_REQUESTED ? sim->njobs - given : 0;
  for (size_t i = 0; i < sim->njobs; i++) {
    morph__sjob *j = &sim->jobs[i];
    if (sim->est == MORPH_SIM_EST_FACTOR)
      j->limit = sim->cfg.estimate_factor * run_time(j, j->w->req_max);
    else if (sim->est == MORPH_SIM_EST_REQUESTED)
      j->limit = j->w->walltime > 0 ? j->w->walltime : largest;
  }
}

static int push_limit(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  j->lgen++;
  return morph__sim_push(sim, j->limit_end, EV_LIMIT, job);
}

int morph__sim_limit_start(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  if (!(j->limit > 0))
    return MORPH_OK;
  j->limit_end = sim->now + j->limit * stretch(j, j->size);
  return push_limit(sim, job);
}

/* The pause of a resize is the scheduler's doing: it does not count. */
void morph__sim_limit_pause(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  j->pause_from = sim->now;
  j->lgen++;
}

/* What was left when the pause began, stretched when the job went
 * further below its reference size (a shrink from above it back to it
 * changes nothing: the grow left the limit as it was), never shortened. */
int morph__sim_limit_resized(morph_sim *sim, int job, int from)
{
  morph__sjob *j = &sim->jobs[job];
  if (!(j->limit > 0))
    return MORPH_OK;
  double left = fmax(0.0, j->limit_end - j->pause_from);
  left *= fmax(1.0, stretch(j, j->size) / stretch(j, from));
  j->limit_end = sim->now + left;
  return push_limit(sim, job);
}

/* EXACT: the run time at its smallest request; otherwise the longest its
 * limit can be, started at req_min. */
double morph__sim_estimate_pending(const morph_sim *sim, const morph__sjob *j)
{
  if (sim->est == MORPH_SIM_EST_EXACT)
    return run_time(j, j->req_min);
  return j->limit * stretch(j, j->req_min);
}

/* EXACT: elapsed plus the remaining work at the current size; otherwise
 * its limit (a pause in progress pushes it back). */
double morph__sim_estimate_running(const morph_sim *sim, const morph__sjob *j)
{
  if (sim->est == MORPH_SIM_EST_EXACT)
    return sim->now - j->start + (1.0 - j->done) * run_time(j, j->size);
  double paused = j->rstate == R_RECONF ? sim->now - j->pause_from : 0;
  return j->limit_end + paused - j->start;
}
