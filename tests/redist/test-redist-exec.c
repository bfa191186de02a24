/*
 * Redistribution over MPI: in one communicator of P processes, moves block,
 * block-cyclic and varcount arrays of doubles and of a particle struct from
 * M to N owners for several (M, N) with M, N <= P, and checks every element
 * against its global index, that old parts are untouched and that the bytes
 * reported as sent are exactly those that change process. Old part p is on
 * rank p or, with --held, on rank p mod N (morph__plan_build_held: where
 * the runtime's callbacks transport leaves data for the DMRlib front-end).
 *
 * Usage: test-redist-exec [--mixed] [--held] [all | M:N ...]   (default: a
 * fixed list of pairs)
 * Pairs on one host are copied by the same-host path (src/redist/local.c)
 * unless MORPH_REDIST_LOCAL=0; with --mixed the odd ranks set it, so that
 * one redistribution mixes both paths, as one spanning hosts does.
 * Every rank prints its own failures; rank 0 prints a summary. Exit 1 on
 * any failure.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "morph/error.h"
#include "redist/redist.h"

typedef struct particle {
  int64_t id;
  double pos[3];
  float mass; /* followed by padding: the struct is 40 bytes */
} particle;

/* What one round moves: the distribution, its old counts and element kind. */
typedef struct round {
  morph__dist d;
  int64_t counts[64]; /* VARCOUNT old lengths */
  int m, n, particles, held, tag;
} round;

static MPI_Datatype particle_type(void)
{
  int len[] = {1, 3, 1};
  MPI_Aint disp[] = {offsetof(particle, id), offsetof(particle, pos), offsetof(particle, mass)};
  MPI_Datatype types[] = {MPI_INT64_T, MPI_DOUBLE, MPI_FLOAT}, t, resized;
  MPI_Type_create_struct(3, len, disp, types, &t);
  MPI_Type_create_resized(t, 0, sizeof(particle), &resized);
  MPI_Type_free(&t);
  MPI_Type_commit(&resized);
  return resized;
}

/* Reference layout, written independently of dist.c and plan.c. */
static int64_t ref_total(const round *r)
{
  if (r->d.kind != MORPH__DIST_VARCOUNT)
    return r->d.global;
  int64_t t = 0;
  for (int p = 0; p < r->m; p++)
    t += r->counts[p];
  return t;
}

static int64_t ref_count(const round *r, int rank, int n, int old_side)
{
  int64_t g = ref_total(r), c = 0;
  if (old_side && r->d.kind == MORPH__DIST_VARCOUNT)
    return r->counts[rank];
  if (r->d.kind != MORPH__DIST_BLOCK_CYCLIC)
    return (rank + 1) * g / n - rank * g / n;
  for (int64_t b = rank; b * r->d.block < g; b += n)
    c += g - b * r->d.block < r->d.block ? g - b * r->d.block : r->d.block;
  return c;
}

static int64_t ref_global(const round *r, int rank, int n, int old_side, int64_t i)
{
  int64_t g = ref_total(r), off = 0;
  if (old_side && r->d.kind == MORPH__DIST_VARCOUNT) {
    for (int p = 0; p < rank; p++)
      off += r->counts[p];
    return off + i;
  }
  if (r->d.kind != MORPH__DIST_BLOCK_CYCLIC)
    return rank * g / n + i;
  int64_t b = r->d.block;
  return (rank + (i / b) * n) * b + i % b;
}

static void put(void *buf, int particles, int64_t i, int64_t gid)
{
  if (!particles) {
    ((double *)buf)[i] = (double)gid;
    return;
  }
  particle p = {gid, {(double)gid, -(double)gid, 0.5 * (double)gid}, (float)(gid % 1000)};
  ((particle *)buf)[i] = p;
}

static int holds(const void *buf, int particles, int64_t i, int64_t gid)
{
  if (!particles)
    return ((const double *)buf)[i] == (double)gid;
  const particle *p = &((const particle *)buf)[i];
  return p->id == gid && p->pos[0] == (double)gid && p->pos[1] == -(double)gid &&
         p->pos[2] == 0.5 * (double)gid && p->mass == (float)(gid % 1000);
}

/* The rank that holds old part p. */
static int holder_of(const round *r, int p) { return r->held ? p % r->n : p; }

