/*
 * adapt-solver - an iterative solver with two computation phases, malleable
 * with the Elastic MPI front-end (morph/adapt.h), ported from the thesis's
 * Algorithms 4.2 and 4.3 (paper 002, chapter 4).
 *
 * A rod of --size cells, ends held at 0 and 100, is block-distributed.
 * Phase 1 (--iters steps) diffuses heat: each step swaps one ghost cell
 * with each neighbour and applies the explicit 3-point update. Phase 2
 * (--iters / 2 steps) rescales by the global maximum (an exact reduction)
 * and damps. Every value is computed from the same operands in the same
 * order whatever the distribution, so the result is bitwise equal to a
 * serial run, which rank 0 repeats at the end.
 *
 * As in the thesis, joiners skip the initialisation and go straight to
 * resource_adapt(); inside the window the program redistributes its array
 * itself (leavers hand their cells over, joiners receive theirs) and
 * synchronises the loop counters and the phase id. Lines that exist only
 * for malleability end with a morph comment.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <time.h>

#include "app.h"
#include "morph/adapt.h"

/* Wall time, usable before MPI is initialised. */
static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define K 0.25 /* diffusion number; the explicit scheme needs K <= 0.5 */

/* What the thesis synchronises in the window: loop counters, phase id. */
typedef struct counters {
  int t, i, phase;
} counters;

/* --timing: the thesis's Table 5.2 (time of each call) and Table 5.4
 * (run time, CPU time) as rank 0 sees them; rank 0 never leaves. */
typedef struct timing {
  double t0, init, probe, begin, commit; /* seconds spent in each call */
  int probes, adapts;
  double last, proc_s; /* the integral of the job's size over time */
} timing;

typedef struct solver {
  int64_t n;        /* cells */
  double *u;        /* local cells */
  int64_t first, len;
  counters c;
  int rank, size;
  app_args a;
  double grow;      /* --grow F: the work per step rises linearly to F times */
  double comm_ms;   /* --comm-ms C: emulated communication, C ms per other
                       process, spent by the others inside MPI_Barrier */
  int timing;       /* --timing: print the calls' times and the CPU time */
  int hosts_seen;   /* --hosts: the size last printed with the hosts */
  timing tm;
} solver;

/* The job's size held since the last change, added to the CPU time. */
static void account(solver *s) {
  double t = now();
  s->tm.proc_s += (t - s->tm.last) * s->size;
  s->tm.last = t;
}

/* Emulated work of a step: --work-ms, scaled by --grow over the run, so
 * that the workload rises as the tsunami's does in the thesis (Fig. 5.6);
 * then --comm-ms: a cost that grows with the process count, which the
 * other ranks pay while rank 0 waits for them in MPI (libmorph-prof counts
 * rank 0's MPI time: the MPI-to-compute ratio the mtct policy reads). */
static void work(const solver *s, int step, int steps) {
  app_args a = s->a;
  a.work_ms *= 1.0 + (s->grow - 1.0) * step / (steps > 1 ? steps - 1 : 1);
  app_work(&a, MORPH_ADAPT_COMM_WORLD);
  if (s->comm_ms <= 0)
    return;
  if (s->rank != 0) {
    double ms = s->comm_ms * (s->size - 1);
    struct timespec ts = {(time_t)(ms / 1000), (long)(fmod(ms, 1000.0) * 1e6)};
    nanosleep(&ts, NULL);
  }
  MPI_Barrier(MORPH_ADAPT_COMM_WORLD);
}

static void locate(solver *s, MPI_Comm world) {
  MPI_Comm_rank(world, &s->rank);
  MPI_Comm_size(world, &s->size);
  s->first = app_block_first(s->n, s->size, s->rank);
  s->len = app_block_len(s->n, s->size, s->rank);
}

static double initial(int64_t i, int64_t n) { return i == n - 1 ? 100.0 : 0.0; }

/* New values of cells [first, first + len) from w, which holds them one
 * cell to the right plus a ghost cell on each side. Ends keep theirs. */
