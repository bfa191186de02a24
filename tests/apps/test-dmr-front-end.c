/*
 * The DMRlib front-end under reconfigurations: a default array of N
 * elements and a block-cyclic array of NB blocks (sizes that no number of
 * processes divides), moved by user redistribution functions made of the
 * Table 1 calls (the paper's CG pattern). Every iteration each process
 * checks that it holds exactly its part, with the values the iteration
 * expects (so a joiner's DMR_Step() is checked too), then changes every
 * value. Prints CHECK PASSED or CHECK FAILED and the size changes.
 */
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "morph/dmr.h"

#define N 1001
#define NB 37
#define BS 5

static void send_data(int64_t *v, int nv, double *c, int nb, int bs) {
  DMR_Send_expand_default(v, MPI_INT64_T, nv);
  DMR_Send_expand_blockcyclic(c, MPI_DOUBLE, nb, bs);
}

static void recv_expand(int64_t **v, int *nv, double **c, int *nb, int *bs) {
  DMR_Recv_expand_default(v, MPI_INT64_T, nv);
  DMR_Recv_expand_blockcyclic(c, MPI_DOUBLE, nb, bs);
}

static void recv_shrink(int64_t **v, int *nv, double **c, int *nb, int *bs) {
  DMR_Recv_shrink_default(v, MPI_INT64_T, nv);
  DMR_Recv_shrink_blockcyclic(c, MPI_DOUBLE, nb, bs);
}

/* Wrong values and sizes in this process's parts at iteration it. */
static int64_t verify(const int64_t *v, int nv, const double *c, int nb, int bs, int it) {
  int q = morph_rank(DMR_Morph()), p = morph_size(DMR_Morph());
  int64_t bad = nv != app_block_len(N, p, q);
  for (int64_t k = 0; !bad && k < nv; k++)
    bad += v[k] != app_block_first(N, p, q) + k + it;
  bad += nb != (NB > q ? (NB - q + p - 1) / p : 0) || (nb > 0 && bs != BS);
  for (int l = 0; !bad && l < nb; l++)
    for (int e = 0; e < bs; e++)
      bad += c[l * bs + e] != (double)((q + (int64_t)l * p) * BS + e) + 0.5 + it;
  return bad;
}

static int run(int64_t *v, int nv, double *c, int nb, int bs, int step, int iters) {
  int64_t bad = 0;
  int seen = 0;
  for (int i = step; i < iters; i++) {
    DMR_RECONFIG(run(v, nv, c, nb, bs, i, iters), send_data(v, nv, c, nb, bs),
                 recv_expand(&v, &nv, &c, &nb, &bs), send_data(v, nv, c, nb, bs),
                 recv_shrink(&v, &nv, &c, &nb, &bs));
    app_progress(DMR_Morph(), &seen);
    bad += verify(v, nv, c, nb, bs, i);
    for (int k = 0; k < nv; k++)
      v[k]++;
    for (int k = 0; k < nb * bs; k++)
      c[k] += 1;
    app_delay(&(app_args){.delay_ms = 20});
  }
  MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT64_T, MPI_SUM, DMR_COMM_WORLD);
  free(v);
  free(c);
  return app_verdict(DMR_COMM_WORLD, bad == 0, "dmr front-end: %lld wrong values or sizes",
                     (long long)bad);
}

/* This process's initial parts, as a DMRlib code would build them. */
static void init(int64_t **v, int *nv, double **c, int *nb) {
  int q, p;
  MPI_Comm_rank(DMR_COMM_WORLD, &q);
  MPI_Comm_size(DMR_COMM_WORLD, &p);
  *nv = (int)app_block_len(N, p, q);
  *nb = NB > q ? (NB - q + p - 1) / p : 0;
  *v = malloc(sizeof **v * (size_t)(*nv + 1));
  *c = malloc(sizeof **c * (size_t)(*nb * BS + 1));
  if (!*v || !*c)
    MPI_Abort(MPI_COMM_WORLD, 2);
  for (int k = 0; k < *nv; k++)
    (*v)[k] = app_block_first(N, p, q) + k;
  for (int l = 0; l < *nb; l++)
    for (int e = 0; e < BS; e++)
      (*c)[l * BS + e] = (double)((q + (int64_t)l * p) * BS + e) + 0.5;
}

int main(int argc, char **argv) {
  int level;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &level);
  int iters = argc > 1 ? atoi(argv[1]) : 50;
  if (DMR_Init(NULL) != MORPH_OK)
    return 1;
  int64_t *v = NULL;
  double *c = NULL;
  int nv = 0, nb = 0, bs = BS;
  if (DMR_Is_new())
    init(&v, &nv, &c, &nb);
  int ok = run(v, nv, c, nb, bs, DMR_Step(), iters);
  int rc = DMR_Finalize();
  return rc != 0 ? rc : !ok;
}
