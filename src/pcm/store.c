/*
 * The per-rank database (PCM's PCMD, kept in the processes themselves):
 * the table, its wire form (one blob per process), PCM_Store / PCM_Load,
 * and the all-to-all that brings every entry to the rank it is for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcm/internal.h"

/* An entry on the wire: this header (fixed size, no pointer), then
 * nbytes bytes. */
typedef struct wire_head {
  char key[PCM__KEY_MAX];
  int32_t rank, piece;
  int64_t offset, ncols, rows, elem, nbytes;
} wire_head;

static int same(const pcm__entry *e, int rank, const char *key, int piece, int64_t offset)
{
  return e->rank == rank && e->piece == piece && (!piece || e->offset == offset) &&
         !strcmp(e->key, key);
}

static void drop_at(pcm__store *s, int i)
{
  free(s->v[i].bytes);
  s->v[i] = s->v[--s->n];
}

int pcm__store_put(pcm__store *s, const pcm__entry *e, const void *bytes)
{
  char *copy = malloc((size_t)e->nbytes + 1);
  if (!copy)
    return MORPH_ENOMEM;
  if (e->nbytes > 0)
    memcpy(copy, bytes, (size_t)e->nbytes);
  for (int i = 0; i < s->n; i++)
    if (same(&s->v[i], e->rank, e->key, e->piece, e->offset)) {
      free(s->v[i].bytes);
      s->v[i] = *e;
      s->v[i].bytes = copy;
      return MORPH_OK;
    }
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    pcm__entry *v = realloc(s->v, sizeof *v * (size_t)cap);
    if (!v) {
      free(copy);
      return MORPH_ENOMEM;
    }
    s->v = v, s->cap = cap;
  }
  s->v[s->n] = *e;
  s->v[s->n++].bytes = copy;
  return MORPH_OK;
}

pcm__entry *pcm__store_find(pcm__store *s, int rank, const char *key)
{
  for (int i = 0; i < s->n; i++)
    if (same(&s->v[i], rank, key, 0, 0))
      return &s->v[i];
  return NULL;
}

char *pcm__store_take(pcm__store *s, int rank, const char *key)
{
  pcm__entry *e = pcm__store_find(s, rank, key);
  if (!e)
    return NULL;
  char *bytes = e->bytes;
  e->bytes = NULL;
  drop_at(s, (int)(e - s->v));
  return bytes;
}

void pcm__store_drop_pieces(pcm__store *s)
{
  for (int i = s->n - 1; i >= 0; i--)
    if (s->v[i].piece)
      drop_at(s, i);
}

void pcm__store_drop_keys(pcm__store *s)
{
  static const char *const keys[] = {MORPH_PCM_KEY_ITERATOR, MORPH_PCM_KEY_WIDTH,
                                     MORPH_PCM_KEY_ARRAY};
  pcm__store_drop_pieces(s);
  for (int i = s->n - 1; i >= 0; i--)
    for (int k = 0; k < 3; k++)
      if (!strcmp(s->v[i].key, keys[k])) {
        drop_at(s, i);
        break;
      }
}

void pcm__store_clear(pcm__store *s)
{
  while (s->n > 0)
    drop_at(s, s->n - 1);
}

/* Bytes of the entries for `rank` (all of them if rank < 0) on the wire. */
static size_t wire_size(const pcm__store *s, int rank)
{
  size_t len = 0;
  for (int i = 0; i < s->n; i++)
    if (rank < 0 || s->v[i].rank == rank)
      len += sizeof(wire_head) + (size_t)s->v[i].nbytes;
  return len;
}

static char *wire_put(char *p, const pcm__entry *e)
{
  wire_head h;
  memset(&h, 0, sizeof h);
  memcpy(h.key, e->key, sizeof h.key);
  h.rank = e->rank, h.piece = e->piece, h.offset = e->offset, h.ncols = e->ncols;
  h.rows = e->rows, h.elem = e->elem, h.nbytes = e->nbytes;
  memcpy(p, &h, sizeof h);
  if (e->nbytes > 0)
    memcpy(p + sizeof h, e->bytes, (size_t)e->nbytes);
  return p + sizeof h + e->nbytes;
}

/* Appends the entries of a wire buffer to the table. */
static int wire_read(pcm__store *s, const char *p, size_t len)
{
  while (len > 0) {
    wire_head h;
    if (len < sizeof h)
      return MORPH_EPROTO;
    memcpy(&h, p, sizeof h);
    if (h.nbytes < 0 || (size_t)h.nbytes > len - sizeof h || h.key[PCM__KEY_MAX - 1])
      return MORPH_EPROTO;
    pcm__entry e = {.rank = h.rank, .piece = h.piece, .offset = h.offset, .ncols = h.ncols,
                    .rows = h.rows, .elem = h.elem, .nbytes = h.nbytes};
    memcpy(e.key, h.key, sizeof e.key);
    int rc = pcm__store_put(s, &e, p + sizeof h);
    if (rc != MORPH_OK)
      return rc;
    p += sizeof h + (size_t)h.nbytes, len -= sizeof h + (size_t)h.nbytes;
  }
  return MORPH_OK;
}

int pcm__pack(void *arg, void **blob, size_t *len)
{
  pcm__store *s = arg;
  *len = wire_size(s, -1);
  char *p = malloc(*len + 1);
  if (!p)
    return MORPH_ENOMEM;
  *blob = p;
  for (int i = 0; i < s->n; i++)
    p = wire_put(p, &s->v[i]);
  return MORPH_OK;
}

