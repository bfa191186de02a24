/*
 * The second of the arrays' two steps, run by each Recv function: after a
 * reconfiguration new rank q holds the parts of old ranks q, q + N, ...
 * (blob.c); the redistribution engine (src/redist) moves them to the new
 * layout, only the slices that change process crossing the network. This
 * file only describes the array to the engine:
 *  - default: the old parts have any lengths, concatenated in old-rank
 *    order, and the new layout is contiguous blocks whose sizes differ by at
 *    most one (MORPH__DIST_VARCOUNT);
 *  - block-cyclic: global block b is on old rank b mod M and goes to new
 *    rank b mod N (MORPH__DIST_BLOCK_CYCLIC);
 * and old part p is held by new rank p mod N (morph__plan_build_held).
 */
#include <stdlib.h>

#include "internal.h"
#include "redist/redist.h"

/* Tag of the transfers. They run on a private copy of the communicator,
 * so that they cannot match the application's own messages. */
#define TAG_REBALANCE 7330

/* What every process must agree on for one array. */
typedef struct array_shape {
  int old_size, new_size;
  int64_t unit_bytes, block;
  int64_t *units; /* per old rank: the units of its part */
  int64_t total;  /* their sum */
} array_shape;

/* Array k as this process holds it; checks it was sent as it is received.
 * A process that holds no blob has nothing to check. */
static const dmr__held *held_array(dmr__ctx *c, int k, int cyclic) {
  if (c->nblobs == 0)
    return NULL;
  if (k >= c->nheld)
    dmr__fatal(c, "the Recv expression asks for more arrays than the Send expression noted");
  const dmr__held *a = &c->held[k];
  if (a->cyclic != cyclic)
    dmr__fatal(c, "array %d: sent as %s, received as %s", k,
               a->cyclic < 0 ? "both kinds" : a->cyclic ? "blockcyclic" : "default",
               cyclic ? "blockcyclic" : "default");
  return a;
}

/* Agrees on the unit and block sizes and on every old part's length: each
 * process knows those of the parts it holds. */
static void agree(dmr__ctx *c, const dmr__held *a, array_shape *s) {
  MPI_Comm comm = morph_comm(c->m);
  int64_t sizes[2] = {a ? a->unit_bytes : 0, a ? a->block : 0};
  MPI_Allreduce(MPI_IN_PLACE, sizes, 2, MPI_INT64_T, MPI_MAX, comm);
  s->unit_bytes = sizes[0];
  s->block = sizes[1];
  s->units = calloc((size_t)s->old_size + 1, sizeof *s->units);
  if (!s->units)
    dmr__fatal(c, "out of memory redistributing data");
  for (int i = 0; a && i < c->nblobs; i++) {
    if (c->held_ranks[i] >= s->old_size || c->held_ranks[i] % s->new_size != morph_rank(c->m))
      dmr__fatal(c, "received the data of old rank %d, which is not for this process",
                 c->held_ranks[i]);
    s->units[c->held_ranks[i]] = a->units[i];
  }
  MPI_Allreduce(MPI_IN_PLACE, s->units, s->old_size, MPI_INT64_T, MPI_SUM, comm);
  for (int p = 0; p < s->old_size; p++)
    s->total += s->units[p];
}

/* The engine's view of the array, in elements of the received type. */
static morph__dist dist_of(dmr__ctx *c, int cyclic, const array_shape *s, int64_t *counts) {
  if (!cyclic) {
    for (int p = 0; p < s->old_size; p++)
      counts[p] = s->units[p];
    return (morph__dist){MORPH__DIST_VARCOUNT, s->total, 1};
  }
  morph__dist blocks = {MORPH__DIST_BLOCK_CYCLIC, s->total, 1};
  for (int p = 0; p < s->old_size; p++)
    if (s->units[p] != morph__dist_count(&blocks, p, s->old_size))
      dmr__fatal(c, "block-cyclic array: old rank %d sent %lld blocks; %lld blocks dealt "
                 "round-robin to %d processes give it %lld", p, (long long)s->units[p],
                 (long long)s->total, s->old_size,
                 (long long)morph__dist_count(&blocks, p, s->old_size));
  return (morph__dist){MORPH__DIST_BLOCK_CYCLIC, s->total * s->block, s->block};
}

/* Plans this process's part of the move and carries it out. */
static void *plan_and_move(dmr__ctx *c, const dmr__held *a, const array_shape *s, int cyclic,
                           MPI_Datatype type, size_t elem_size, int64_t *count) {
  int64_t *counts = calloc((size_t)s->old_size + 1, sizeof *counts);
  int *holder = calloc((size_t)s->old_size + 1, sizeof *holder);
  if (!counts || !holder)
    dmr__fatal(c, "out of memory redistributing data");
  for (int p = 0; p < s->old_size; p++)
    holder[p] = p % s->new_size;
  morph__dist d = dist_of(c, cyclic, s, counts);
  morph__plan plan;
  int rc = morph__plan_build_held(&d, counts, s->old_size, s->new_size, holder,
                                  morph_rank(c->m), &plan);
  char *out = NULL;
  if (rc == MORPH_OK && !(out = malloc(((size_t)plan.new_count + 1) * elem_size)))
    rc = MORPH_ENOMEM;
  MPI_Comm comm = MPI_COMM_NULL;
  if (rc == MORPH_OK && MPI_Comm_dup(morph_comm(c->m), &comm) != MPI_SUCCESS)
    rc = MORPH_EMPI;
  if (rc == MORPH_OK)
    rc = morph__redist_exec(comm, &plan, a ? a->bytes : NULL, out, elem_size, type,
                            TAG_REBALANCE, 0, NULL);
  if (rc != MORPH_OK)
    dmr__fatal(c, "redistributing an array failed: %s", morph_strerror(rc));
  MPI_Comm_free(&comm);
  *count = plan.new_count;
  morph__plan_free(&plan);
  free(holder);
  free(counts);
  return out;
}

int64_t dmr__rebalance(dmr__ctx *c, void **data, MPI_Datatype type, int cyclic, int64_t *block) {
  int k = c->cursor++;
  const dmr__held *a = held_array(c, k, cyclic);
  array_shape s = {(int)c->shared[DMR__SH_SIZE], morph_size(c->m), 0, 0, NULL, 0};
  agree(c, a, &s);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(type, &lb, &extent);
  if (s.total > 0 && s.unit_bytes != (int64_t)extent * s.block)
    dmr__fatal(c, "array %d: received with a type of extent %ld, sent with %lld bytes per unit "
               "of %lld", k, (long)extent, (long long)s.unit_bytes, (long long)s.block);
  int64_t count = 0;
  void *out = plan_and_move(c, a, &s, cyclic, type, (size_t)extent, &count);
  free(s.units);
  free(*data);
  *data = out;
  *block = s.block;
  return count / s.block;
}
