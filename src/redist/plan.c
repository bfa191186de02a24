/*
 * The plan of one process: which slices of its old part go to which new
 * owner, and which slices of its new part come from which old owner. Pure
 * integer code, no MPI, so that every M -> N case is testable in memory.
 *
 * BLOCK and VARCOUNT are both "contiguous ranges": old rank p owns
 * [oo[p], oo[p+1]), new rank q owns [no[q], no[q+1]); a slice is the
 * intersection of two ranges, so a process has at most one slice per peer.
 * BLOCK_CYCLIC keeps the same block size on both sides, so block
 * boundaries coincide and every block moves whole: one slice per block,
 * bucketed by peer, merged where both ends are contiguous.
 */
#include "redist/plan.h"

#include <stdlib.h>
#include <string.h>

#include "morph/error.h"

/* Validates what the arithmetic needs; for VARCOUNT also that the old
 * counts are non-negative and their sum fits in int64. */
static int check_args(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n,
                      int me)
{
  if (!d || old_n < 1 || new_n < 1 || me < 0)
    return MORPH_EINVAL;
  if (d->kind == MORPH__DIST_VARCOUNT) {
    if (!old_counts)
      return MORPH_EINVAL;
    int64_t sum = 0;
    for (int p = 0; p < old_n; p++) {
      if (old_counts[p] < 0 || old_counts[p] > INT64_MAX - sum)
        return MORPH_EINVAL;
      sum += old_counts[p];
    }
    return MORPH_OK;
  }
  if (d->kind != MORPH__DIST_BLOCK && d->kind != MORPH__DIST_BLOCK_CYCLIC)
    return MORPH_EINVAL;
  if (d->global < 0 || (d->kind == MORPH__DIST_BLOCK_CYCLIC && d->block < 1))
    return MORPH_EINVAL;
  return MORPH_OK;
}

/* Merges runs that are contiguous on both ends, in place. Sender and
 * receiver see the same pairs in the same order, so both merge alike. */
static void merge_slices(morph__slice *v, size_t *n)
{
  size_t out = 0;
  for (size_t i = 0; i < *n; i++) {
    morph__slice *prev = out ? &v[out - 1] : NULL;
    if (prev && prev->peer == v[i].peer && prev->src_index + prev->count == v[i].src_index &&
        prev->dst_index + prev->count == v[i].dst_index) {
      prev->count += v[i].count;
      continue;
    }
    v[out++] = v[i];
  }
  *n = out;
}

