/*
 * A stand-in for a malleable MPI job, for testing morph run without MPI:
 * every "rank" is a plain process started by mpirun. Rank 0 speaks the
 * protocol like libmorph does; the other ranks only watch a size file in
 * the state folder and leave when their rank is no longer below it. A live
 * grow forks new ranks; a relaunch writes a checkpoint file and ends.
 * Everything rank 0 does is printed on stdout as "fake-job: ..." lines
 * that the tests look for.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "proto/protocol.h"

struct fake {
  const char *state;   /* folder shared by all ranks */
  const char *starts;  /* rank 0 appends its pid here when it starts (NULL: no) */
  const char *self;    /* this program, to start joiners */
  int iters, iter_ms;
  int crash_at, fail_restart_size, hang_restart_size, refuse_size, silent_size, leave_delay_ms;
  int late_size, late_ms; /* a RESIZE to late_size is refused, late_ms after it came */
  int joiner_abort_size;  /* a grow to it fails as one whose joiner called MPI_Abort */
  double pending_since;
  int stuck_leavers, ignore_term, drop_and_hang, child_rank;
  int exit_status;         /* the job's outcome, sent in BYE and returned */
  int die_rank, die_after_ms; /* this follower kills itself (a crash) */
  int rank, size;
  long iteration;
  morph__conn conn;
  morph__msg pending;
  int has_pending;
  double last_progress;
};

static int env_int(const char *a, const char *b)
{
  const char *v = getenv(a) ? getenv(a) : getenv(b);
  return v ? atoi(v) : -1;
}

static void write_size(const struct fake *f, int size)
{
  char path[512], tmp[512];
  snprintf(path, sizeof path, "%s/size", f->state);
  snprintf(tmp, sizeof tmp, "%s/size.%d", f->state, (int)getpid());
  FILE *o = fopen(tmp, "w");
  if (!o)
    return;
  fprintf(o, "%d\n", size);
  fclose(o);
  rename(tmp, path);
}

static int read_size(const struct fake *f)
{
  char path[512];
  snprintf(path, sizeof path, "%s/size", f->state);
  FILE *i = fopen(path, "r");
  int size = -1;
  if (i && fscanf(i, "%d", &size) != 1)
    size = -1;
  if (i)
    fclose(i);
  return size;
}

/* A rank other than 0: stay until the size file says this rank is gone. */
static int follower(const struct fake *f)
{
  double start = morph__now(), end = start + 120;
  while (morph__now() < end) {
    if (f->rank == f->die_rank && morph__now() - start >= f->die_after_ms / 1000.0)
      raise(SIGKILL);
    int size = read_size(f);
    if (size >= 0 && f->rank >= size) {
      morph__sleep(f->leave_delay_ms / 1000.0);
      return 0;
    }
    morph__sleep(0.02);
  }
  return 0;
}

static void start_joiner(const struct fake *f, int rank)
{
  if (fork() != 0)
    return;
  char r[16], d[16];
  snprintf(r, sizeof r, "%d", rank);
  snprintf(d, sizeof d, "%d", f->leave_delay_ms);
  execl(f->self, f->self, "--state", f->state, "--child-rank", r, "--leave-delay-ms", d,
        (char *)NULL);
  _exit(127);
}

static void send_ack(struct fake *f, int outcome, int new_size, int mech, const char *ckpt)
{
  morph__msg a;
  morph__msg_init(&a, MORPH__MSG_ACK);
  a.id = f->pending.id, a.outcome = outcome, a.old_size = f->size, a.new_size = new_size;
  a.mechanism = mech, a.iteration = f->iteration;
  a.t_decision = 0.001, a.t_spawn = 0.01, a.t_redist = 0.002, a.t_commit = 0.001;
  a.bytes = 1000;
  snprintf(a.checkpoint, sizeof a.checkpoint, "%s", ckpt ? ckpt : "");
  morph__send(&f->conn, &a);
}

static void relaunch(struct fake *f)
{
  char ckpt[512];
  snprintf(ckpt, sizeof ckpt, "%s/ckpt-%d", f->state, f->pending.id);
  FILE *o = fopen(ckpt, "w");
  fprintf(o, "%ld\n", f->iteration);
  fclose(o);
  printf("fake-job: relaunch to %d at iteration %ld\n", f->pending.size, f->iteration);
  send_ack(f, MORPH_OK, f->pending.size, 2, ckpt);
  write_size(f, 0);
  morph__conn_close(&f->conn);
  fflush(stdout);
  exit(0);
}

static void live(struct fake *f)
{
  int n = f->pending.size;
  printf("fake-job: live %d -> %d at iteration %ld hosts=%s\n", f->size, n, f->iteration,
         f->pending.hosts);
  /* The size file first: a joiner that read the old size would leave at
   * once (and morph run would rightly take that for a crash). */
  if (!f->stuck_leavers || n > f->size)
    write_size(f, n);
  for (int r = f->size; r < n; r++)
    start_joiner(f, r);
  send_ack(f, MORPH_OK, n, 1, NULL);
  f->size = n;
}