static void diffuse(const double *w, double *u, int64_t n, int64_t first, int64_t len) {
  for (int64_t k = 0; k < len; k++)
    if (first + k > 0 && first + k < n - 1)
      u[k] = w[k + 1] + K * (w[k] - 2.0 * w[k + 1] + w[k + 2]);
}

static void rescale(double *u, int64_t len, double max) {
  for (int64_t k = 0; k < len; k++)
    u[k] = 0.5 * u[k] / max + 0.25 * u[k];
}

static void phase1_step(solver *s, MPI_Comm world, double *w) {
  if (s->len == 0)
    return;
  int left = s->first > 0 ? app_block_owner(s->n, s->size, s->first - 1) : MPI_PROC_NULL;
  int right = s->first + s->len < s->n ? app_block_owner(s->n, s->size, s->first + s->len)
                                       : MPI_PROC_NULL;
  memcpy(w + 1, s->u, sizeof(double) * (size_t)s->len);
  MPI_Sendrecv(w + 1, 1, MPI_DOUBLE, left, 0, w + s->len + 1, 1, MPI_DOUBLE, right, 0, world,
               MPI_STATUS_IGNORE);
  MPI_Sendrecv(w + s->len, 1, MPI_DOUBLE, right, 1, w, 1, MPI_DOUBLE, left, 1, world,
               MPI_STATUS_IGNORE);
  diffuse(w, s->u, s->n, s->first, s->len);
}

static void phase2_step(solver *s, MPI_Comm world) {
  double local = 0, max;
  for (int64_t k = 0; k < s->len; k++)
    local = fabs(s->u[k]) > local ? fabs(s->u[k]) : local;
  MPI_Allreduce(&local, &max, 1, MPI_DOUBLE, MPI_MAX, world);
  rescale(s->u, s->len, max);
}

/* Counts and displacements moving a block distribution over `from`
 * processes to one over `to`, for the process of rank r of a communicator
 * holding both (ranks beyond one size hold nothing of it). */
static void moves(const solver *s, int r, int from, int to, int *sc, int *sd, int *rc, int *rd,  /* morph */
                  int np) {  /* morph */
  int64_t of = r < from ? app_block_first(s->n, from, r) : 0;  /* morph */
  int64_t ol = r < from ? app_block_len(s->n, from, r) : 0;  /* morph */
  int64_t nf = r < to ? app_block_first(s->n, to, r) : 0;  /* morph */
  int64_t nl = r < to ? app_block_len(s->n, to, r) : 0;  /* morph */
  for (int p = 0; p < np; p++) {  /* morph */
    int64_t pf = p < to ? app_block_first(s->n, to, p) : 0, pl = p < to ? app_block_len(s->n, to, p) : 0;  /* morph */
    int64_t lo = of > pf ? of : pf, hi = of + ol < pf + pl ? of + ol : pf + pl;  /* morph */
    sc[p] = hi > lo ? (int)(hi - lo) : 0, sd[p] = hi > lo ? (int)(lo - of) : 0;  /* morph */
    int64_t qf = p < from ? app_block_first(s->n, from, p) : 0, ql = p < from ? app_block_len(s->n, from, p) : 0;  /* morph */
    lo = qf > nf ? qf : nf, hi = qf + ql < nf + nl ? qf + ql : nf + nl;  /* morph */
    rc[p] = hi > lo ? (int)(hi - lo) : 0, rd[p] = hi > lo ? (int)(lo - nf) : 0;  /* morph */
  }  /* morph */
}  /* morph */

/* Leavers hand their cells over, joiners receive theirs: one all-to-all
 * over every process of the window, from the old block distribution to
 * the new one (Algorithm 4.2, lines 26-33). */
