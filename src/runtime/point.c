/*
 * The reconfiguration point: the per-iteration check for a decision and the
 * entry into the adaptation window. Its common path must cost nearly
 * nothing, so the inhibitors are turned into a count of points to skip that
 * rank 0 computes and broadcasts: every process then skips the same points
 * without talking to anyone.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "runtime/client.h"
#include "runtime/window.h"

/* What rank 0 tells everyone at a check. */
typedef struct check_msg {
  int act;          /* 1: open a window */
  int id, target, mechanism, seq;
  int64_t skip;     /* points to skip before the next check */
  double step_timeout;
} check_msg;

static void measure(morph_ctx *ctx)
{
  double now = morph__now(), dt = now - ctx->last_point;
  ctx->last_point = now;
  /* A smoothed iteration time: the time inhibitor needs a stable value. */
  ctx->iter_time = ctx->iter_time > 0 ? 0.8 * ctx->iter_time + 0.2 * dt : dt;
}

static int64_t skip_after_check(const morph_ctx *ctx)
{
  const morph_options *o = &ctx->opts;
  int64_t k = o->sched_iterations > 1 ? o->sched_iterations - 1 : 0;
  if (o->sched_period > 0 && ctx->iter_time > 0) {
    double p = ceil(o->sched_period / ctx->iter_time) - 1;
    if (p > (double)k)
      k = p > 1e12 ? (int64_t)1e12 : (int64_t)p;
  }
  return k;
}

/* The mechanism for a decision, or a negative error if none can do it. */
static int choose_mechanism(const morph_ctx *ctx, int target, char *why, size_t n)
{
  morph_mechanism m = ctx->decision.mechanism ? ctx->decision.mechanism : ctx->opts.mechanism;
  int shrink = target < ctx->size;
  /* A live shrink needs leavers that can end alone (see morph_finalize). */
  int live = ctx->live_ok && (!shrink || ctx->allow_early_exit);
  if (m == MORPH_MECH_LIVE && !live) {
    snprintf(why, n, "live %s is not available here (%s)", shrink ? "shrink" : "expansion",
             !ctx->live_ok ? "no dynamic processes in this MPI, or a spawn hung earlier"
                           : "mpirun lacks --mca orte_allowed_exit_without_sync 1");
    return MORPH_ENOSYS;
  }
  if (m == MORPH_MECH_AUTO)
    m = live ? MORPH_MECH_LIVE : MORPH_MECH_RELAUNCH;
  if (m == MORPH_MECH_RELAUNCH && ctx->conn.fd < 0) {
    snprintf(why, n, "a relaunch needs a launcher to start the job again");
    return MORPH_ENOSYS;
  }
  return (int)m;
}

static void refuse(morph_ctx *ctx, int err, const char *why)
{
  memset(&ctx->report, 0, sizeof ctx->report);
  ctx->report.outcome = err;
  ctx->report.old_size = ctx->report.new_size = ctx->size;
  ctx->report.requested_size = ctx->decision.target;
  ctx->report.iteration = ctx->iteration;
  snprintf(ctx->report.message, sizeof ctx->report.message, "%s", why);
  morph__log(MORPH_LOG_WARN, "0", "decision %d refused: %s", ctx->decision.id, why);
  morph__client_ack(ctx, NULL);
  ctx->decision.pending = 0;
}

/* Rank 0: is there a decision to carry out now? */
static void decide(morph_ctx *ctx, check_msg *m)
{
  morph__client_poll(ctx);
  morph__client_progress(ctx);
  m->skip = skip_after_check(ctx);
  morph__decision *d = &ctx->decision;
  if (!d->pending || (d->at_iteration >= 0 && ctx->iteration < d->at_iteration))
    return;
  if (d->target == ctx->size) {
    refuse(ctx, MORPH_OK, "already at that size");
    return;
  }
  char why[200];
  int mech = choose_mechanism(ctx, d->target, why, sizeof why);
  if (mech < 0) {
    refuse(ctx, mech, why);
    return;
  }
  m->act = 1, m->id = d->id, m->target = d->target, m->mechanism = mech;
  m->seq = ctx->reconf_seq + 1;
  m->step_timeout = ctx->opts.step_timeout;
}

static void window_init(morph_ctx *ctx, morph__window *w, const check_msg *m)
{
  memset(w, 0, sizeof *w);
  w->id = m->id, w->seq = m->seq, w->old_size = ctx->size, w->new_size = m->target;
  w->mechanism = (morph_mechanism)m->mechanism;
  w->iteration = ctx->iteration;
  w->step_timeout = m->step_timeout;
  w->t0 = morph__now();
  w->newcomm = w->intercomm = w->spawncomm = w->staycomm = MPI_COMM_NULL;
}

static int reconfigure(morph_ctx *ctx, const check_msg *m)
{
  morph__window w;
  window_init(ctx, &w, m);
  ctx->reconf_seq = m->seq;
  int rc = morph__window_run(ctx, &w);
  if (ctx->rank == 0) {
    morph__client_ack(ctx, rc == MORPH_OK && w.mechanism == MORPH_MECH_RELAUNCH ? w.checkpoint
                                                                               : NULL);
    ctx->decision.pending = 0;
  }
  /* A rollback is reported, not returned: the job goes on at its old size,
   * unless a process died and there is no old size to go back to. */
  return ctx->broken ? MORPH_EMPI : MORPH_OK;
}

static int check(morph_ctx *ctx)
{
  check_msg m;
  memset(&m, 0, sizeof m);
  if (ctx->rank == 0)
    decide(ctx, &m);
  if (MPI_Bcast(&m, (int)sizeof m, MPI_BYTE, 0, ctx->comm) != MPI_SUCCESS)
    return morph__fail(ctx, MORPH_EMPI, "broadcast of the decision failed");
  ctx->skip = m.skip;
  return m.act ? reconfigure(ctx, &m) : MORPH_OK;
}

/* A joiner's or relaunched process's first point completes its arrival. */
static int arrive(morph_ctx *ctx)
{
  if (ctx->restore_pending)
    return morph__relaunch_restore(ctx);
  morph__window *w = ctx->pending;
  ctx->pending = NULL;
  ctx->iteration = w->iteration;
  morph__window_run(ctx, w);
  free(w);
  return MORPH_OK;
}

int morph_point(morph_ctx *ctx, morph_status *status)
{
  if (!ctx || !status)
    return MORPH_EINVAL;
  if (ctx->status == MORPH_LEAVING)
    return morph__fail(ctx, MORPH_ESTATE, "morph_point called by a leaving process");
  if (ctx->broken)
    return MORPH_EMPI;
  int rc;
  if (ctx->status == MORPH_JOINING && (ctx->pending || ctx->restore_pending)) {
    rc = arrive(ctx);
  } else {
    ctx->status = MORPH_STAYING;
    ctx->iteration++;
    if (ctx->rank == 0)
      measure(ctx);
    rc = ctx->skip > 0 ? (ctx->skip--, MORPH_OK) : check(ctx);
  }
  *status = ctx->status;
  return rc;
}
