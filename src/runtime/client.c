/*
 * Rank 0's side of the launcher protocol (docs/protocol.md). A job without
 * a launcher runs standalone; a launcher that disappears leaves the job
 * running at its size: every function here turns a lost connection into
 * "no launcher" after one warning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "prof/mpitime.h"
#include "runtime/client.h"

#include "proto/hosts.h"

/* Provided by libmorph-prof when the program links it; NULL otherwise. */
#pragma weak morph_prof_mpi_seconds

/* How long the job tries to connect to the launcher's socket, which
 * exists before the job starts (a missing launcher fails this fast). */
#define CONNECT_TIMEOUT 5.0
/* How long a connected job waits for the launcher's WELCOME. A live
 * launcher answers in milliseconds; 5 s was too short at load 280 (a
 * relaunched 4 -> 8 MPICH job's rank 0 gave up while morph run was busy
 * starting it, test-pcm-heat-one-relaunch-mpich, 27 Nov). */
#define WELCOME_TIMEOUT 30.0
/* PROGRESS is sent at most this often. */
#define PROGRESS_PERIOD 1.0

static int connected(const morph_ctx *ctx) { return ctx->conn.fd >= 0; }

static void lost(morph_ctx *ctx, const char *what)
{
  morph__log(MORPH_LOG_WARN, "0", "launcher connection lost while %s; the job continues at %d "
             "processes without further decisions", what, ctx->size);
  morph__conn_close(&ctx->conn);
}

static int send_or_lose(morph_ctx *ctx, const morph__msg *m, const char *what)
{
  if (!connected(ctx))
    return MORPH_OK;
  int rc = morph__send(&ctx->conn, m);
  if (rc != MORPH_OK)
    lost(ctx, what);
  return rc;
}

static void fill_limits(const morph_ctx *ctx, morph__msg *m)
{
  m->size = ctx->size;
  m->min = ctx->opts.min_procs;
  m->max = ctx->opts.max_procs;
  m->pref = ctx->opts.pref_procs;
}

static int say_hello(morph_ctx *ctx)
{
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_HELLO);
  fill_limits(ctx, &m);
  m.pid = (long)getpid();
  m.iteration = ctx->iteration;
  m.mechanisms = MORPH__MECH_BIT_RELAUNCH | (ctx->live_ok ? MORPH__MECH_BIT_LIVE : 0);
  snprintf(m.job, sizeof m.job, "%s", getenv("MORPH_JOB_ID") ? getenv("MORPH_JOB_ID") : "");
#ifdef OMPI_MAJOR_VERSION
  snprintf(m.mpi, sizeof m.mpi, "openmpi");
#else
  snprintf(m.mpi, sizeof m.mpi, "mpich");
#endif
  return morph__send(&ctx->conn, &m);
}

int morph__client_open(morph_ctx *ctx)
{
  if (!ctx->socket_path[0])
    return MORPH_OK;
  if (morph__connect(ctx->socket_path, CONNECT_TIMEOUT, &ctx->conn) != MORPH_OK)
    return morph__fail(ctx, MORPH_ECONN, "cannot connect to the launcher socket %s",
                       ctx->socket_path);
  morph__msg m;
  char err[256] = "";
  int rc = say_hello(ctx);
  if (rc == MORPH_OK)
    rc = morph__recv(&ctx->conn, &m, WELCOME_TIMEOUT, err, sizeof err);
  if (rc == 1 && m.kind == MORPH__MSG_WELCOME)
    return MORPH_OK;
  morph__conn_close(&ctx->conn);
  if (rc == 0)
    return morph__fail(ctx, MORPH_ECONN, "the launcher at %s did not answer within %.0f s",
                       ctx->socket_path, WELCOME_TIMEOUT);
  return morph__fail(ctx, rc < 0 ? rc : MORPH_EPROTO, "the launcher at %s answered badly: %s",
                     ctx->socket_path, err[0] ? err : "expected a welcome message");
}

static void reject(morph_ctx *ctx, const morph__msg *m, int err, const char *why)
{
  morph__msg a;
  morph__msg_init(&a, MORPH__MSG_ACK);
  a.id = m->id, a.outcome = err, a.old_size = ctx->size, a.new_size = ctx->size;
  snprintf(a.text, sizeof a.text, "%s", why);
  morph__log(MORPH_LOG_WARN, "0", "decision %d (size %d) refused: %s", m->id, m->size, why);
  send_or_lose(ctx, &a, "refusing a decision");
}

/* A move (docs/protocol.md): as many processes leave the hosts of `from`
 * as join on those of `hosts`, at the job's size; fewer than the job has,
 * since rank 0 stays. Returns that number, or MORPH_EINVAL (why says). */
