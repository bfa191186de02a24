/*
 * The first of the arrays' two steps: the morph callbacks that carry them
 * from the old processes to the new ones. At a reconfiguration every old
 * process packs the arrays noted by the Send expression into one blob;
 * morph hands old rank r's blob to new rank r mod N, which keeps, per
 * array, the parts it received, concatenated in old-rank order: the old
 * buffer the redistribution engine rebalances from (rebalance.c).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static int64_t unit_bytes(const dmr__slot *s) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(s->type, &lb, &extent);
  return (int64_t)extent * s->block;
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

/* Reads blob i's head and checks that its descriptors and bytes are all
 * there and that it follows the blob before it in old-rank order. */
static int read_head(const void *blob, size_t len, int prev_rank, dmr__blob_head *h) {
  if (len < sizeof *h)
    return MORPH_EPROTO;
  memcpy(h, blob, sizeof *h);
  if (h->nslots < 0 || h->nslots > DMR__MAX_SLOTS || h->old_rank <= prev_rank ||
      len < sizeof *h + (size_t)h->nslots * sizeof(dmr__blob_slot))
    return MORPH_EPROTO;
  size_t bytes = sizeof *h + (size_t)h->nslots * sizeof(dmr__blob_slot);
  for (int k = 0; k < h->nslots; k++) {
    dmr__blob_slot d;
    memcpy(&d, (const char *)blob + sizeof *h + k * sizeof d, sizeof d);
    if (d.units < 0 || d.unit_bytes < 0)
      return MORPH_EPROTO;
    bytes += (size_t)(d.units * d.unit_bytes);
  }
  return len < bytes ? MORPH_EPROTO : MORPH_OK;
}

/* Descriptor k of a checked blob, and where its bytes are. */
static dmr__blob_slot slot_of(const void *blob, int k, const char **bytes) {
  dmr__blob_head h;
  dmr__blob_slot d = {0};
  memcpy(&h, blob, sizeof h);
  const char *at = (const char *)blob + sizeof h;
  *bytes = at + h.nslots * sizeof d;
  for (int j = 0; j <= k; j++) {
    if (j > 0)
      *bytes += d.units * d.unit_bytes;
    memcpy(&d, at + j * sizeof d, sizeof d);
  }
  return d;
}

/* Array k over all held blobs: descriptors merged, parts concatenated. */
static int gather_array(dmr__held *a, int k, int nblobs, void *const *blobs) {
  int64_t total = 0;
  const char *bytes;
  for (int i = 0; i < nblobs; i++) {
    dmr__blob_slot d = slot_of(blobs[i], k, &bytes);
    if (i == 0)
      *a = (dmr__held){d.cyclic, d.block, d.unit_bytes, NULL, NULL};
    if (d.cyclic != a->cyclic)
      a->cyclic = -1;
    total += d.units * d.unit_bytes;
  }
  a->units = calloc((size_t)nblobs + 1, sizeof *a->units);
  a->bytes = malloc((size_t)total + 1);
  if (!a->units || !a->bytes)
    return MORPH_ENOMEM;
  char *at = a->bytes;
  for (int i = 0; i < nblobs; i++) {
    dmr__blob_slot d = slot_of(blobs[i], k, &bytes);
    a->units[i] = d.units;
    memcpy(at, bytes, (size_t)(d.units * d.unit_bytes));
    at += d.units * d.unit_bytes;
  }
  return MORPH_OK;
}

static int unpack_all(dmr__ctx *c, int nblobs, void *const *blobs, const size_t *lens) {
  dmr__blob_head h = {-1, 0, 0, 0};
  for (int i = 0; i < nblobs; i++) {
    int nslots = h.nslots, rc = read_head(blobs[i], lens[i], h.old_rank, &h);
    if (rc == MORPH_OK && i > 0 && h.nslots != nslots)
      rc = MORPH_EPROTO; /* every process notes the same arrays */
    if (rc != MORPH_OK)
      return rc;
    c->held_ranks[i] = h.old_rank;
  }
  c->nblobs = nblobs;
  c->nheld = nblobs ? h.nslots : 0;
  c->held = calloc((size_t)c->nheld + 1, sizeof *c->held);
  if (!c->held)
    return MORPH_ENOMEM;
  for (int k = 0; k < c->nheld; k++) {
    int rc = gather_array(&c->held[k], k, nblobs, blobs);
    if (rc != MORPH_OK)
      return rc;
  }
  return MORPH_OK;
}

/* Keeps copies: morph owns the blobs it hands over. */
int dmr__unpack(void *arg, int nblobs, void *const *blobs, const size_t *lens) {
  dmr__ctx *c = arg;
  dmr__drop_received(c);
  c->held_ranks = calloc((size_t)nblobs + 1, sizeof *c->held_ranks);
  int rc = c->held_ranks ? unpack_all(c, nblobs, blobs, lens) : MORPH_ENOMEM;
  if (rc != MORPH_OK) {
    dmr__drop_received(c);
    c->unpack_rc = rc; /* reported by dmr__kind: morph only logs it */
    return rc;
  }
  c->unpacked = 1;
  return MORPH_OK;
}

void dmr__drop_received(dmr__ctx *c) {
  for (int k = 0; c->held && k < c->nheld; k++) {
    free(c->held[k].units);
    free(c->held[k].bytes);
  }
  free(c->held);
  free(c->held_ranks);
  c->held = NULL;
  c->held_ranks = NULL;
  c->nheld = c->nblobs = 0;
  c->unpacked = 0;
  c->unpack_rc = MORPH_OK;
  c->cursor = 0;
}

int dmr__kind(dmr__ctx *c) {
  morph_reconf_report r;
  if (c->unpack_rc != MORPH_OK)
    dmr__fatal(c, "receiving the arrays failed: %s", morph_strerror(c->unpack_rc));
  if (!c->unpacked || morph_last_report(c->m, &r) != MORPH_OK || r.outcome != MORPH_OK) {
    dmr__drop_received(c); /* nothing arrived, or it was rolled back */
    return DMR__NONE;
  }
  return morph_size(c->m) >= c->shared[DMR__SH_SIZE] ? DMR__EXPAND : DMR__SHRINK;
}
