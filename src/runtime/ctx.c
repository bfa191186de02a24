/*
 * The context's life cycle: options, open, accessors, limits, finalize.
 */
#include "runtime/client.h"
#include "runtime/hold.h"
#include "runtime/wait.h"
#include "runtime/window.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"

static int env_int(const char *name, int fallback)
{
  const char *v = getenv(name);
  char *end;
  long x = v ? strtol(v, &end, 10) : 0;
  return v && *v && !*end ? (int)x : fallback;
}

static double env_double(const char *name, double fallback)
{
  const char *v = getenv(name);
  char *end;
  double x = v ? strtod(v, &end) : 0;
  return v && *v && !*end ? x : fallback;
}

static morph_mechanism env_mechanism(morph_mechanism fallback)
{
  const char *v = getenv("MORPH_MECHANISM");
  if (!v)
    return fallback;
  if (!strcmp(v, "live"))
    return MORPH_MECH_LIVE;
  if (!strcmp(v, "relaunch"))
    return MORPH_MECH_RELAUNCH;
  return MORPH_MECH_AUTO;
}

void morph_options_init(morph_options *o)
{
#ifdef OMPI_MAJOR_VERSION
  /* Open MPI 4.1 with PMIx 4 hangs intermittently on back-to-back spawns;
   * a pause before each spawn removed it in our measurements (docs/runtime.md). */
  const double pause = 0.5;
#else
  const double pause = 0.0;
#endif
  o->min_procs = env_int("MORPH_MIN", 1);
  o->max_procs = env_int("MORPH_MAX", 0);
  o->pref_procs = env_int("MORPH_PREF", 0);
  o->sched_period = env_double("MORPH_PERIOD", 0.0);
  o->sched_iterations = env_int("MORPH_ITERATIONS", 0);
  o->mechanism = env_mechanism(MORPH_MECH_AUTO);
  o->step_timeout = env_double("MORPH_STEP_TIMEOUT", 30.0);
  o->spawn_pause = env_double("MORPH_SPAWN_PAUSE", pause);
  o->socket_path = getenv("MORPH_SOCKET");
  o->checkpoint_dir = getenv("MORPH_CHECKPOINT_DIR");
}

static int check_limits(int min, int max, int pref, char *why, size_t n)
{
  if (min < 1) {
    snprintf(why, n, "min_procs %d: must be at least 1", min);
    return MORPH_EINVAL;
  }
  if (max != 0 && max < min) {
    snprintf(why, n, "min_procs %d > max_procs %d", min, max);
    return MORPH_EINVAL;
  }
  if (pref != 0 && (pref < min || (max != 0 && pref > max))) {
    snprintf(why, n, "pref_procs %d outside [min %d, max %d]", pref, min, max);
    return MORPH_EINVAL;
  }
  return MORPH_OK;
}

static void copy_paths(morph_ctx *ctx)
{
  const morph_options *o = &ctx->opts;
  snprintf(ctx->socket_path, sizeof ctx->socket_path, "%s", o->socket_path ? o->socket_path : "");
  const char *dir = o->checkpoint_dir;
  if (!dir || !*dir)
    dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  snprintf(ctx->checkpoint_dir, sizeof ctx->checkpoint_dir, "%s", dir);
  ctx->opts.socket_path = ctx->socket_path;
  ctx->opts.checkpoint_dir = ctx->checkpoint_dir;
}

static void detect_platform(morph_ctx *ctx)
{
  int provided;
  MPI_Query_thread(&provided);
  ctx->thread_multiple = provided == MPI_THREAD_MULTIPLE;
  ctx->spawn_background = env_int("MORPH_SPAWN_BACKGROUND", 0) != 0;
#ifdef OMPI_MAJOR_VERSION
  ctx->live_ok = 1;
#else
  /* Debian's MPICH (ch4:ucx) has no dynamic processes (docs/runtime.md). */
  ctx->live_ok = 0;
#endif
  const char *v = getenv("OMPI_MCA_orte_allowed_exit_without_sync");
  ctx->allow_early_exit = v && !strcmp(v, "1");
}

/* Where this process comes from: the job's start, a live expansion or a
 * relaunch. Sets comm, status and, for joiners, the pending window. */
