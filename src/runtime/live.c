/*
 * The live mechanism: MPI dynamic processes. A grow spawns only the joiners
 * and merges them after the current processes (which keep their ranks); a
 * shrink splits the stayers off and lets the leavers hand their data over
 * and end. Data moves in memory (move.c).
 *
 * Open MPI 4.1 facts this file is built around (docs/runtime.md):
 *  - MPI_Comm_spawn can hang; it runs in a helper thread on a throwaway
 *    copy of the communicator, so that a hung spawn is abandoned without
 *    poisoning the application's communicator, and its half-started
 *    joiners are killed;
 *  - MPI_Comm_disconnect of a merged communicator hangs; morph frees.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "runtime/move.h"
#include "runtime/wait.h"
#include "runtime/window.h"

/* Tag of the stayers' communicator creation in a shrink. */
#define TAG_STAYERS 7320

/* State shared with the spawn thread. Heap-allocated and never freed if the
 * thread is abandoned, because the thread may still write into it. */
typedef struct spawn_job {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int done, rc;
  int n;
  char exe[PATH_MAX];
  char **argv;
  char hosts[512];
  MPI_Comm comm, inter, merged;
  char err[MPI_MAX_ERROR_STRING];
} spawn_job;

/* The application's arguments, so joiners start exactly like the job did. */
static char **read_argv(void)
{
  FILE *f = fopen("/proc/self/cmdline", "rb");
  if (!f)
    return NULL;
  static const size_t cap = 1 << 16;
  char *buf = calloc(cap + 1, 1);
  size_t len = buf ? fread(buf, 1, cap, f) : 0;
  fclose(f);
  size_t n = 0;
  for (size_t i = 0; i < len; i++)
    n += buf[i] == '\0';
  char **argv = buf ? calloc(n + 1, sizeof *argv) : NULL;
  if (!argv) {
    free(buf);
    return NULL;
  }
  /* argv[0] (the program) is not passed to MPI_Comm_spawn. */
  size_t k = 0;
  for (size_t i = strlen(buf) + 1; i < len; i += strlen(buf + i) + 1)
    argv[k++] = buf + i;
  argv[k] = NULL;
  argv[n] = buf; /* kept past the terminator so it can be freed */
  return argv;
}

static void *spawn_main(void *arg)
{
  spawn_job *j = arg;
  MPI_Info info = MPI_INFO_NULL;
  if (j->hosts[0]) {
    MPI_Info_create(&info);
    MPI_Info_set(info, "host", j->hosts);
  }
  int rc = MPI_Comm_spawn(j->exe, j->argv[0] ? j->argv : MPI_ARGV_NULL, j->n, info, 0, j->comm,
                          &j->inter, MPI_ERRCODES_IGNORE);
  if (info != MPI_INFO_NULL)
    MPI_Info_free(&info);
  if (rc == MPI_SUCCESS)
    rc = MPI_Intercomm_merge(j->inter, 0, &j->merged);
  int len = 0;
  if (rc != MPI_SUCCESS) {
    /* Open MPI leaves a dangling handle behind a failed spawn; freeing it
     * aborts the job. */
    j->inter = j->merged = MPI_COMM_NULL;
    MPI_Error_string(rc, j->err, &len);
  }
  pthread_mutex_lock(&j->lock);
  j->done = 1;
  j->rc = rc == MPI_SUCCESS ? MORPH_OK : MORPH_ESPAWN;
  pthread_cond_signal(&j->cond);
  pthread_mutex_unlock(&j->lock);
  return NULL;
}

/* Waits for the spawn thread until the deadline. 1 if it finished. */
static int wait_spawn(spawn_job *j, double timeout)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += (time_t)timeout;
  ts.tv_nsec += (long)((timeout - (double)(time_t)timeout) * 1e9);
  if (ts.tv_nsec >= 1000000000L)
    ts.tv_sec++, ts.tv_nsec -= 1000000000L;
  pthread_mutex_lock(&j->lock);
  while (!j->done)
    if (pthread_cond_timedwait(&j->cond, &j->lock, &ts) == ETIMEDOUT)
      break;
  int done = j->done;
  pthread_mutex_unlock(&j->lock);
  return done;
}

