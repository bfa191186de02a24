/*
 * Starting a job's morph-run (launch.h).
 */
#include "rms/launch.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/safedir.h"
#include "morph/error.h"

#define MAX_ARGS 24
/* How long morphd waits for a new child to claim its job's start: a few
 * system calls, so only a machine in trouble comes near it. */
#define CLAIM_WAIT_MS 5000

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t size, int rc,
                                                      const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, size, fmt, ap);
  va_end(ap);
  return rc;
}

int morph__launcher_init(morph__launcher *l, const char *path, const char *socket,
                         const char *outdir, const char *checkpoint_dir, char *err,
                         size_t errsize)
{
  const char *ck = checkpoint_dir ? checkpoint_dir : "";
  if (snprintf(l->socket, sizeof l->socket, "%s", socket) >= (int)sizeof l->socket ||
      snprintf(l->outdir, sizeof l->outdir, "%s", outdir) >= (int)sizeof l->outdir ||
      snprintf(l->checkpoint_dir, sizeof l->checkpoint_dir, "%s", ck) >=
          (int)sizeof l->checkpoint_dir)
    return fail(err, errsize, MORPH_EINVAL, "socket or folder path too long");
  if (path) {
    snprintf(l->path, sizeof l->path, "%s", path);
    return MORPH_OK;
  }
  ssize_t len = readlink("/proc/self/exe", l->path, sizeof l->path - 16);
  if (len < 0)
    return fail(err, errsize, MORPH_EIO, "cannot find my own folder: %s", strerror(errno));
  l->path[len] = '\0';
  char *slash = strrchr(l->path, '/');
  snprintf(slash ? slash + 1 : l->path, 16, "morph-run");
  return MORPH_OK;
}

static int in_alloc(const morph__alloc *a, int node)
{
  for (int i = 0; i < a->n; i++)
    if (a->v[i].node == node)
      return 1;
  return 0;
}

/* Writes "host slots=N" lines: the job's pieces first, then, for a job
 * that may grow, every other node of the pool with all its slots. Open
 * MPI maps the first -n ranks slot by slot in this order, so they land on
 * the pieces; the other nodes are there for later grows, since Open MPI
 * 4.1 cannot spawn onto a host that was not in mpirun's starting list
 * (measured: add-host fails, docs/cluster.md). mpirun starts a daemon on
 * every host of the list and may end the job when one dies, so a rigid
 * job lists its own hosts only: a host that dies without its processes
 * leaves it alone. */
static int write_hostfile(const morph__launcher *l, const morph__job *job,
                          const morph__node *nodes, int nnodes, char *path, size_t size)
{
  snprintf(path, size, "%s/%lld.hosts", l->outdir, (long long)job->id);
  /* Readable by the job's user, who runs mpirun; never through a link. */
  int fd = morph__file_create(path, 0644);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    if (fd >= 0)
      close(fd);
    return MORPH_EIO;
  }
  for (int i = 0; i < job->alloc.n; i++)
    fprintf(f, "%s slots=%d\n", nodes[job->alloc.v[i].node].host, job->alloc.v[i].slots);
  for (int k = 0; k < nnodes && morph_job_kind_malleable(job->kind); k++)
    if (!in_alloc(&job->alloc, k))
      fprintf(f, "%s slots=%d\n", nodes[k].host, nodes[k].slots);
  return fclose(f) == 0 ? MORPH_OK : MORPH_EIO;
}

/* The morph-run command line; numbers live in nums. */
static int build_argv(const morph__launcher *l, const morph__job *job, const char *hostfile,
                      char nums[6][32], char **argv, int cap)
{
  int n = 0;
  argv[n++] = (char *)l->path;
  argv[n++] = "--server", argv[n++] = (char *)l->socket;
  snprintf(nums[0], 32, "%lld", (long long)job->id);
  argv[n++] = "--job-id", argv[n++] = nums[0];
  snprintf(nums[1], 32, "%d", job->size);
  argv[n++] = "-n", argv[n++] = nums[1];
  if (morph_job_kind_malleable(job->kind)) {
    snprintf(nums[2], 32, "%d", job->min);
    snprintf(nums[3], 32, "%d", job->max);
    snprintf(nums[4], 32, "%d", job->pref);
    argv[n++] = "--min", argv[n++] = nums[2];
    argv[n++] = "--max", argv[n++] = nums[3];
    argv[n++] = "--pref", argv[n++] = nums[4];
    if (l->checkpoint_dir[0])
      argv[n++] = "--checkpoint-dir", argv[n++] = (char *)l->checkpoint_dir;
  }
  /* morphd, not Open MPI's slot count, decides where processes go: a
   * grow onto a host the job already uses would otherwise be refused
   * ("already filled", its slots in the hostfile being the pieces'). */
  /* Across hosts rank 0 is on a node, not here: it reaches morph run
   * over TCP. */
  if (hostfile)
    argv[n++] = "--hostfile", argv[n++] = (char *)hostfile, argv[n++] = "--mpi-arg",
    argv[n++] = "--oversubscribe", argv[n++] = "--listen", argv[n++] = "*:0";
  argv[n++] = "--";
  for (int i = 0; i < job->argc && n < cap - 1; i++)
    argv[n++] = job->argv[i];
  argv[n] = NULL;
  return n;
}

