/*
 * nbody - direct-sum N-body simulation, malleable with the DMRlib-
 * compatible front-end (morph/dmr.h), written as paper 000 describes its
 * N-body: particles are a derived MPI datatype (two 3-D vectors and two
 * floats) and DMR_RECONFIG moves them with the default redistribution.
 *
 * Particles are block-distributed. Every step gathers all of them and
 * advances the local ones; each acceleration is summed over all particles
 * in global order, so the result is bitwise equal to a serial run, which
 * rank 0 repeats at the end.
 *
 * Lines that exist only for malleability end with a morph comment.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "morph/dmr.h"

#define DT 1e-3
#define EPS2 1e-4 /* softening, keeps close encounters finite */

typedef struct particle {
  double pos[3], vel[3];
  float mass, weight;
} particle;

typedef struct sim {
  const app_args *a;
  MPI_Datatype type; /* the paper's MPI_PARTICLE */
  particle *all;     /* every particle, gathered each step */
  int seen;          /* last reconfiguration reported */
  int min, max, pref; /* --min/--max/--pref (0: not given) */
  int size_seen;      /* size at the last --hosts report */
} sim;

static MPI_Datatype particle_type(void) {
  int lens[4] = {3, 3, 1, 1};
  MPI_Aint disp[4] = {offsetof(particle, pos), offsetof(particle, vel), offsetof(particle, mass),
                      offsetof(particle, weight)};
  MPI_Datatype types[4] = {MPI_DOUBLE, MPI_DOUBLE, MPI_FLOAT, MPI_FLOAT}, t, resized;
  MPI_Type_create_struct(4, lens, disp, types, &t);
  MPI_Type_create_resized(t, 0, sizeof(particle), &resized);
  MPI_Type_commit(&resized);
  MPI_Type_free(&t);
  return resized;
}

/* A number in [-1, 1) from the particle index and a salt (splitmix64). */
static double noise(int64_t i, uint64_t salt) {
  uint64_t z = (uint64_t)i * 0x9e3779b97f4a7c15ULL + salt;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (double)((z ^ (z >> 31)) >> 11) / 4503599627370496.0 - 1.0;
}

static void init_range(particle *p, int64_t first, int64_t count) {
  for (int64_t k = 0; k < count; k++) {
    int64_t i = first + k;
    for (int d = 0; d < 3; d++) {
      p[k].pos[d] = noise(i, 1 + d);
      p[k].vel[d] = 0.1 * noise(i, 11 + d);
    }
    p[k].mass = (float)(1.0 + 0.5 * noise(i, 21));
    p[k].weight = 1.0f;
  }
}

/* Advances mine[0 .. count), which are all[first .. first + count). */
static void advance(const particle *all, int64_t n, particle *mine, int64_t first, int64_t count) {
  for (int64_t k = 0; k < count; k++) {
    const double *pi = all[first + k].pos;
    double acc[3] = {0, 0, 0};
    for (int64_t j = 0; j < n; j++) {
      if (j == first + k)
        continue;
      double d[3] = {all[j].pos[0] - pi[0], all[j].pos[1] - pi[1], all[j].pos[2] - pi[2]};
      double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + EPS2;
      double f = all[j].mass / (r2 * sqrt(r2));
      for (int c = 0; c < 3; c++)
        acc[c] += f * d[c];
    }
    for (int c = 0; c < 3; c++) {
      mine[k].vel[c] += DT * acc[c];
      mine[k].pos[c] += DT * mine[k].vel[c];
    }
  }
}

/* One parallel step: gather every particle, advance the local ones. */
static void step(MPI_Comm comm, particle *p, int size, sim *s) {
  int np, rank;
  MPI_Comm_size(comm, &np);
  MPI_Comm_rank(comm, &rank);
  int *counts = malloc(2 * sizeof(int) * (size_t)np), *displs = counts + np;
  if (!counts)
    MPI_Abort(comm, 2);
  MPI_Allgather(&size, 1, MPI_INT, counts, 1, MPI_INT, comm);
  for (int r = 0, at = 0; r < np; at += counts[r], r++)
    displs[r] = at;
  MPI_Allgatherv(p, size, s->type, s->all, counts, displs, s->type, comm);
  advance(s->all, s->a->size, p, displs[rank], size);
  free(counts);
}

