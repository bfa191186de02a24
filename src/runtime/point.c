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
#include "runtime/move.h"
#include "runtime/window.h"

typedef morph__check check_msg;

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
  if (d->target == ctx->size && !d->move) {
    refuse(ctx, MORPH_OK, "already at that size");
    return;
  }
  /* A move is a grow onto its hosts, then a shrink off the others. */
  int target = d->move && !d->move_half ? ctx->size + d->move : d->target;
  char why[200];
  int mech = choose_mechanism(ctx, target, why, sizeof why);
  if (mech >= 0 && d->move && mech != MORPH_MECH_LIVE) {
    snprintf(why, sizeof why, "a move needs the live mechanism (a relaunch places the processes "
             "by the launcher's mapping, not on the hosts named)");
    mech = MORPH_ENOSYS;
  }
  /* DMRlib's and Elastic MPI's APIs have no word for a move: their
   * programs would take its grow for a resize. */
  if (mech >= 0 && d->move && ctx->frontend[0] && strncmp(ctx->frontend, "PCM", 3) != 0) {
    snprintf(why, sizeof why, "the %.60s front-end does not carry out moves (PCM and morph.h do)",
             ctx->frontend);
    mech = MORPH_ENOSYS;
  }
  if (mech < 0) {
    refuse(ctx, mech, why);
    return;
  }
  m->act = 1, m->id = d->id, m->target = target, m->mechanism = mech;
  m->move = d->move, m->half = d->move ? (d->move_half ? 2 : 1) : 0;
  m->named = d->hosts[0] != '\0';
  m->seq = ctx->reconf_seq + 1;
  m->step_timeout = ctx->opts.step_timeout;
  /* A spawn thread beside the application's MPI calls needs
   * MPI_THREAD_MULTIPLE; a move's grow stays in its window (its shrink
   * follows at once). */
  m->background = ctx->spawn_background && ctx->thread_multiple && mech == MORPH_MECH_LIVE &&
                  target > ctx->size && !d->move;
}

static void window_init(morph_ctx *ctx, morph__window *w, const check_msg *m)
{
  memset(w, 0, sizeof *w);
  w->id = m->id, w->seq = m->seq, w->old_size = ctx->size, w->new_size = m->target;
  w->mechanism = (morph_mechanism)m->mechanism;
  w->iteration = ctx->iteration;
  w->step_timeout = m->step_timeout;
  w->move = m->move, w->half = m->half, w->named = m->named;
  w->t0 = m->background ? ctx->bg.t0 : morph__now();
  w->newcomm = w->intercomm = w->spawncomm = w->staycomm = MPI_COMM_NULL;
}

/* Which processes a move moves, on every process: at its first half from
 * the hosts it names (so that PCM_Status can tell the movers before any
 * window), kept for its second. A move the hosts cannot honour (fewer
 * processes there than it moves, rank 0 aside) is refused on all. */
static int find_movers(morph_ctx *ctx, check_msg *m)
{
  if (m->half == 2) {
    m->mover = ctx->move_mover;
    return MORPH_OK;
  }
  int unmet = morph__live_movers(ctx, m->move, &m->mover);
  ctx->move_mover = m->mover;
  if (unmet == 0)
    return MORPH_OK;
  m->act = 0;
  if (unmet < 0)
    return morph__fail(ctx, unmet, "finding the processes of a move failed");
  if (ctx->rank == 0) {
    char why[200];
    snprintf(why, sizeof why, "a move off %.100s: %d of its %d process(es) are not there (rank 0 "
             "never moves)", ctx->decision.from, unmet, m->move);
    refuse(ctx, MORPH_EINVAL, why);
  }
  return MORPH_OK;
}

/* A live grow found at this check: its joiners are spawned in the
 * background and nothing is pending until they are up (poll_background).
 * A failure to start shows there, as a window that rolls back. */
static int start_background(morph_ctx *ctx)
{
  ctx->bg.check = ctx->probed;
  ctx->probed.act = 0;
  int rc = morph__live_spawn_start(ctx, ctx->bg.check.target - ctx->size);
  if (rc != MORPH_OK && ctx->rank == 0)
    morph__log(MORPH_LOG_WARN, "0", "the background spawn could not start: %s",
               morph_strerror(rc));
  return MORPH_OK;
}

/* Every point while the joiners start: once all parents agree that the
 * spawn has finished (or failed, or timed out), the grow is pending. */
