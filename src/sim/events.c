/* Events of a job's lifecycle in simulated time: submission, start,
 * reconfiguration point, end of a resize, end. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int morph__sim_start(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  j->state = J_RUNNING;
  j->size = j->nn;
  j->start = j->last_t = j->last_change = sim->now;
  j->done = 0;
  sim->running[sim->nrun++] = job;
  sim->st.starts++;
  sim->dirty = 1;
  int rc = morph__seg_push(j, sim->now, j->size);
  if (!rc)
    rc = morph__sim_schedule_end(sim, job);
  return rc ? rc : morph__sim_limit_start(sim, job);
}

/* A node leaves its owner: to the job a shrink promised it to, else free. */
void morph__sim_release(morph_sim *sim, int node)
{
  int next = sim->next_owner[node];
  sim->next_owner[node] = -1;
  sim->owner[node] = next;
  sim->dirty = 1;
  if (next < 0) {
    sim->nfree++;
    return;
  }
  morph__sjob *k = &sim->jobs[next];
  if (--k->missing == 0)
    morph__sim_start(sim, next);
}

static void remove_running(morph_sim *sim, int job)
{
  size_t i = 0;
  while (i < sim->nrun && sim->running[i] != job)
    i++;
  if (i < sim->nrun)
    memmove(sim->running + i, sim->running + i + 1, (sim->nrun - i - 1) * sizeof *sim->running);
  sim->nrun -= i < sim->nrun;
}

static int on_end(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  j->state = J_DONE;
  j->end = sim->now;
  j->gen++; /* a job killed at its limit may still have a POINT or an END queued */
  remove_running(sim, job);
  sim->ndone++;
  /* An expansion still waiting for its point never happens: its booked
   * nodes go back; a waiting shrink's nodes are among the job's own. */
  if (j->rstate == R_WAIT_POINT && j->target > j->size)
    for (int i = 0; i < j->nd; i++)
      morph__sim_release(sim, j->delta[i]);
  for (int i = 0; i < j->nn; i++)
    morph__sim_release(sim, j->nodes[i]);
  free(j->nodes);
  free(j->delta);
  j->nodes = j->delta = NULL;
  j->nn = j->nd = 0;
  j->rstate = R_NONE;
  return MORPH_OK;
}

static int on_point(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  morph__sim_advance(sim, j);
  j->rstate = R_RECONF;
  j->gen++; /* no END while the job reconfigures */
  j->rate = 0;
  morph__sim_limit_pause(sim, job);
  double cost = morph_sim_reconf_cost(&sim->cfg, &j->w->model, j->size, j->target);
  return morph__sim_push(sim, sim->now + cost, EV_RESIZED, job);
}

static int contains(const int *v, int n, int x)
{
  for (int i = 0; i < n; i++)
    if (v[i] == x)
      return 1;
  return 0;
}

static int on_resized(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  int from = j->size;
  if (j->target > j->size) {
    memcpy(j->nodes + j->nn, j->delta, (size_t)j->nd * sizeof *j->delta);
    j->nn += j->nd;
    sim->st.expands++;
  } else {
    int k = 0;
    for (int i = 0; i < j->nn; i++)
      if (!contains(j->delta, j->nd, j->nodes[i]))
        j->nodes[k++] = j->nodes[i];
    j->nn = k;
    for (int i = 0; i < j->nd; i++)
      morph__sim_release(sim, j->delta[i]);
    sim->st.shrinks++;
  }
  j->size = j->nn;
  j->nd = 0;
  j->rstate = R_NONE;
  j->last_change = j->last_t = sim->now;
  j->resizes++;
  sim->dirty = 1;
  int rc = morph__seg_push(j, sim->now, j->size);
  if (!rc)
    rc = morph__sim_schedule_end(sim, job);
  return rc ? rc : morph__sim_limit_resized(sim, job, from);
}

/* A job still running at its limit is killed there (Slurm's TIMEOUT),
 * unless what is left is rounding: a job whose limit is its run time
 * ends, it is not killed a nanosecond before. */
static int on_limit(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  if (j->state != J_RUNNING)
    return MORPH_OK;
  morph__sim_advance(sim, j);
  if ((1.0 - j->done) * morph_model_time(&j->w->model, j->size) > 1e-6) {
    j->killed = 1;
    sim->st.timeouts++;
  }
  return on_end(sim, job);
}

static int on_submit(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  sim->future--;
  if (j->req_min > sim->cfg.nodes) {
    j->state = J_SKIPPED;
    sim->ndone++;
    return MORPH_OK;
  }
  j->state = J_PENDING;
  morph__sim_pending_add(sim, job);
  sim->dirty = 1;
  return MORPH_OK;
}

int morph__sim_handle(morph_sim *sim, const morph__ev *ev)
{
  if (ev->type == EV_SUBMIT)
    return on_submit(sim, ev->job);
  if (ev->type == EV_TICK)
    return MORPH_OK;
  if (ev->type == EV_LIMIT)
    return ev->gen == sim->jobs[ev->job].lgen ? on_limit(sim, ev->job) : MORPH_OK;
  if (ev->gen != sim->jobs[ev->job].gen)
    return MORPH_OK; /* superseded */
  if (ev->type == EV_END)
    return on_end(sim, ev->job);
  if (ev->type == EV_POINT)
    return on_point(sim, ev->job);
  return on_resized(sim, ev->job);
}
