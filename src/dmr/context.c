/*
 * The process-wide context of the DMRlib front-end, its life cycle and its
 * settings. The one global of the front-end lives here: DMRlib's calls take
 * no handle, so DMR_Init creates a single context per process and every
 * DMR_ call finds it through dmr__get().
 */
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

static dmr__ctx *the_ctx;

dmr__ctx *dmr__get(void) { return the_ctx; }

morph_ctx *DMR_Morph(void) { return the_ctx ? the_ctx->m : NULL; }

/* Registers the shared state and the data carrier with morph. */
static int register_all(dmr__ctx *c) {
  morph_callbacks cb = {dmr__pack, dmr__unpack, c};
  int rc = morph_data_replicated(c->m, "dmr.shared", c->shared, DMR__SH_COUNT, MPI_INT64_T);
  if (rc == MORPH_OK)
    rc = morph_data_replicated(c->m, "dmr.period", &c->period, 1, MPI_DOUBLE);
  if (rc == MORPH_OK)
    rc = morph_data_callbacks(c->m, "dmr.data", &cb);
  return rc;
}

/* A joiner completes the point it was created for now, so that its data
 * and step are there before it enters compute(); its first DMR_RECONFIG
 * then only runs the Recv functions. */
static int join(dmr__ctx *c) {
  morph_status st;
  int rc = morph_point(c->m, &st);
  if (rc == MORPH_OK)
    c->resume = dmr__kind(c);
  return rc;
}

int DMR_Init(const morph_options *opts) {
  if (the_ctx)
    return MORPH_ESTATE;
  dmr__ctx *c = calloc(1, sizeof *c);
  if (!c)
    return MORPH_ENOMEM;
  for (int k = DMR__SH_MIN; k < DMR__SH_COUNT; k++)
    c->shared[k] = -1;
  c->period = -1;
  int rc = morph_open(MPI_COMM_WORLD, opts, &c->m);
  if (rc != MORPH_OK) {
    free(c);
    return rc;
  }
  the_ctx = c;
  c->is_new = morph_get_status(c->m) == MORPH_NEW;
  rc = register_all(c);
  if (rc == MORPH_OK && !c->is_new)
    rc = join(c);
  if (rc != MORPH_OK)
    fprintf(stderr, "DMR_Init: %s (%s)\n", morph_strerror(rc), morph_errmsg(c->m));
  return rc;
}

int DMR_Finalize(void) {
  dmr__ctx *c = the_ctx;
  if (!c)
    return 1;
  morph_ctx *m = c->m;
  dmr__drop_received(c);
  /* A live leaver does not come back from morph_finalize(): clear the
   * context first so that nothing is left allocated either way. */
  the_ctx = NULL;
  free(c);
  return morph_finalize(m, 0);
}

int DMR_Is_new(void) { return the_ctx && the_ctx->is_new; }

int DMR_Step(void) {
  if (!the_ctx || the_ctx->is_new)
    return 0;
  return (int)(the_ctx->shared[DMR__SH_CALLS] - 1);
}

MPI_Comm DMR_Comm(void) { return the_ctx ? morph_comm(the_ctx->m) : MPI_COMM_NULL; }

MPI_Comm DMR_Intercomm(void) { return DMR_Comm(); }

int DMR_Set_parameters(int min, int max, int pref) {
  dmr__ctx *c = the_ctx;
  if (!c)
    return MORPH_ESTATE;
  int64_t *sh = c->shared;
  if (sh[DMR__SH_MIN] == min && sh[DMR__SH_MAX] == max && sh[DMR__SH_PREF] == pref)
    return MORPH_OK;
  int rc = morph_set_limits(c->m, min, max, pref);
  if (rc == MORPH_OK || rc == MORPH_ECONN) { /* ECONN: applied, launcher not told */
    sh[DMR__SH_MIN] = min;
    sh[DMR__SH_MAX] = max;
    sh[DMR__SH_PREF] = pref;
  }
  return rc;
}

/* Applies both inhibitors; a value never set counts as 0 (none). */
static int set_inhibitors(dmr__ctx *c, double period, int64_t iterations) {
  int rc = morph_set_inhibitors(c->m, period < 0 ? 0 : period,
                                iterations < 0 ? 0 : (int)iterations);
  if (rc == MORPH_OK) {
    c->period = period;
    c->shared[DMR__SH_ITERS] = iterations;
  }
  return rc;
}

int DMR_Set_sched_period(double period) {
  dmr__ctx *c = the_ctx;
  if (!c)
    return MORPH_ESTATE;
  if (period < 0)
    return MORPH_EINVAL;
  return period == c->period ? MORPH_OK : set_inhibitors(c, period, c->shared[DMR__SH_ITERS]);
}

int DMR_Set_sched_iterations(int iterations) {
  dmr__ctx *c = the_ctx;
  if (!c)
    return MORPH_ESTATE;
  if (iterations < 0)
    return MORPH_EINVAL;
  if (iterations == c->shared[DMR__SH_ITERS])
    return MORPH_OK;
  return set_inhibitors(c, c->period, iterations);
}