static int poll_background(morph_ctx *ctx)
{
  int ready;
  morph__live_spawn_poll(ctx, &ready);
  if (ready) {
    ctx->probed = ctx->bg.check;
    ctx->bg.check.act = 0;
  }
  return MORPH_OK;
}

static int check(morph_ctx *ctx)
{
  check_msg *m = &ctx->probed;
  memset(m, 0, sizeof *m);
  if (ctx->rank == 0)
    decide(ctx, m);
  if (MPI_Bcast(m, (int)sizeof *m, MPI_BYTE, 0, ctx->comm) != MPI_SUCCESS) {
    m->act = 0;
    return morph__fail(ctx, MORPH_EMPI, "broadcast of the decision failed");
  }
  ctx->skip = m->skip;
  if (m->act && m->background)
    return start_background(ctx);
  return m->act && m->half ? find_movers(ctx, m) : MORPH_OK;
}

/* The calls a front-end makes itself pass; the application's do not. */
static int guard(morph_ctx *ctx, const char *call)
{
  if (ctx->frontend[0] && ctx->frontend_depth == 0)
    return morph__fail(ctx, MORPH_ESTATE, "%s: this context is driven by the %s front-end; "
                       "use its calls, not the native ones", call, ctx->frontend);
  if (ctx->status == MORPH_LEAVING)
    return morph__fail(ctx, MORPH_ESTATE, "%s called by a leaving process", call);
  if (ctx->broken)
    return MORPH_EMPI;
  return MORPH_OK;
}

static void change_of(const morph_ctx *ctx, morph_change *ch)
{
  const morph__window *p = ctx->pending;
  memset(ch, 0, sizeof *ch);
  ch->old_size = ch->new_size = ctx->size;
  ch->status = ctx->status == MORPH_JOINING ? MORPH_JOINING : MORPH_STAYING;
  ch->mechanism = ctx->opts.mechanism;
  if (p) { /* a joiner: its window is pending from morph_open() on */
    ch->pending = 1, ch->old_size = p->old_size, ch->new_size = p->new_size;
    ch->mechanism = p->mechanism;
    ch->moving = p->half == 1 ? p->move : 0;
  } else if (ctx->probed.act) {
    ch->pending = 1, ch->new_size = ctx->probed.target;
    ch->mechanism = (morph_mechanism)ctx->probed.mechanism;
    ch->status = ctx->probed.mechanism == MORPH_MECH_RELAUNCH || ctx->rank < ch->new_size
                     ? MORPH_STAYING : MORPH_LEAVING;
    if (ctx->probed.move) { /* a move: its movers leave, the size stays */
      ch->moving = ctx->probed.move;
      ch->status = ctx->probed.mover ? MORPH_LEAVING : MORPH_STAYING;
      ch->new_size = ctx->probed.half == 1 ? ctx->size : ch->new_size;
    }
  }
}

/* The once-per-iteration part: count, honour the inhibitors, check. A
 * process restarted by a relaunch restores its data here instead. */
static int probe(morph_ctx *ctx)
{
  if (ctx->pending || ctx->probed.act)
    return MORPH_OK; /* a change already waits for morph_begin() */
  if (ctx->status == MORPH_JOINING && ctx->restore_pending)
    return morph__relaunch_restore(ctx);
  ctx->status = MORPH_STAYING;
  if (ctx->move_next) { /* the second half of a move, at the same point */
    ctx->move_next = 0;
    return check(ctx);
  }
  ctx->iteration++;
  if (ctx->rank == 0)
    measure(ctx);
  if (ctx->bg.check.act)
    return poll_background(ctx);
  return ctx->skip > 0 ? (ctx->skip--, MORPH_OK) : check(ctx);
}

int morph_probe(morph_ctx *ctx, morph_change *change)
{
  if (!ctx || !change)
    return MORPH_EINVAL;
  int rc = guard(ctx, "morph_probe");
  if (rc == MORPH_OK && ctx->open)
    rc = morph__fail(ctx, MORPH_ESTATE, "morph_probe inside an open window (morph_commit first)");
  if (rc == MORPH_OK)
    rc = probe(ctx);
  change_of(ctx, change);
  return rc;
}