/* Length of the old buffer of rank `me`: the old parts it holds. */
static int64_t held_len(const round *r, int me)
{
  int64_t len = 0;
  for (int p = 0; p < r->m; p++)
    len += holder_of(r, p) == me ? ref_count(r, p, r->m, 1) : 0;
  return len;
}

/* Global index of element i of rank me's old buffer. */
static int64_t held_global(const round *r, int me, int64_t i)
{
  for (int p = 0; p < r->m; p++) {
    if (holder_of(r, p) != me)
      continue;
    int64_t c = ref_count(r, p, r->m, 1);
    if (i < c)
      return ref_global(r, p, r->m, 1, i);
    i -= c;
  }
  return -1;
}

/* New owner of global index g in the reference layout. */
static int ref_owner(const round *r, int64_t g)
{
  if (r->d.kind == MORPH__DIST_BLOCK_CYCLIC)
    return (int)((g / r->d.block) % r->n);
  int64_t total = ref_total(r);
  int q = 0;
  while ((q + 1) * total / r->n <= g)
    q++;
  return q;
}

/* Bytes that change process between old and new layouts (all ranks). */
static int64_t moved_bytes(const round *r, size_t es)
{
  int64_t moved = 0;
  for (int p = 0; p < r->m; p++) {
    int64_t c = ref_count(r, p, r->m, 1);
    for (int64_t i = 0; i < c; i++)
      moved += ref_owner(r, ref_global(r, p, r->m, 1, i)) != holder_of(r, p);
  }
  return moved * (int64_t)es;
}

/* Checks this rank's new part and its untouched old part; returns errors. */
static int check_parts(const round *r, int me, const void *old, int64_t old_len,
                       const void *nw, int64_t new_len)
{
  int errors = 0;
  for (int64_t i = 0; i < new_len; i++)
    if (!holds(nw, r->particles, i, ref_global(r, me, r->n, 0, i)) && errors++ < 3)
      fprintf(stderr, "rank %d: kind %d %d->%d%s: new[%lld] wrong\n", me, (int)r->d.kind, r->m,
              r->n, r->held ? " held" : "", (long long)i);
  for (int64_t i = 0; i < old_len; i++)
    if (!holds(old, r->particles, i, held_global(r, me, i)) && errors++ < 6)
      fprintf(stderr, "rank %d: old[%lld] was modified\n", me, (long long)i);
  return errors;
}

/* One redistribution on every rank of comm; returns this rank's errors. */
static int run_round(MPI_Comm comm, const round *r, MPI_Datatype type)
{
  int me;
  MPI_Comm_rank(comm, &me);
  size_t es = r->particles ? sizeof(particle) : sizeof(double);
  morph__plan plan;
  int holder[64];
  for (int p = 0; p < r->m; p++)
    holder[p] = holder_of(r, p);
  int rc = r->held ? morph__plan_build_held(&r->d, r->counts, r->m, r->n, holder, me, &plan)
                   : morph__plan_build(&r->d, r->counts, r->m, r->n, me, &plan);
  if (rc != MORPH_OK) {
    fprintf(stderr, "rank %d: plan: %s\n", me, morph_strerror(rc));
    return 1;
  }
  int64_t old_len = held_len(r, me);
  int64_t new_len = me < r->n ? ref_count(r, me, r->n, 0) : 0;
  int errors = plan.new_count != new_len;
  char *old = old_len > 0 ? malloc((size_t)old_len * es + 1) : NULL;
  char *nw = me < r->n ? malloc((size_t)new_len * es + 1) : NULL;
  for (int64_t i = 0; i < old_len; i++)
    put(old, r->particles, i, held_global(r, me, i));
  if (nw)
    memset(nw, 0xff, (size_t)new_len * es);
  int64_t sent = -1, all_sent = 0;
  rc = morph__redist_exec(comm, &plan, old, nw, es, type, r->tag, morph__now() + 30, &sent);
  if (rc != MORPH_OK && ++errors)
    fprintf(stderr, "rank %d: exec %d->%d: %s\n", me, r->m, r->n, morph_strerror(rc));
  else
    errors += check_parts(r, me, old, old_len, nw, new_len);
  MPI_Allreduce(&sent, &all_sent, 1, MPI_INT64_T, MPI_SUM, comm);
  if (me == 0 && all_sent != moved_bytes(r, es) && ++errors)
    fprintf(stderr, "%d->%d%s: %lld bytes sent, %lld change process\n", r->m, r->n,
            r->held ? " held" : "", (long long)all_sent, (long long)moved_bytes(r, es));
  free(old);
  free(nw);
  morph__plan_free(&plan);
  return errors;
}

