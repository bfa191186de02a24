/* Elastic MPI's runtime scheduling rule (paper 002, section 3.3.4, "Runtime
 * Scheduling"). For each elastic job the monitor gives two values of the
 * MPI-to-compute-time ratio (MTCT = total MPI time / total loop time of the
 * current loop): an average and a trend.
 *   - If any of the two is above the upper threshold, halve the job.
 *   - If both are below the lower threshold, double it.
 *   - Otherwise (one in between, or unknown), leave it unchanged.
 * The paper favours launching new jobs over expanding running ones, so the
 * halvings come first (before the start policy runs), then jobs start, and
 * only then do the doublings take what is still free. Units released by a
 * halving are not reused in the same decision: the processes must leave
 * first. A doubling that does not fully fit takes what is free (rounded to
 * an allowed size), within the job's limits; a halving stops at the job's
 * minimum. Thresholds: params mtct_lower / mtct_upper. */
#include "internal.h"

static int known(const morph_policy_job *job)
{
  return job->mtct_avg >= 0 && job->mtct_trend >= 0;
}

static int eligible(const morph__pass *run, int j)
{
  return morph__resizable(run, j) && !morph__inhibited(run, j) && known(&run->snap->running[j]);
}

int morph__mtct_before(morph__pass *run)
{
  double upper = run->params->mtct_upper;
  for (int j = 0; j < run->snap->nrunning; j++) {
    const morph_policy_job *job = &run->snap->running[j];
    if (!eligible(run, j) || (job->mtct_avg <= upper && job->mtct_trend <= upper))
      continue;
    int size = run->s->size[j];
    int want = size / 2 > job->min ? size / 2 : job->min;
    int to = morph__size_down(run->params->sizes, size, job->min, want);
    int rc = to > 0 ? morph__shrink_job(run, j, to, MORPH_POLICY_RELEASE_ANY) : MORPH_OK;
    if (rc)
      return rc;
  }
  return MORPH_OK;
}

int morph__mtct_after(morph__pass *run)
{
  double lower = run->params->mtct_lower;
  for (int j = 0; j < run->snap->nrunning && morph__free_units(run) > 0; j++) {
    const morph_policy_job *job = &run->snap->running[j];
    if (!eligible(run, j) || job->mtct_avg >= lower || job->mtct_trend >= lower)
      continue;
    int size = run->s->size[j];
    long hi = size + morph__free_units(run);
    if (hi > 2L * size)
      hi = 2L * size;
    if (hi > job->max)
      hi = job->max;
    int to = morph__size_up(run->params->sizes, size, (int)hi);
    int rc = to > size ? morph__expand_job(run, j, to) : MORPH_OK;
    if (rc)
      return rc;
  }
  return MORPH_OK;
}
