/*
 * pcm-heat - paper 001's heat-diffusion example (Figures 5-6) through the
 * PCM front-end (include/morph/pcm.h), written as the paper's skeleton:
 * MPI_PCM_Init, PCM_Process_Status to tell started from split processes,
 * PCM_Load of "iterator", "datawidth" and "myArray" on the latter,
 * PCM_Status once per iteration, PCM_Split / PCM_Merge on the 2-D array,
 * PCM_Store then PCM_Reconfigure for a migration (--hosts prints where
 * each rank runs, at start and after every change).
 *
 * A yDim x yDim plate; its left edge is held at 100 degrees, the other
 * edges at 0. The yDim - 2 interior columns are split in blocks, each
 * process holding xDim columns between two ghost columns, column after
 * column (Figure 4). Every iteration exchanges ghost columns with the left
 * and right neighbours and applies the explicit 5-point update. Each cell
 * is computed from the same values in the same order whatever the
 * distribution, so the result is bitwise equal to a serial run, which
 * rank 0 repeats at the end.
 *
 *   --collective 1   PCM_Split_Collective / PCM_Merge_Collective (any
 *                    sizes) instead of the 1 -> N and N -> 1 forms
 *
 * Lines that exist only for malleability end with a morph comment.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "morph/pcm.h"

#define HOT 100.0
#define K 0.2 /* diffusion number; the explicit scheme needs K <= 0.25 */

/* Column c of a buffer of columns of ydim elements. */
#define COL(buf, c, ydim) ((buf) + (size_t)(c) * (size_t)(ydim))

/* The left edge's column: hot inside, cold corners. */
static void edge_column(double *col, int ydim, double t) {
  for (int r = 0; r < ydim; r++)
    col[r] = r > 0 && r < ydim - 1 ? t : 0.0;
}

/* Updates columns 1..ncols of u from w (the same columns with their
 * neighbours); edge rows keep their value. */
static void update_columns(const double *w, double *u, int ncols, int ydim) {
  for (int c = 1; c <= ncols; c++) {
    const double *m = COL(w, c, ydim), *l = COL(w, c - 1, ydim), *rt = COL(w, c + 1, ydim);
    for (int r = 1; r < ydim - 1; r++)
      COL(u, c, ydim)[r] = m[r] + K * (l[r] + rt[r] + m[r - 1] + m[r + 1] - 4.0 * m[r]);
  }
}

/* Ghost columns from the neighbours; the plate's edges at the ends. */
static void exchange(MPI_Comm comm, double *u, int xdim, int ydim) {
  int rank, np;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &np);
  int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < np - 1 ? rank + 1 : MPI_PROC_NULL;
  MPI_Sendrecv(COL(u, 1, ydim), ydim, MPI_DOUBLE, left, 0, COL(u, xdim + 1, ydim), ydim,
               MPI_DOUBLE, right, 0, comm, MPI_STATUS_IGNORE);
  MPI_Sendrecv(COL(u, xdim, ydim), ydim, MPI_DOUBLE, right, 1, COL(u, 0, ydim), ydim, MPI_DOUBLE,
               left, 1, comm, MPI_STATUS_IGNORE);
  if (left == MPI_PROC_NULL)
    edge_column(COL(u, 0, ydim), ydim, HOT);
  if (right == MPI_PROC_NULL)
    edge_column(COL(u, xdim + 1, ydim), ydim, 0.0);
}