int pcm__unpack(void *arg, int nblobs, void *const *blobs, const size_t *lens)
{
  pcm__store *s = arg;
  pcm__store_clear(s);
  for (int b = 0; b < nblobs; b++) {
    int rc = wire_read(s, blobs[b], lens[b]);
    if (rc != MORPH_OK) {
      pcm__store_clear(s);
      return rc;
    }
  }
  return MORPH_OK;
}

/* The all-to-all: counts first, then the bytes, each destination's
 * entries contiguous in the send buffer. */
static int exchange(pcm__store *s, MPI_Comm comm, int np, int *v, char **in, size_t *inlen)
{
  int *scount = v, *sdisp = v + np, *rcount = v + 2 * np, *rdisp = v + 3 * np;
  size_t total = 0;
  for (int q = 0; q < np; q++) {
    size_t n = wire_size(s, q);
    if (n > (size_t)INT32_MAX || total > (size_t)INT32_MAX - n)
      return MORPH_ENOMEM;
    scount[q] = (int)n, sdisp[q] = (int)total, total += n;
  }
  char *out = malloc(total + 1);
  if (!out)
    return MORPH_ENOMEM;
  char *p = out;
  for (int q = 0; q < np; q++)
    for (int i = 0; i < s->n; i++)
      if (s->v[i].rank == q)
        p = wire_put(p, &s->v[i]);
  int rc = MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, comm) == MPI_SUCCESS ? MORPH_OK
                                                                                    : MORPH_EMPI;
  size_t got = 0;
  for (int q = 0; rc == MORPH_OK && q < np; q++) {
    if (got > (size_t)INT32_MAX - (size_t)rcount[q])
      rc = MORPH_ENOMEM;
    rdisp[q] = (int)got, got += (size_t)rcount[q];
  }
  if (rc == MORPH_OK && !(*in = malloc(got + 1)))
    rc = MORPH_ENOMEM;
  if (rc == MORPH_OK && MPI_Alltoallv(out, scount, sdisp, MPI_BYTE, *in, rcount, rdisp, MPI_BYTE,
                                      comm) != MPI_SUCCESS)
    rc = MORPH_EMPI;
  free(out);
  *inlen = got;
  return rc;
}

int pcm__store_route(pcm__store *s, MPI_Comm comm)
{
  int np;
  MPI_Comm_size(comm, &np);
  int *v = calloc(4 * (size_t)np, sizeof *v);
  char *in = NULL;
  size_t inlen = 0;
  int rc = v ? exchange(s, comm, np, v, &in, &inlen) : MORPH_ENOMEM;
  pcm__store_clear(s);
  if (rc == MORPH_OK)
    rc = wire_read(s, in, inlen);
  if (rc != MORPH_OK)
    pcm__store_clear(s);
  free(in);
  free(v);
  return rc;
}

int PCM_Store(int rank, const char *key, const void *buf, MPI_Datatype type, int count)
{
  pcm__state *st = pcm__get();
  int rc = pcm__ready("PCM_Store");
  if (rc != MORPH_OK)
    return rc;
  if (!key || !key[0] || strlen(key) >= PCM__KEY_MAX)
    return pcm__fail(MORPH_EINVAL, "PCM_Store: key NULL, empty or %d characters or longer",
                     PCM__KEY_MAX);
  MPI_Aint lb, extent = 0;
  if (type != MPI_DATATYPE_NULL)
    MPI_Type_get_extent(type, &lb, &extent);
  if (rank < 0 || count < 0 || (!buf && count > 0) || extent <= 0)
    return pcm__fail(MORPH_EINVAL, "PCM_Store '%s': rank %d, count %d, buffer %s, extent %ld",
                     key, rank, count, buf ? "given" : "NULL", (long)extent);
  pcm__entry e = {.rank = rank, .nbytes = (int64_t)count * extent};
  snprintf(e.key, sizeof e.key, "%s", key);
  rc = pcm__store_put(&st->store, &e, buf);
  return rc == MORPH_OK ? MORPH_OK : pcm__fail(rc, "PCM_Store '%s': out of memory", key);
}

int64_t MORPH_PCM_Load_size(int rank, const char *key)
{
  int rc = pcm__ready("MORPH_PCM_Load_size");
  if (rc != MORPH_OK)
    return rc;
  const pcm__entry *e = key ? pcm__store_find(&pcm__get()->store, rank, key) : NULL;
  return e ? e->nbytes : pcm__fail(MORPH_ENOENT, "nothing stored under '%s' for rank %d",
                                   key ? key : "(null)", rank);
}

int PCM_Load(int rank, const char *key, void *buf)
{
  int rc = pcm__ready("PCM_Load");
  if (rc != MORPH_OK)
    return rc;
  if (!key || !buf)
    return pcm__fail(MORPH_EINVAL, "PCM_Load: key or buffer NULL");
  const pcm__entry *e = pcm__store_find(&pcm__get()->store, rank, key);
  if (!e)
    return pcm__fail(MORPH_ENOENT, "PCM_Load: nothing stored under '%s' for rank %d here", key,
                     rank);
  if (e->nbytes > 0)
    memcpy(buf, e->bytes, (size_t)e->nbytes);
  return MORPH_OK;
}
