/*
 * DMR_RECONFIG's three steps (note the data, reconfigure, receive) and the
 * morph callbacks that carry the noted arrays from old to new processes.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int64_t unit_bytes(const dmr__slot *s) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(s->type, &lb, &extent);
  return (int64_t)extent * s->block;
}

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

int dmr__pack(void *arg, void **blob, size_t *len) {
  dmr__ctx *c = arg;
  size_t bytes = sizeof(dmr__blob_head) + (size_t)c->nslots * sizeof(dmr__blob_slot);
  for (int k = 0; k < c->nslots; k++)
    bytes += (size_t)(c->slots[k].units * unit_bytes(&c->slots[k]));
  char *b = malloc(bytes), *at = b;
  if (!b)
    return MORPH_ENOMEM;
  dmr__blob_head h = {c->old_rank, c->old_size, c->nslots, 0};
  memcpy(at, &h, sizeof h);
  at += sizeof h;
  for (int k = 0; k < c->nslots; k++, at += sizeof(dmr__blob_slot)) {
    const dmr__slot *s = &c->slots[k];
    dmr__blob_slot d = {s->cyclic, 0, s->units, s->block, unit_bytes(s)};
    memcpy(at, &d, sizeof d);
  }
  for (int k = 0; k < c->nslots; k++) {
    size_t n = (size_t)(c->slots[k].units * unit_bytes(&c->slots[k]));
    if (n)
      memcpy(at, c->slots[k].data, n);
    at += n;
  }
  *blob = b;
  *len = bytes;
  return MORPH_OK;
}

/* Keeps copies: morph owns the blobs it hands over. */
int dmr__unpack(void *arg, int nblobs, void *const *blobs, const size_t *lens) {
  dmr__ctx *c = arg;
  dmr__drop_blobs(c);
  c->blobs = calloc((size_t)nblobs + 1, sizeof *c->blobs);
  c->lens = calloc((size_t)nblobs + 1, sizeof *c->lens);
  if (!c->blobs || !c->lens)
    return MORPH_ENOMEM;
  for (int i = 0; i < nblobs; i++, c->nblobs++) {
    if (lens[i] < sizeof(dmr__blob_head) || !(c->blobs[i] = malloc(lens[i])))
      return lens[i] < sizeof(dmr__blob_head) ? MORPH_EPROTO : MORPH_ENOMEM;
    memcpy(c->blobs[i], blobs[i], lens[i]);
    c->lens[i] = lens[i];
  }
  c->unpacked = 1;
  return MORPH_OK;
}

void dmr__drop_blobs(dmr__ctx *c) {
  for (int i = 0; i < c->nblobs; i++)
    free(c->blobs[i]);
  free(c->blobs);
  free(c->lens);
  c->blobs = NULL;
  c->lens = NULL;
  c->nblobs = 0;
  c->unpacked = 0;
  c->cursor = 0;
}

int dmr__kind(dmr__ctx *c) {
  morph_reconf_report r;
  if (!c->unpacked || morph_last_report(c->m, &r) != MORPH_OK || r.outcome != MORPH_OK) {
    dmr__drop_blobs(c); /* nothing arrived, or it was rolled back */
    return DMR__NONE;
  }
  return morph_size(c->m) >= c->shared[DMR__SH_SIZE] ? DMR__EXPAND : DMR__SHRINK;
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
  dmr__drop_blobs(c);
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
  int left = c->nblobs ? ((dmr__blob_head *)c->blobs[0])->nslots - c->cursor : 0;
  if (left != 0)
    dmr__fatal(c, "the Recv expression received %d arrays, the Send expression noted %d",
               c->cursor, c->cursor + left);
  dmr__drop_blobs(c);
}

static int64_t recv(void **data, MPI_Datatype type, int cyclic, int64_t *block) {
  dmr__ctx *c = dmr__get();
  if (!c || !c->unpacked)
    dmr__fatal(c, "a Recv function outside DMR_RECONFIG");
  return dmr__redistribute(c, data, type, cyclic, block);
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
