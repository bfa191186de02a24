/* Stepping scheduler (paper 002 section 5.4.4, Table 5.4): an elastic job
 * starts small and gains `step_units` units every `step_period` seconds,
 * up to its maximum, while units are free. Elastic MPI used it to follow a
 * tsunami simulation whose grid, and so its useful parallelism, grows over
 * the run: 1 node at the start, more every 60 s, against a static run on
 * all 32 nodes. It never shrinks; starts are the start policy's, so pending
 * jobs get free units before running jobs step up. */
#include "internal.h"

/* A job steps up when its last change (start or resize) is a full period
 * old; the scheduling period inhibitor still applies. */
static int due(const morph__pass *run, int j)
{
  const morph_policy_job *job = &run->snap->running[j];
  return morph__resizable(run, j) && !morph__inhibited(run, j) &&
         run->snap->now - job->last_change >= run->params->step_period;
}

int morph__stepping_after(morph__pass *run)
{
  for (int j = 0; j < run->snap->nrunning && morph__free_units(run) > 0; j++) {
    if (!due(run, j))
      continue;
    int size = run->s->size[j];
    long hi = (long)size + run->params->step_units;
    if (hi > size + morph__free_units(run))
      hi = size + morph__free_units(run);
    if (hi > run->snap->running[j].max)
      hi = run->snap->running[j].max;
    int to = morph__size_up(run->params->sizes, size, (int)hi);
    int rc = to > size ? morph__expand_job(run, j, to) : MORPH_OK;
    if (rc)
      return rc;
  }
  return MORPH_OK;
}
