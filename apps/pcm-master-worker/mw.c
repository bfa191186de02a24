/*
 * pcm-master-worker - paper 003's farmer/worker application (its astronomy
 * code: a model fitted to star positions, location-independent data) made
 * of malleable components through the PCM front-end: every process is a
 * component holding a slice of the stars; rank 0 is also the farmer. Each
 * iteration the farmer broadcasts the model, every component sums its
 * stars' contribution, the farmer collects the sums and moves the model.
 * The middleware (morph run's schedule, or morphd's granularity policy:
 * one component per available processor, paper 003 section IV-B.3)
 * decides the number of components; PCM_Split_Collective and
 * PCM_Merge_Collective redistribute the stars (N -> N+1, N -> N-1, any
 * M -> N).
 *
 * Emulated processors (docs/reproduction-pcm.md). The machine has 2
 * cores; the experiment needs up to 16 processors. Each component's
 * computation is emulated by sleeping `--work-ms` / N ms (the whole job's
 * work split over N components), stretched by the number of components
 * that share its processor: with P processors available, migration puts
 * component i on processor i mod P, so k components on one processor take
 * k times as long (time sharing). P follows paper 003's environment, 8 ->
 * 12 -> 16 -> 15 -> 10 -> 8, changing every `--phase-iters` iterations, or
 * stays at `--procs` when that is given. Rank 0 prints one line per
 * iteration: "mw it I procs P comps N time T".
 *
 * Lines that exist only for malleability end with a morph comment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "morph/pcm.h"

#define STAR 3 /* doubles per star: x, y, brightness */

static const int environment[] = {8, 12, 16, 15, 10, 8}; /* paper 003, Fig. 7 */
#define PHASES ((int)(sizeof environment / sizeof environment[0]))

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(double ms) {
  if (ms <= 0)
    return;
  struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6)};
  nanosleep(&ts, NULL);
}

/* Star s of the whole sky, the same whatever the distribution. */
static void make_star(int64_t s, double *star) {
  star[0] = sin(0.37 * (double)s);
  star[1] = cos(0.11 * (double)s);
  star[2] = 1.0 + (double)(s % 7);
}

/* One star's pull on the model (mx, my): a Gaussian-weighted offset. */
static void pull(const double *star, const double *model, double *acc) {
  double dx = star[0] - model[0], dy = star[1] - model[1];
  double w = star[2] * exp(-(dx * dx + dy * dy));
  acc[0] += w * dx, acc[1] += w * dy, acc[2] += w;
}

static void step_model(double *model, const double *acc) {
  if (acc[2] > 0)
    model[0] += 0.5 * acc[0] / acc[2], model[1] += 0.5 * acc[1] / acc[2];
}

/* Processors available at iteration `it`. */
static int procs_at(int it, int phase_iters, int fixed) {
  if (fixed > 0)
    return fixed;
  int ph = phase_iters > 0 ? it / phase_iters : 0;
  return environment[ph < PHASES ? ph : PHASES - 1];
}

/* Components on the processor of component `rank` (i mod P placement). */
static int sharing(int rank, int n, int p) {
  return n / p + (rank % p < n % p ? 1 : 0);
}

static int check(MPI_Comm comm, const app_args *a, const double *model, int64_t stars) {
  double ref[2] = {0.25, -0.25}, star[STAR];
  for (int it = 0; it < a->iters; it++) {
    double acc[3] = {0, 0, 0};
    for (int64_t s = 0; s < stars; s++) {
      make_star(s, star);
      pull(star, ref, acc);
    }
    step_model(ref, acc);
  }
  double err = fabs(model[0] - ref[0]) + fabs(model[1] - ref[1]);
  int np;
  MPI_Comm_size(comm, &np);
  return app_verdict(comm, err < 1e-9, "pcm-master-worker stars=%lld iters=%d procs=%d: model "
                     "(%.12f, %.12f), serial run differs by %.1e", (long long)stars, a->iters, np,
                     model[0], model[1], err);
}

