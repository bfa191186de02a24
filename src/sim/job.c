/* A job's progress in simulated time: work done, rate at its size, its
 * end event, its size history and the cost of a resize. */
#include <stdlib.h>

#include "internal.h"

int morph__seg_push(morph__sjob *j, double t, int size)
{
  if (j->nseg == j->segcap) {
    size_t cap = j->segcap ? j->segcap * 2 : 2;
    morph_seg *v = realloc(j->seg, cap * sizeof *v);
    if (!v)
      return MORPH_ENOMEM;
    j->seg = v;
    j->segcap = cap;
  }
  j->seg[j->nseg++] = (morph_seg){t, size};
  return MORPH_OK;
}

/* Work done so far, as a fraction of the job. */
void morph__sim_advance(morph_sim *sim, morph__sjob *j)
{
  j->done += (sim->now - j->last_t) * j->rate;
  if (j->done > 1.0)
    j->done = 1.0;
  j->last_t = sim->now;
}

static void set_rate(morph__sjob *j)
{
  j->rate = j->rstate == R_RECONF ? 0.0 : 1.0 / morph_model_time(&j->w->model, j->size);
}

/* A new END replaces any earlier one: bumping gen makes old events stale. */
int morph__sim_schedule_end(morph_sim *sim, int job)
{
  morph__sjob *j = &sim->jobs[job];
  j->gen++;
  set_rate(j);
  if (j->rate <= 0)
    return MORPH_OK;
  return morph__sim_push(sim, sim->now + (1.0 - j->done) / j->rate, EV_END, job);
}

double morph_sim_reconf_cost(const morph_sim_config *cfg, const morph_model *m, int from, int to)
{
  int lo = from < to ? from : to, hi = from < to ? to : from;
  if (lo < 1 || lo == hi)
    return 0;
  double moved = m->data_bytes * (1.0 - (double)lo / hi);
  return (to > from ? cfg->expand_cost : cfg->shrink_cost) + moved / (cfg->bandwidth * lo);
}