/* Rank 0 runs the same iterations serially and compares bitwise. */
static int check(MPI_Comm comm, const app_args *a, const double *u, int xdim, int ydim) {
  int64_t cells;
  double *got = app_gather(COL(u, 1, ydim), (int64_t)xdim * ydim, MPI_DOUBLE, comm, &cells);
  int64_t bad = -1;
  if (got) {
    int g = ydim - 2;
    double *us = calloc((size_t)(g + 2) * (size_t)ydim * 2, sizeof(double));
    if (!us)
      MPI_Abort(comm, 2);
    double *w = us + (size_t)(g + 2) * (size_t)ydim;
    edge_column(COL(us, 0, ydim), ydim, HOT);
    edge_column(COL(us, g + 1, ydim), ydim, 0.0);
    for (int it = 0; it < a->iters; it++) {
      memcpy(w, us, sizeof(double) * (size_t)(g + 2) * (size_t)ydim);
      update_columns(w, us, g, ydim);
    }
    bad = app_first_difference(got, COL(us, 1, ydim), cells, sizeof *us);
    free(us);
    free(got);
  }
  int p;
  MPI_Comm_size(comm, &p);
  if (bad >= 0)
    return app_verdict(comm, 0, "pcm-heat %dx%d iters=%d procs=%d: column %lld row %lld differs "
                       "from the serial run", ydim, ydim, a->iters, p, (long long)(bad / ydim) + 1,
                       (long long)(bad % ydim));
  return app_verdict(comm, 1, "pcm-heat %dx%d iters=%d procs=%d: bitwise equal to the serial run",
                     ydim, ydim, a->iters, p);
}

/* The split and merge of Figure 6, in the 1 -> N / N -> 1 forms or the
 * collective ones. */
static void reconfigure(int pcm_status, int collective, double **prevData, int *iterations,
                        int *xDim, int *yDim, int *rank, int *np, MPI_Comm *world,
                        const char *argv0) {
  int rc = MORPH_OK, mergecnts, merge_rank;                                /* morph */
  double *new_buffer = NULL;                                               /* morph */
  if (pcm_status == PCM_SPLIT)                                             /* morph */
    rc = collective                                                        /* morph */
             ? PCM_Split_Collective(prevData, PCM_DOUBLE, iterations, xDim, yDim, rank, np,
                                    world, argv0)                          /* morph */
             : PCM_Split(prevData, PCM_DOUBLE, iterations, xDim, yDim, rank, np, world,
                         argv0);                                           /* morph */
  else if (pcm_status == PCM_MERGE) {                                      /* morph */
    PCM_Merge_datacnts(*xDim, *yDim, &mergecnts, &merge_rank, *world);     /* morph */
    if (*rank == merge_rank)                                               /* morph */
      new_buffer = calloc((size_t)mergecnts, sizeof(double));              /* morph */
    rc = (collective ? PCM_Merge_Collective : PCM_Merge)(*prevData, MPI_DOUBLE, xDim, yDim,
                                                         new_buffer, mergecnts, rank, np,
                                                         world);           /* morph */
    if (rc == MORPH_OK && *rank == merge_rank) {                           /* morph */
      free(*prevData);                                                     /* morph */
      *prevData = new_buffer;                                              /* morph */
    } else {                                                               /* morph */
      free(new_buffer);                                                    /* morph */
    }
  }
  if (rc != MORPH_OK && rc != MORPH_EABORTED && rc != MORPH_ESIZE)        /* morph */
    app_try(NULL, rc, MORPH_PCM_errmsg());                                 /* morph */
  if (rc != MORPH_OK && *rank == 0)                                        /* morph */
    printf("pcm-heat: %s: %s\n", morph_err_name(rc), MORPH_PCM_errmsg());  /* morph */
}

/* A migration (PCM_MIGRATE on the processes that move, PCM_RECONFIGURE
 * on the others): the movers store their state, as Figure 6's split
 * stores a new process's; PCM_Reconfigure ends them and starts their
 * replacements on the target host, which load it in main(). */
static void migrate(int pcm_status, double *prevData, int iterations, int xDim, int yDim,
                    int rank, MPI_Comm *world, const char *argv0) {
  if (pcm_status == PCM_MIGRATE) {                                         /* morph */
    PCM_Store(rank, "iterator", &iterations, PCM_INT, 1);                  /* morph */
    PCM_Store(rank, "datawidth", &xDim, PCM_INT, 1);                       /* morph */
    PCM_Store(rank, "myArray", prevData, PCM_DOUBLE, (xDim + 2) * yDim);   /* morph */
  }
  int rc = PCM_Reconfigure(world, argv0);                                  /* morph */
  if (rc != MORPH_OK && rc != MORPH_EABORTED)                              /* morph */
    app_try(NULL, rc, MORPH_PCM_errmsg());                                 /* morph */
  if (rc != MORPH_OK && rank == 0)                                         /* morph */
    printf("pcm-heat: %s: %s\n", morph_err_name(rc), MORPH_PCM_errmsg());  /* morph */
}

