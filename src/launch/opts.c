#include "opts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"

void morph__launch_opts_init(struct morph__launch_opts *o)
{
  memset(o, 0, sizeof *o);
  o->mechanism = -1;
  o->start_timeout = 60;
  o->leave_timeout = 30;
  o->exit_timeout = 30;
  o->grace = 5;
}

static int invalid(char *err, size_t errsize, const char *why)
{
  snprintf(err, errsize, "%s", why);
  return MORPH_EINVAL;
}

/* The sizes against the limits; the schedule last, so its message names
 * the first entry outside them. */
static int check_sizes(const struct morph__launch_opts *o, char *err, size_t errsize)
{
  int min = o->min ? o->min : 1;
  if (o->np < 1)
    return invalid(err, errsize, "-n N (the initial number of processes) is required");
  if (o->max && min > o->max)
    return invalid(err, errsize, "--min is larger than --max");
  if (o->pref && (o->pref < min || (o->max && o->pref > o->max)))
    return invalid(err, errsize, "--pref is outside [--min, --max]");
  if (o->np < min || (o->max && o->np > o->max))
    return invalid(err, errsize, "-n is outside [--min, --max]");
  int rc = morph__launch_sched_check(&o->sched, min, o->max, err, errsize);
  return rc == MORPH_OK ? morph__launch_sched_check_clauses(&o->sched, o->np, err, errsize) : rc;
}

int morph__launch_opts_check(const struct morph__launch_opts *o, char *err, size_t errsize)
{
  if (!o->cmd.app || !o->cmd.app[0])
    return invalid(err, errsize, "no program to run");
  if (o->server && !o->job_id)
    return invalid(err, errsize, "--server needs --job-id (the id morphd knows the job by)");
  return check_sizes(o, err, errsize);
}

void morph__launch_opts_free(struct morph__launch_opts *o)
{
  free(o->cmd.args);
  o->cmd.args = NULL;
  o->cmd.n_args = 0;
  morph__launch_sched_free(&o->sched);
}
