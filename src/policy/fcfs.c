/* First come, first served. Jobs start in queue order while they fit; the
 * first that does not fit stops the queue (no job overtakes it). A moldable
 * request min-max gets as many units as are free, up to max, like Slurm's
 * `-N min-max`: taking more cannot delay its own start, and under FCFS no
 * later job may start before it anyway. */
#include "internal.h"

/* Starts the queue's jobs in order until one does not fit; returns the index
 * of that job (the head of the remaining queue), npending if all started,
 * or a negative error. Shared with easy.c, whose first pass is FCFS. */
int morph__fcfs_prefix(morph__pass *run)
{
  const morph_policy_snapshot *snap = run->snap;
  for (int p = 0; p < snap->npending; p++) {
    const morph_policy_job *job = &snap->pending[p];
    if (run->s->started[p]) /* a resize policy's `before` hook may start jobs */
      continue;
    long free = morph__free_units(run);
    if (job->req_min > free)
      return p;
    int n = job->req_max < free ? job->req_max : (int)free;
    int rc = morph__start_job(run, p, n, -1);
    if (rc)
      return rc;
  }
  return snap->npending;
}

int morph__fcfs_start(morph__pass *run)
{
  int head = morph__fcfs_prefix(run);
  return head < 0 ? head : MORPH_OK;
}