static spawn_job *spawn_job_new(const morph_ctx *ctx, const morph__window *w)
{
  spawn_job *j = calloc(1, sizeof *j);
  if (!j)
    return NULL;
  ssize_t n = readlink("/proc/self/exe", j->exe, sizeof j->exe - 1);
  j->argv = read_argv();
  if (n <= 0 || !j->argv) {
    free(j->argv);
    free(j);
    return NULL;
  }
  pthread_mutex_init(&j->lock, NULL);
  pthread_cond_init(&j->cond, NULL);
  j->n = w->new_size - w->old_size;
  j->comm = w->spawncomm;
  j->inter = j->merged = MPI_COMM_NULL;
  snprintf(j->hosts, sizeof j->hosts, "%s", ctx->decision.hosts);
  return j;
}

static void spawn_job_free(spawn_job *j)
{
  char **argv = j->argv;
  size_t n = 0;
  while (argv[n])
    n++;
  /* read_argv() parked the buffer after the NULL; find it past any
   * further NULL slots (there is exactly one buffer). */
  for (size_t i = n + 1;; i++)
    if (argv[i]) {
      free(argv[i]);
      break;
    }
  free(argv);
  pthread_mutex_destroy(&j->lock);
  pthread_cond_destroy(&j->cond);
  free(j);
}

/* Runs spawn + merge, time-limited when threads allow it. Returns the
 * job's rc; *abandoned set if the thread still runs. */
static int run_spawn(morph_ctx *ctx, morph__window *w, spawn_job *j, int *abandoned)
{
  *abandoned = 0;
  if (!ctx->thread_multiple) {
    if (!ctx->warned_threads++ && ctx->rank == 0)
      morph__log(MORPH_LOG_WARN, "0", "MPI was not initialised with MPI_THREAD_MULTIPLE: "
                 "spawns run without a time limit and a hung spawn hangs the job");
    spawn_main(j);
    return j->rc;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, spawn_main, j) != 0)
    return MORPH_ESPAWN;
  if (!wait_spawn(j, w->step_timeout)) {
    pthread_detach(t);
    *abandoned = 1;
    return MORPH_ETIMEDOUT;
  }
  pthread_join(t, NULL);
  return j->rc;
}

static int pid_in(pid_t pid, const int *pids, int n)
{
  for (int i = 0; i < n; i++)
    if (pids[i] == (int)pid)
      return 1;
  return 0;
}

static pid_t parent_of(pid_t pid)
{
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return -1;
  int ppid = -1;
  /* Format: pid (comm) state ppid ...; comm may contain spaces. */
  char line[1024];
  if (fgets(line, sizeof line, f)) {
    char *p = strrchr(line, ')');
    if (p)
      sscanf(p + 2, "%*c %d", &ppid);
  }
  fclose(f);
  return ppid;
}

static int same_exe(pid_t pid, const char *exe)
{
  char path[64], target[PATH_MAX];
  snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
  ssize_t n = readlink(path, target, sizeof target - 1);
  if (n <= 0)
    return 0;
  target[n] = '\0';
  return !strcmp(target, exe);
}

/*
 * Kills joiners of a failed spawn that never became members: processes of
 * this host that run our program under the same parent (the MPI daemon)
 * but are not in the job. Collective over ctx->comm. Returns how many were
 * killed here.
 */
static int kill_strays(morph_ctx *ctx)
{
  int me = (int)getpid(), *pids = malloc((size_t)ctx->size * sizeof *pids), killed = 0;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (!pids || n <= 0 || MPI_Allgather(&me, 1, MPI_INT, pids, 1, MPI_INT, ctx->comm) != MPI_SUCCESS) {
    free(pids);
    return 0;
  }
  exe[n] = '\0';
  pid_t ppid = getppid();
  DIR *d = opendir("/proc");
  for (struct dirent *e; d && (e = readdir(d));) {
    pid_t pid = (pid_t)atoi(e->d_name);
    if (pid > 0 && !pid_in(pid, pids, ctx->size) && parent_of(pid) == ppid && same_exe(pid, exe) &&
        kill(pid, SIGKILL) == 0)
      killed++;
  }
  if (d)
    closedir(d);
  free(pids);
  return killed;
}

/* The window's header for the joiners, from the context (a timed-out
 * broadcast stays active and must not write into a dead stack frame). */