static double *redistribute(const solver *s, MPI_Comm all, int from, int to) {  /* morph */
  int r, np;  /* morph */
  MPI_Comm_rank(all, &r);  /* morph */
  MPI_Comm_size(all, &np);  /* morph */
  int *v = malloc(sizeof(int) * 4 * (size_t)np);  /* morph */
  double *nu = malloc(sizeof(double) * (size_t)(r < to ? app_block_len(s->n, to, r) + 1 : 1));  /* morph */
  if (!v || !nu)  /* morph */
    MPI_Abort(all, 2);  /* morph */
  moves(s, r, from, to, v, v + np, v + 2 * np, v + 3 * np, np);  /* morph */
  MPI_Alltoallv(s->u, v, v + np, MPI_DOUBLE, nu, v + 2 * np, v + 3 * np, MPI_DOUBLE, all);  /* morph */
  free(v);  /* morph */
  return nu;  /* morph */
}  /* morph */

/* The thesis's Resource_Adapt: begin, move data, sync counters, commit. */
static void resource_adapt(solver *s, int *status, int *seen) {
  MPI_Comm inter, world;                                                   /* morph */
  int staying, leaving, joining;                                           /* morph */
  double t = now();
  if (MPI_Comm_adapt_begin(&inter, &world, &staying, &leaving, &joining))  /* morph */
    app_try(NULL, MORPH_EABORTED, MORPH_Adapt_errmsg());                   /* morph */
  s->tm.begin += now() - t;
  MPI_Comm all = joining > 0 ? world : MORPH_ADAPT_COMM_WORLD;             /* morph */
  double *old = s->u;                                                      /* morph */
  s->u = redistribute(s, all, staying + leaving, staying + joining);       /* morph */
  MPI_Bcast(&s->c, 3, MPI_INT, 0, all);                                    /* morph */
  if (*status != MPI_ADAPT_STATUS_JOINING)
    account(s);
  t = now();
  int rolled_back = MPI_Comm_adapt_commit() != MPI_SUCCESS; /* morph */
  s->tm.commit += now() - t, s->tm.adapts++;
  free(rolled_back ? s->u : old);          /* morph */
  s->u = rolled_back ? old : s->u;                                         /* morph */
  locate(s, MORPH_ADAPT_COMM_WORLD);                                       /* morph */
  *status = MPI_ADAPT_STATUS_STAYING;                                      /* morph */
  app_progress(MORPH_Adapt_ctx(), seen);                                   /* morph */
  app_hosts(&s->a, MORPH_Adapt_ctx(), &s->hosts_seen); /* joiners: at the window's iteration */
}

static void probe(solver *s, int *status, int *seen) {
  int adapt;                                                               /* morph */
  double t = now();
  MPI_Probe_adapt(&adapt, status, NULL);                                   /* morph */
  s->tm.probe += now() - t, s->tm.probes++;
  if (adapt == MPI_ADAPT_TRUE)                                             /* morph */
    resource_adapt(s, status, seen);                                       /* morph */
}

/* Rank 0 runs both phases serially and compares bitwise. */
static int check(solver *s, MPI_Comm world) {
  int64_t n;
  double *got = app_gather(s->u, s->len, MPI_DOUBLE, world, &n);
  int64_t bad = -1;
  if (got) {
    double *u = malloc(sizeof(double) * (size_t)(2 * s->n + 2)), *w = u + s->n;
    if (!u)
      MPI_Abort(world, 2);
    for (int64_t i = 0; i < s->n; i++)
      u[i] = initial(i, s->n);
    for (int t = 0; t < s->a.iters; t++) {
      memcpy(w + 1, u, sizeof(double) * (size_t)s->n);
      diffuse(w, u, s->n, 0, s->n);
    }
    for (int i = 0; i < s->a.iters / 2; i++) {
      double max = 0;
      for (int64_t k = 0; k < s->n; k++)
        max = fabs(u[k]) > max ? fabs(u[k]) : max;
      rescale(u, s->n, max);
    }
    bad = app_first_difference(got, u, n, sizeof *u);
    free(u);
    free(got);
  }
  if (bad >= 0)
    return app_verdict(world, 0, "adapt-solver n=%lld iters=%d procs=%d: cell %lld differs from "
                       "the serial run", (long long)s->n, s->a.iters, s->size, (long long)bad);
  return app_verdict(world, 1, "adapt-solver n=%lld iters=%d+%d procs=%d: bitwise equal to the "
                     "serial run", (long long)s->n, s->a.iters, s->a.iters / 2, s->size);
}

