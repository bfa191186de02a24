/* DMRlib's reconfiguration policy, Algorithm 2 of paper 000 (section 5.1,
 * "Taking resize actions algorithm"), evaluated for every running malleable
 * job that may be resized now:
 *
 *    1: if current < preferred then
 *    2:   if avail_resources then return expand
 *    3: else
 *    4:   if pending_jobs then
 *    5:     if current > preferred then
 *    6:       if an additional job can be initiated then return shrink
 *    7:       else
 *    8:         if avail_resources then return expand
 *    9:     if avail_resources then return expand        (current == preferred)
 *   10:   else
 *   11:     if avail_resources then return expand
 *
 * Reading of the text around it: a job is shrunk only above its preferred
 * size, never below it, and only if the released resources let a pending job
 * start; that pending job then gets the highest priority (here: the released
 * units are booked for it in the same decision, its START depends on the
 * SHRINK). Expansions never exceed the upper limit.
 *
 * The algorithm is per job; the order in which jobs are evaluated is ours:
 * first every job's line 6 (shrink to start a pending job), then the
 * expansions, so that free units go to pending jobs before running ones
 * grow, which is the stated aim ("designed to improve the throughput").
 * Starts are done before both by the start policy (fcfs or easy), as Slurm
 * schedules the queue before jobs reach their reconfiguration points, so
 * "pending jobs" means the jobs the start policy could not start.
 *
 * Which pending job does line 6 pick? The first in queue order whose minimum
 * fits in the free units plus what this job can release; if that job would
 * fit without the shrink (it waits only because of queue order), the shrink
 * would not be what starts it, so there is none. The shrink releases only
 * the units that job needs (rounded to an allowed size), never going below
 * the preferred size; the started job gets as many units as are then free,
 * up to its maximum (moldable requests). */
#include "internal.h"

/* Line 6 for running job j: shrinks it if that lets a pending job start, and
 * starts that job. */
static int shrink_for_pending(morph__pass *run, int j, int to_min)
{
  morph_policy_sizes rule = run->params->sizes;
  int size = run->s->size[j];
  int least = to_min ? run->snap->running[j].min : morph__shrink_floor(run, j);
  /* Line 5: only above the preferred size; never below it (section 5.1),
   * unless the shrink_floor parameter says min (an assumption to vary). */
  if (size <= least)
    return MORPH_OK;
  /* Released units must be on UP nodes to serve the pending job. */
  int floor = size - morph__releasable_up(run, j);
  int lo = morph__size_min(rule, size, floor > least ? floor : least);
  if (lo == 0)
    return MORPH_OK;
  long free = morph__free_units(run);
  int p = morph__tree_first_le(&run->s->tree, free + size - lo);
  if (p < 0 || run->snap->pending[p].req_min <= free)
    return MORPH_OK;
  int need = run->snap->pending[p].req_min - (int)free;
  int to = morph__size_down(rule, size, lo, size - need);
  int a = run->out->n;
  int rc = morph__shrink_job(run, j, to, MORPH_POLICY_RELEASE_UP);
  if (rc)
    return rc;
  long avail = free + (size - to);
  int n = run->snap->pending[p].req_max < avail ? run->snap->pending[p].req_max : (int)avail;
  return morph__start_job(run, p, n, a);
}

/* Lines 2, 8, 9 and 11: expand towards the upper limit with `avail` of
 * the free units; returns the units taken or an error. */
static int expand_if_avail(morph__pass *run, int j, long avail)
{
  const morph_policy_job *job = &run->snap->running[j];
  int size = run->s->size[j];
  long hi = size + avail;
  if (hi > job->max)
    hi = job->max;
  int to = morph__size_up(run->params->sizes, size, (int)hi);
  int rc = to > size ? morph__expand_job(run, j, to) : MORPH_OK;
  return rc ? rc : (to > size ? to - size : 0);
}

static int eligible(const morph__pass *run, int j)
{
  return morph__resizable(run, j) && !morph__inhibited(run, j);
}

/* Lines 4-6 for every job first: pending jobs exist while the tree has a
 * job left (its minimum is below INT32_MAX). */
int morph__dmr_shrink_pass(morph__pass *run, int to_min)
{
  for (int j = 0; j < run->snap->nrunning && morph__tree_first_le(&run->s->tree, INT32_MAX - 1) >= 0;
       j++) {
    if (!eligible(run, j))
      continue;
    int rc = shrink_for_pending(run, j, to_min);
    if (rc)
      return rc;
  }
  return MORPH_OK;
}

/* Lines 1-2 (current < preferred), 8 (line 6 found nothing), 9 (current
 * == preferred) and 11 (no pending job): all expand if resources are free,
 * here with at most `avail` of them; a job shrunk above is no longer
 * eligible (one action per job). */
static int expand_pass(morph__pass *run, long avail)
{
  if (avail > morph__free_units(run))
    avail = morph__free_units(run);
  for (int j = 0; j < run->snap->nrunning && avail > 0; j++) {
    if (!eligible(run, j))
      continue;
    int got = expand_if_avail(run, j, avail);
    if (got < 0)
      return got;
    avail -= got;
  }
  return MORPH_OK;
}

int morph__dmr_after(morph__pass *run)
{
  int rc = morph__dmr_shrink_pass(run, 0);
  return rc ? rc : expand_pass(run, morph__free_units(run));
}

/* dmr-slurm: Algorithm 2 as Slurm's priority scheduler carries it out. An
 * expansion is a request for more nodes that waits in the queue behind
 * every job of higher priority (DMRlib submits it as a job), so it only
 * gets nodes the waiting jobs are not waiting for: free units above what
 * the waiting jobs need, in queue order, and none once a waiting job
 * needs more than is free. Line 6 is unchanged: the free units it counts
 * are the ones kept back this way, so they add up until one shrink is
 * enough to start the head. */
int morph__dmr_slurm_after(morph__pass *run)
{
  int rc = morph__dmr_shrink_pass(run, 0);
  return rc ? rc : expand_pass(run, morph__spare_units(run));
}