static int send_wire(morph_ctx *ctx, morph__window *w)
{
  ctx->wire = (morph__window_wire){
    .id = w->id, .seq = w->seq, .old_size = w->old_size, .new_size = w->new_size,
    .mechanism = w->mechanism, .min = ctx->opts.min_procs, .max = ctx->opts.max_procs,
    .pref = ctx->opts.pref_procs, .sched_iterations = ctx->opts.sched_iterations,
    .iteration = w->iteration, .skip = ctx->skip, .step_timeout = w->step_timeout,
    .sched_period = ctx->opts.sched_period,
  };
  MPI_Request req;
  MPI_Ibcast(&ctx->wire, (int)sizeof ctx->wire, MPI_BYTE, 0, w->newcomm, &req);
  return morph__wait_all(1, &req, morph__now() + w->step_timeout);
}

static int grow(morph_ctx *ctx, morph__window *w)
{
  MPI_Request req;
  if (MPI_Comm_idup(ctx->comm, &w->spawncomm, &req) != MPI_SUCCESS)
    return MORPH_EMPI;
  if (morph__wait_all(1, &req, morph__now() + w->step_timeout) != MORPH_OK) {
    snprintf(w->why, sizeof w->why, "a process did not take part in the expansion");
    return MORPH_ETIMEDOUT;
  }
  w->staycomm = ctx->comm;
  w->nonstay_lo = w->old_size, w->nonstay_hi = w->new_size;
  spawn_job *j = spawn_job_new(ctx, w);
  if (!j)
    return MORPH_ENOMEM;
  /* The pause guards against back-to-back spawns: only what is left of it
   * since the previous reconfiguration is slept. */
  morph__sleep(ctx->opts.spawn_pause - (morph__now() - ctx->last_window_end));
  int abandoned, rc = run_spawn(ctx, w, j, &abandoned);
  /* All parents must reach the same verdict before any uses the result. */
  rc = morph__agree(ctx, ctx->comm, rc, morph__now() + w->step_timeout);
  if (rc == MORPH_OK) {
    w->intercomm = j->inter, w->newcomm = j->merged;
    MPI_Comm_set_errhandler(w->newcomm, MPI_ERRORS_RETURN);
    rc = send_wire(ctx, w);
  } else {
    snprintf(w->why, sizeof w->why, "spawning %d processes %s%s%.100s", j->n,
             abandoned ? "did not finish within the step time limit" : "failed",
             j->err[0] ? ": " : "", j->err);
    w->abandoned = w->spawn_hung = abandoned;
    if (!abandoned)
      w->intercomm = j->inter, w->newcomm = j->merged;
  }
  if (!abandoned)
    spawn_job_free(j);
  return rc;
}

/* The stayers' communicator is built by the stayers alone
 * (MPI_Comm_create_group), so that a leaver in trouble cannot hold it up. */
static int shrink(morph_ctx *ctx, morph__window *w)
{
  w->newcomm = ctx->comm;
  w->nonstay_lo = w->new_size, w->nonstay_hi = w->old_size;
  if (ctx->rank >= w->new_size)
    return MORPH_OK;
  MPI_Group all, stay;
  int range[1][3] = {{0, w->new_size - 1, 1}};
  MPI_Comm_group(ctx->comm, &all);
  MPI_Group_range_incl(all, 1, range, &stay);
  int rc = MPI_Comm_create_group(ctx->comm, stay, TAG_STAYERS, &w->staycomm);
  MPI_Group_free(&stay);
  MPI_Group_free(&all);
  if (rc != MPI_SUCCESS)
    return MORPH_EMPI;
  MPI_Comm_set_errhandler(w->staycomm, MPI_ERRORS_RETURN);
  return MORPH_OK;
}

static int live_prepare(morph_ctx *ctx, morph__window *w)
{
  return w->new_size > w->old_size ? grow(ctx, w) : shrink(ctx, w);
}

static int live_move(morph_ctx *ctx, morph__window *w)
{
  return morph__data_move(ctx, w);
}

static void free_comm(MPI_Comm *c)
{
  if (*c != MPI_COMM_NULL)
    MPI_Comm_free(c);
}

/* Leavers only change status; everyone else installs the new data, and
 * the processes that were there before switch communicators. */
