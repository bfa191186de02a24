/*
 * heat - 2-D heat diffusion with halo exchange (the example of the PCM
 * paper, Figs. 5-6), malleable with the native morph API.
 *
 * An ny x nx plate (ny = nx = --size) has its top edge held at 100 degrees
 * and the other edges at 0. Rows are block-distributed; each iteration
 * exchanges one ghost row with each neighbour and applies the explicit
 * 5-point update. Where the PCM code stores, splits and merges its buffer
 * by hand, here the rows are registered once and morph moves them. Every
 * cell is computed from the same values in the same order whatever the
 * distribution, so the result is bitwise equal to a serial run, which
 * rank 0 repeats at the end.
 *
 * Lines that exist only for malleability end with a morph comment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"

#define HOT 100.0
#define K 0.2 /* diffusion number; the explicit scheme needs K <= 0.25 */

static void init_rows(double *u, int64_t nx, int64_t first, int64_t rows) {
  for (int64_t r = 0; r < rows; r++)
    for (int64_t j = 0; j < nx; j++)
      u[r * nx + j] = first + r == 0 && j > 0 && j < nx - 1 ? HOT : 0.0;
}

/* New values of rows [first, first + rows) into u, from w, which holds the
 * same rows one row down plus a ghost row above and below. Edge cells keep
 * their value. */
static void update_rows(const double *w, double *u, int64_t nx, int64_t ny, int64_t first,
                        int64_t rows) {
  for (int64_t r = 0; r < rows; r++) {
    if (first + r == 0 || first + r == ny - 1)
      continue;
    const double *c = w + (r + 1) * nx, *up = c - nx, *down = c + nx;
    for (int64_t j = 1; j < nx - 1; j++)
      u[r * nx + j] = c[j] + K * (up[j] + down[j] + c[j - 1] + c[j + 1] - 4.0 * c[j]);
  }
}

/* One iteration: copy the local rows into w, swap ghost rows with the
 * owners of the rows above and below, update. With more processes than
 * rows some hold none: they sit the exchange out. */
static void heat_step(MPI_Comm comm, double *u, double *w, int64_t nx, int64_t ny, int64_t first,
                      int64_t rows) {
  int np, n = (int)nx;
  MPI_Comm_size(comm, &np);
  if (rows == 0)
    return;
  int up = first > 0 ? app_block_owner(ny, np, first - 1) : MPI_PROC_NULL;
  int down = first + rows < ny ? app_block_owner(ny, np, first + rows) : MPI_PROC_NULL;
  memcpy(w + nx, u, sizeof(double) * (size_t)(rows * nx));
  MPI_Sendrecv(w + nx, n, MPI_DOUBLE, up, 0, w + (rows + 1) * nx, n, MPI_DOUBLE, down, 0, comm,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(w + rows * nx, n, MPI_DOUBLE, down, 1, w, n, MPI_DOUBLE, up, 1, comm,
               MPI_STATUS_IGNORE);
  update_rows(w, u, nx, ny, first, rows);
}

/* Rank 0 runs the same iterations serially and compares bitwise. */
static int check(MPI_Comm comm, const app_args *a, const double *u, int64_t rows) {
  int64_t nx = a->size, ny = a->size, cells;
  double *got = app_gather(u, rows * nx, MPI_DOUBLE, comm, &cells);
  int64_t bad = -1;
  if (got) {
    double *us = malloc(sizeof(double) * (size_t)(2 * ny * nx + 2 * nx));
    if (!us)
      MPI_Abort(comm, 2);
    double *w = us + ny * nx;
    init_rows(us, nx, 0, ny);
    for (int it = 0; it < a->iters; it++) {
      memcpy(w + nx, us, sizeof(double) * (size_t)(ny * nx));
      update_rows(w, us, nx, ny, 0, ny);
    }
    bad = app_first_difference(got, us, cells, sizeof *us);
    free(us);
    free(got);
  }
  int p;
  MPI_Comm_size(comm, &p);
  if (bad >= 0)
    return app_verdict(comm, 0, "heat %lldx%lld iters=%d procs=%d: cell (%lld, %lld) differs "
                       "from the serial run", (long long)ny, (long long)nx, a->iters, p,
                       (long long)(bad / nx), (long long)(bad % nx));
  return app_verdict(comm, 1, "heat %lldx%lld iters=%d procs=%d: bitwise equal to the serial run",
                     (long long)ny, (long long)nx, a->iters, p);
}

int main(int argc, char **argv) {
  int thread_level; /* MULTIPLE gives morph's spawns a time limit */    /* morph */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &thread_level);  /* morph */
  app_args a = {.size = 128, .iters = 200, .check = 1};
  int rc = app_parse(argc, argv, "2-D heat diffusion with halo exchange (native morph API).", &a,
                     NULL);
  if (rc != 0 || a.size < 3) {
    MPI_Finalize();
    return rc > 0 ? 0 : 2;
  }
  int64_t nx = a.size, ny = a.size;
  morph_ctx *m;                                                       /* morph */
  app_try(NULL, morph_open(MPI_COMM_WORLD, NULL, &m), "morph_open");  /* morph */
  MPI_Datatype row;                                                   /* morph */
  MPI_Type_contiguous((int)nx, MPI_DOUBLE, &row);                     /* morph */
  MPI_Type_commit(&row);                                              /* morph */
  double *u;
  int it = 0, seen = 0, size_seen = 0;
  app_try(m, morph_data_replicated(m, "it", &it, 1, MPI_INT), "it");  /* morph */
  app_try(m, morph_data_block(m, "u", (void **)&u, ny, row), "u");    /* morph */
  if (morph_get_status(m) == MORPH_NEW)                               /* morph */
    init_rows(u, nx, morph_local_offset(m, "u"), morph_local_count(m, "u"));
  double *w = malloc(sizeof(double) * (size_t)((ny + 2) * nx));
  if (!w)
    MPI_Abort(MPI_COMM_WORLD, 2);
  for (; it < a.iters; it++) {
    morph_status st;                                                  /* morph */
    app_try(m, morph_point(m, &st), "morph_point");                   /* morph */
    if (st == MORPH_LEAVING)                                          /* morph */
      return app_finish(m, 1);                                        /* morph */
    app_progress(m, &seen);                                           /* morph */
    app_hosts(&a, m, &size_seen);
    heat_step(morph_comm(m), u, w, nx, ny, morph_local_offset(m, "u"), morph_local_count(m, "u"));
    app_delay(&a);
    app_work(&a, morph_comm(m));
  }
  free(w);
  int ok = !a.check || check(morph_comm(m), &a, u, morph_local_count(m, "u"));
  return app_finish(m, ok);
}