static void info_of(const morph_ctx *ctx, const morph__window *w, morph_window_info *in)
{
  int grow = w->new_size > w->old_size, failed = morph__window_failed(w);
  memset(in, 0, sizeof *in);
  in->old_size = w->old_size, in->new_size = failed ? w->old_size : w->new_size;
  in->comm = in->newcomm = in->intercomm = MPI_COMM_NULL;
  in->status = w->joiner ? MORPH_JOINING : MORPH_STAYING;
  in->old_rank = w->joiner ? -1 : ctx->rank;
  in->new_rank = w->joiner ? ctx->rank : ctx->rank < in->new_size ? ctx->rank : -1;
  in->moving = w->move;
  if (failed) { /* nothing changes: the old processes among themselves */
    in->staying = w->old_size, in->comm = in->newcomm = ctx->comm;
    return;
  }
  in->staying = grow ? w->old_size : w->new_size;
  in->joining = grow ? w->new_size - w->old_size : 0;
  in->leaving = grow ? 0 : w->old_size - w->new_size;
  if (w->mechanism != MORPH_MECH_LIVE)
    return;
  in->comm = w->newcomm;
  in->intercomm = grow ? w->intercomm : MPI_COMM_NULL;
  in->newcomm = grow ? w->newcomm : w->staycomm;
  if (!grow) /* the leavers: the highest ranks, or those of the hosts named */
    in->new_rank = morph__window_new_rank(w, ctx->rank);
  if (!grow && in->new_rank < 0)
    in->status = MORPH_LEAVING;
}

/* The window of a probed decision, or the joiner's pending one. */
static morph__window *take_window(morph_ctx *ctx)
{
  morph__window *w = ctx->pending;
  if (w) {
    ctx->pending = NULL;
    ctx->iteration = w->iteration;
    return w;
  }
  if (!(w = malloc(sizeof *w)))
    return NULL;
  window_init(ctx, w, &ctx->probed);
  ctx->reconf_seq = ctx->probed.seq;
  ctx->probed.act = 0;
  return w;
}

static int begin(morph_ctx *ctx, morph_window_info *info, int overlap, const char *call)
{
  if (!ctx || !info)
    return MORPH_EINVAL;
  int rc = guard(ctx, call);
  if (rc != MORPH_OK)
    return rc;
  if (ctx->open)
    return morph__fail(ctx, MORPH_ESTATE, "%s: a window is already open", call);
  if (!ctx->pending && !ctx->probed.act)
    return morph__fail(ctx, MORPH_ESTATE, "%s: no reconfiguration pending "
                       "(morph_probe() did not find one)", call);
  morph__window *w = take_window(ctx);
  if (!w)
    return morph__fail(ctx, MORPH_ENOMEM, "%s: no memory", call);
  /* A joiner's window says what the old processes chose. */
  if (!w->joiner)
    w->overlap = overlap;
  ctx->open = w;
  morph__window_open(ctx, w);
  info_of(ctx, w, info);
  return MORPH_OK;
}

int morph_begin(morph_ctx *ctx, morph_window_info *info)
{
  return begin(ctx, info, 0, "morph_begin");
}

int morph_begin_overlap(morph_ctx *ctx, morph_window_info *info)
{
  return begin(ctx, info, 1, "morph_begin_overlap");
}

int morph_progress(morph_ctx *ctx, int *done)
{
  if (!ctx || !done)
    return MORPH_EINVAL;
  *done = 0;
  int rc = guard(ctx, "morph_progress");
  if (rc != MORPH_OK)
    return rc;
  morph__window *w = ctx->open;
  if (!w)
    return morph__fail(ctx, MORPH_ESTATE, "morph_progress outside an adaptation window");
  if (w->joiner)
    return morph__fail(ctx, MORPH_ESTATE, "morph_progress on a joiner: it has nothing to "
                       "compute before its data arrives; call morph_commit");
  int mine;
  if (morph__window_test(w, &mine) != MORPH_OK)
    return morph__fail(ctx, MORPH_EMPI, "morph_progress: testing the background transfers "
                       "failed");
  /* Every old process must commit at the same point. */
  if (MPI_Allreduce(&mine, done, 1, MPI_INT, MPI_MIN, ctx->comm) != MPI_SUCCESS)
    return morph__fail(ctx, MORPH_EMPI, "morph_progress: the agreement on completion failed");
  return MORPH_OK;
}

/* Rank 0: a move is reported as one change at the job's size, with the
 * phases of both halves. */
static void move_report(morph_ctx *ctx, int rc)
{
  morph_reconf_report *r = &ctx->report;
  const morph_reconf_report *g = &ctx->move_grow;
  r->t_decision += g->t_decision, r->t_spawn += g->t_spawn, r->t_redist += g->t_redist;
  r->t_commit += g->t_commit, r->bytes_moved += g->bytes_moved;
  r->requested_size = g->old_size;
  if (rc != MORPH_OK)
    return; /* the shrink rolled back: the job keeps the joiners */
  r->old_size = g->old_size;
  snprintf(r->message, sizeof r->message, "moved %d process(es) off %.100s onto %.100s",
           ctx->decision.move, ctx->reconf_hosts, ctx->move_onto);
}

