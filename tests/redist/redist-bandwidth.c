/*
 * Redistribution bandwidth versus memcpy on the same host.
 *
 * Usage: redist-bandwidth MIB M N [REPS] [BLOCK]
 *   Moves an array of MIB MiB of doubles from M to N owners (BLOCK layout,
 *   or block-cyclic with blocks of BLOCK elements) REPS times and prints
 *   the best time, against one process memcpy'ing the same MIB MiB:
 *   RESULT redist_mib=.. m=.. n=.. redist_gbs=.. memcpy_gbs=.. redist_vs_memcpy=..
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"
#include "redist/redist.h"

/* Best of `reps` memcpy's of `bytes` between buffers already touched. */
static double memcpy_seconds(size_t bytes, int reps)
{
  char *a = malloc(bytes), *b = malloc(bytes);
  if (!a || !b)
    return -1;
  memset(a, 1, bytes);
  memset(b, 2, bytes);
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = morph__now();
    memcpy(b, a, bytes);
    double t = morph__now() - t0;
    best = t < best ? t : best;
  }
  volatile char sink = b[bytes / 2];
  (void)sink;
  free(a);
  free(b);
  return best;
}

/* Best wall time of `reps` redistributions, max over ranks. */
static double redist_seconds(const morph__dist *d, int m, int n, int reps, int *err)
{
  int me;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  morph__plan plan;
  *err = morph__plan_build(d, NULL, m, n, me, &plan);
  if (*err)
    return -1;
  int64_t old_len = me < m ? morph__dist_count(d, me, m) : 0;
  double *old = old_len ? malloc((size_t)old_len * sizeof *old) : NULL;
  double *nw = plan.new_count ? malloc((size_t)plan.new_count * sizeof *nw) : NULL;
  for (int64_t i = 0; i < old_len; i++)
    old[i] = (double)i;
  if (nw)
    memset(nw, 0, (size_t)plan.new_count * sizeof *nw); /* fault pages in */
  double best = 1e30;
  for (int r = 0; r < reps && !*err; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = morph__now();
    *err = morph__redist_exec(MPI_COMM_WORLD, &plan, old, nw, sizeof(double), MPI_DOUBLE, r, 0,
                              NULL);
    double t = morph__now() - t0, tmax;
    MPI_Allreduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    best = tmax < best ? tmax : best;
  }
  free(old);
  free(nw);
  morph__plan_free(&plan);
  return best;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, size, err = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int64_t mib = argc > 1 ? atoll(argv[1]) : 64;
  int m = argc > 2 ? atoi(argv[2]) : 2, n = argc > 3 ? atoi(argv[3]) : size;
  int reps = argc > 4 ? atoi(argv[4]) : 3;
  int64_t block = argc > 5 ? atoll(argv[5]) : 0;
  if (m < 1 || n < 1 || m > size || n > size || mib < 1 || reps < 1) {
    if (me == 0)
      fprintf(stderr, "usage: redist-bandwidth MIB M N [REPS] [BLOCK]  (M, N <= %d)\n", size);
    MPI_Finalize();
    return 2;
  }
  size_t bytes = (size_t)mib << 20;
  morph__dist d = {block ? MORPH__DIST_BLOCK_CYCLIC : MORPH__DIST_BLOCK,
                   (int64_t)(bytes / sizeof(double)), block ? block : 1};
  double tr = redist_seconds(&d, m, n, reps, &err);
  double tm = me == 0 ? memcpy_seconds(bytes, reps) : 0;
  if (me == 0 && !err && tm > 0)
    printf("RESULT redist_mib=%lld m=%d n=%d block=%lld redist_gbs=%.2f memcpy_gbs=%.2f "
           "redist_vs_memcpy=%.2f\n",
           (long long)mib, m, n, (long long)block, bytes / tr / 1e9, bytes / tm / 1e9, tm / tr);
  if (err)
    fprintf(stderr, "rank %d: %s\n", me, morph_strerror(err));
  MPI_Finalize();
  return err ? 1 : 0;
}
