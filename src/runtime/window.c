/*
 * The adaptation window: one reconfiguration, as an explicit state machine.
 *
 *   PREPARE  joiners spawned and merged (live grow), stayers split off
 *            (live shrink), nothing (relaunch)
 *   START    (overlapped windows only) registrations checked alike, the
 *            constant ones sent in the background (overlap.c, live only);
 *            the window then waits for the application's commit
 *   MOVE     registrations checked alike everywhere, data moved into new
 *            buffers (live) or written to a checkpoint (relaunch)
 *   VOTE     every process's outcome reaches the stayers, who agree
 *   COMMIT   the new size takes effect
 *   ROLLBACK the old size stays, with its untouched data
 *
 * Joiners enter at MOVE (START if overlapped). Every step is time-limited by step_timeout, and
 * the vote is taken among the stayers only, so that a joiner or leaver that
 * dies cannot block the decision.
 */
#include <stdio.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "runtime/move.h"
#include "runtime/overlap.h"
#include "runtime/wait.h"
#include "runtime/window.h"

#define TAG_VOTE 7310
#define TAG_VERDICT 7311

enum state { PREPARE, START, MOVE, VOTE, COMMIT, ROLLBACK, DONE };

typedef struct morph__window_run run;

static const morph__mech_ops *ops_of(const morph__window *w)
{
  return w->mechanism == MORPH_MECH_LIVE ? &morph__mech_live : &morph__mech_relaunch;
}

static double lap(run *r)
{
  double now = morph__now(), t = now - r->mark;
  r->mark = now;
  return t;
}

static enum state on_prepare(morph_ctx *ctx, morph__window *w, run *r)
{
  r->rc = ops_of(w)->prepare(ctx, w);
  /* A background spawn counts whole, though the application computed. */
  ctx->report.t_spawn = lap(r) + w->t_background;
  return r->rc != MORPH_OK ? ROLLBACK : w->overlap ? START : MOVE;
}

/* Registrations must agree before any byte moves: a mismatch would make
 * the transfers of different processes pair up wrongly. */
static int check_signatures(morph_ctx *ctx, morph__window *w)
{
  /* Buffers in the context: after a timeout the reductions stay active. */
  uint64_t *sig = ctx->signature;
  sig[0] = sig[1] = sig[2] = morph__data_signature(ctx);
  MPI_Request req[2];
  double deadline = morph__now() + w->step_timeout;
  MPI_Iallreduce(&sig[0], &sig[1], 1, MPI_UINT64_T, MPI_MIN, w->newcomm, &req[0]);
  MPI_Iallreduce(&sig[0], &sig[2], 1, MPI_UINT64_T, MPI_MAX, w->newcomm, &req[1]);
  int rc = morph__wait_all(2, req, deadline);
  if (rc == MORPH_ETIMEDOUT) {
    w->abandoned = 1;
    snprintf(w->why, sizeof w->why, "a process of the window stopped answering (died?) "
             "before any data moved");
  }
  if (rc == MORPH_OK && sig[1] != sig[2]) {
    snprintf(w->why, sizeof w->why, "processes registered different data (names, kinds, "
             "types or sizes differ)");
    rc = MORPH_EMISMATCH;
  }
  return rc;
}

static int background(const morph__window *w)
{
  return w->overlap && w->mechanism == MORPH_MECH_LIVE;
}

/* Overlapped: the registrations are checked and the constant ones start
 * moving; the relaunch has nothing to send before the commit. */
static enum state on_start(morph_ctx *ctx, morph__window *w, run *r)
{
  if (background(w)) {
    r->rc = check_signatures(ctx, w);
    if (r->rc == MORPH_OK)
      r->rc = morph__overlap_start(ctx, w);
  }
  return MOVE;
}

/* Overlapped, MOVE runs inside the commit: the redistribution time then
 * counts only what the application waited for, not its own iterations. */
static enum state on_move(morph_ctx *ctx, morph__window *w, run *r)
{
  if (background(w)) {
    r->mark = morph__now();
    r->rc = morph__overlap_finish(ctx, w, r->rc);
  } else {
    r->rc = check_signatures(ctx, w);
  }
  if (r->rc == MORPH_OK)
    r->rc = ops_of(w)->move(ctx, w);
  return VOTE;
}

static int is_stayer(const morph__window *w) { return w->staycomm != MPI_COMM_NULL; }

/* Rank 0 collects the outcome of every joiner, with the bytes it received.
 * Leavers do not vote: once the stayers hold all the data, a leaver that
 * dies changes nothing. Vote buffers live in the context: after a timeout
 * the receive stays posted. */
