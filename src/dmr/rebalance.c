/*
 * The Recv functions' work: after a reconfiguration, each new process holds
 * the blobs of some old processes (old rank r went to new rank r mod N);
 * one array at a time, every process sends each piece it holds to the new
 * owner and receives its own new local part, in a single all-to-all. Sizes
 * are arbitrary: the default distribution splits the whole array into
 * contiguous blocks whose sizes differ by at most one (morph's block rule),
 * the block-cyclic one gives global block b to new rank b mod N.
 *
 * A "unit" is one element (default) or one block (block-cyclic). A "run" is
 * a stretch of units that goes to one new owner, at one position of its
 * local part.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* One held piece of the array: the local part of an old process. */
typedef struct piece {
  int old_rank;
  int64_t units;
  const char *bytes;
} piece;

typedef struct run {
  int dest;
  int64_t pos, len;
  const char *bytes;
} run;

/* What every process must agree on for one array. */
typedef struct layout {
  int cyclic, old_size, new_size;
  int64_t total, unit_bytes, block;
  int64_t *first; /* default: global index of old rank r's first unit */
} layout;

static void *xcalloc(dmr__ctx *c, size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p)
    dmr__fatal(c, "out of memory redistributing data");
  return p;
}

/* The pieces of slot k in the held blobs; checks they are of the asked kind. */
static int find_pieces(dmr__ctx *c, int k, int cyclic, piece *out, layout *lay) {
  int n = 0;
  for (int i = 0; i < c->nblobs; i++) {
    dmr__blob_head h;
    memcpy(&h, c->blobs[i], sizeof h);
    if (k >= h.nslots)
      dmr__fatal(c, "the Recv expression asks for more arrays than the Send expression noted");
    const char *at = (const char *)c->blobs[i] + sizeof h, *bytes = at + h.nslots * sizeof(dmr__blob_slot);
    dmr__blob_slot d;
    for (int j = 0; j < h.nslots; j++) {
      memcpy(&d, at + j * sizeof d, sizeof d);
      if (j < k)
        bytes += d.units * d.unit_bytes;
      if (j == k)
        break;
    }
    if (d.cyclic != cyclic)
      dmr__fatal(c, "array %d: sent as %s, received as %s", k, d.cyclic ? "blockcyclic" : "default",
                 cyclic ? "blockcyclic" : "default");
    out[n++] = (piece){h.old_rank, d.units, bytes};
    lay->unit_bytes = d.unit_bytes;
    lay->block = d.block;
  }
  return n;
}

/* Agrees on the layout: unit size, block size and every old part's length. */
static void agree(dmr__ctx *c, const piece *pc, int npc, layout *lay) {
  MPI_Comm comm = morph_comm(c->m);
  int64_t sizes[2] = {lay->unit_bytes, lay->block};
  MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_INT64_T, MPI_MAX, comm);
  lay->unit_bytes = sizes[0];
  lay->block = sizes[1];
  int64_t *units = xcalloc(c, (size_t)lay->old_size + 1, sizeof *units);
  for (int i = 0; i < npc; i++)
    units[pc[i].old_rank] = pc[i].units;
  MPI_Allreduce(MPI_IN_PLACE, units, lay->old_size, MPI_INT64_T, MPI_SUM, comm);
  lay->first = units; /* turned into prefix sums in place */
  int64_t sum = 0;
  for (int r = 0; r <= lay->old_size; r++) {
    int64_t u = r < lay->old_size ? units[r] : 0;
    units[r] = sum;
    sum += u;
  }
  lay->total = sum;
}

static int64_t block_first(int64_t total, int parts, int r) { return r * total / parts; }

/* New owner of global unit u under the block rule. */
static int block_owner(int64_t total, int parts, int64_t u) {
  int d = (int)(u * parts / total);
  while (d > 0 && block_first(total, parts, d) > u)
    d--;
  while (d + 1 < parts && block_first(total, parts, d + 1) <= u)
    d++;
  return d;
}

/* Cuts a held piece into runs; returns how many were written to out. */
static int cut(const layout *lay, const piece *p, run *out) {
  int n = 0, q = lay->new_size;
  for (int64_t l = 0; l < p->units;) {
    const char *bytes = p->bytes + l * lay->unit_bytes;
    if (lay->cyclic) {
      int64_t g = p->old_rank + l * lay->old_size;
      out[n++] = (run){(int)(g % q), g / q, 1, bytes};
      l++;
      continue;
    }
    int64_t g = lay->first[p->old_rank] + l;
    int d = block_owner(lay->total, q, g);
    int64_t end = block_first(lay->total, q, d + 1) - lay->first[p->old_rank];
    int64_t len = (end < p->units ? end : p->units) - l;
    out[n++] = (run){d, g - block_first(lay->total, q, d), len, bytes};
    l += len;
  }
  return n;
}

/* Number of units new rank q owns. */
static int64_t local_units(const layout *lay, int q) {
  if (lay->cyclic)
    return lay->total > q ? (lay->total - q + lay->new_size - 1) / lay->new_size : 0;
  return block_first(lay->total, lay->new_size, q + 1) - block_first(lay->total, lay->new_size, q);
}

