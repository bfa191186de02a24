/*
 * The same-host path of the redistribution engine (src/redist/local.c), on
 * 3 processes of one host: rank 0 holds the whole array and ranks 1 and 2
 * read their parts straight out of its memory.
 *  (1) block and block-cyclic (block 3: thousands of slices per peer, more
 *      than one process_vm_readv batch): both receivers copy directly
 *      (bytes pulled = their parts, both routes direct on both sides) and
 *      every element arrives;
 *  (2) rank 2 refuses the direct copy (MORPH_REDIST_LOCAL=0): it and rank
 *      0 agree on MPI for their pair, rank 1 still copies directly.
 * Exit 1 on any failure; every rank prints its own.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"
#include "redist/local.h"

#define GLOBAL 300001 /* doubles */

/* Runs the handshake of one 1 -> 3 move; returns the number of errors. */
static int one_move(const morph__dist *d, int me, int expect_direct2, const char *what)
{
  morph__plan plan;
  if (morph__plan_build(d, NULL, 1, 3, me, &plan) != MORPH_OK)
    return 1;
  double *old = me == 0 ? malloc(GLOBAL * sizeof(double)) : NULL;
  double *nw = calloc((size_t)plan.new_count + 1, sizeof(double));
  for (int64_t i = 0; old && i < GLOBAL; i++)
    old[i] = (double)i;
  morph__local *l = NULL;
  double deadline = morph__now() + 30;
  morph__redist_bufs b = {old, nw, NULL, NULL};
  int rc = morph__local_open(&l, MPI_COMM_WORLD, me, &plan, &b, sizeof(double), 99);
  if (rc == MORPH_OK)
    rc = morph__local_pull(l, deadline);
  if (rc == MORPH_OK)
    rc = morph__local_answers(l, deadline);
  int errors = rc != MORPH_OK;
  int direct = me == 1 || (me == 2 && expect_direct2);
  int64_t want = direct ? plan.new_count * (int64_t)sizeof(double) : 0;
  if (rc == MORPH_OK && morph__local_pulled(l) != want && ++errors)
    fprintf(stderr, "%s: rank %d pulled %lld bytes, expected %lld\n", what, me,
            (long long)morph__local_pulled(l), (long long)want);
  if (rc == MORPH_OK && me > 0 && morph__local_via_mpi(l, 0, 0) == direct && ++errors)
    fprintf(stderr, "%s: rank %d routes its sender wrong\n", what, me);
  if (rc == MORPH_OK && me == 0 &&
      (morph__local_via_mpi(l, 1, 1) || morph__local_via_mpi(l, 2, 1) == expect_direct2) &&
      ++errors)
    fprintf(stderr, "%s: rank 0 routes its receivers wrong\n", what);
  for (int64_t i = 0; direct && rc == MORPH_OK && i < plan.new_count; i++) {
    int64_t g = d->kind == MORPH__DIST_BLOCK
                    ? morph__dist_offset(d, me, 3) + i
                    : (morph__dist_offset(d, me, 3) / d->block + (i / d->block) * 3) * d->block +
                          i % d->block;
    if (nw[i] != (double)g && errors++ < 5)
      fprintf(stderr, "%s: rank %d element %lld is %g, expected %lld\n", what, me, (long long)i,
              nw[i], (long long)g);
  }
  if (morph__local_close(l, rc != MORPH_OK, deadline) != MORPH_OK)
    errors++;
  free(old);
  free(nw);
  morph__plan_free(&plan);
  printf("%s: rank %d, %d errors\n", what, me, errors);
  return errors;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, size, errors = 0, all = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  morph__dist block = {MORPH__DIST_BLOCK, GLOBAL, 1}, cyclic = {MORPH__DIST_BLOCK_CYCLIC, GLOBAL, 3};
  if (size != 3) {
    errors = 1;
  } else {
    errors += one_move(&block, me, 1, "block, all direct");
    errors += one_move(&cyclic, me, 1, "block-cyclic, all direct");
    if (me == 2)
      setenv("MORPH_REDIST_LOCAL", "0", 1);
    errors += one_move(&block, me, 0, "block, rank 2 refuses");
  }
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("test-redist-local: %d errors\n", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