int main(int argc, char **argv) {
  if (MPI_PCM_Init(&argc, &argv) != MORPH_OK) {                            /* morph */
    fprintf(stderr, "MPI_PCM_Init: %s\n", MORPH_PCM_errmsg());             /* morph */
    return 2;                                                              /* morph */
  }
  MPI_Comm world;                                                          /* morph */
  PCM_Init(&world);                                                        /* morph */
  int phase_iters = 6, fixed = 0, seen = 0, hosts_seen = 0;
  app_option extra[] = {{"phase-iters", 'i', &phase_iters, "iterations per environment phase"},
                        {"procs", 'i', &fixed, "processors available throughout (0: paper 003's "
                                               "8 -> 12 -> 16 -> 15 -> 10 -> 8)"},
                        {NULL, 0, NULL, NULL}};
  app_args a = {.size = 4800, .iters = 36, .check = 1};
  if (app_parse(argc, argv, "Paper 003's farmer/worker on malleable components (PCM).", &a,
                extra) != 0) {
    PCM_Finalize(world);                                                   /* morph */
    MPI_Finalize();
    return 0;
  }
  int rank, np, nstars, ydim = STAR, it0 = 0;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &np);
  app_progress(MORPH_PCM_ctx(), &seen);                                    /* morph */
  double *stars, model[2] = {0.25, -0.25};
  if (PCM_Process_Status() == PCM_STARTED) {                               /* morph */
    nstars = (int)app_block_len(a.size, np, rank);
    int64_t first = app_block_first(a.size, np, rank);
    stars = calloc((size_t)(nstars + 2) * STAR, sizeof(double));
    for (int s = 0; s < nstars; s++)
      make_star(first + s, stars + (size_t)(s + 1) * STAR);
  } else {                                                                 /* morph */
    PCM_Load(rank, "iterator", &it0);                                      /* morph */
    PCM_Load(rank, "datawidth", &nstars);                                  /* morph */
    stars = calloc((size_t)(nstars + 2) * STAR, sizeof(double));           /* morph */
    PCM_Load(rank, "myArray", stars);                                      /* morph */
    if (rank == 0)                            /* restarted by a relaunch */ /* morph */
      PCM_Load(0, "model", model);                                         /* morph */
  }
  MPI_Bcast(model, 2, MPI_DOUBLE, 0, world); /* a joiner gets the model */ /* morph */
  double t = now();
  for (int it = it0; it < a.iters; it++) {
    if (rank == 0) /* the farmer's state, for a relaunch */               /* morph */
      PCM_Store(0, "model", model, PCM_DOUBLE, 2);                         /* morph */
    int st = PCM_Status(world), rc = MORPH_OK, cnt, mrank;                 /* morph */
    double *nb = NULL;                                                     /* morph */
    if (st == PCM_SPLIT)                                                   /* morph */
      rc = PCM_Split_Collective(&stars, PCM_DOUBLE, &it, &nstars, &ydim, &rank, &np, &world,
                                argv[0]);                                  /* morph */
    if (st == PCM_MERGE) {                                                 /* morph */
      PCM_Merge_datacnts(nstars, ydim, &cnt, &mrank, world);               /* morph */
      nb = rank == mrank ? calloc((size_t)cnt, sizeof(double)) : NULL;     /* morph */
      rc = PCM_Merge_Collective(stars, MPI_DOUBLE, &nstars, &ydim, nb, cnt, &rank, &np,
                                &world);                                   /* morph */
      if (rc == MORPH_OK)                                                  /* morph */
        free(stars), stars = nb, nb = NULL;                                /* morph */
      free(nb);                                                            /* morph */
    }
    if (rc != MORPH_OK && rc != MORPH_EABORTED)                            /* morph */
      app_try(NULL, rc, MORPH_PCM_errmsg());                               /* morph */
    if (st == PCM_SPLIT || st == PCM_MERGE)                                /* morph */
      MPI_Bcast(model, 2, MPI_DOUBLE, 0, world); /* to the new components */ /* morph */
    app_progress(MORPH_PCM_ctx(), &seen);                                  /* morph */
    app_hosts(&a, MORPH_PCM_ctx(), &hosts_seen);
    MPI_Bcast(model, 2, MPI_DOUBLE, 0, world);
    double acc[3] = {0, 0, 0}, all[3];
    for (int s = 0; s < nstars; s++)
      pull(stars + (size_t)(s + 1) * STAR, model, acc);
    int p = procs_at(it, phase_iters, fixed);
    sleep_ms(a.work_ms / np * sharing(rank, np, p));
    MPI_Reduce(acc, all, 3, MPI_DOUBLE, MPI_SUM, 0, world);
    if (rank == 0) {
      step_model(model, all);
      double t1 = now();
      printf("mw it %d procs %d comps %d time %.4f\n", it, p, np, t1 - t);
      fflush(stdout);
      t = t1;
    }
  }
  int ok = !a.check || check(world, &a, model, a.size);
  free(stars);
  int rc = MORPH_PCM_Finalize(ok ? 0 : 1);                                 /* morph */
  MPI_Finalize();
  return rc;
}