static void report(solver *s) {
  account(s);
  const timing *t = &s->tm;
  if (!s->timing || s->rank != 0)
    return;
  printf("timing: MPI_Init_adapt %.4f s, MPI_Probe_adapt %.6f s (avg of %d), "
         "MPI_Comm_adapt_begin %.4f s, MPI_Comm_adapt_commit %.4f s (avg of %d)\n",
         t->init, t->probes ? t->probe / t->probes : 0, t->probes,
         t->adapts ? t->begin / t->adapts : 0, t->adapts ? t->commit / t->adapts : 0, t->adapts);
  printf("usage: run %.2f s, %.1f process-seconds (%.5f CPU hours)\n", now() - t->t0,
         t->proc_s, t->proc_s / 3600.0);
}

int main(int argc, char **argv) {
  int status, seen = 0;
  double t0 = now();
  MPI_Init_adapt(&argc, &argv, &status);                   /* morph */
  solver s = {.a = {.size = 1000, .iters = 200, .check = 1}, .grow = 1};
  s.tm.init = now() - t0, s.tm.t0 = s.tm.last = t0;
  app_option opts[] = {
    {"grow", 'd', &s.grow, "work per step rises linearly to F times --work-ms (1)"},
    {"timing", 'i', &s.timing, "1: print each call's time and the CPU time (0)"},
    {"comm-ms", 'd', &s.comm_ms, "emulated communication: C ms per other process (0)"},
    {NULL, 0, NULL, NULL}};
  int rc = app_parse(argc, argv, "two-phase iterative solver (Elastic MPI front-end).", &s.a, opts);
  if (rc != 0 || s.a.size < 3) {
    MPI_Finalize();
    return rc > 0 ? 0 : 2;
  }
  s.n = s.a.size;
  locate(&s, MORPH_ADAPT_COMM_WORLD);
  if (status == MPI_ADAPT_STATUS_JOINING) {                /* morph */
    s.u = malloc(sizeof(double));                                          /* morph */
    resource_adapt(&s, &status, &seen);                                    /* morph */
  } else {                                                                 /* morph */
    s.u = malloc(sizeof(double) * (size_t)(s.len + 1));
    for (int64_t k = 0; k < s.len; k++)
      s.u[k] = initial(s.first + k, s.n);
    s.c = (counters){0, 0, 1};
  }                                                                        /* morph */
  app_hosts(&s.a, MORPH_Adapt_ctx(), &s.hosts_seen);
  double *w = malloc(sizeof(double) * (size_t)(s.n + 2));
  if (!w)
    MPI_Abort(MPI_COMM_WORLD, 2);
  if (s.c.phase == 1) {
    for (; s.c.t < s.a.iters;) {
      phase1_step(&s, MORPH_ADAPT_COMM_WORLD, w);                 /* was MPI_COMM_WORLD */
      s.c.t++;
      work(&s, s.c.t, s.a.iters + s.a.iters / 2);
      app_delay(&s.a);
      probe(&s, &status, &seen);                                           /* morph */
    }
    s.c.phase = 2;
  }
  if (s.c.phase == 2) {
    for (; s.c.i < s.a.iters / 2;) {
      phase2_step(&s, MORPH_ADAPT_COMM_WORLD);
      s.c.i++;
      work(&s, s.a.iters + s.c.i, s.a.iters + s.a.iters / 2);
      app_delay(&s.a);
      probe(&s, &status, &seen);                                           /* morph */
    }
  }
  report(&s);
  int ok = !s.a.check || check(&s, MORPH_ADAPT_COMM_WORLD);
  free(s.u);
  free(w);
  MPI_Finalize();
  return ok ? 0 : 1;
}
