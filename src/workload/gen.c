/*
 * Workload generator as paper 000 section 5.4 used it: Feitelson's model for
 * arrivals (Poisson process, inter-arrival factor 1: the stressed case) and
 * jobs drawn uniformly from the applications, with Table 5 limits and
 * Table 6 requests.
 */
#include <string.h>

#include "internal.h"
#include "rng.h"

static const char *const default_apps[] = {"cg", "jacobi", "nbody", "hpg-aligner"};

void morph_gen_options_init(morph_gen_options *opt)
{
  memset(opt, 0, sizeof *opt);
  opt->njobs = 1000;
  opt->seed = 1;
  opt->mean_interarrival = 10.0;
  opt->arrival_factor = 1.0;
  opt->malleable_share = 1.0;
  opt->max_size = 32;
}

static int check_options(morph_workload *wl, const morph_gen_options *o, const char *const *apps,
                         size_t napps)
{
  morph_app_info info;
  if (o->njobs == 0 || !(o->mean_interarrival >= 0) || !(o->arrival_factor >= 0) ||
      o->malleable_share < 0 || o->malleable_share > 1 || o->max_size < 0 || napps == 0)
    return morph__wl_fail(wl, MORPH_EINVAL, "generator options out of range");
  for (size_t i = 0; i < napps; i++)
    if (morph_app_lookup(apps[i], &info) != MORPH_OK)
      return morph__wl_fail(wl, MORPH_EINVAL, "generator: unknown application '%s'", apps[i]);
  if (o->malleable_app && morph_app_lookup(o->malleable_app, &info) != MORPH_OK)
    return morph__wl_fail(wl, MORPH_EINVAL, "generator: unknown application '%s'",
                          o->malleable_app);
  return MORPH_OK;
}

/* Draws in a fixed order (arrival, application, malleability) so that the
 * same seed gives the same arrivals and applications whatever the kinds:
 * the fixed and flexible versions of a workload differ only in kind. */
static int gen_one(morph_workload *wl, const morph_gen_options *o, const char *const *apps,
                   size_t napps, morph__rng *rng, double *t)
{
  *t += morph__rng_exp(rng, o->mean_interarrival * o->arrival_factor);
  const char *app = apps[morph__rng_below(rng, napps)];
  double u = morph__rng_uniform(rng);
  int malleable = o->malleable_app ? !strcmp(app, o->malleable_app) : u < o->malleable_share;
  morph_job_kind kind = o->moldable ? (malleable ? MORPH_KIND_FLEXIBLE : MORPH_KIND_MOLDABLE)
                                    : (malleable ? MORPH_KIND_MALLEABLE : MORPH_KIND_FIXED);
  morph_wjob job;
  memset(&job, 0, sizeof job);
  morph__wjob_from_app(&job, app, kind, o->max_size);
  job.app = (char *)app;
  job.submit = wl->njobs == 0 ? 0.0 : *t;
  return morph_workload_add(wl, &job);
}

int morph_workload_generate(morph_workload *wl, const morph_gen_options *opt)
{
  morph_gen_options defaults;
  if (!wl)
    return MORPH_EINVAL;
  if (!opt)
    morph_gen_options_init(&defaults), opt = &defaults;
  const char *const *apps = opt->apps ? opt->apps : default_apps;
  size_t napps = opt->apps ? opt->napps : 4;
  morph_workload_clear(wl);
  int rc = check_options(wl, opt, apps, napps);
  morph__rng rng;
  morph__rng_seed(&rng, opt->seed);
  double t = 0;
  for (size_t i = 0; i < opt->njobs && !rc; i++)
    rc = gen_one(wl, opt, apps, napps, &rng, &t);
  if (rc) {
    morph_workload_clear(wl);
    return rc;
  }
  morph__wl_fail(wl, MORPH_OK, "%s", "");
  return MORPH_OK;
}
