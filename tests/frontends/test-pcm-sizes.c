/*
 * test-pcm-sizes: splits and merges the PCM front-end must refuse, under a
 * launcher whose schedule makes the changes. Every process holds a few
 * columns; at each announced change the program makes the call of its
 * mode, which must fail with MORPH_ESIZE on every process, after which
 * the job goes on at its old size with its data unchanged:
 *   split-on-merge  PCM_Split for a shrink (a split into zero processes)
 *   merge           PCM_Merge for a shrink whose sizes do not divide
 * Prints one "ok"/"FAIL" line per check on rank 0 and "N passed, M failed".
 *   test-pcm-sizes MODE ITERS
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "morph/pcm.h"

static int passed, failed;

static void expect(int rank, const char *what, int ok, const char *msg)
{
  int all;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  all ? passed++ : failed++;
  if (rank == 0)
    printf("%s %s: %s\n", all ? "ok" : "FAIL", what, msg);
}

int main(int argc, char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "merge";
  int iters = argc > 2 ? atoi(argv[2]) : 40;
  if (MPI_PCM_Init(&argc, &argv) != MORPH_OK)
    return 2;
  MPI_Comm world;
  PCM_Init(&world);
  int rank, np, x = 3, y = 4, it = 0, mergecnts, merge_rank;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &np);
  double *buf = calloc((size_t)(x + 2) * (size_t)y, sizeof *buf);
  for (int k = 0; k < (x + 2) * y; k++)
    buf[k] = rank * 1000 + k;
  for (; it < iters; it++) {
    int st = PCM_Status(world), rc = MORPH_OK, np0 = np;
    if (st == PCM_MERGE && !strcmp(mode, "split-on-merge")) {
      rc = PCM_Split(&buf, PCM_DOUBLE, &it, &x, &y, &rank, &np, &world, argv[0]);
      expect(rank, "PCM_Split for a merge", rc == MORPH_ESIZE &&
             strstr(MORPH_PCM_errmsg(), "into 0"), MORPH_PCM_errmsg());
    } else if (st == PCM_MERGE) {
      PCM_Merge_datacnts(x, y, &mergecnts, &merge_rank, world);
      double *nb = calloc((size_t)mergecnts + 1, sizeof *nb);
      rc = PCM_Merge(buf, MPI_DOUBLE, &x, &y, nb, mergecnts, &rank, &np, &world);
      expect(rank, "PCM_Merge, sizes that do not divide", rc == MORPH_ESIZE &&
             strstr(MORPH_PCM_errmsg(), "not a multiple"), MORPH_PCM_errmsg());
      free(nb);
    }
    if (st == PCM_MERGE) {
      int same = np == np0 && x == 3;
      for (int k = 0; same && k < (x + 2) * y; k++)
        same = buf[k] == rank * 1000 + k;
      expect(rank, "old size and data kept", same, "after the refusal");
    }
    usleep(20000);
  }
  if (rank == 0)
    printf("%d passed, %d failed\n", passed, failed);
  free(buf);
  int rc = MORPH_PCM_Finalize(failed);
  MPI_Finalize();
  return rc;
}
