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

#define TAG_BLOB 7410

static int64_t unit_bytes(const dmr__slot *s) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(s->type, &lb, &extent);
  return (int64_t)extent * s->block;
}

int dmr__pack(void *arg, void **blob, size_t *len) {
  dmr__ctx *c = arg;
  /* In a live window the arrays travel by dmr__exchange instead: morph's
   * own delivery comes at the commit, after the Recv expression. */
  int nslots = c->exchanging ? 0 : c->nslots;
  size_t bytes = sizeof(dmr__blob_head) + (size_t)nslots * sizeof(dmr__blob_slot);
  for (int k = 0; k < nslots; k++)
    bytes += (size_t)(c->slots[k].units * unit_bytes(&c->slots[k]));
  char *b = malloc(bytes), *at = b;
  if (!b)
    return MORPH_ENOMEM;
  dmr__blob_head h = {c->old_rank, c->old_size, nslots, 0};
  memcpy(at, &h, sizeof h);
  at += sizeof h;
  for (int k = 0; k < nslots; k++, at += sizeof(dmr__blob_slot)) {
    const dmr__slot *s = &c->slots[k];
    dmr__blob_slot d = {s->cyclic, 0, s->units, s->block, unit_bytes(s)};
    memcpy(at, &d, sizeof d);
  }
  for (int k = 0; k < nslots; k++) {
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
  if (c->exchanging) /* the live window's arrays arrived by dmr__exchange */
    return MORPH_OK;
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

/* Receives the blobs of the old ranks r with r mod new_size == me (this
 * process's new rank), in increasing r, and unpacks them. */
static void receive_blobs(dmr__ctx *c, MPI_Comm comm, int me, int from, int to) {
  int n = me < from ? (from - 1 - me) / to + 1 : 0;
  void **blobs = calloc((size_t)n + 1, sizeof *blobs);
  size_t *lens = calloc((size_t)n + 1, sizeof *lens);
  if (!blobs || !lens)
    dmr__fatal(c, "out of memory receiving the arrays");
  for (int i = 0, r = me; i < n; i++, r += to) {
    MPI_Status st;
    int count;
    MPI_Probe(r, TAG_BLOB, comm, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (!(blobs[i] = malloc((size_t)count + 1)))
      dmr__fatal(c, "out of memory receiving the arrays");
    lens[i] = (size_t)count;
    MPI_Recv(blobs[i], count, MPI_BYTE, r, TAG_BLOB, comm, MPI_STATUS_IGNORE);
  }
  c->exchanging = 0;
  int rc = dmr__unpack(c, n, blobs, lens);
  c->exchanging = 1;
  for (int i = 0; i < n; i++)
    free(blobs[i]);
  free(blobs);
  free(lens);
  if (rc != MORPH_OK)
    dmr__fatal(c, "receiving the arrays failed: %s", morph_strerror(rc));
}

/* Where new rank `k` is in the window's communicator. A grow keeps the old
 * ranks and puts the joiners after them; a live shrink may keep any ranks
 * (the leavers are those of the hosts the decision names), so the stayers'
 * new ranks are gathered (into *old_of, heap; NULL for a grow). */
static int old_rank_of(dmr__ctx *c, const morph_window_info *w, int k, int **old_of) {
  if (w->new_size >= w->old_size)
    return k;
  if (!*old_of) {
    int *news = malloc((size_t)w->old_size * sizeof *news);
    *old_of = malloc((size_t)w->new_size * sizeof **old_of);
    if (!news || !*old_of)
      dmr__fatal(c, "out of memory sending the arrays");
    MPI_Allgather(&w->new_rank, 1, MPI_INT, news, 1, MPI_INT, w->comm);
    for (int r = 0; r < w->old_size; r++)
      if (news[r] >= 0 && news[r] < w->new_size)
        (*old_of)[news[r]] = r;
    free(news);
  }
  return (*old_of)[k];
}

/* DMRlib's pattern: old rank r's arrays go to new rank r mod new_size. */
void dmr__exchange(dmr__ctx *c) {
  const morph_window_info *w = &c->win;
  int me, from = w->old_size, to = w->new_size, *old_of = NULL;
  MPI_Comm_rank(w->comm, &me);
  void *blob = NULL;
  size_t len = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  int dest = me < from ? old_rank_of(c, w, me % to, &old_of) : -1;
  if (me < from) { /* a parent */
    c->exchanging = 0;
    int rc = dmr__pack(c, &blob, &len);
    c->exchanging = 1;
    if (rc != MORPH_OK)
      dmr__fatal(c, "packing the arrays failed: %s", morph_strerror(rc));
    MPI_Isend(blob, (int)len, MPI_BYTE, dest, TAG_BLOB, w->comm, &req);
  }
  if (w->status != MORPH_LEAVING)
    receive_blobs(c, w->comm, w->new_rank, from, to);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  free(blob);
  free(old_of);
}