static int cmp_dest(const void *a, const void *b) {
  const run *x = a, *y = b;
  return (x->dest > y->dest) - (x->dest < y->dest);
}

/* Per-destination counts (runs as int64 pairs, bytes), checked against int. */
static void count_runs(dmr__ctx *c, const layout *lay, const run *rs, int nr, int *meta,
                       int *bytes) {
  int64_t *b = xcalloc(c, (size_t)lay->new_size, sizeof *b);
  for (int i = 0; i < nr; i++) {
    meta[rs[i].dest] += 2;
    b[rs[i].dest] += rs[i].len * lay->unit_bytes;
  }
  for (int d = 0; d < lay->new_size; d++) {
    if (b[d] > INT_MAX)
      dmr__fatal(c, "more than 2 GiB of one array for one process");
    bytes[d] = (int)b[d];
  }
  free(b);
}

static void displs_of(const int *counts, int *displs, int n) {
  for (int i = 0, at = 0; i < n; at += counts[i], i++)
    displs[i] = at;
}

/* Sends the runs to their owners; returns the received bytes, placed. */
static char *exchange(dmr__ctx *c, const layout *lay, run *rs, int nr, int64_t mine) {
  MPI_Comm comm = morph_comm(c->m);
  int q = lay->new_size;
  int *cnt = xcalloc(c, 8 * (size_t)q, sizeof(int));
  int *smeta = cnt, *sbytes = cnt + q, *rmeta = cnt + 2 * q, *rbytes = cnt + 3 * q;
  int *dsm = cnt + 4 * q, *dsb = cnt + 5 * q, *drm = cnt + 6 * q, *drb = cnt + 7 * q;
  qsort(rs, (size_t)nr, sizeof *rs, cmp_dest);
  count_runs(c, lay, rs, nr, smeta, sbytes);
  MPI_Alltoall(smeta, 1, MPI_INT, rmeta, 1, MPI_INT, comm);
  MPI_Alltoall(sbytes, 1, MPI_INT, rbytes, 1, MPI_INT, comm);
  displs_of(smeta, dsm, q);
  displs_of(sbytes, dsb, q);
  displs_of(rmeta, drm, q);
  displs_of(rbytes, drb, q);
  int64_t *sm = xcalloc(c, 2 * (size_t)nr, sizeof *sm);
  char *sb = xcalloc(c, (size_t)(dsb[q - 1] + sbytes[q - 1]), 1);
  for (int i = 0, at = 0; i < nr; at += (int)(rs[i].len * lay->unit_bytes), i++) {
    sm[2 * i] = rs[i].pos;
    sm[2 * i + 1] = rs[i].len;
    memcpy(sb + at, rs[i].bytes, (size_t)(rs[i].len * lay->unit_bytes));
  }
  int64_t *rm = xcalloc(c, (size_t)(drm[q - 1] + rmeta[q - 1]), sizeof *rm);
  char *rb = xcalloc(c, (size_t)(drb[q - 1] + rbytes[q - 1]), 1);
  MPI_Alltoallv(sm, smeta, dsm, MPI_INT64_T, rm, rmeta, drm, MPI_INT64_T, comm);
  MPI_Alltoallv(sb, sbytes, dsb, MPI_BYTE, rb, rbytes, drb, MPI_BYTE, comm);
  char *out = xcalloc(c, (size_t)(mine * lay->unit_bytes), 1);
  for (int i = 0, at = 0; i < (drm[q - 1] + rmeta[q - 1]) / 2; i++) {
    size_t n = (size_t)(rm[2 * i + 1] * lay->unit_bytes);
    memcpy(out + rm[2 * i] * lay->unit_bytes, rb + at, n);
    at += (int)n;
  }
  free(sm);
  free(sb);
  free(rm);
  free(rb);
  free(cnt);
  return out;
}

int64_t dmr__redistribute(dmr__ctx *c, void **data, MPI_Datatype type, int cyclic,
                          int64_t *block) {
  int k = c->cursor++;
  layout lay = {cyclic, (int)c->shared[DMR__SH_SIZE], morph_size(c->m), 0, 0, 0, NULL};
  piece *pc = xcalloc(c, (size_t)c->nblobs, sizeof *pc);
  int npc = find_pieces(c, k, cyclic, pc, &lay);
  agree(c, pc, npc, &lay);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(type, &lb, &extent);
  if (lay.total > 0 && lay.unit_bytes != extent * lay.block)
    dmr__fatal(c, "array %d: received with a type of extent %ld, sent with %lld bytes per unit "
               "of %lld", k, (long)extent, (long long)lay.unit_bytes, (long long)lay.block);
  int64_t nruns = 0;
  for (int i = 0; i < npc; i++)
    nruns += cyclic ? pc[i].units : lay.new_size + 1;
  run *rs = xcalloc(c, (size_t)nruns, sizeof *rs);
  int nr = 0;
  for (int i = 0; i < npc; i++)
    nr += cut(&lay, &pc[i], rs + nr);
  int64_t mine = local_units(&lay, morph_rank(c->m));
  char *out = exchange(c, &lay, rs, nr, mine);
  free(rs);
  free(pc);
  free(lay.first);
  free(*data);
  *data = out;
  *block = lay.block;
  return mine;
}
