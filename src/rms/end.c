/*
 * How jobs end: their processes are gone (BYE, or the backend saw them
 * exit or vanish), a cancel, a shutdown that stops them all, or a node
 * they ran on going down. A job's pieces go back only when its processes
 * are gone, never when the end is merely asked for.
 */
#include <stdio.h>
#include <string.h>

#include "morph/error.h"
#include "rms/morphd.h"

static morph__jstate final_state(const morph__job *job, int status)
{
  if (job->cancel)
    return MORPH__J_CANCELLED;
  if (job->fault[0])
    return MORPH__J_FAILED;
  return status == 0 ? MORPH__J_COMPLETED : MORPH__J_FAILED;
}

void morph__job_end(morph__daemon *d, morph__job *job, int status, const char *text)
{
  if (morph__jstate_final(job->state))
    return;
  char why[sizeof job->fault + 256];
  if (job->fault[0])
    snprintf(why, sizeof why, "%s%s%s", job->fault, text && *text ? "; " : "", text ? text : "");
  morph__journal_begin(d->journal);
  morph__resize_abort(d, job, MORPH_ECONN, "the job ended");
  morph__backend_drop(d->be, job);
  morph__job_record_end(d, job, final_state(job, status), status, job->fault[0] ? why : text);
  morph__journal_commit(d->journal);
}

int morph__job_cancel(morph__daemon *d, morph__job *job)
{
  if (morph__jstate_final(job->state))
    return MORPH_ESTATE;
  job->cancel = 1;
  int running = job->state == MORPH__J_RUNNING;
  /* Written before the job is stopped, so that a restarted morphd records
   * it as cancelled (kept in memory if the journal cannot take it now). */
  morph__job_save(d, job);
  if (running && morph__backend_stop(d->be, job) == MORPH_OK)
    return MORPH_OK; /* it ends when its processes are gone (BYE or exit) */
  morph__job_end(d, job, -1, running ? "cancelled; its processes were gone already"
                                     : "cancelled before it started");
  return MORPH_OK;
}

void morph__jobs_kill_all(morph__daemon *d)
{
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state != MORPH__J_RUNNING)
      continue;
    job->cancel = 1;
    morph__job_save(d, job);
    morph__backend_stop(d->be, job);
  }
}

void morph__jobs_node_down(morph__daemon *d, int node, const char *why)
{
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (job->state != MORPH__J_RUNNING || job->fault[0] || !morph__alloc_on(&job->alloc, node))
      continue;
    snprintf(job->fault, sizeof job->fault, "%s", why);
    morph__journal_event(d->journal, morph__wall(), job->id, "fault", "%s: stopping it", why);
    morph__say(&d->log, 0, "job %lld: %s: stopping it", (long long)job->id, why);
    if (morph__backend_stop(d->be, job) != MORPH_OK)
      morph__job_end(d, job, -1, "its processes could not be reached");
  }
}