int main(int argc, char **argv) {
  if (MPI_PCM_Init(&argc, &argv) != MORPH_OK) {                            /* morph */
    fprintf(stderr, "MPI_PCM_Init: %s\n", MORPH_PCM_errmsg());             /* morph */
    return 2;                                                              /* morph */
  }
  MPI_Comm PCM_COMM_WORLD;                                                 /* morph */
  PCM_Init(&PCM_COMM_WORLD);                                               /* morph */
  int collective = 0, seen = 0, hosts_seen = 0;
  app_option extra[] = {{"collective", 'i', &collective,
                         "1: the collective split and merge (any sizes)"},
                        {NULL, 0, NULL, NULL}};
  app_args a = {.size = 48, .iters = 200, .check = 1};
  if (app_parse(argc, argv, "Heat diffusion of paper 001 through the PCM front-end.", &a,
                extra) != 0 || a.size < 3) {
    PCM_Finalize(PCM_COMM_WORLD);                                          /* morph */
    MPI_Finalize();
    return 0;
  }
  int yDim = (int)a.size, rank, totalProcessors, xDim, current_iteration = 0;
  MPI_Comm_rank(PCM_COMM_WORLD, &rank);
  MPI_Comm_size(PCM_COMM_WORLD, &totalProcessors);
  app_progress(MORPH_PCM_ctx(), &seen); /* a relaunch: "restarted" */     /* morph */
  double *prevData;
  if (PCM_Process_Status() == PCM_STARTED) {                               /* morph */
    xDim = (int)app_block_len(yDim - 2, totalProcessors, rank);
    prevData = calloc((size_t)(xDim + 2) * (size_t)yDim, sizeof(double));
  } else {                                                                 /* morph */
    PCM_Comm_rank(PCM_COMM_WORLD, &rank);                                  /* morph */
    PCM_Load(rank, "iterator", &current_iteration);                        /* morph */
    PCM_Load(rank, "datawidth", &xDim);                                    /* morph */
    prevData = calloc((size_t)(xDim + 2) * (size_t)yDim, sizeof(double)); /* morph */
    PCM_Load(rank, "myArray", prevData);                                   /* morph */
  }
  double *w = NULL;
  for (int iterations = current_iteration; iterations < a.iters; iterations++) {
    int pcm_status = PCM_Status(PCM_COMM_WORLD);                           /* morph */
    if (pcm_status < 0)                                                    /* morph */
      app_try(NULL, pcm_status, MORPH_PCM_errmsg());                       /* morph */
    if (pcm_status == PCM_MIGRATE || pcm_status == PCM_RECONFIGURE) {      /* morph */
      migrate(pcm_status, prevData, iterations, xDim, yDim, rank, &PCM_COMM_WORLD,
              argv[0]);                                                    /* morph */
      hosts_seen = 0; /* same size, other hosts */                         /* morph */
    }                                                                      /* morph */
    reconfigure(pcm_status, collective, &prevData, &iterations, &xDim, &yDim, &rank,
                &totalProcessors, &PCM_COMM_WORLD, argv[0]);               /* morph */
    app_progress(MORPH_PCM_ctx(), &seen);                                  /* morph */
    app_hosts(&a, MORPH_PCM_ctx(), &hosts_seen);
    w = realloc(w, sizeof(double) * (size_t)(xDim + 2) * (size_t)yDim);
    exchange(PCM_COMM_WORLD, prevData, xDim, yDim);
    memcpy(w, prevData, sizeof(double) * (size_t)(xDim + 2) * (size_t)yDim);
    update_columns(w, prevData, xDim, yDim);
    app_delay(&a);
    app_work(&a, PCM_COMM_WORLD);
  }
  int ok = !a.check || check(PCM_COMM_WORLD, &a, prevData, xDim, yDim);
  free(w);
  free(prevData);
  int rc = MORPH_PCM_Finalize(ok ? 0 : 1);                                 /* morph */
  MPI_Finalize();
  return rc;
}
