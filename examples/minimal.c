/* The smallest malleable program: a block-distributed vector, incremented
 * 200 times while `morph run` or morphd grows and shrinks the job. */
#include <morph.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  int provided, iter = 0, n = 1000000;
  double *x, local = 0, sum = 0;
  morph_ctx *m;
  morph_status st = MORPH_NEW;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (morph_open(MPI_COMM_WORLD, NULL, &m) != MORPH_OK)
    return 1;
  morph_data_replicated(m, "iter", &iter, 1, MPI_INT);   /* the step counter */
  morph_data_block(m, "x", (void **)&x, n, MPI_DOUBLE);  /* follows the processes */
  for (; iter < 200; iter++) {
    morph_point(m, &st);                                 /* the job may resize here */
    if (st == MORPH_LEAVING)
      break;
    for (int64_t i = 0; i < morph_local_count(m, "x"); i++)
      x[i] += 1.0;
  }
  if (st != MORPH_LEAVING) {
    for (int64_t i = 0; i < morph_local_count(m, "x"); i++)
      local += x[i];
    MPI_Reduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, 0, morph_comm(m));
    if (morph_rank(m) == 0)
      printf("sum %.0f, expected %.0f, on %d processes\n", sum, 200.0 * n, morph_size(m));
  }
  return morph_finalize(m, sum == 200.0 * n || morph_rank(m) != 0 ? 0 : 1);
}