/* Rank 0 runs the same steps serially and compares bitwise. */
static int check(MPI_Comm comm, const particle *p, int size, sim *s) {
  int64_t n = s->a->size, got_n, bad = -1;
  particle *got = app_gather(p, size, s->type, comm, &got_n);
  if (got) {
    particle *ps = malloc(sizeof *ps * (size_t)n);
    if (!ps)
      MPI_Abort(comm, 2);
    init_range(ps, 0, n);
    for (int it = 0; it < s->a->iters; it++) {
      memcpy(s->all, ps, sizeof *ps * (size_t)n);
      advance(s->all, n, ps, 0, n);
    }
    bad = got_n != n ? 0 : app_first_difference(got, ps, n, sizeof *ps);
    free(ps);
    free(got);
  }
  int np;
  MPI_Comm_size(comm, &np);
  if (bad >= 0)
    return app_verdict(comm, 0, "nbody n=%lld steps=%d procs=%d: particle %lld differs from the "
                       "serial run", (long long)n, s->a->iters, np, (long long)bad);
  return app_verdict(comm, 1, "nbody n=%lld steps=%d procs=%d: bitwise equal to the serial run",
                     (long long)n, s->a->iters, np);
}

/* The paper's N-body(particles, size, step): the main loop, from `first`. */
static int nbody(particle *p, int size, int first, sim *s) {
  if (s->min > 0) /* else keep the launcher's (MORPH_MIN...) */          /* morph */
    DMR_Set_parameters(s->min, s->max, s->pref);                        /* morph */
  for (int i = first; i < s->a->iters; i++) {
    DMR_RECONFIG(nbody(p, size, i, s),                                  /* morph */
                 DMR_Send_expand_default(p, s->type, size),             /* morph */
                 DMR_Recv_expand_default(&p, s->type, &size),           /* morph */
                 DMR_Send_shrink_default(p, s->type, size),             /* morph */
                 DMR_Recv_shrink_default(&p, s->type, &size));          /* morph */
    app_progress(DMR_Morph(), &s->seen);                                /* morph */
    app_hosts(s->a, DMR_Morph(), &s->size_seen);
    step(DMR_COMM_WORLD, p, size, s);
    app_delay(s->a);
    app_work(s->a, DMR_COMM_WORLD);
  }
  int ok = !s->a->check || check(DMR_COMM_WORLD, p, size, s);
  free(p);
  return ok;
}

/* This process's block of the initial particles. */
static int init_particles(MPI_Comm comm, int64_t n, particle **p) {
  int rank, np;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &np);
  int64_t first = app_block_first(n, np, rank), count = app_block_len(n, np, rank);
  *p = malloc(sizeof **p * (size_t)(count ? count : 1));
  if (!*p)
    MPI_Abort(comm, 2);
  init_range(*p, first, count);
  return (int)count;
}

int main(int argc, char **argv) {
  int thread_level; /* MULTIPLE gives morph's spawns a time limit */    /* morph */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &thread_level);  /* morph */
  app_args a = {.size = 500, .iters = 40, .check = 1};
  sim s = {&a, particle_type(), NULL, 0, 0, 0, 0, 0};
  const app_option extra[] = {{"min", 'i', &s.min, "DMR_Set_parameters: minimum processes"},
                              {"max", 'i', &s.max, "maximum processes (0: no limit)"},
                              {"pref", 'i', &s.pref, "preferred processes (0: none)"}, {0}};
  int rc = app_parse(argc, argv, "Direct-sum N-body (DMRlib front-end); --size is the number of "
                     "particles, --iters the number of steps.", &a, extra);
  if (rc != 0 || a.size < 1 || a.size > 1 << 28) {
    MPI_Finalize();
    return rc > 0 ? 0 : 2;
  }
  s.all = malloc(sizeof(particle) * (size_t)a.size);
  if (!s.all)
    MPI_Abort(MPI_COMM_WORLD, 2);
  app_try(NULL, DMR_Init(NULL), "DMR_Init");                            /* morph */
  particle *p = NULL;
  int size = 0;
  if (DMR_Is_new())                                                     /* morph */
    size = init_particles(DMR_COMM_WORLD, a.size, &p);
  int ok = nbody(p, size, DMR_Step(), &s);                              /* morph */
  free(s.all);
  MPI_Type_free(&s.type);
  rc = DMR_Finalize();                                                  /* morph */
  return rc != 0 ? rc : !ok;
}