/* First k in [0, n) whose range [off[k], off[k+1]) ends after x. */
static int first_ending_after(const int64_t *off, int n, int64_t x)
{
  int lo = 0, hi = n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (off[mid + 1] > x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* Slices of my range [lo, hi) against the ranges `off` of the other side.
 * As a sender my local index is the source; as a receiver, the target. */
static int intersect(int64_t lo, int64_t hi, const int64_t *off, int n, int sending,
                     morph__slice **out, size_t *nout)
{
  if (lo >= hi)
    return MORPH_OK;
  int first = first_ending_after(off, n, lo);
  int last = first_ending_after(off, n, hi - 1);
  *out = malloc((size_t)(last - first + 1) * sizeof **out);
  if (!*out)
    return MORPH_ENOMEM;
  for (int k = first; k <= last; k++) {
    int64_t a = off[k] > lo ? off[k] : lo, b = off[k + 1] < hi ? off[k + 1] : hi;
    if (a >= b)
      continue; /* an empty part of the other side */
    morph__slice s = {k, sending ? a - lo : a - off[k], sending ? a - off[k] : a - lo, b - a};
    (*out)[(*nout)++] = s;
  }
  return MORPH_OK;
}

/* Start offsets of the n parts plus the end, for a BLOCK layout of `total`
 * elements, or for the concatenation of `counts` if given. */
static int64_t *range_offsets(int64_t total, const int64_t *counts, int n)
{
  int64_t *off = malloc((size_t)(n + 1) * sizeof *off);
  if (!off)
    return NULL;
  morph__dist block = {MORPH__DIST_BLOCK, total, 1};
  off[0] = 0;
  for (int k = 0; k < n; k++)
    off[k + 1] = counts ? off[k] + counts[k] : morph__dist_offset(&block, k + 1, n);
  return off;
}

static int build_ranges(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n,
                        int me, morph__plan *plan)
{
  int varcount = d->kind == MORPH__DIST_VARCOUNT;
  int64_t *oo = range_offsets(d->global, varcount ? old_counts : NULL, old_n);
  int64_t *no = oo ? range_offsets(oo[old_n], NULL, new_n) : NULL;
  int err = no ? MORPH_OK : MORPH_ENOMEM;
  if (!err && me < old_n)
    err = intersect(oo[me], oo[me + 1], no, new_n, 1, &plan->send, &plan->nsend);
  if (!err && me < new_n) {
    err = intersect(no[me], no[me + 1], oo, old_n, 0, &plan->recv, &plan->nrecv);
    plan->new_count = no[me + 1] - no[me];
  }
  free(oo);
  free(no);
  return err;
}

/* Walks the blocks b = me, me + mine_n, ... of one side and, for each,
 * the other side's owner b mod other_n and local block b / other_n, kept
 * incrementally so that the walk has no division per block. */
typedef struct block_walk {
  int64_t b, k;        /* global block, its index among my blocks */
  int64_t peer, their; /* b mod other_n, b / other_n */
  int64_t dq, dr;      /* mine_n / other_n, mine_n % other_n */
  int mine_n, other_n;
} block_walk;

static void walk_init(block_walk *w, int me, int mine_n, int other_n)
{
  w->b = me;
  w->k = 0;
  w->peer = me % other_n;
  w->their = me / other_n;
  w->dq = mine_n / other_n;
  w->dr = mine_n % other_n;
  w->mine_n = mine_n;
  w->other_n = other_n;
}

static void walk_next(block_walk *w)
{
  w->b += w->mine_n;
  w->k++;
  w->their += w->dq;
  w->peer += w->dr;
  if (w->peer >= w->other_n) {
    w->peer -= w->other_n;
    w->their++;
  }
}

/* Number of blocks `me` owns among nblocks dealt round-robin to n ranks. */
static int64_t my_blocks(int64_t nblocks, int me, int n)
{
  return me < nblocks ? (nblocks - 1 - me) / n + 1 : 0;
}

/* One side (send or receive) of a block-cyclic plan, bucketed by peer
 * with a counting sort: within a peer, blocks come in increasing order,
 * which is increasing index on both ends. */
static int cyclic_side(const morph__dist *d, int me, int mine_n, int other_n, int sending,
                       morph__slice **out, size_t *nout)
{
  int64_t nblocks = d->global / d->block + (d->global % d->block != 0);
  int64_t nb = my_blocks(nblocks, me, mine_n);
  if (nb == 0)
    return MORPH_OK;
  size_t *start = calloc((size_t)other_n + 1, sizeof *start);
  *out = malloc((size_t)nb * sizeof **out);
  if (!start || !*out) {
    free(start);
    return MORPH_ENOMEM;
  }
  block_walk w;
  for (walk_init(&w, me, mine_n, other_n); w.k < nb; walk_next(&w))
    start[w.peer + 1]++;
  for (int q = 0; q < other_n; q++)
    start[q + 1] += start[q];
  for (walk_init(&w, me, mine_n, other_n); w.k < nb; walk_next(&w)) {
    int64_t len = d->global - w.b * d->block;
    int64_t mine = w.k * d->block, theirs = w.their * d->block;
    morph__slice s = {(int)w.peer, sending ? mine : theirs, sending ? theirs : mine,
                      len < d->block ? len : d->block};
    (*out)[start[w.peer]++] = s;
  }
  free(start);
  *nout = (size_t)nb;
  merge_slices(*out, nout);
  return MORPH_OK;
}

static int build_cyclic(const morph__dist *d, int old_n, int new_n, int me, morph__plan *plan)
{
  int err = MORPH_OK;
  if (me < old_n)
    err = cyclic_side(d, me, old_n, new_n, 1, &plan->send, &plan->nsend);
  if (!err && me < new_n) {
    err = cyclic_side(d, me, new_n, old_n, 0, &plan->recv, &plan->nrecv);
    plan->new_count = morph__dist_count(d, me, new_n);
  }
  return err;
}

int morph__plan_build(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n,
                      int me, morph__plan *plan)
{
  if (!plan)
    return MORPH_EINVAL;
  memset(plan, 0, sizeof *plan);
  int err = check_args(d, old_counts, old_n, new_n, me);
  if (err)
    return err;
  if (d->kind == MORPH__DIST_BLOCK_CYCLIC)
    err = build_cyclic(d, old_n, new_n, me, plan);
  else
    err = build_ranges(d, old_counts, old_n, new_n, me, plan);
  if (err)
    morph__plan_free(plan);
  return err;
}

void morph__plan_free(morph__plan *plan)
{
  if (!plan)
    return;
  free(plan->send);
  free(plan->recv);
  memset(plan, 0, sizeof *plan);
}
