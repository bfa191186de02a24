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
#include "runtime/client.h"
#include "proto/hosts.h"
#include "runtime/hold.h"
#include "runtime/leavers.h"
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
  double pause;          /* slept before spawning (background only) */
  double t_end;          /* morph__now() when it finished */
  char exe[PATH_MAX];
  char **argv;
  morph__hostlist hosts; /* where the joiners go; empty: MPI's choice */
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

/* One command per run of hosts, each with the info host=<name>:<count>:
 * MPI_Comm_spawn_multiple ranks the joiners in the order of the commands,
 * so joiners land exactly where the list says, in its order. (A single
 * spawn with host=a:1,b:2 lets Open MPI's mapper fill hosts by its own
 * slot count instead: measured, both joiners went to b.) */
static int spawn_on_hosts(spawn_job *j)
{
  int k = j->hosts.n, rc = MPI_ERR_NO_MEM;
  char **cmds = calloc((size_t)k, sizeof *cmds), ***argvs = calloc((size_t)k, sizeof *argvs);
  int *np = calloc((size_t)k, sizeof *np);
  MPI_Info *infos = calloc((size_t)k, sizeof *infos);
  for (int i = 0; cmds && argvs && np && infos && i < k; i++) {
    char host[MORPH__HOST_MAX + 16];
    snprintf(host, sizeof host, "%s:%d", j->hosts.v[i].host, j->hosts.v[i].count);
    cmds[i] = j->exe, argvs[i] = j->argv, np[i] = j->hosts.v[i].count;
    MPI_Info_create(&infos[i]);
    MPI_Info_set(infos[i], "host", host);
  }
  if (cmds && argvs && np && infos)
    rc = MPI_Comm_spawn_multiple(k, cmds, argvs, np, infos, 0, j->comm, &j->inter,
                                 MPI_ERRCODES_IGNORE);
  for (int i = 0; infos && i < k; i++)
    if (infos[i] != MPI_INFO_NULL && infos[i] != 0)
      MPI_Info_free(&infos[i]);
  free(cmds), free(argvs), free(np), free(infos);
  return rc;
}