/* Puts the open file f (or /dev/null if f < 0) on fd. */
static void put_on(int f, int fd)
{
  if (f < 0)
    f = open("/dev/null", O_WRONLY);
  if (f >= 0 && f != fd) {
    dup2(f, fd);
    close(f);
  }
}

/* True if path is the output file morphd names by default for the job
 * (<outdir>/<id><ext>): morphd's own folder, where the job's user may not
 * create files, so root creates it and hands it over. */
static int default_output(const morph__launcher *l, const morph__job *job, const char *path,
                          const char *ext)
{
  char mine[PATH_MAX + 64];
  snprintf(mine, sizeof mine, "%s/%lld%s", l->outdir, (long long)job->id, ext);
  return path && !strcmp(path, mine);
}

/* Opens the default outputs before the drop to the job's user: created
 * never through a link and given to that user. -1 for the others. */
static void open_default_outputs(const morph__launcher *l, const morph__job *job, int fds[2])
{
  const char *paths[2] = {job->out, job->err}, *ext[2] = {".out", ".err"};
  for (int k = 0; k < 2; k++) {
    fds[k] = default_output(l, job, paths[k], ext[k]) ? morph__file_create(paths[k], 0600) : -1;
    if (fds[k] >= 0 && job->uid != (uid_t)-1 && geteuid() == 0 &&
        fchown(fds[k], job->uid, job->gid) != 0) {
      close(fds[k]);
      fds[k] = -1;
    }
  }
}

/* The job's own output paths, opened as its user (after the drop): the
 * user's rights decide, and a symbolic link is not followed. */
static void open_outputs(const morph__job *job, int fds[2])
{
  const char *paths[2] = {job->out, job->err};
  for (int k = 0; k < 2; k++)
    if (fds[k] < 0 && paths[k] && *paths[k])
      fds[k] = morph__file_create(paths[k], 0644);
  put_on(fds[0], 1);
  put_on(fds[1], 2);
}

/* Drops to the job's owner, as slurmd does before it starts a job: a
 * morphd run by root runs every job as the user who submitted it. A
 * morphd run by another user runs only that user's jobs (cli_srv.c), so it
 * has nothing to drop. Returns 0, or -1 if the drop failed. */
static int become_owner(const morph__job *job)
{
  if (geteuid() != 0 || job->uid == (uid_t)-1 || job->uid == 0)
    return 0;
  struct passwd *pw = getpwuid(job->uid);
  if ((pw ? initgroups(pw->pw_name, job->gid) : setgroups(1, &job->gid)) != 0 ||
      setgid(job->gid) != 0 || setuid(job->uid) != 0 || setuid(0) == 0)
    return -1;
  if (pw) {
    setenv("HOME", pw->pw_dir, 1);
    setenv("USER", pw->pw_name, 1);
    setenv("LOGNAME", pw->pw_name, 1);
  }
  return 0;
}

/* The job's start marker, <outdir>/<id>.started: "PID START\n", START the
 * job's start time (%.6f), which names the start the marker belongs to. */
static void marker_path(const morph__launcher *l, const morph__job *job, char *buf, size_t size)
{
  snprintf(buf, size, "%s/%lld.started", l->outdir, (long long)job->id);
}

/* The process that claimed this start of the job; 0 if there is no
 * marker or it is another start's (a journal begun afresh in the folder). */
static pid_t marker_pid(const char *path, const morph__job *job)
{
  char buf[96] = "", start[40], mine[40];
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
  if (fd >= 0)
    close(fd);
  long pid = 0;
  snprintf(mine, sizeof mine, "%.6f", job->start);
  if (n <= 0 || sscanf(buf, "%ld %39s", &pid, start) != 2 || pid <= 0 || strcmp(start, mine))
    return 0;
  return (pid_t)pid;
}

/* What a new child tells morphd about its claim. */
typedef struct claim {
  int taken; /* this start was claimed already, by `pid` */
  int err;   /* the marker could not be written (errno) */
  long pid;
} claim;

/* A complete marker of this process's claim, linked into place: link()
 * fails if a marker exists, so of two starts of the job one claims it,
 * and nobody ever reads a half-written marker. Returns an errno or 0. */
