/*
 * Time limits of morphd's jobs (docs/morphd.md "Time limits"), as the
 * simulator models them (docs/sim.md): a job's `walltime` is for its
 * largest request, its reference size; started below it, the limit
 * stretches by reference / size, and shrunk further below it, what is left
 * stretches by the same ratio of ratios (the most a job that scales no
 * better than linearly slows down); a grow never shortens it, and the time a
 * resize keeps the job paused does not count. A job still running at its
 * limit is stopped and ends failed, "TIMEOUT", like Slurm's. The policy
 * plans backfilling with the limit.
 *
 * A job's limit is in its journal row (walltime, limit_end, limit_size).
 */
#include <stdio.h>

#include "morph/error.h"
#include "rms/morphd.h"

static double stretch(const morph__job *job, int size)
{
  return size > 0 && job->req_max > size ? (double)job->req_max / size : 1.0;
}

void morph__limit_pause(morph__job *job, double now)
{
  if (job->walltime > 0 && job->limit_pause <= 0)
    job->limit_pause = now;
}

/* A resize is over (done or not): what was left when it began, stretched
 * if the job went further below its reference size, from when it ended. */
static void resized(morph__job *job, double now)
{
  double from = job->limit_pause > 0 ? job->limit_pause : now;
  double left = job->limit_end - from > 0 ? job->limit_end - from : 0;
  double more = stretch(job, job->size) / stretch(job, job->limit_size);
  left *= more > 1 ? more : 1;
  double ended = job->last_change > from ? job->last_change : now;
  job->limit_end = (job->limit_pause > 0 ? ended : now) + left;
  job->limit_pause = 0;
  job->limit_size = job->size;
}

/* Keeps a running job's limit up to date; returns nonzero if it moved. */
static int follow(morph__job *job, double now)
{
  if (job->limit_end <= 0) {
    job->limit_end = job->start + job->walltime * stretch(job, job->size);
    job->limit_size = job->size;
    return 1;
  }
  if (job->rz_id != 0 || (job->limit_pause <= 0 && job->size == job->limit_size))
    return 0; /* paused, or nothing happened */
  resized(job, now);
  return 1;
}

static void stop(morph__daemon *d, morph__job *job, double now)
{
  snprintf(job->fault, sizeof job->fault, "TIMEOUT: its time limit of %.0f s was reached",
           job->walltime);
  morph__journal_event(d->journal, now, job->id, "timeout", "%s: stopping it", job->fault);
  morph__say(&d->log, 0, "job %lld: %s: stopping it", (long long)job->id, job->fault);
  if (morph__backend_stop(d->be, job) != MORPH_OK)
    morph__job_end(d, job, -1, "its processes could not be reached");
}

void morph__limits_tick(morph__daemon *d)
{
  double now = morph__wall();
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if (morph__jstate_final(job->state))
      continue;
    if (job->state != MORPH__J_RUNNING || job->walltime <= 0)
      continue;
    if (follow(job, now))
      morph__job_save(d, job);
    if (now >= job->limit_end && job->rz_id == 0 && !job->cancel && !job->fault[0])
      stop(d, job, now);
  }
}

double morph__limit_estimate(const morph__job *job)
{
  if (job->walltime <= 0)
    return 0;
  if (job->state == MORPH__J_RUNNING && job->limit_end > 0)
    return job->limit_end - job->start;
  return job->walltime * stretch(job, job->req_min);
}
