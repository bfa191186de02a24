/*
 * test-pcm-columns: the PCM front-end's column arithmetic without MPI.
 * For every M -> N from 1..7 to 1..7 and several column counts (fewer
 * columns than processes included), M old processes each cut their own
 * columns into pieces for the new layout (pcm__cut), the pieces are routed
 * by hand as the all-to-all would route them, each new process assembles
 * its part (pcm__assemble), and the part must hold exactly its block of
 * global columns, with zeroed ghost columns and the right width and
 * iteration stored for it. Prints "N passed, M failed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcm/internal.h"

#define ROWS 3

static int passed, failed;

static int64_t first(int64_t total, int p, int r) { return pcm__block_first(total, p, r); }

/* Old rank r's buffer: ghosts, then global column c holds c * 10 + row. */
static double *old_part(int64_t total, int m, int r, int64_t *xdim)
{
  int64_t f = first(total, m, r);
  *xdim = first(total, m, r + 1) - f;
  double *b = calloc((size_t)(*xdim + 2) * ROWS, sizeof *b);
  for (int64_t c = 0; c < *xdim; c++)
    for (int k = 0; k < ROWS; k++)
      b[(c + 1) * ROWS + k] = (double)((f + c) * 10 + k);
  return b;
}

/* Every entry of every old store goes to the store of its rank. */
static void route(pcm__store *olds, int m, pcm__store *news, int n)
{
  for (int r = 0; r < m; r++)
    for (int i = 0; i < olds[r].n; i++) {
      pcm__entry *e = &olds[r].v[i];
      if (e->rank < n)
        pcm__store_put(&news[e->rank], e, e->bytes);
    }
}

static int part_ok(pcm__store *s, int64_t total, int n, int q)
{
  int64_t f = first(total, n, q), w = first(total, n, q + 1) - f;
  pcm__entry *width = pcm__store_find(s, q, MORPH_PCM_KEY_WIDTH);
  pcm__entry *it = pcm__store_find(s, q, MORPH_PCM_KEY_ITERATOR);
  pcm__entry *arr = pcm__store_find(s, q, MORPH_PCM_KEY_ARRAY);
  if (!width || !it || !arr || *(int *)width->bytes != w || *(int *)it->bytes != 17 ||
      arr->nbytes != (int64_t)((w + 2) * ROWS * sizeof(double)))
    return 0;
  const double *b = (const double *)arr->bytes;
  for (int64_t c = 0; c < w + 2; c++)
    for (int k = 0; k < ROWS; k++) {
      double want = c == 0 || c == w + 1 ? 0.0 : (double)((f + c - 1) * 10 + k);
      if (b[c * ROWS + k] != want)
        return 0;
    }
  return 1;
}

static void one(int64_t total, int m, int n)
{
  pcm__store olds[8], news[8];
  memset(olds, 0, sizeof olds);
  memset(news, 0, sizeof news);
  int ok = 1;
  for (int r = 0; r < m; r++) {
    pcm__array a = {.rows = ROWS, .elem = sizeof(double), .total = total, .iteration = 17};
    a.first = first(total, m, r);
    double *b = old_part(total, m, r, &a.xdim);
    a.data = (char *)b;
    ok &= pcm__cut(&olds[r], &a, r, n) == MORPH_OK;
    free(b);
  }
  route(olds, m, news, n);
  for (int q = 0; q < n; q++)
    ok &= pcm__assemble(&news[q], q) == MORPH_OK && part_ok(&news[q], total, n, q);
  for (int r = 0; r < 8; r++)
    pcm__store_clear(&olds[r]), pcm__store_clear(&news[r]), free(olds[r].v), free(news[r].v);
  ok ? passed++ : failed++;
  if (!ok)
    printf("FAIL %lld columns, %d -> %d\n", (long long)total, m, n);
}

int main(void)
{
  static const int64_t totals[] = {0, 1, 5, 13, 46};
  for (size_t t = 0; t < sizeof totals / sizeof totals[0]; t++)
    for (int m = 1; m <= 7; m++)
      for (int n = 1; n <= 7; n++)
        one(totals[t], m, n);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