static void apply(struct fake *f)
{
  f->has_pending = 0;
  const char *env = getenv("MORPH_MECHANISM");
  int mech = f->pending.mechanism ? f->pending.mechanism : (env && !strcmp(env, "relaunch") ? 2 : 1);
  if (f->pending.size == f->silent_size) {
    printf("fake-job: never answering the resize to %d\n", f->pending.size);
  } else if (f->pending.size == f->joiner_abort_size) {
    /* What Open MPI's mpirun prints when a joiner of a failed grow
     * answers morph_open's error with MPI_Abort; the grow rolls back. */
    fprintf(stderr, "morph_open: a step did not finish within its time limit\n"
                    "-----------------------------------------------------------------\n"
                    "MPI_ABORT was invoked on rank 1 in communicator MPI_COMM_WORLD\n"
                    "with errorcode 2.\n");
    fflush(stderr);
    printf("fake-job: a joiner aborted; rolling back the grow to %d\n", f->pending.size);
    send_ack(f, MORPH_ESPAWN, f->size, mech, NULL);
  } else if (f->pending.size == f->refuse_size || f->pending.size == f->late_size) {
    printf("fake-job: refuse %d\n", f->pending.size);
    send_ack(f, MORPH_ESIZE, f->size, mech, NULL);
  } else if (mech == 2) {
    relaunch(f);
  } else {
    live(f);
  }
}

static void poll_server(struct fake *f)
{
  morph__msg m;
  char err[256];
  while (morph__recv(&f->conn, &m, 0, err, sizeof err) == 1)
    if (m.kind == MORPH__MSG_RESIZE) {
      f->pending = m;
      f->has_pending = 1;
      f->pending_since = morph__now();
    }
  if (f->has_pending && f->pending.size == f->late_size &&
      morph__now() - f->pending_since < f->late_ms / 1000.0)
    return;
  if (f->has_pending && (f->pending.iteration < 0 || f->iteration >= f->pending.iteration))
    apply(f);
}

static void progress(struct fake *f)
{
  if (morph__now() - f->last_progress < 1.0)
    return;
  f->last_progress = morph__now();
  morph__msg p;
  morph__msg_init(&p, MORPH__MSG_PROGRESS);
  p.iteration = f->iteration, p.iter_time = f->iter_ms / 1000.0, p.mpi_time = 0.001;
  morph__send(&f->conn, &p);
}

static int hello(struct fake *f)
{
  const char *sock = getenv("MORPH_SOCKET");
  struct stat st;
  if (sock && stat(sock, &st) == 0)
    printf("fake-job: socket mode %03o\n", (unsigned)(st.st_mode & 0777));
  char dir[512];
  snprintf(dir, sizeof dir, "%s", sock ? sock : "");
  if (strrchr(dir, '/'))
    *strrchr(dir, '/') = '\0';
  if (sock && stat(dir, &st) == 0)
    printf("fake-job: socket folder mode %03o\n", (unsigned)(st.st_mode & 0777));
  if (!sock || morph__connect(sock, 5, &f->conn) != MORPH_OK)
    return printf("fake-job: cannot connect to '%s'\n", sock ? sock : ""), -1;
  morph__msg h, w;
  morph__msg_init(&h, MORPH__MSG_HELLO);
  snprintf(h.job, sizeof h.job, "%s", getenv("MORPH_JOB_ID") ? getenv("MORPH_JOB_ID") : "");
  h.pid = (long)getpid(), h.size = f->size, h.min = 1;
  h.mechanisms = MORPH__MECH_BIT_LIVE | MORPH__MECH_BIT_RELAUNCH;
  snprintf(h.mpi, sizeof h.mpi, "fake");
  char err[256];
  if (morph__send(&f->conn, &h) != MORPH_OK || morph__recv(&f->conn, &w, 5, err, sizeof err) != 1 ||
      w.kind != MORPH__MSG_WELCOME)
    return printf("fake-job: no welcome\n"), -1;
  printf("fake-job: welcome job=%s\n", w.job);
  return 0;
}

/* A restarted job reads its checkpoint, removes it, and may be told to fail. */
static int restore(struct fake *f)
{
  const char *ckpt = getenv("MORPH_RESTART");
  if (!ckpt)
    return 0;
  FILE *i = fopen(ckpt, "r");
  if (!i || fscanf(i, "%ld", &f->iteration) != 1)
    return printf("fake-job: cannot read checkpoint %s\n", ckpt), -1;
  fclose(i);
  printf("fake-job: restart size=%d iteration=%ld from %s\n", f->size, f->iteration, ckpt);
  fflush(stdout);
  if (f->size == f->fail_restart_size)
    return printf("fake-job: failing the restart at %d\n", f->size), -1;
  if (f->size == f->hang_restart_size)
    for (;;)
      pause();
  unlink(ckpt);
  return 0;
}

