/*
 * bench-memcpy: one process's memcpy bandwidth on this host, the yardstick
 * of the redistribution phase.
 *
 *   bench-memcpy MIB [REPS]
 *
 * Copies MIB MiB REPS times (default 5) and prints the best:
 *   MEMCPY mib=.. hot_gbs=.. cold_gbs=..
 * hot: into a buffer already written (pages mapped), the usual figure;
 * cold: into a freshly malloc'ed buffer, so the first touch of every page
 * (a page fault) is paid inside the copy, as it is when a redistribution
 * receives into a new buffer.
 */
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

/* Best seconds of `reps` copies of `bytes` from src, into one written
 * buffer (hot) or a new buffer each time (cold). */
static double copy_seconds(const char *src, size_t bytes, int reps, int cold)
{
  double best = 1e30;
  char *dst = cold ? NULL : malloc(bytes);
  if (!cold && !dst)
    return -1;
  if (dst)
    memset(dst, 1, bytes);
  for (int r = 0; r < reps; r++) {
    char *d = cold ? malloc(bytes) : dst;
    if (!d)
      return -1;
    double t0 = now();
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
  free(src);
  if (hot <= 0 || cold <= 0)
    return 1;
  printf("MEMCPY mib=%zu hot_gbs=%.3f cold_gbs=%.3f\n", mib, (double)bytes / hot * 1e-9,
         (double)bytes / cold * 1e-9);
  return 0;
}