static int attach(morph_ctx *ctx, MPI_Comm comm)
{
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  if (parent != MPI_COMM_NULL)
    return morph__live_join(ctx, parent);
  MPI_Comm dup;
  if (MPI_Comm_dup(comm, &dup) != MPI_SUCCESS)
    return morph__fail(ctx, MORPH_EMPI, "MPI_Comm_dup failed");
  morph__set_comm(ctx, dup);
  const char *restart = getenv("MORPH_RESTART");
  if (restart && *restart)
    return morph__relaunch_open(ctx, restart);
  ctx->status = MORPH_NEW;
  return MORPH_OK;
}

static int validate_open(morph_ctx *ctx)
{
  const morph_options *o = &ctx->opts;
  int rc = check_limits(o->min_procs, o->max_procs, o->pref_procs, ctx->errmsg, sizeof ctx->errmsg);
  if (rc == MORPH_OK && ctx->status == MORPH_NEW &&
      (ctx->size < o->min_procs || (o->max_procs && ctx->size > o->max_procs)))
    rc = morph__fail(ctx, MORPH_EINVAL, "started with %d processes, outside [min %d, max %d]",
                     ctx->size, o->min_procs, o->max_procs);
  if (rc == MORPH_OK && (o->step_timeout <= 0 || o->sched_period < 0 || o->sched_iterations < 0))
    rc = morph__fail(ctx, MORPH_EINVAL, "step_timeout must be > 0, inhibitors >= 0");
  return rc;
}

static void release(morph_ctx *ctx)
{
  for (int i = 0; i < ctx->ndata; i++) {
    morph__data *d = &ctx->data[i];
    if (d->kind == MORPH__DATA_BLOCK || d->kind == MORPH__DATA_BLOCK_CYCLIC)
      morph__data_release(d);
    MPI_Type_free(&d->type);
  }
  free(ctx->data);
  morph__conn_close(&ctx->conn);
  if (ctx->comm != MPI_COMM_NULL)
    MPI_Comm_free(&ctx->comm);
  free(ctx);
}

int morph_open(MPI_Comm comm, const morph_options *opts, morph_ctx **out)
{
  int inited = 0;
  MPI_Initialized(&inited);
  if (!out || !inited) {
    fprintf(stderr, "morph_open: %s\n", out ? "MPI is not initialised" : "ctx is NULL");
    return MORPH_EINVAL;
  }
  *out = NULL;
  morph_ctx *ctx = calloc(1, sizeof *ctx);
  if (!ctx)
    return MORPH_ENOMEM;
  ctx->comm = MPI_COMM_NULL;
  ctx->conn.fd = -1;
  if (opts)
    ctx->opts = *opts;
  else
    morph_options_init(&ctx->opts);
  copy_paths(ctx);
  detect_platform(ctx);
  ctx->last_point = ctx->last_window_end = morph__now();
  int rc = attach(ctx, comm);
  if (rc == MORPH_OK)
    rc = validate_open(ctx);
  if (rc == MORPH_OK && ctx->rank == 0)
    rc = morph__client_open(ctx);
  /* Everyone fails together. Over the caller's communicator, not ours: a
   * joiner's is already shared with the running job, which is busy in its
   * adaptation window. */
  MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MORPH_OK) {
    if (ctx->rank == 0)
      fprintf(stderr, "morph_open: %s: %s\n", morph_strerror(rc), ctx->errmsg);
    release(ctx);
    return rc;
  }
  *out = ctx;
  return MORPH_OK;
}


/* Finalize of a healthy job takes well under a second here; one that
 * takes this long is stuck (see finalize_guarded). */
#define FINALIZE_TIMEOUT 5.0

typedef struct watchdog {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done, status;
} watchdog;

static void *watch(void *arg)
{
  watchdog *w = arg;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += (time_t)FINALIZE_TIMEOUT;
  pthread_mutex_lock(&w->lock);
  while (!w->done && pthread_cond_timedwait(&w->cond, &w->lock, &ts) == 0)
    ;
  if (!w->done) {
    morph__log(MORPH_LOG_INFO, "finalize", "MPI_Finalize did not return within %.0f s; ending "
               "the process with the job's status %d", FINALIZE_TIMEOUT, w->status);
    morph__end_process(w->status);
  }
  pthread_mutex_unlock(&w->lock);
  return NULL;
}

/*
 * MPI_Finalize under a watchdog. After a live shrink, Open MPI 4.1's
 * finalize disconnects from the process groups the leavers belonged to, and
 * intermittently waits for them forever although they have exited (they
 * cannot finalize, see morph_finalize). The job's outcome is agreed and
 * reported by then, so a finalize that does not return in time ends the
 * process with that outcome instead of holding the slot.
 */