static int live_commit(morph_ctx *ctx, morph__window *w)
{
  int grown = w->new_size > w->old_size;
  if (!grown && w->staycomm == MPI_COMM_NULL) {
    ctx->status = MORPH_LEAVING;
    return MORPH_OK;
  }
  morph__data_install(ctx, w);
  if (!w->joiner) {
    MPI_Comm old = ctx->comm;
    morph__set_comm(ctx, grown ? w->newcomm : w->staycomm);
    free_comm(&old);
    free_comm(&w->spawncomm);
  }
  free_comm(&w->intercomm);
  return MORPH_OK;
}

static void live_rollback(morph_ctx *ctx, morph__window *w)
{
  morph__data_discard(ctx, w);
  if (w->joiner) {
    /* A joiner of a failed expansion has nothing to stay for. */
    ctx->status = MORPH_LEAVING;
    return;
  }
  if (w->new_size > w->old_size) {
    int killed = kill_strays(ctx);
    if (killed && ctx->rank == 0)
      morph__log(MORPH_LOG_WARN, "0", "killed %d joiner(s) left over by the failed spawn", killed);
    /* After a failed spawn, Open MPI 4.1 leaves the non-root parents inside
     * MPI_Comm_spawn for good; a hung spawn anywhere means the job's
     * dynamic-process machinery cannot be trusted, so every process must
     * know: later reconfigurations then use the relaunch mechanism. */
    int hung = w->spawn_hung;
    MPI_Allreduce(MPI_IN_PLACE, &hung, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (hung)
      ctx->live_ok = 0;
    ctx->spawn_hung |= hung;
    if (!w->spawn_hung) {
      free_comm(&w->newcomm);
      free_comm(&w->intercomm);
      free_comm(&w->spawncomm);
    }
  } else if (w->staycomm != MPI_COMM_NULL) {
    free_comm(&w->staycomm);
  }
}

const morph__mech_ops morph__mech_live = {
  "live", live_prepare, live_move, live_commit, live_rollback,
};

/* The joiner's copy of the window and of the job's settings. */
static morph__window *window_from_wire(morph_ctx *ctx, MPI_Comm merged, MPI_Comm parent)
{
  const morph__window_wire *wire = &ctx->wire;
  morph__window *w = calloc(1, sizeof *w);
  if (!w)
    return NULL;
  w->id = wire->id, w->seq = wire->seq, w->old_size = wire->old_size, w->new_size = wire->new_size;
  w->mechanism = (morph_mechanism)wire->mechanism, w->iteration = wire->iteration;
  w->step_timeout = wire->step_timeout;
  w->joiner = 1, w->newcomm = merged, w->intercomm = parent;
  w->staycomm = w->spawncomm = MPI_COMM_NULL;
  w->nonstay_lo = wire->old_size, w->nonstay_hi = wire->new_size;
  morph_options *o = &ctx->opts;
  o->min_procs = wire->min, o->max_procs = wire->max, o->pref_procs = wire->pref;
  o->sched_iterations = wire->sched_iterations, o->sched_period = wire->sched_period;
  o->step_timeout = wire->step_timeout;
  ctx->skip = wire->skip, ctx->reconf_seq = wire->seq, ctx->iteration = wire->iteration;
  return w;
}

int morph__live_join(morph_ctx *ctx, MPI_Comm parent)
{
  MPI_Comm merged;
  MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
  if (MPI_Intercomm_merge(parent, 1, &merged) != MPI_SUCCESS)
    return morph__fail(ctx, MORPH_EMPI, "joiner: merging with the running job failed");
  morph__set_comm(ctx, merged);
  MPI_Request req;
  MPI_Ibcast(&ctx->wire, (int)sizeof ctx->wire, MPI_BYTE, 0, merged, &req);
  if (morph__wait_all(1, &req, morph__now() + ctx->opts.step_timeout) != MORPH_OK)
    return morph__fail(ctx, MORPH_ETIMEDOUT, "joiner: the running job sent no window");
  if (!(ctx->pending = window_from_wire(ctx, merged, parent)))
    return morph__fail(ctx, MORPH_ENOMEM, "joiner: no memory");
  ctx->status = MORPH_JOINING;
  return MORPH_OK;
}