static int move_count(const morph_ctx *ctx, const morph__msg *m, char *why, size_t n)
{
  morph__hostlist from, onto;
  morph__hostlist_init(&from);
  morph__hostlist_init(&onto);
  int rc = MORPH_EINVAL, k = 0;
  if (morph__hostlist_parse(&from, m->from) != MORPH_OK ||
      morph__hostlist_parse(&onto, m->hosts) != MORPH_OK)
    snprintf(why, n, "a move with malformed hosts (from '%.100s' to '%.100s')", m->from, m->hosts);
  else if (m->size != ctx->size)
    snprintf(why, n, "a move keeps the size, but it says %d (the job has %d)", m->size, ctx->size);
  else if ((k = morph__hostlist_total(&from)) != morph__hostlist_total(&onto))
    snprintf(why, n, "a move of %d process(es) off %.100s names %d onto %.100s", k, m->from,
             morph__hostlist_total(&onto), m->hosts);
  else if (k >= ctx->size)
    snprintf(why, n, "a move of %d process(es) in a job of %d (rank 0 stays)", k, ctx->size);
  else
    rc = k;
  morph__hostlist_free(&from);
  morph__hostlist_free(&onto);
  return rc;
}

/* A decision the job can never carry out is answered at once, so the
 * launcher does not wait for an adaptation window that will not come. */
static void take_resize(morph_ctx *ctx, const morph__msg *m)
{
  const morph_options *o = &ctx->opts;
  char why[320];
  if (ctx->decision.pending) {
    reject(ctx, m, MORPH_EBUSY, "another decision is still pending");
    return;
  }
  if (m->size < o->min_procs || (o->max_procs && m->size > o->max_procs)) {
    snprintf(why, sizeof why, "size %d outside the job's limits [%d, %d]", m->size, o->min_procs,
             o->max_procs);
    reject(ctx, m, MORPH_ESIZE, why);
    return;
  }
  int move = m->from[0] ? move_count(ctx, m, why, sizeof why) : 0;
  if (move < 0) {
    reject(ctx, m, move, why);
    return;
  }
  morph__decision *d = &ctx->decision;
  d->pending = 1, d->id = m->id, d->target = m->size, d->at_iteration = m->iteration;
  d->mechanism = (morph_mechanism)m->mechanism;
  d->arrived = morph__now();
  d->move = move, d->move_half = 0;
  snprintf(d->hosts, sizeof d->hosts, "%s", m->hosts);
  snprintf(d->from, sizeof d->from, "%s", m->from);
}

int morph__client_poll(morph_ctx *ctx)
{
  morph__msg m;
  char err[256];
  while (connected(ctx)) {
    int rc = morph__recv(&ctx->conn, &m, 0, err, sizeof err);
    if (rc == 0)
      return MORPH_OK;
    if (rc == MORPH_ECONN) {
      lost(ctx, "waiting for decisions");
      return MORPH_OK;
    }
    if (rc == MORPH_EPROTO) {
      morph__log(MORPH_LOG_WARN, "0", "ignoring a malformed launcher message: %s", err);
      continue;
    }
    if (m.kind == MORPH__MSG_RESIZE)
      take_resize(ctx, &m);
    else
      morph__log(MORPH_LOG_WARN, "0", "ignoring an unexpected '%s' message from the launcher",
                 morph__msg_kind_name(m.kind));
  }
  return MORPH_OK;
}

/* Rank 0's MPI seconds per iteration since the last report; -1 unknown. */
static double mpi_per_iteration(morph_ctx *ctx)
{
  double total = morph_prof_mpi_seconds ? morph_prof_mpi_seconds() : -1;
  if (total < 0)
    return -1; /* no libmorph-prof, or not timing */
  int64_t its = ctx->iteration - ctx->progress_iteration;
  double per = its > 0 ? (total - ctx->progress_mpi) / (double)its : -1;
  ctx->progress_mpi = total;
  ctx->progress_iteration = ctx->iteration;
  return per;
}

int morph__client_progress(morph_ctx *ctx)
{
  double now = morph__now();
  if (!connected(ctx) || now - ctx->last_progress < PROGRESS_PERIOD)
    return MORPH_OK;
  ctx->last_progress = now;
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_PROGRESS);
  m.iteration = ctx->iteration;
  m.iter_time = ctx->iter_time;
  m.mpi_time = mpi_per_iteration(ctx);
  return send_or_lose(ctx, &m, "reporting progress");
}

int morph__client_ack(morph_ctx *ctx, const char *checkpoint)
{
  const morph_reconf_report *r = &ctx->report;
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_ACK);
  m.id = ctx->decision.id, m.outcome = r->outcome, m.mechanism = r->mechanism;
  m.old_size = r->old_size, m.new_size = r->new_size, m.iteration = r->iteration;
  m.t_decision = r->t_decision, m.t_spawn = r->t_spawn;
  m.t_redist = r->t_redist, m.t_commit = r->t_commit, m.bytes = r->bytes_moved;
  snprintf(m.text, sizeof m.text, "%s", r->message);
  snprintf(m.checkpoint, sizeof m.checkpoint, "%s", checkpoint ? checkpoint : "");
  snprintf(m.hosts, sizeof m.hosts, "%s", ctx->reconf_hosts);
  ctx->reconf_hosts[0] = '\0'; /* a later refusal moves nobody */
  return send_or_lose(ctx, &m, "acknowledging a decision");
}

int morph__client_limits(morph_ctx *ctx)
{
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_LIMITS);
  fill_limits(ctx, &m);
  return send_or_lose(ctx, &m, "sending limits");
}

void morph__client_bye(morph_ctx *ctx, int exit_status, const char *text)
{
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_BYE);
  m.exit_status = exit_status;
  snprintf(m.text, sizeof m.text, "%s", text);
  send_or_lose(ctx, &m, "saying goodbye");
}