static void finalize_guarded(int status)
{
  watchdog w = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, status};
  pthread_t t;
  int watched = pthread_create(&t, NULL, watch, &w) == 0;
  MPI_Finalize();
  if (!watched)
    return;
  pthread_mutex_lock(&w.lock);
  w.done = 1;
  pthread_cond_signal(&w.cond);
  pthread_mutex_unlock(&w.lock);
  pthread_join(t, NULL);
}

/* The job's status: the largest over all processes. After a hung spawn
 * the reduction is polled and time-limited (an abandoned spawn may own
 * Open MPI's progress engine: checkpoint.c); without an answer in time
 * each process keeps its own. */
static int job_status(morph_ctx *ctx, int status)
{
  int job = status;
  if (!ctx->spawn_hung) {
    MPI_Allreduce(&status, &job, 1, MPI_INT, MPI_MAX, ctx->comm);
    return job;
  }
  MPI_Request req;
  ctx->agree_in = ctx->agree_out = status;
  if (MPI_Iallreduce(&ctx->agree_in, &ctx->agree_out, 1, MPI_INT, MPI_MAX, ctx->comm, &req) ==
          MPI_SUCCESS &&
      morph__wait_all(1, &req, morph__now() + ctx->opts.step_timeout) == MORPH_OK)
    job = ctx->agree_out;
  return job;
}

int morph_finalize(morph_ctx *ctx, int status)
{
  if (!ctx)
    return 1;
  /* A live leaver: its data is with the stayers. It cannot MPI_Finalize
   * alone (job-wide fence in Open MPI), and mpirun was started with
   * orte_allowed_exit_without_sync, so ending now frees the slot. */
  if (ctx->status == MORPH_LEAVING && !ctx->relaunching) {
    if (ctx->hold)
      morph__hold_process();
    morph__end_process(0);
  }
  /* Joiners spawned in the background and not taken in yet are told to
   * leave (their window rolls back). */
  if (!ctx->broken)
    morph__background_settle(ctx);
  /* A broken communicator cannot reduce; each process reports its own. */
  int job = !ctx->broken ? job_status(ctx, status) : status ? status : 1;
  if (ctx->rank == 0)
    morph__client_bye(ctx, job, ctx->relaunching ? "relaunch" : ctx->broken ? ctx->errmsg : "done");
  /* A thread of this process is stuck inside MPI_Comm_spawn for good, and
   * MPI_Finalize would wait for it forever. The job's outcome is agreed
   * and reported, so the process ends here instead. */
  if (ctx->spawn_hung)
    morph__end_process(job);
  release(ctx);
  finalize_guarded(job);
  return job;
}

MPI_Comm morph_comm(const morph_ctx *ctx) { return ctx->comm; }
int morph_rank(const morph_ctx *ctx) { return ctx->rank; }
int morph_size(const morph_ctx *ctx) { return ctx->size; }
morph_status morph_get_status(const morph_ctx *ctx) { return ctx->status; }
int64_t morph_iteration(const morph_ctx *ctx) { return ctx->iteration; }
const char *morph_errmsg(const morph_ctx *ctx) { return ctx ? ctx->errmsg : ""; }

int morph_set_limits(morph_ctx *ctx, int min, int max, int pref)
{
  int rc = check_limits(min, max, pref, ctx->errmsg, sizeof ctx->errmsg);
  if (rc != MORPH_OK)
    return rc;
  ctx->opts.min_procs = min;
  ctx->opts.max_procs = max;
  ctx->opts.pref_procs = pref;
  return ctx->rank == 0 ? morph__client_limits(ctx) : MORPH_OK;
}

int morph_set_inhibitors(morph_ctx *ctx, double period, int iterations)
{
  if (period < 0 || iterations < 0)
    return morph__fail(ctx, MORPH_EINVAL, "inhibitors must be >= 0 (period %g, iterations %d)",
                       period, iterations);
  ctx->opts.sched_period = period;
  ctx->opts.sched_iterations = iterations;
  return MORPH_OK;
}

int morph_last_report(const morph_ctx *ctx, morph_reconf_report *out)
{
  if (!ctx || !out)
    return MORPH_EINVAL;
  *out = ctx->report;
  return MORPH_OK;
}
