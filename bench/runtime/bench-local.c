/*
 * bench-local: how one process can best copy another process's data on the
 * same host, the choice behind the redistribution engine's same-host path
 * (src/redist/local.c, docs/performance.md).
 *
 *   bench-local MIB [REPS]
 *
 * A forked child fills MIB MiB (written, so its pages exist, as a
 * registered array's do). The parent then copies them into new memory,
 * REPS times each way, and prints min/median/max GB/s per way:
 *   memcpy      its own written buffer into a new one (the yardstick:
 *               what any single copy into new memory costs)
 *   cma         process_vm_readv from the child (cross-memory attach)
 *   shm         the child's data in a POSIX shm segment the parent maps
 *               (mmap + page-table faults on the source) and memcpy's
 * each into a malloc'ed destination, into one advised MADV_HUGEPAGE
 * (suffix _huge), and into one advised huge and populated in one call
 * (MADV_POPULATE_WRITE, suffix _populated; the call is inside the timed
 * copy). Prints one line:
 *   LOCAL mib=.. memcpy_gbs=min/med/max cma_gbs=.. shm_gbs=.. ..._huge_gbs=..
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_REPS 64

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

/* A new destination: plain malloc, or 2 MiB aligned and advised huge. */
static char *fresh(size_t bytes, int huge)
{
  if (!huge)
    return malloc(bytes);
  void *p = NULL;
  if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0)
    return NULL;
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

/* Populates a huge destination in one call; 0 on success. */
static int populate(char *dst, size_t bytes)
{
  return madvise(dst, bytes, MADV_POPULATE_WRITE);
}

typedef struct source {
  pid_t pid;
  char *addr;     /* the data in the child's address space */
  char shm[64];   /* the same data's segment name */
  char *own;      /* the parent's own written copy */
  size_t bytes;
} source;

/* Copies the child's data into dst one way; returns seconds or -1. */
static double copy_once(const source *s, char *dst, int way, int mode)
{
  double t0 = now();
  if (mode == 2 && populate(dst, s->bytes) != 0)
    return -1;
  if (way == 0) {
    memcpy(dst, s->own, s->bytes);
  } else if (way == 1) {
    struct iovec l = {dst, s->bytes}, r = {s->addr, s->bytes};
    for (size_t done = 0; done < s->bytes;) {
      ssize_t n = process_vm_readv(s->pid, &l, 1, &r, 1, 0);
      if (n <= 0)
        return -1;
      done += (size_t)n;
      l.iov_base = dst + done, l.iov_len = s->bytes - done;
      r.iov_base = s->addr + done, r.iov_len = s->bytes - done;
    }
  } else {
    int fd = shm_open(s->shm, O_RDONLY, 0);
    void *m = fd < 0 ? MAP_FAILED : mmap(NULL, s->bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (fd >= 0)
      close(fd);
    if (m == MAP_FAILED)
      return -1;
    memcpy(dst, m, s->bytes);
    munmap(m, s->bytes);
  }
  double t = now() - t0;
  return dst[s->bytes / 2] == 7 ? t : -1;
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* REPS copies one way, each into new memory; prints min/med/max GB/s. */
static int measure(const source *s, int way, int mode, int reps, const char *name)
{
  double g[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    char *dst = fresh(s->bytes, mode > 0);
    double t = dst ? copy_once(s, dst, way, mode) : -1;
    free(dst);
    if (t <= 0)
      return 1;
    g[r] = (double)s->bytes / t * 1e-9;
  }
  qsort(g, (size_t)reps, sizeof *g, cmp);
  printf(" %s_gbs=%.2f/%.2f/%.2f", name, g[0], g[reps / 2], g[reps - 1]);
  return 0;
}

/* The child: the data in a shm segment it maps and writes (so the pages
 * exist in both views), then waits to be killed. */
static int start_child(source *s, int pipefd[2])
{
  snprintf(s->shm, sizeof s->shm, "/morph-bench-local-%d", (int)getpid());
  s->pid = fork();
  if (s->pid < 0)
    return 1;
  if (s->pid == 0) {
    int fd = shm_open(s->shm, O_RDWR | O_CREAT | O_EXCL, 0600);
    char *m = fd < 0 || ftruncate(fd, (off_t)s->bytes) != 0
                  ? MAP_FAILED
                  : mmap(NULL, s->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED)
      memset(m, 7, s->bytes);
    uintptr_t a = m == MAP_FAILED ? 0 : (uintptr_t)m;
    if (write(pipefd[1], &a, sizeof a) != sizeof a)
      _exit(1);
    pause();
    _exit(0);
  }
  uintptr_t a = 0;
  if (read(pipefd[0], &a, sizeof a) != sizeof a || !a)
    return 1;
  s->addr = (char *)a;
  return 0;
}

int main(int argc, char **argv)
{
  source s = {0};
  s.bytes = (argc > 1 ? strtoul(argv[1], NULL, 10) : 256) << 20;
  int reps = argc > 2 ? atoi(argv[2]) : 5, pipefd[2];
  if (reps < 1 || reps > MAX_REPS || !(s.own = malloc(s.bytes)) || pipe(pipefd) != 0) {
    fprintf(stderr, "bench-local: bad REPS (1..%d) or no memory\n", MAX_REPS);
    return 1;
  }
  memset(s.own, 7, s.bytes);
  int bad = start_child(&s, pipefd);
  printf("LOCAL mib=%zu", s.bytes >> 20);
  static const char *names[3][3] = {{"memcpy", "cma", "shm"},
                                    {"memcpy_huge", "cma_huge", "shm_huge"},
                                    {"memcpy_populated", "cma_populated", "shm_populated"}};
  for (int mode = 0; !bad && mode < 3; mode++)
    for (int way = 0; !bad && way < 3; way++)
      bad = measure(&s, way, mode, reps, names[mode][way]);
  printf("\n");
  if (s.pid > 0) {
    kill(s.pid, SIGKILL);
    waitpid(s.pid, NULL, 0);
  }
  shm_unlink(s.shm);
  free(s.own);
  if (bad)
    fprintf(stderr, "bench-local: a copy failed\n");
  return bad;
}