static void *spawn_main(void *arg)
{
  spawn_job *j = arg;
  morph__sleep(j->pause);
  int rc = j->hosts.n > 0 ? spawn_on_hosts(j)
                          : MPI_Comm_spawn(j->exe, j->argv[0] ? j->argv : MPI_ARGV_NULL, j->n,
                                           MPI_INFO_NULL, 0, j->comm, &j->inter,
                                           MPI_ERRCODES_IGNORE);
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
  j->t_end = morph__now();
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

/* The decision's hosts, if they name every joiner (rank 0 only: the
 * spawn's root decides). A list that does not fit the expansion is left
 * to MPI's own placement, with a warning. */
static void joiner_hosts(const morph_ctx *ctx, spawn_job *j)
{
  const char *text = ctx->decision.hosts;
  if (ctx->rank != 0 || !text[0])
    return;
  int rc = morph__hostlist_parse(&j->hosts, text);
  if (rc == MORPH_OK && morph__hostlist_total(&j->hosts) == j->n)
    return;
  morph__log(MORPH_LOG_WARN, "0", "joiner hosts '%.100s' do not name %d joiners; MPI places them",
             text, j->n);
  j->hosts.n = 0;
}

static spawn_job *spawn_job_new(const morph_ctx *ctx, int n, MPI_Comm comm)
{
  spawn_job *j = calloc(1, sizeof *j);
  if (!j)
    return NULL;
  ssize_t len = readlink("/proc/self/exe", j->exe, sizeof j->exe - 1);
  j->argv = read_argv();
  if (len <= 0 || !j->argv) {
    free(j->argv);
    free(j);
    return NULL;
  }
  pthread_mutex_init(&j->lock, NULL);
  pthread_cond_init(&j->cond, NULL);
  j->n = n;
  j->comm = comm;
  j->inter = j->merged = MPI_COMM_NULL;
  morph__hostlist_init(&j->hosts);
  joiner_hosts(ctx, j);
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
  morph__hostlist_free(&j->hosts);
  pthread_mutex_destroy(&j->lock);
  pthread_cond_destroy(&j->cond);
  free(j);
}

/* What the spawn watchdog needs: the job, the limit, the context for the
 * message (read only: the main thread is inside MPI meanwhile). */
typedef struct spawn_watch {
  spawn_job *job;
  morph_ctx *ctx;
  double timeout;
} spawn_watch;

/*
 * Below MPI_THREAD_MULTIPLE the spawn runs on the calling thread, and no
 * other thread may call MPI, so a hung spawn can be neither abandoned nor
 * rolled back. This thread calls no MPI: if the spawn has not returned in
 * time it says why, tells the launcher (rank 0; the main thread is stuck
 * inside MPI and does not use the socket), and ends the process, so that
 * the launcher ends the job instead of waiting for it forever.
 */
static void *spawn_watchdog(void *arg)
{
  spawn_watch *sw = arg;
  if (wait_spawn(sw->job, sw->timeout))
    return NULL;
  char text[400];
  snprintf(text, sizeof text, "spawning %d processes did not finish within the step time limit "
           "(%.0f s) and MPI was not initialised with MPI_THREAD_MULTIPLE, so the hung spawn "
           "cannot be abandoned and rolled back: ending the job (initialise MPI with "
           "MPI_Init_thread and MPI_THREAD_MULTIPLE to have it rolled back instead)",
           sw->job->n, sw->timeout);
  if (sw->ctx->rank == 0) {
    morph__log(MORPH_LOG_ERROR, "0", "%s", text);
    morph__client_bye(sw->ctx, 1, text);
  }
  morph__end_process(1);
}

/* Below MPI_THREAD_MULTIPLE: the spawn on this thread, under the watchdog. */
static int run_spawn_watched(morph_ctx *ctx, morph__window *w, spawn_job *j)
{
  spawn_watch sw = {j, ctx, w->step_timeout};
  pthread_t t;
  int watched = pthread_create(&t, NULL, spawn_watchdog, &sw) == 0;
  if (!watched && !ctx->warned_threads++ && ctx->rank == 0)
    morph__log(MORPH_LOG_WARN, "0", "no watchdog thread for the spawn: it runs without a time "
               "limit");
  spawn_main(j);
  if (watched)
    pthread_join(t, NULL);
  return j->rc;
}

/* Runs spawn + merge under the step time limit. With MPI_THREAD_MULTIPLE
 * the spawn runs in a thread that is abandoned if it hangs (*abandoned set)
 * and the window rolls back; below, a hung spawn ends the job (see
 * spawn_watchdog). Returns the job's rc. */
static int run_spawn(morph_ctx *ctx, morph__window *w, spawn_job *j, int *abandoned)
{
  *abandoned = 0;
  if (!ctx->thread_multiple)
    return run_spawn_watched(ctx, w, j);
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

/* pairs: n pairs {pid, flag}. */
static int pid_in(pid_t pid, const int *pairs, int n)
{
  for (int i = 0; i < n; i++)
    if (pairs[2 * i] == (int)pid)
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
 * but are not in the job (pids: one pair {pid, hung} per rank). Returns
 * how many were killed here.
 */
static int kill_strays(const morph_ctx *ctx, const int *pairs)
{
  int killed = 0;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return 0;
  exe[n] = '\0';
  pid_t ppid = getppid();
  DIR *d = opendir("/proc");
  for (struct dirent *e; d && (e = readdir(d));) {
    pid_t pid = (pid_t)atoi(e->d_name);
    if (pid > 0 && !pid_in(pid, pairs, ctx->size) && parent_of(pid) == ppid && same_exe(pid, exe) &&
        kill(pid, SIGKILL) == 0)
      killed++;
  }
  if (d)
    closedir(d);
  return killed;
}

/* What a parent tells the others after a failed grow (flag bits). */
enum { SPAWN_HUNG = 1, SPAWN_FAILED = 2 };

/*
 * After a failed grow, every parent learns the others' pids and how their
 * spawn ended (SPAWN_* bits), in one exchange bounded by the step time: a
 * blocking collective here waited forever once (measured across hosts: two
 * parents got an error from MPI_Allgather and went on while two waited in
 * it). No answer in time counts as a hung spawn. Returns the OR of every
 * parent's bits; *pairs (heap, {pid, bits} per rank) is NULL unless all
 * answered; after a timeout the buffer belongs to MPI and is leaked.
 */
static int share_spawn_outcome(morph_ctx *ctx, const morph__window *w, int **pairs)
{
  *pairs = NULL;
  int *buf = malloc((size_t)(ctx->size + 1) * 2 * sizeof *buf);
  if (!buf)
    return SPAWN_HUNG;
  int *mine = buf + 2 * ctx->size;
  /* No intercommunicator: this parent's spawn itself did not succeed. */
  mine[0] = (int)getpid();
  mine[1] = (w->spawn_hung ? SPAWN_HUNG : 0) | (w->intercomm == MPI_COMM_NULL ? SPAWN_FAILED : 0);
  MPI_Request req;
  int rc = MPI_Iallgather(mine, 2, MPI_INT, buf, 2, MPI_INT, ctx->comm, &req) == MPI_SUCCESS
             ? morph__wait_all(1, &req, morph__now() + w->step_timeout)
             : MORPH_EMPI;
  if (rc != MORPH_OK) {
    if (rc != MORPH_ETIMEDOUT)
      free(buf);
    return SPAWN_HUNG;
  }
  int bits = 0;
  for (int r = 0; r < ctx->size; r++)
    bits |= buf[2 * r + 1];
  *pairs = buf;
  return bits;
}

/* The window's header for the joiners, from the context (a timed-out
 * broadcast stays active and must not write into a dead stack frame). */
static int send_wire(morph_ctx *ctx, morph__window *w)
{
  ctx->wire = (morph__window_wire){
    .id = w->id, .seq = w->seq, .old_size = w->old_size, .new_size = w->new_size,
    .mechanism = w->mechanism, .overlap = w->overlap, .min = ctx->opts.min_procs, .max = ctx->opts.max_procs,
    .pref = ctx->opts.pref_procs, .sched_iterations = ctx->opts.sched_iterations,
    .iteration = w->iteration, .skip = ctx->skip, .step_timeout = w->step_timeout,
    .sched_period = ctx->opts.sched_period, .move = w->half == 1 ? w->move : 0,
  };
  MPI_Request req;
  MPI_Ibcast(&ctx->wire, (int)sizeof ctx->wire, MPI_BYTE, 0, w->newcomm, &req);
  return morph__wait_all(1, &req, morph__now() + w->step_timeout);
}

/* 1 if the spawn thread has finished (never blocks). */
static int spawn_finished(spawn_job *j)
{
  pthread_mutex_lock(&j->lock);
  int done = j->done;
  pthread_mutex_unlock(&j->lock);
  return done;
}

/* The pause guards against back-to-back spawns: only what is left of it
 * since the previous reconfiguration is slept. */
static double pause_left(const morph_ctx *ctx)
{
  double p = ctx->opts.spawn_pause - (morph__now() - ctx->last_window_end);
  return p > 0 ? p : 0;
}

/* The spawn inside the window, the application waiting. *out: the job,
 * NULL if it could not be set up (then nothing was spawned). */
static int spawn_now(morph_ctx *ctx, morph__window *w, spawn_job **out, int *abandoned)
{
  MPI_Request req;
  *out = NULL, *abandoned = 0;
  if (MPI_Comm_idup(ctx->comm, &w->spawncomm, &req) != MPI_SUCCESS)
    return MORPH_EMPI;
  if (morph__wait_all(1, &req, morph__now() + w->step_timeout) != MORPH_OK) {
    snprintf(w->why, sizeof w->why, "a process did not take part in the expansion");
    return MORPH_ETIMEDOUT;
  }
  if (!(*out = spawn_job_new(ctx, w->new_size - w->old_size, w->spawncomm)))
    return MORPH_ENOMEM;
  morph__sleep(pause_left(ctx));
  return run_spawn(ctx, w, *out, abandoned);
}

int morph__live_spawn_start(morph_ctx *ctx, int n)
{
  morph__bg *bg = &ctx->bg;
  double pause = pause_left(ctx);
  bg->t0 = morph__now();
  bg->deadline = bg->t0 + pause + bg->check.step_timeout;
  bg->job = NULL, bg->ready = 0, bg->spawncomm = MPI_COMM_NULL;
  MPI_Request req;
  if (MPI_Comm_idup(ctx->comm, &bg->spawncomm, &req) != MPI_SUCCESS)
    return MORPH_EMPI;
  if (morph__wait_all(1, &req, bg->t0 + bg->check.step_timeout) != MORPH_OK)
    return MORPH_ETIMEDOUT; /* the handle is written late: left alone */
  spawn_job *j = spawn_job_new(ctx, n, bg->spawncomm);
  if (!j)
    return MORPH_ENOMEM;
  j->pause = pause; /* slept by the thread, not by the application */
  if (pthread_create(&bg->thread, NULL, spawn_main, j) != 0) {
    spawn_job_free(j);
    return MORPH_ESPAWN;
  }
  bg->job = j;
  return MORPH_OK;
}

int morph__live_spawn_poll(morph_ctx *ctx, int *ready)
{
  morph__bg *bg = &ctx->bg;
  int done = bg->job && spawn_finished(bg->job);
  int failed = !bg->job || (done && bg->job->rc != MORPH_OK);
  /* After a failed spawn Open MPI leaves the non-root parents inside it
   * for good: one failure is enough to stop waiting. */
  bg->flags[0] = done || failed || morph__now() > bg->deadline;
  bg->flags[1] = !failed;
  MPI_Request req;
  /* Polled, not blocking: a stuck spawn thread may hold Open MPI's
   * progress (docs/runtime.md, "Nothing waits on the abandoned spawn"). */
  int rc = MPI_Iallreduce(bg->flags, bg->all, 2, MPI_INT, MPI_MIN, ctx->comm, &req) == MPI_SUCCESS
             ? morph__wait_all(1, &req, morph__now() + bg->check.step_timeout)
             : MORPH_EMPI;
  *ready = rc != MORPH_OK || bg->all[0] || !bg->all[1];
  bg->ready = *ready;
  return rc;
}

/* The window takes over the background spawn's result: a thread that has
 * not finished by now is abandoned, as in run_spawn. */
static int spawn_taken(morph_ctx *ctx, morph__window *w, spawn_job **out, int *abandoned)
{
  morph__bg *bg = &ctx->bg;
  spawn_job *j = bg->job;
  *out = j, *abandoned = 0;
  bg->job = NULL, bg->ready = 0;
  w->spawncomm = j ? bg->spawncomm : MPI_COMM_NULL;
  bg->spawncomm = MPI_COMM_NULL;
  if (!j) {
    snprintf(w->why, sizeof w->why, "the background spawn of %d processes could not be started",
             w->new_size - w->old_size);
    w->t_background = morph__now() - bg->t0;
    return MORPH_ESPAWN;
  }
  if (!spawn_finished(j)) {
    pthread_detach(bg->thread);
    *abandoned = 1;
    w->t_background = morph__now() - bg->t0;
    return MORPH_ETIMEDOUT;
  }
  pthread_join(bg->thread, NULL);
  w->t_background = j->t_end - bg->t0;
  return j->rc;
}

static int grow(morph_ctx *ctx, morph__window *w)
{
  w->staycomm = ctx->comm;
  w->nonstay_lo = w->old_size, w->nonstay_hi = w->new_size;
  spawn_job *j;
  int abandoned, rc;
  if (ctx->bg.ready)
    rc = spawn_taken(ctx, w, &j, &abandoned);
  else if ((rc = spawn_now(ctx, w, &j, &abandoned)) != MORPH_OK && !j)
    return rc;
  /* All parents must reach the same verdict before any uses the result. */
  rc = morph__agree(ctx, ctx->comm, rc, morph__now() + w->step_timeout);
  if (rc == MORPH_OK) {
    w->intercomm = j->inter, w->newcomm = j->merged;
    MPI_Comm_set_errhandler(w->newcomm, MPI_ERRORS_RETURN);
    rc = send_wire(ctx, w);
    if (ctx->rank == 0)
      morph__hostlist_format(&j->hosts, ctx->reconf_hosts, sizeof ctx->reconf_hosts);
  } else if (j) {
    snprintf(w->why, sizeof w->why, "spawning %d processes %s%s%.100s", j->n,
             abandoned ? "did not finish within the step time limit" : "failed",
             j->err[0] ? ": " : "", j->err);
    w->abandoned = w->spawn_hung = abandoned;
    if (!abandoned)
      w->intercomm = j->inter, w->newcomm = j->merged;
  }
  if (j && !abandoned)
    spawn_job_free(j);
  return rc;
}

/* What each rank tells the others in a shrink: its host name, then its
 * launcher job (hold.h) at WHO_JOB. */
#define WHO_JOB MORPH__HOST_MAX
#define WHO_SIZE (MORPH__HOST_MAX + 32)

/* Every rank's host name and job, gathered on comm (n entries of WHO_SIZE
 * bytes, heap; leaked after a timeout like any buffer of an abandoned
 * request). */
static int gather_hosts(MPI_Comm comm, int n, double deadline, char **out)
{
  char *all = calloc((size_t)n + 1, WHO_SIZE);
  if (!all)
    return MORPH_ENOMEM;
  char *mine = all + (size_t)n * WHO_SIZE;
  gethostname(mine, MORPH__HOST_MAX - 1);
  morph__hold_job(mine + WHO_JOB, WHO_SIZE - WHO_JOB);
  MPI_Request req;
  MPI_Iallgather(mine, WHO_SIZE, MPI_CHAR, all, WHO_SIZE, MPI_CHAR, comm, &req);
  int rc = morph__wait_all(1, &req, deadline);
  if (rc == MORPH_OK)
    *out = all;
  else if (rc != MORPH_ETIMEDOUT)
    free(all);
  return rc;
}

/* The hosts the decision names for the leavers, from rank 0 to all. Most
 * decisions name none (the check's broadcast said so): a collective round
 * less, which waits for the slowest process. */
static int share_decision_hosts(morph_ctx *ctx, const morph__window *w, double deadline)
{
  if (!w->named) {
    ctx->decision.hosts[0] = '\0'; /* not an earlier decision's hosts */
    return MORPH_OK;
  }
  MPI_Request req;
  MPI_Ibcast(ctx->decision.hosts, (int)sizeof ctx->decision.hosts, MPI_CHAR, 0, ctx->comm, &req);
  return morph__wait_all(1, &req, deadline);
}

/* Rank 0 tells its launcher where the leavers were ("node3:2"). */
static void note_leaver_hosts(morph_ctx *ctx, const char *const *host_of, const unsigned char *leave)
{
  morph__hostlist l;
  morph__hostlist_init(&l);
  for (int r = 0; r < ctx->size; r++)
    if (leave[r] && morph__hostlist_add(&l, host_of[r], 1) != MORPH_OK)
      l.n = 0;
  morph__hostlist_format(&l, ctx->reconf_hosts, sizeof ctx->reconf_hosts);
  morph__hostlist_free(&l);
}

/* The shrink of a move: its movers are those its first half found (not
 * chosen again by host: a joiner may be on a host of the same name, as on
 * one machine). Returns MORPH_OK or an error of the gather. */
static int gather_movers(morph_ctx *ctx, double deadline, unsigned char *leave)
{
  int *all = calloc((size_t)ctx->size + 1, sizeof *all); /* leaked after a timeout */
  if (!all)
    return MORPH_ENOMEM;
  all[ctx->size] = ctx->move_mover;
  MPI_Request req;
  MPI_Iallgather(all + ctx->size, 1, MPI_INT, all, 1, MPI_INT, ctx->comm, &req);
  int rc = morph__wait_all(1, &req, deadline);
  for (int r = 0; rc == MORPH_OK && r < ctx->size; r++)
    leave[r] = all[r] != 0;
  if (rc != MORPH_ETIMEDOUT)
    free(all);
  return rc;
}

/* The shrink of a move: each joiner (ranks new_size and up) takes the
 * rank of a mover, in order, so that the job's ranks mean what they
 * meant before the move. */
static void joiners_take_movers_ranks(morph__window *w, const unsigned char *leave)
{
  int j = w->new_size;
  for (int r = 0; r < w->new_size; r++) {
    if (!leave[r]) {
      w->stay[r] = r;
      continue;
    }
    while (j < w->old_size - 1 && leave[j])
      j++;
    w->stay[r] = j++;
  }
}

int morph__live_movers(morph_ctx *ctx, int move, int *mover)
{
  double deadline = morph__now() + ctx->opts.step_timeout;
  char *names = NULL, from[sizeof ctx->decision.from];
  snprintf(from, sizeof from, "%s", ctx->decision.from);
  MPI_Request req;
  MPI_Ibcast(from, (int)sizeof from, MPI_CHAR, 0, ctx->comm, &req);
  int rc = morph__wait_all(1, &req, deadline);
  if (rc == MORPH_OK)
    rc = gather_hosts(ctx->comm, ctx->size, deadline, &names);
  const char **host_of = malloc((size_t)ctx->size * sizeof *host_of);
  unsigned char *leave = malloc((size_t)ctx->size);
  if (rc == MORPH_OK && (!host_of || !leave))
    rc = MORPH_ENOMEM;
  for (int r = 0; rc == MORPH_OK && r < ctx->size; r++)
    host_of[r] = names + (size_t)r * WHO_SIZE;
  if (rc == MORPH_OK)
    rc = morph__leavers_choose(host_of, ctx->size, move, from, leave);
  *mover = rc >= 0 && leave[ctx->rank];
  free(host_of);
  free(leave);
  free(names);
  return rc;
}

/* Whether this leaver stays as a placeholder (hold.h): every process
 * computes the same answer from the gathered hosts and jobs. */
static void choose_holders(morph_ctx *ctx, const char *names, const char *const *host_of,
                           const unsigned char *leave)
{
  const char **job_of = malloc((size_t)ctx->size * sizeof *job_of);
  unsigned char *hold = malloc((size_t)ctx->size);
  ctx->hold = 0;
  for (int r = 0; job_of && r < ctx->size; r++)
    job_of[r] = names + (size_t)r * WHO_SIZE + WHO_JOB;
  int held = job_of && hold ? morph__leavers_hold(host_of, job_of, ctx->size, leave, hold) : 0;
  if (held > 0)
    ctx->hold = hold[ctx->rank];
  if (held > 0 && ctx->rank == 0)
    morph__log(MORPH_LOG_INFO, "0", "%d leaver(s) stay as placeholders: the last of their Open MPI "
               "job on their host, which its daemon would forget", held);
  free(job_of);
  free(hold);
}

/* Who leaves: the highest ranks on the hosts the decision names (so that
 * hosts empty whole), else the highest ranks. Fills w->stay when the
 * stayers are not simply the lowest ranks. Collective over ctx->comm. */
static int choose_leavers(morph_ctx *ctx, morph__window *w)
{
  double deadline = morph__now() + w->step_timeout;
  char *names = NULL;
  int rc = share_decision_hosts(ctx, w, deadline);
  if (rc == MORPH_OK)
    rc = gather_hosts(ctx->comm, ctx->size, deadline, &names);
  const char **host_of = malloc((size_t)ctx->size * sizeof *host_of);
  unsigned char *leave = malloc((size_t)ctx->size);
  w->stay = malloc((size_t)w->new_size * sizeof *w->stay);
  if (rc == MORPH_OK && (!host_of || !leave || !w->stay))
    rc = MORPH_ENOMEM;
  for (int r = 0; rc == MORPH_OK && r < ctx->size; r++)
    host_of[r] = names + (size_t)r * WHO_SIZE;
  int unmet = rc != MORPH_OK ? 0
              : w->half == 2 ? gather_movers(ctx, deadline, leave)
                             : morph__leavers_choose(host_of, ctx->size, ctx->size - w->new_size,
                                                     ctx->decision.hosts, leave);
  if (unmet < 0)
    rc = unmet;
  if (unmet > 0 && ctx->rank == 0)
    morph__log(MORPH_LOG_WARN, "0", "%d leaver(s) could not be taken from the hosts named (%.100s)",
               unmet, ctx->decision.hosts);
  if (rc == MORPH_OK && w->half == 2)
    joiners_take_movers_ranks(w, leave);
  for (int r = 0, q = 0; rc == MORPH_OK && w->half != 2 && r < ctx->size; r++)
    if (!leave[r])
      w->stay[q++] = r;
  if (rc == MORPH_OK)
    choose_holders(ctx, names, host_of, leave);
  if (rc == MORPH_OK && ctx->rank == 0)
    note_leaver_hosts(ctx, host_of, leave);
  free(host_of);
  free(leave);
  free(names);
  return rc;
}

/* The stayers' communicator is built by the stayers alone
 * (MPI_Comm_create_group), so that a leaver in trouble cannot hold it up. */
static int shrink(morph_ctx *ctx, morph__window *w)
{
  w->newcomm = ctx->comm;
  w->nonstay_lo = 0, w->nonstay_hi = w->old_size;
  int rc = choose_leavers(ctx, w);
  if (rc != MORPH_OK) {
    snprintf(w->why, sizeof w->why, "choosing the leavers failed: %s", morph_strerror(rc));
    return rc;
  }
  if (morph__window_new_rank(w, ctx->rank) < 0)
    return MORPH_OK;
  MPI_Group all, stay;
  MPI_Comm_group(ctx->comm, &all);
  MPI_Group_incl(all, w->new_size, w->stay, &stay);
  rc = MPI_Comm_create_group(ctx->comm, stay, TAG_STAYERS, &w->staycomm);
  MPI_Group_free(&stay);
  MPI_Group_free(&all);
  if (rc != MPI_SUCCESS)
    return MORPH_EMPI;
  MPI_Comm_set_errhandler(w->staycomm, MPI_ERRORS_RETURN);
  return MORPH_OK;
}

static int live_prepare(morph_ctx *ctx, morph__window *w)
{
  ctx->reconf_hosts[0] = '\0';
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
  free(w->stay);
  w->stay = NULL;
  if (!grown && w->staycomm == MPI_COMM_NULL) {
    morph__data_trim(ctx);
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
  free(w->stay);
  w->stay = NULL;
  ctx->reconf_hosts[0] = '\0';
  if (w->joiner) {
    /* A joiner of a failed expansion has nothing to stay for. */
    ctx->status = MORPH_LEAVING;
    return;
  }
  if (w->new_size > w->old_size) {
    /* After a failed spawn, Open MPI 4.1 leaves the non-root parents inside
     * MPI_Comm_spawn for good, and a spawn that failed or hung anywhere
     * (e.g. its host unreachable) means the job's dynamic-process
     * machinery cannot be trusted: every process must know, and later
     * reconfigurations use the relaunch mechanism. A joiner that died
     * after a good spawn does not count (the next grow stays live). */
    int *pairs;
    int bits = share_spawn_outcome(ctx, w, &pairs);
    int killed = pairs ? kill_strays(ctx, pairs) : 0;
    free(pairs);
    if (killed && ctx->rank == 0)
      morph__log(MORPH_LOG_WARN, "0", "killed %d joiner(s) left over by the failed spawn", killed);
    if (bits && ctx->live_ok && ctx->rank == 0)
      morph__log(MORPH_LOG_WARN, "0", "the spawn %s: the live mechanism is off for this job, "
                 "later resizes use relaunch", bits & SPAWN_HUNG ? "hung" : "failed");
    if (bits)
      ctx->live_ok = 0;
    ctx->spawn_hung |= (bits & SPAWN_HUNG) != 0;
    if (!w->spawn_hung) {
      free_comm(&w->newcomm);
      free_comm(&w->intercomm);
      free_comm(&w->spawncomm);
    }
  } else {
    ctx->hold = 0; /* nobody left */
    if (w->staycomm != MPI_COMM_NULL)
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
  w->step_timeout = wire->step_timeout, w->overlap = wire->overlap;
  w->move = wire->move, w->half = wire->move ? 1 : 0;
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