static void end_job(struct fake *f)
{
  write_size(f, 0);
  morph__msg b;
  morph__msg_init(&b, MORPH__MSG_BYE);
  b.exit_status = f->exit_status;
  snprintf(b.text, sizeof b.text, "done at iteration %ld", f->iteration);
  morph__send(&f->conn, &b);
  morph__conn_close(&f->conn);
  printf("fake-job: end size=%d iteration=%ld\n", f->size, f->iteration);
}

/* One line per start of rank 0: a job started twice shows two. */
static void note_start(const struct fake *f)
{
  FILE *o = f->starts ? fopen(f->starts, "a") : NULL;
  if (o) {
    fprintf(o, "%ld\n", (long)getpid());
    fclose(o);
  }
}

static int leader(struct fake *f)
{
  signal(SIGCHLD, SIG_IGN); /* joiners are reaped by the kernel */
  note_start(f);
  if (restore(f) != 0)
    return 3;
  write_size(f, f->size);
  if (hello(f) != 0)
    return 4;
  for (; f->iteration < f->iters; f->iteration++) {
    if (f->iteration == f->crash_at)
      return printf("fake-job: crash at %ld\n", f->iteration), 7;
    if (f->drop_and_hang && f->iteration == 5) {
      morph__conn_close(&f->conn);
      printf("fake-job: dropped the connection, hanging\n");
      fflush(stdout);
      for (;;)
        pause();
    }
    morph__sleep(f->iter_ms / 1000.0);
    progress(f);
    poll_server(f);
    fflush(stdout);
  }
  end_job(f);
  return f->exit_status;
}

static void parse(struct fake *f, int argc, char **argv)
{
  static const struct option o[] = {
    {"state", 1, 0, 's'}, {"iters", 1, 0, 'i'}, {"iter-ms", 1, 0, 'm'}, {"crash-at", 1, 0, 'c'},
    {"fail-restart-size", 1, 0, 'f'}, {"hang-restart-size", 1, 0, 'H'},
    {"refuse-size", 1, 0, 'r'}, {"leave-delay-ms", 1, 0, 'l'}, {"stuck-leavers", 0, 0, 'S'},
    {"ignore-term", 0, 0, 'T'}, {"drop-and-hang", 0, 0, 'D'}, {"child-rank", 1, 0, 'C'},
    {"exit-status", 1, 0, 'e'}, {"die-rank", 1, 0, 'k'}, {"die-after-ms", 1, 0, 'K'},
    {"silent-size", 1, 0, 'Q'}, {"late-size", 1, 0, 'L'}, {"late-ms", 1, 0, 'M'},
    {"starts", 1, 0, 'N'}, {"joiner-abort-size", 1, 0, 'J'}, {0, 0, 0, 0}};
  int c;
  while ((c = getopt_long(argc, argv, "", o, NULL)) != -1) {
    int v = optarg ? atoi(optarg) : 1;
    switch (c) {
    case 's': f->state = optarg; break;
    case 'i': f->iters = v; break;
    case 'm': f->iter_ms = v; break;
    case 'c': f->crash_at = v; break;
    case 'f': f->fail_restart_size = v; break;
    case 'H': f->hang_restart_size = v; break;
    case 'r': f->refuse_size = v; break;
    case 'Q': f->silent_size = v; break;
    case 'L': f->late_size = v; break;
    case 'M': f->late_ms = v; break;
    case 'N': f->starts = optarg; break;
    case 'J': f->joiner_abort_size = v; break;
    case 'l': f->leave_delay_ms = v; break;
    case 'S': f->stuck_leavers = 1; break;
    case 'T': f->ignore_term = 1; break;
    case 'D': f->drop_and_hang = 1; break;
    case 'C': f->child_rank = v; break;
    case 'e': f->exit_status = v; break;
    case 'k': f->die_rank = v; break;
    case 'K': f->die_after_ms = v; break;
    default: exit(2);
    }
  }
}

int main(int argc, char **argv)
{
  struct fake f;
  memset(&f, 0, sizeof f);
  f.iters = 100, f.iter_ms = 10, f.crash_at = -1, f.child_rank = -1, f.state = ".";
  f.fail_restart_size = f.hang_restart_size = f.refuse_size = f.silent_size = f.late_size = -1;
  f.joiner_abort_size = -1;
  f.die_rank = -1;
  f.self = "/proc/self/exe"; /* the same binary, wherever it was started from */
  parse(&f, argc, argv);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (f.ignore_term)
    signal(SIGTERM, SIG_IGN);
  f.rank = f.child_rank >= 0 ? f.child_rank : env_int("OMPI_COMM_WORLD_RANK", "PMI_RANK");
  f.size = env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE");
  if (f.rank < 0)
    f.rank = 0;
  if (f.size < 1)
    f.size = 1;
  return f.rank == 0 ? leader(&f) : follower(&f);
}
