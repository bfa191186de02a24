/*
 * bench-memcpy: one process's memcpy bandwidth on this host, the yardstick
 * of the redistribution phase.
 *
 *   bench-memcpy MIB [REPS]
 *
 * Copies MIB MiB REPS times (default 5) and prints the best:
 *   MEMCPY mib=.. hot_gbs=.. cold_gbs=.. huge_gbs=..
 * hot: into a buffer already written (pages mapped), the usual figure;
 * cold: into a freshly malloc'ed buffer, so the first touch of every page
 * (a page fault) is paid inside the copy, as it is when a redistribution
 * receives into a new buffer;
 * huge: into a new buffer advised MADV_HUGEPAGE and populated in one call
 * (MADV_POPULATE_WRITE, timed with the copy), as libmorph's large new
 * parts are (src/runtime/move.c).
 */
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A new buffer: malloc'ed, or 2 MiB aligned and advised huge. */
static char *new_buffer(size_t bytes, int huge)
{
  void *p = NULL;
  if (!huge)
    return malloc(bytes);
  if (posix_memalign(&p, (size_t)2 << 20, bytes) != 0)
    return NULL;
  madvise(p, bytes, MADV_HUGEPAGE);
  return p;
}

/* Best seconds of `reps` copies of `bytes` from src, into one written
 * buffer (cold 0), a new buffer each time (cold 1), or a new huge one
 * populated inside the timed copy (cold 2). */
static double copy_seconds(const char *src, size_t bytes, int reps, int cold)
{
  double best = 1e30;
  char *dst = cold ? NULL : malloc(bytes);
  if (!cold && !dst)
    return -1;
  if (dst)
    memset(dst, 1, bytes);
  for (int r = 0; r < reps; r++) {
    char *d = cold ? new_buffer(bytes, cold == 2) : dst;
    if (!d)
      return -1;
    double t0 = now();
    if (cold == 2)
      madvise(d, bytes, MADV_POPULATE_WRITE);
    memcpy(d, src, bytes);
    double t = now() - t0;
    volatile char sink = d[bytes / 2];
    (void)sink;
    if (cold)
      free(d);
    best = t < best ? t : best;
  }
  free(dst);
  return best;
}

int main(int argc, char **argv)
{
  size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 256;
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  size_t bytes = mib << 20;
  char *src = malloc(bytes);
  if (!src || reps < 1) {
    fprintf(stderr, "bench-memcpy: no memory for %zu MiB or bad REPS\n", mib);
    return 1;
  }
  memset(src, 7, bytes);
  double hot = copy_seconds(src, bytes, reps, 0), cold = copy_seconds(src, bytes, reps, 1);
  double huge = copy_seconds(src, bytes, reps, 2);
  free(src);
  if (hot <= 0 || cold <= 0 || huge <= 0)
    return 1;
  printf("MEMCPY mib=%zu hot_gbs=%.3f cold_gbs=%.3f huge_gbs=%.3f\n", mib,
         (double)bytes / hot * 1e-9, (double)bytes / cold * 1e-9, (double)bytes / huge * 1e-9);
  return 0;
}