static int link_marker(const char *path, const morph__job *job, claim *c)
{
  char tmp[PATH_MAX + 64];
  snprintf(tmp, sizeof tmp, "%s.%ld", path, c->pid);
  int f = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  int err = f < 0 ? errno : dprintf(f, "%ld %.6f\n", c->pid, job->start) < 0 ? EIO : 0;
  if (f >= 0 && close(f) != 0 && !err)
    err = errno;
  for (int tries = 0; !err && tries < 2; tries++) {
    if (link(tmp, path) == 0)
      break;
    if (errno != EEXIST) {
      err = errno;
      break;
    }
    pid_t p = marker_pid(path, job);
    if (p > 0) {
      c->taken = 1, c->pid = p;
      break;
    }
    if (tries == 1 || unlink(path) != 0) /* else another start's marker, replaced */
      err = EEXIST;
  }
  unlink(tmp);
  return err;
}

/* In the child, first of all: claims the job's start (its marker), so
 * that a job morphd starts again after a crash between journaling its
 * start and journaling its pid runs once. Tells morphd on fd; a start
 * claimed already (the process that claimed it is the job) or a marker
 * that cannot be written ends the child here. */
static void claim_start(const morph__launcher *l, const morph__job *job, int fd)
{
  char path[PATH_MAX + 32];
  marker_path(l, job, path, sizeof path);
  claim c = {0, 0, (long)getpid()};
  c.err = link_marker(path, job, &c);
  if (c.err)
    fprintf(stderr, "morphd: job %lld: cannot write its start marker %s: %s\n",
            (long long)job->id, path, strerror(c.err));
  ssize_t n = write(fd, &c, sizeof c);
  close(fd);
  if (c.taken || c.err || n != (ssize_t)sizeof c)
    _exit(c.taken ? 0 : 126);
}

/* In the child: never returns. */
static void exec_child(const morph__launcher *l, const morph__job *job, char **argv, int fd)
{
  claim_start(l, job, fd);
  setsid();
  int fds[2];
  open_default_outputs(l, job, fds);
  if (become_owner(job) != 0) {
    put_on(fds[1], 2);
    fprintf(stderr, "morphd: cannot become uid %ld to run job %lld: %s\n", (long)job->uid,
            (long long)job->id, strerror(errno));
    _exit(126);
  }
  if (job->cwd && *job->cwd && chdir(job->cwd) != 0) {
    int e = errno;
    open_outputs(job, fds);
    fprintf(stderr, "morphd: cannot enter %s as uid %ld: %s\n", job->cwd, (long)getuid(),
            strerror(e));
    _exit(126);
  }
  int in = open("/dev/null", O_RDONLY);
  if (in >= 0 && in != 0) {
    dup2(in, 0);
    close(in);
  }
  open_outputs(job, fds);
  if (job->secret[0])
    setenv("MORPH_JOB_SECRET", job->secret, 1);
  /* Nothing of morphd's (its journal, its clients' sockets) reaches a
   * job run as another user, even an fd someone forgot to mark. */
  close_range(3, ~0U, 0);
  execv(argv[0], argv);
  fprintf(stderr, "morphd: cannot run %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}

/* The child's claim; a child that says nothing in time is killed. */
static int read_claim(pid_t child, int fd, claim *c)
{
  struct pollfd p = {.fd = fd, .events = POLLIN};
  int n;
  while ((n = poll(&p, 1, CLAIM_WAIT_MS)) < 0 && errno == EINTR)
    ;
  if (n == 1 && read(fd, c, sizeof *c) == (ssize_t)sizeof *c)
    return c->err ? MORPH_EIO : MORPH_OK;
  kill(child, SIGKILL);
  return MORPH_ESPAWN;
}

/* Forks the child and waits for its claim. */
static int fork_child(const morph__launcher *l, const morph__job *job, char **argv, pid_t *pid,
                      int *taken)
{
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return MORPH_ESPAWN;
  fflush(NULL);
  pid_t p = fork();
  if (p == 0) {
    close(fds[0]);
    exec_child(l, job, argv, fds[1]);
  }
  close(fds[1]);
  claim c;
  int rc = p < 0 ? MORPH_ESPAWN : read_claim(p, fds[0], &c);
  close(fds[0]);
  if (rc == MORPH_OK)
    *pid = c.taken ? (pid_t)c.pid : p, *taken = c.taken;
  return rc;
}

int morph__launcher_run(const morph__launcher *l, const morph__job *job, const morph__node *nodes,
                        int nnodes, pid_t *pid, int *taken)
{
  char hostfile[PATH_MAX + 32], nums[6][32], marker[PATH_MAX + 32];
  char *argv[MAX_ARGS + 256];
  *taken = 0;
  if (job->argc > 255)
    return MORPH_EINVAL;
  /* Claimed by a child forked before morphd restarted: that is the job. */
  marker_path(l, job, marker, sizeof marker);
  if ((*pid = marker_pid(marker, job)) > 0)
    return *taken = 1, MORPH_OK;
  if (nodes && write_hostfile(l, job, nodes, nnodes, hostfile, sizeof hostfile) != MORPH_OK)
    return MORPH_EIO;
  build_argv(l, job, nodes ? hostfile : NULL, nums, argv, MAX_ARGS + 256);
  return fork_child(l, job, argv, pid, taken);
}