/* Rank 0, after the grow of a move: its shrink is the decision now, off
 * the hosts it leaves, acknowledged as one move once done. */
static void move_second_half(morph_ctx *ctx, const morph__window *w)
{
  morph__decision *d = &ctx->decision;
  ctx->move_grow = ctx->report;
  snprintf(ctx->move_onto, sizeof ctx->move_onto, "%s", ctx->reconf_hosts);
  d->move_half = 2, d->target = w->old_size, d->at_iteration = -1;
  snprintf(d->hosts, sizeof d->hosts, "%s", d->from);
}

int morph_commit(morph_ctx *ctx, int outcome, morph_status *status)
{
  if (!ctx || !status)
    return MORPH_EINVAL;
  if (ctx->frontend[0] && ctx->frontend_depth == 0)
    return guard(ctx, "morph_commit");
  if (!ctx->open)
    return morph__fail(ctx, MORPH_ESTATE, "morph_commit without morph_begin");
  morph__window *w = ctx->open;
  ctx->open = NULL;
  int rc = morph__window_close(ctx, w, outcome);
  if (rc == MORPH_OK && w->half == 1) {
    ctx->move_next = 1, ctx->skip = 0; /* joiners too: the shrink follows at once */
    if (ctx->rank == 0)
      move_second_half(ctx, w);
  } else if (ctx->rank == 0 && !w->joiner) {
    if (w->half == 2)
      move_report(ctx, rc);
    morph__client_ack(ctx, rc == MORPH_OK && w->mechanism == MORPH_MECH_RELAUNCH ? w->checkpoint
                                                                                : NULL);
    ctx->decision.pending = 0;
  }
  free(w);
  *status = ctx->status;
  /* A rollback keeps the old size, unless a process died and there is no
   * old size to go back to. */
  return ctx->broken ? MORPH_EMPI : rc == MORPH_OK ? MORPH_OK : MORPH_EABORTED;
}

int morph_point(morph_ctx *ctx, morph_status *status)
{
  if (!ctx || !status)
    return MORPH_EINVAL;
  morph_change ch;
  int rc = guard(ctx, "morph_point");
  if (rc == MORPH_OK)
    rc = morph_probe(ctx, &ch);
  if (rc == MORPH_OK && ch.pending) {
    morph_window_info info;
    rc = morph_begin(ctx, &info);
    if (rc == MORPH_OK)
      rc = morph_commit(ctx, MORPH_OK, status);
    /* A rollback is reported (morph_last_report), not returned. */
    rc = rc == MORPH_EABORTED ? MORPH_OK : rc;
  }
  *status = ctx->status;
  return rc;
}

void morph__background_settle(morph_ctx *ctx)
{
  while (ctx->bg.check.act && ctx->status != MORPH_LEAVING) {
    poll_background(ctx);
    if (ctx->bg.check.act)
      morph__sleep(0.001);
  }
  if (!ctx->bg.ready || !ctx->probed.act)
    return;
  morph_window_info in;
  morph_status st;
  ctx->frontend_depth++; /* morph's own calls, whoever drives the context */
  if (begin(ctx, &in, 0, "morph_finalize") == MORPH_OK && ctx->open) {
    morph__window *w = ctx->open;
    if (w->run.rc == MORPH_OK) {
      w->run.rc = MORPH_EABORTED;
      snprintf(w->why, sizeof w->why, "the job ended before the processes spawned in the "
               "background were taken in");
    }
    morph_commit(ctx, MORPH_OK, &st);
  }
  ctx->frontend_depth--;
}

int morph_frontend_claim(morph_ctx *ctx, const char *name)
{
  if (!ctx || !name || !*name)
    return MORPH_EINVAL;
  if (ctx->frontend[0] && strcmp(ctx->frontend, name) != 0)
    return morph__fail(ctx, MORPH_EBUSY, "the context is already driven by the %s front-end",
                       ctx->frontend);
  snprintf(ctx->frontend, sizeof ctx->frontend, "%s", name);
  return MORPH_OK;
}

void morph_frontend_enter(morph_ctx *ctx)
{
  if (ctx)
    ctx->frontend_depth++;
}

void morph_frontend_leave(morph_ctx *ctx)
{
  if (ctx && ctx->frontend_depth > 0)
    ctx->frontend_depth--;
}