static int collect_votes(morph_ctx *ctx, morph__window *w, int rc, double deadline)
{
  int grow = w->new_size > w->old_size;
  for (int p = w->nonstay_lo; grow && p < w->nonstay_hi && rc == MORPH_OK; p++) {
    ctx->vote[0] = MORPH_ETIMEDOUT, ctx->vote[1] = 0;
    MPI_Request req;
    MPI_Irecv(ctx->vote, 2, MPI_INT64_T, p, TAG_VOTE, w->newcomm, &req);
    if (morph__wait_all(1, &req, deadline) != MORPH_OK) {
      snprintf(w->why, sizeof w->why, "process %d of the window did not report in time", p);
      w->abandoned = 1;
      return MORPH_ETIMEDOUT;
    }
    rc = (int)ctx->vote[0];
    w->bytes += ctx->vote[1];
  }
  return rc;
}

static void send_verdicts(morph__window *w, int *verdict)
{
  for (int p = w->nonstay_lo; p < w->nonstay_hi; p++) {
    MPI_Request req;
    if (!morph__window_nonstay(w, p))
      continue;
    /* Not waited for: a dead receiver must not hold the stayers. */
    MPI_Isend(verdict, 1, MPI_INT, p, TAG_VERDICT, w->newcomm, &req);
    MPI_Request_free(&req);
  }
}

/* The stayers' agreement, and the sum of the bytes every receiver got. */
static int agree_and_count(morph_ctx *ctx, morph__window *w, int rc, double deadline)
{
  MPI_Request req;
  ctx->bytes_mine = w->bytes;
  MPI_Iallreduce(&ctx->bytes_mine, &ctx->bytes_all, 1, MPI_INT64_T, MPI_SUM, w->staycomm, &req);
  rc = morph__agree(ctx, w->staycomm, rc, deadline);
  if (rc == MORPH_OK && morph__wait_all(1, &req, deadline) == MORPH_OK)
    w->bytes = ctx->bytes_all;
  return rc;
}

static int stayer_vote(morph_ctx *ctx, morph__window *w, int rc, double deadline)
{
  if (ctx->rank == 0)
    rc = collect_votes(ctx, w, rc, deadline);
  rc = agree_and_count(ctx, w, rc, deadline + w->step_timeout);
  if (ctx->rank == 0) {
    /* The context outlives the unwaited sends that read the verdict. */
    ctx->verdict = rc;
    send_verdicts(w, &ctx->verdict);
  }
  return rc;
}

static int other_vote(morph_ctx *ctx, morph__window *w, int rc, double deadline)
{
  MPI_Request req[2];
  int n = 0;
  /* Buffers in the context: after a timeout the requests stay active. */
  ctx->vote[0] = rc, ctx->vote[1] = w->bytes, ctx->verdict = MORPH_ETIMEDOUT;
  if (w->new_size > w->old_size)
    MPI_Isend(ctx->vote, 2, MPI_INT64_T, 0, TAG_VOTE, w->newcomm, &req[n++]);
  MPI_Irecv(&ctx->verdict, 1, MPI_INT, 0, TAG_VERDICT, w->newcomm, &req[n++]);
  /* The stayers may take two step timeouts to agree. */
  if (morph__wait_all(n, req, deadline + 2 * w->step_timeout) != MORPH_OK) {
    w->abandoned = 1;
    return MORPH_ETIMEDOUT;
  }
  return ctx->verdict;
}

/* The redistribution phase ends when the vote shows that every process
 * has its data, so its time includes waiting for the slowest one. */
static enum state on_vote(morph_ctx *ctx, morph__window *w, run *r)
{
  double deadline = morph__now() + w->step_timeout;
  r->rc = is_stayer(w) ? stayer_vote(ctx, w, r->rc, deadline)
                            : other_vote(ctx, w, r->rc, deadline);
  ctx->report.t_redist = lap(r);
  return r->rc == MORPH_OK ? COMMIT : ROLLBACK;
}

static enum state on_commit(morph_ctx *ctx, morph__window *w, run *r)
{
  r->rc = ops_of(w)->commit(ctx, w);
  ctx->report.t_commit = lap(r);
  return DONE;
}

/* After a timeout, is every process of the old size still there? A
 * rollback is only a way back if it is: otherwise the next collective
 * would hang, so the job is told it cannot go on. */
static void check_alive(morph_ctx *ctx, morph__window *w)
{
  MPI_Request req;
  if (MPI_Ibarrier(ctx->comm, &req) == MPI_SUCCESS &&
      morph__wait_all(1, &req, morph__now() + w->step_timeout) == MORPH_OK)
    return;
  ctx->broken = 1;
  morph__fail(ctx, MORPH_EMPI, "a process of the job died inside reconfiguration %d (%d -> %d) "
              "before handing its data over; the job cannot continue at %d processes",
              w->seq, w->old_size, w->new_size, w->old_size);
}

