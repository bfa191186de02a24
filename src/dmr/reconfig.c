/*
 * DMR_RECONFIG's three steps: note the arrays (the Send functions),
 * reconfigure (morph_point, whose callbacks carry the noted arrays, blob.c),
 * receive (the Recv functions, which rebalance them, rebalance.c).
 */
#include <stdlib.h>

#include "internal.h"

int DMR__capture(void) {
  dmr__ctx *c = dmr__get();
  if (!c)
    dmr__fatal(NULL, "DMR_RECONFIG before DMR_Init");
  c->nslots = 0;
  c->capturing = 1;
  return 1;
}

static void note(const void *data, MPI_Datatype type, int cyclic, int64_t units, int64_t block) {
  dmr__ctx *c = dmr__get();
  if (!c || !c->capturing)
    return;
  if (c->nslots == DMR__MAX_SLOTS)
    dmr__fatal(c, "more than %d arrays in one DMR_RECONFIG", DMR__MAX_SLOTS);
  if (units < 0 || block < 1 || (units > 0 && !data))
    dmr__fatal(c, "Send function: bad array (%lld units of %lld)", (long long)units,
               (long long)block);
  c->slots[c->nslots++] = (dmr__slot){data, type, cyclic, units, block};
}

void DMR_Send_expand_default(void *data, MPI_Datatype type, int size) {
  note(data, type, 0, size, 1);
}

void DMR_Send_shrink_default(void *data, MPI_Datatype type, int size) {
  note(data, type, 0, size, 1);
}

void DMR_Send_expand_blockcyclic(void *data, MPI_Datatype type, int n, int size) {
  note(data, type, 1, n, size);
}

void DMR_Send_shrink_blockcyclic(void *data, MPI_Datatype type, int n, int size) {
  note(data, type, 1, n, size);
}

int DMR__point(void) {
  dmr__ctx *c = dmr__get();
  c->capturing = 0;
  if (c->resume) { /* a joiner's first point already ran in DMR_Init */
    int kind = c->resume;
    c->resume = 0;
    return kind;
  }
  c->old_rank = morph_rank(c->m);
  c->old_size = morph_size(c->m);
  c->shared[DMR__SH_CALLS]++;
  c->shared[DMR__SH_SIZE] = c->old_size;
  dmr__drop_received(c);
  morph_status st;
  int rc = morph_point(c->m, &st);
  if (rc != MORPH_OK)
    dmr__fatal(c, "morph_point: %s (%s)", morph_strerror(rc), morph_errmsg(c->m));
  if (st == MORPH_LEAVING) /* DMRlib's parents end after sending */
    exit(DMR_Finalize());
  return dmr__kind(c);
}

void DMR__done(void) {
  dmr__ctx *c = dmr__get();
  int left = c->nblobs ? c->nheld - c->cursor : 0;
  if (left != 0)
    dmr__fatal(c, "the Recv expression received %d arrays, the Send expression noted %d",
               c->cursor, c->cursor + left);
  dmr__drop_received(c);
}

static int64_t recv(void **data, MPI_Datatype type, int cyclic, int64_t *block) {
  dmr__ctx *c = dmr__get();
  if (!c || !c->unpacked)
    dmr__fatal(c, "a Recv function outside DMR_RECONFIG");
  return dmr__rebalance(c, data, type, cyclic, block);
}

void(DMR_Recv_expand_default)(void **data, MPI_Datatype type, int *size) {
  int64_t block = 1;
  *size = (int)recv(data, type, 0, &block);
}

void(DMR_Recv_shrink_default)(void **data, MPI_Datatype type, int *size) {
  int64_t block = 1;
  *size = (int)recv(data, type, 0, &block);
}

void(DMR_Recv_expand_blockcyclic)(void **data, MPI_Datatype type, int *n, int *size) {
  int64_t block = *size;
  *n = (int)recv(data, type, 1, &block);
  *size = (int)block;
}

void(DMR_Recv_shrink_blockcyclic)(void **data, MPI_Datatype type, int *n, int *size) {
  int64_t block = *size;
  *n = (int)recv(data, type, 1, &block);
  *size = (int)block;
}