/* The distributions every pair is tried with: sizes not divisible, smaller
 * than P, empty, and large enough for rendezvous transfers. */
static int make_rounds(round *out, int m, int n, int held, uint64_t *seed)
{
  const morph__dist dists[] = {
      {MORPH__DIST_BLOCK, 1001, 1},          {MORPH__DIST_BLOCK, 5, 1},
      {MORPH__DIST_BLOCK, 0, 1},             {MORPH__DIST_BLOCK, 200003, 1},
      {MORPH__DIST_BLOCK_CYCLIC, 1001, 3},   {MORPH__DIST_BLOCK_CYCLIC, 37, 1},
      {MORPH__DIST_BLOCK_CYCLIC, 100000, 64}, {MORPH__DIST_VARCOUNT, 0, 1},
  };
  int k = 0;
  for (size_t i = 0; i < sizeof dists / sizeof *dists; i++)
    for (int particles = 0; particles < 2; particles++, k++) {
      out[k] = (round){.d = dists[i], .m = m, .n = n, .particles = particles, .held = held};
      for (int p = 0; p < m; p++) {
        *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
        out[k].counts[p] = (*seed >> 33) % 4 == 0 ? 0 : (int64_t)((*seed >> 33) % 5000);
      }
    }
  return k;
}

/* An element size that disagrees with the type's extent is refused. */
static int check_bad_extent(MPI_Comm comm)
{
  morph__plan plan = {0};
  double x = 0;
  int rc = morph__redist_exec(comm, &plan, &x, &x, sizeof(particle), MPI_DOUBLE, 0, 0, NULL);
  return rc != MORPH_EINVAL;
}

static int parse_pairs(int argc, char **argv, int size, int (*pairs)[2])
{
  static const int fixed[][2] = {{3, 5}, {5, 2}, {7, 1}, {1, 7}, {2, 4}, {4, 2}, {8, 3},
                                 {3, 8}, {8, 8}, {6, 7}, {1, 1}, {4, 4}, {2, 8}, {8, 1}};
  int np = 0;
  if (argc > 1 && strcmp(argv[1], "all") == 0) {
    for (int m = 1; m <= size; m++)
      for (int n = 1; n <= size; n++, np++)
        pairs[np][0] = m, pairs[np][1] = n;
    return np;
  }
  for (int i = 1; i < argc && i <= 64; i++, np++)
    if (sscanf(argv[i], "%d:%d", &pairs[np][0], &pairs[np][1]) != 2)
      return -1;
  if (np == 0)
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
      if (fixed[i][0] <= size && fixed[i][1] <= size)
        pairs[np][0] = fixed[i][0], pairs[np][1] = fixed[i][1], np++;
  return np;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int me, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &me);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static int pairs[64 * 64][2];
  int mixed = argc > 1 && strcmp(argv[1], "--mixed") == 0;
  argc -= mixed;
  argv += mixed;
  if (mixed && me % 2)
    setenv("MORPH_REDIST_LOCAL", "0", 1);
  int held = argc > 1 && strcmp(argv[1], "--held") == 0;
  int np = size <= 64 ? parse_pairs(argc - held, argv + held, size, pairs) : -1;
  MPI_Datatype ptype = particle_type();
  int errors = np < 0 || check_bad_extent(MPI_COMM_WORLD), all = 0, nrounds = 0;
  uint64_t seed = 7;
  double t0 = MPI_Wtime();
  for (int i = 0; i < np; i++) {
    if (pairs[i][0] < 1 || pairs[i][1] < 1 || pairs[i][0] > size || pairs[i][1] > size) {
      errors++;
      continue;
    }
    round rounds[32];
    int k = make_rounds(rounds, pairs[i][0], pairs[i][1], held, &seed);
    for (int j = 0; j < k; j++, nrounds++) {
      rounds[j].tag = nrounds % 32000;
      errors += run_round(MPI_COMM_WORLD, &rounds[j], rounds[j].particles ? ptype : MPI_DOUBLE);
    }
  }
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (me == 0)
    printf("test-redist-exec: %d processes, %d pairs, %d redistributions%s, %d errors, %.2f s\n",
           size, np, nrounds, held ? " from held parts" : "", all, MPI_Wtime() - t0);
  MPI_Type_free(&ptype);
  MPI_Finalize();
  return all ? 1 : 0;
}