static enum state on_rollback(morph_ctx *ctx, morph__window *w, run *r)
{
  ops_of(w)->rollback(ctx, w);
  if (r->rc == MORPH_ETIMEDOUT && ctx->status != MORPH_LEAVING)
    check_alive(ctx, w);
  ctx->report.t_commit = lap(r);
  return DONE;
}

static void open_report(morph_ctx *ctx, const morph__window *w)
{
  morph_reconf_report *rep = &ctx->report;
  memset(rep, 0, sizeof *rep);
  rep->seq = w->seq;
  rep->old_size = w->old_size;
  rep->requested_size = w->new_size;
  rep->mechanism = w->mechanism;
  rep->iteration = w->iteration;
  rep->t_decision = ctx->rank == 0 && ctx->decision.arrived > 0 ? w->t0 - ctx->decision.arrived : 0;
}

static void close_report(morph_ctx *ctx, morph__window *w, int rc)
{
  morph_reconf_report *rep = &ctx->report;
  rep->outcome = rc;
  rep->new_size = rc == MORPH_OK ? w->new_size : w->old_size;
  rep->bytes_moved = rc == MORPH_OK ? w->bytes : 0;
  if (rc == MORPH_OK)
    snprintf(rep->message, sizeof rep->message, "%d -> %d %s in %.3f s", w->old_size,
             w->new_size, morph_mechanism_name(w->mechanism),
             rep->t_spawn + rep->t_redist + rep->t_commit);
  else
    snprintf(rep->message, sizeof rep->message, "%d -> %d %s rolled back, %d processes kept: %.160s",
             w->old_size, w->new_size, morph_mechanism_name(w->mechanism), w->old_size,
             w->why[0] ? w->why : morph_strerror(rc));
}

typedef enum state (*handler)(morph_ctx *, morph__window *, run *);
static const handler handlers[] = {
  [PREPARE] = on_prepare, [START] = on_start, [MOVE] = on_move, [VOTE] = on_vote,
  [COMMIT] = on_commit, [ROLLBACK] = on_rollback,
};

/* Runs the handlers from `s` while the window is in `from` or `to`
 * (DONE: until the end); returns the state it stopped at. */
static enum state run_while(morph_ctx *ctx, morph__window *w, enum state s, enum state from,
                            enum state to)
{
  while (s != DONE && (to == DONE || s == from || s == to))
    s = handlers[s](ctx, w, &w->run);
  return s;
}

int morph__window_open(morph_ctx *ctx, morph__window *w)
{
  w->run = (run){MORPH_OK, morph__now(), PREPARE};
  open_report(ctx, w);
  /* MOVE hands over to VOTE whatever happened; the vote waits for the
   * application, ROLLBACK (after a failed PREPARE) for the commit call.
   * Overlapped, START hands over to MOVE, which waits for the commit. */
  enum state first = w->joiner ? (w->overlap ? START : MOVE) : PREPARE;
  w->run.next = w->overlap ? run_while(ctx, w, first, PREPARE, START)
                           : run_while(ctx, w, first, PREPARE, MOVE);
  return w->run.rc;
}

int morph__window_failed(const morph__window *w) { return w->run.next == ROLLBACK; }

int morph__window_close(morph_ctx *ctx, morph__window *w, int outcome)
{
  /* Overlapped: the rest of the data moves first, whatever the outcome,
   * because the joiners wait for it. */
  if (w->run.next == MOVE)
    w->run.next = run_while(ctx, w, MOVE, MOVE, MOVE);
  if (w->run.next == VOTE && w->run.rc == MORPH_OK && outcome != MORPH_OK) {
    w->run.rc = outcome;
    snprintf(w->why, sizeof w->why, "the application's own part of the window failed: %s",
             morph_strerror(outcome));
  }
  run_while(ctx, w, (enum state)w->run.next, DONE, DONE);
  close_report(ctx, w, w->run.rc);
  ctx->last_window_end = morph__now();
  if (w->run.rc != MORPH_OK && ctx->rank == 0)
    morph__log(MORPH_LOG_WARN, "0", "reconfiguration %d: %s", w->seq, ctx->report.message);
  return w->run.rc;
}

int morph__window_run(morph_ctx *ctx, morph__window *w)
{
  morph__window_open(ctx, w);
  return morph__window_close(ctx, w, MORPH_OK);
}

int morph__window_test(morph__window *w, int *done)
{
  *done = 1;
  return w->run.next == MOVE && w->bg ? morph__overlap_test(w, done) : MORPH_OK;
}
