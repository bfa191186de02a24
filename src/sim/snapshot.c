/* The policy engine's view of the simulated cluster: the snapshot handed
 * to every decision, and the queue's part of it, kept up to date. */
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
  p->walltime = morph__sim_estimate_pending(sim, j);
  sim->pending[sim->npend++] = job;
}

void morph__sim_pending_remove(morph_sim *sim, int job)
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

/* What libmorph measures on a real job (MPI time over loop time, paper
 * 002's MTCT, average and trend) comes from the model here: the share of
 * its time a process does not compute its part (morph_model_mpi_share).
 * It depends on the size only, so average and trend agree; efficiency is
 * the rest. */
static void measure(const morph__sjob *j, morph_policy_job *p)
{
  double mtct = morph_model_mpi_share(&j->w->model, j->size);
  p->mtct_avg = p->mtct_trend = mtct;
  p->efficiency = 1.0 - mtct;
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
    p->walltime = morph__sim_estimate_running(sim, j);
    measure(j, p);
  }
}

void morph__sim_snapshot(morph_sim *sim, morph_policy_snapshot *s)
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
