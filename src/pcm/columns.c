/*
 * The array of paper 001's Figure 4: a process's own columns between two
 * ghost columns, stored column after column, so that any run of its
 * columns is one contiguous slice. A change cuts the own columns at the
 * new layout's block boundaries into pieces, each stored for the rank
 * that will own it; after the window, each process joins its pieces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcm/internal.h"

int64_t pcm__block_first(int64_t total, int p, int r) { return r * total / p; }

static int put_int(pcm__store *s, int rank, const char *key, int value)
{
  pcm__entry e = {.rank = rank, .nbytes = sizeof value};
  snprintf(e.key, sizeof e.key, "%s", key);
  return pcm__store_put(s, &e, &value);
}

/* A piece of `ncols` columns starting at global column `offset`; an empty
 * one tells its rank where its part starts and how long a column is. */
static int put_piece(pcm__store *s, const pcm__array *a, int rank, int64_t offset, int64_t ncols)
{
  int64_t colbytes = a->rows * a->elem;
  pcm__entry e = {.rank = rank, .piece = 1, .offset = offset, .ncols = ncols, .rows = a->rows,
                  .elem = a->elem, .nbytes = ncols * colbytes};
  snprintf(e.key, sizeof e.key, "%s", MORPH_PCM_KEY_ARRAY);
  const char *src = ncols ? a->data + (1 + offset - a->first) * colbytes : NULL;
  return pcm__store_put(s, &e, src);
}

/* Rank 0 of the old world tells every new rank its iteration, its width
 * and, with an empty piece, where its part starts. */
static int describe_new_ranks(pcm__store *s, const pcm__array *a, int new_size)
{
  int rc = MORPH_OK;
  for (int q = 0; rc == MORPH_OK && q < new_size; q++) {
    int64_t f = pcm__block_first(a->total, new_size, q);
    int64_t w = pcm__block_first(a->total, new_size, q + 1) - f;
    rc = put_int(s, q, MORPH_PCM_KEY_ITERATOR, a->iteration);
    if (rc == MORPH_OK)
      rc = put_int(s, q, MORPH_PCM_KEY_WIDTH, (int)w);
    if (rc == MORPH_OK)
      rc = put_piece(s, a, q, f, 0);
  }
  return rc;
}

int pcm__cut(pcm__store *s, const pcm__array *a, int old_rank, int new_size)
{
  pcm__store_drop_keys(s);
  int rc = old_rank == 0 ? describe_new_ranks(s, a, new_size) : MORPH_OK;
  int64_t lo = a->first, hi = a->first + a->xdim;
  for (int q = 0; rc == MORPH_OK && q < new_size; q++) {
    int64_t f = pcm__block_first(a->total, new_size, q);
    int64_t l = pcm__block_first(a->total, new_size, q + 1);
    int64_t from = lo > f ? lo : f, to = hi < l ? hi : l;
    if (to > from)
      rc = put_piece(s, a, q, from, to - from);
  }
  if (rc != MORPH_OK)
    pcm__store_drop_keys(s);
  return rc;
}

static int by_offset(const void *x, const void *y)
{
  const pcm__entry *a = *(pcm__entry *const *)x, *b = *(pcm__entry *const *)y;
  if (a->offset != b->offset)
    return a->offset < b->offset ? -1 : 1;
  return (a->ncols > b->ncols) - (a->ncols < b->ncols); /* the empty piece first */
}

/* Copies the sorted pieces into arr (ghost columns stay zero); checks
 * they follow each other without gap or overlap. */
static int join(pcm__entry **p, int n, char *arr, int64_t colbytes)
{
  int64_t next = p[0]->offset, first = p[0]->offset;
  for (int i = 0; i < n; i++) {
    if (p[i]->offset != next || p[i]->nbytes != p[i]->ncols * colbytes)
      return MORPH_EPROTO;
    if (p[i]->nbytes > 0)
      memcpy(arr + (1 + p[i]->offset - first) * colbytes, p[i]->bytes, (size_t)p[i]->nbytes);
    next += p[i]->ncols;
  }
  return MORPH_OK;
}

int pcm__assemble(pcm__store *s, int rank)
{
  pcm__entry **p = malloc(sizeof *p * ((size_t)s->n + 1));
  if (!p)
    return MORPH_ENOMEM;
  int n = 0;
  int64_t ncols = 0;
  for (int i = 0; i < s->n; i++)
    if (s->v[i].piece && s->v[i].rank == rank)
      p[n++] = &s->v[i], ncols += s->v[i].ncols;
  int rc = n > 0 ? MORPH_OK : MORPH_EPROTO;
  char *arr = NULL;
  int64_t colbytes = n > 0 ? p[0]->rows * p[0]->elem : 0;
  if (rc == MORPH_OK) {
    qsort(p, (size_t)n, sizeof *p, by_offset);
    arr = calloc((size_t)((ncols + 2) * colbytes) + 1, 1);
    rc = arr ? join(p, n, arr, colbytes) : MORPH_ENOMEM;
  }
  pcm__entry e = {.rank = rank, .nbytes = (ncols + 2) * colbytes};
  snprintf(e.key, sizeof e.key, "%s", MORPH_PCM_KEY_ARRAY);
  free(p); /* the pointers into the table die with the next put */
  if (rc == MORPH_OK)
    rc = pcm__store_put(s, &e, arr);
  if (rc == MORPH_OK)
    pcm__store_drop_pieces(s);
  free(arr);
  return rc;
}
