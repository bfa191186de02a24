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
 *
 * Held parts (morph__plan_build_held) reuse the same per-part slices: a
 * holder's send list is its parts' lists shifted into its concatenation;
 * a receiver's list gets holders for peers and concatenation offsets for
 * source indices; a stable sort by peer then keeps part order within a
 * peer on both ends.
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

/* Both layouts of a plan: for BLOCK and VARCOUNT the old and new range
 * offsets, for BLOCK_CYCLIC the descriptor alone. */
typedef struct layouts {
  const morph__dist *d;
  int old_n, new_n;
  int64_t *oo, *no;
} layouts;

static int layouts_init(layouts *l, const morph__dist *d, const int64_t *old_counts, int old_n,
                        int new_n)
{
  *l = (layouts){d, old_n, new_n, NULL, NULL};
  if (d->kind == MORPH__DIST_BLOCK_CYCLIC)
    return MORPH_OK;
  int varcount = d->kind == MORPH__DIST_VARCOUNT;
  l->oo = range_offsets(d->global, varcount ? old_counts : NULL, old_n);
  l->no = l->oo ? range_offsets(l->oo[old_n], NULL, new_n) : NULL;
  return l->no ? MORPH_OK : MORPH_ENOMEM;
}

static void layouts_free(layouts *l)
{
  free(l->oo);
  free(l->no);
}

/* What old part p sends, with src_index in the part itself. */
static int part_send(const layouts *l, int p, morph__slice **out, size_t *n)
{
  if (l->d->kind == MORPH__DIST_BLOCK_CYCLIC)
    return cyclic_side(l->d, p, l->old_n, l->new_n, 1, out, n);
  return intersect(l->oo[p], l->oo[p + 1], l->no, l->new_n, 1, out, n);
}

/* What new part q receives; peers are old parts. */
static int part_recv(const layouts *l, int q, morph__slice **out, size_t *n)
{
  if (l->d->kind == MORPH__DIST_BLOCK_CYCLIC)
    return cyclic_side(l->d, q, l->new_n, l->old_n, 0, out, n);
  return intersect(l->no[q], l->no[q + 1], l->oo, l->old_n, 0, out, n);
}

static int64_t old_len(const layouts *l, int p)
{
  if (l->d->kind == MORPH__DIST_BLOCK_CYCLIC)
    return morph__dist_count(l->d, p, l->old_n);
  return l->oo[p + 1] - l->oo[p];
}

static int64_t new_len(const layouts *l, int q)
{
  if (l->d->kind == MORPH__DIST_BLOCK_CYCLIC)
    return morph__dist_count(l->d, q, l->new_n);
  return l->no[q + 1] - l->no[q];
}

int morph__plan_build(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n,
                      int me, morph__plan *plan)
{
  return morph__plan_build_held(d, old_counts, old_n, new_n, NULL, me, plan);
}

/* Orders slices by peer and keeps their order within a peer (a stable
 * counting sort: holders and owners are ranks, so few buckets). */
static int sort_by_peer(morph__slice *v, size_t n, int npeers)
{
  size_t *start = calloc((size_t)npeers + 1, sizeof *start);
  morph__slice *tmp = malloc((n ? n : 1) * sizeof *tmp);
  if (!start || !tmp) {
    free(start);
    free(tmp);
    return MORPH_ENOMEM;
  }
  for (size_t i = 0; i < n; i++)
    start[v[i].peer + 1]++;
  for (int q = 0; q < npeers; q++)
    start[q + 1] += start[q];
  for (size_t i = 0; i < n; i++)
    tmp[start[v[i].peer]++] = v[i];
  if (n > 0) /* v is NULL for an empty list */
    memcpy(v, tmp, n * sizeof *v);
  free(start);
  free(tmp);
  return MORPH_OK;
}

/* Appends part p's send slices to the list, shifted to start at `base` in
 * the holder's concatenation. */
static int append_part(const layouts *l, int p, int64_t base, morph__plan *plan)
{
  morph__slice *v = NULL;
  size_t n = 0;
  int err = part_send(l, p, &v, &n);
  morph__slice *all = err || !n ? NULL : realloc(plan->send, (plan->nsend + n) * sizeof *all);
  if (!err && n && !all)
    err = MORPH_ENOMEM;
  for (size_t i = 0; !err && i < n; i++) {
    v[i].src_index += base;
    all[plan->nsend + i] = v[i];
  }
  if (all) {
    plan->send = all;
    plan->nsend += n;
  }
  free(v);
  return err;
}

/* The send list of a holder: its parts in increasing p, then by peer. */
static int held_send(const layouts *l, const int *holder, int me, morph__plan *plan)
{
  int64_t base = 0;
  for (int p = 0; p < l->old_n; p++) {
    if (holder[p] != me)
      continue;
    int err = append_part(l, p, base, plan);
    if (err)
      return err;
    base += old_len(l, p);
  }
  int err = sort_by_peer(plan->send, plan->nsend, l->new_n);
  if (!err)
    merge_slices(plan->send, &plan->nsend);
  return err;
}

/* Where each old part starts in its holder's concatenation. */
static int64_t *held_offsets(const layouts *l, const int *holder, int nranks)
{
  int64_t *at = calloc((size_t)nranks, sizeof *at);
  int64_t *off = malloc((size_t)l->old_n * sizeof *off);
  if (at && off)
    for (int p = 0; p < l->old_n; p++) {
      off[p] = at[holder[p]];
      at[holder[p]] += old_len(l, p);
    }
  free(at);
  if (!at) {
    free(off);
    return NULL;
  }
  return off;
}

/* The receive list of new rank me, with old parts turned into holders. */
static int held_recv(const layouts *l, const int *holder, int nranks, int me, morph__plan *plan)
{
  int err = part_recv(l, me, &plan->recv, &plan->nrecv);
  plan->new_count = new_len(l, me);
  int64_t *off = err ? NULL : held_offsets(l, holder, nranks);
  if (!err && !off)
    err = MORPH_ENOMEM;
  for (size_t i = 0; !err && i < plan->nrecv; i++) {
    morph__slice *s = &plan->recv[i];
    s->src_index += off[s->peer];
    s->peer = holder[s->peer];
  }
  if (!err)
    err = sort_by_peer(plan->recv, plan->nrecv, nranks);
  if (!err)
    merge_slices(plan->recv, &plan->nrecv);
  free(off);
  return err;
}

/* Holders must be ranks; returns the number of ranks they span, or 0. */
static int holder_ranks(const int *holder, int old_n)
{
  int top = 0;
  for (int p = 0; p < old_n; p++) {
    if (holder[p] < 0)
      return 0;
    if (holder[p] >= top)
      top = holder[p] + 1;
  }
  return top;
}

/* Old part p on rank p: at most one part per rank, no reordering. */
static int build_own(const layouts *l, int me, morph__plan *plan)
{
  int err = MORPH_OK;
  if (me < l->old_n)
    err = part_send(l, me, &plan->send, &plan->nsend);
  if (!err && me < l->new_n) {
    err = part_recv(l, me, &plan->recv, &plan->nrecv);
    plan->new_count = new_len(l, me);
  }
  return err;
}

int morph__plan_build_held(const morph__dist *d, const int64_t *old_counts, int old_n,
                           int new_n, const int *holder, int me, morph__plan *plan)
{
  if (!plan)
    return MORPH_EINVAL;
  memset(plan, 0, sizeof *plan);
  int err = check_args(d, old_counts, old_n, new_n, me);
  int nranks = !err && holder ? holder_ranks(holder, old_n) : 0;
  if (!err && holder && nranks == 0)
    err = MORPH_EINVAL;
  layouts l = {0};
  if (!err)
    err = layouts_init(&l, d, old_counts, old_n, new_n);
  if (!err && !holder)
    err = build_own(&l, me, plan);
  if (!err && holder)
    err = held_send(&l, holder, me, plan);
  if (!err && holder && me < new_n)
    err = held_recv(&l, holder, nranks, me, plan);
  layouts_free(&l);
  if (err)
    morph__plan_free(plan);
  return err;
}

/* Owners must be distinct ranks in increasing order: then renaming the
 * peers of a send list keeps it sorted by peer. */
static int owners_ok(const int *owner, int new_n)
{
  for (int q = 0; q < new_n; q++)
    if (owner[q] < 0 || (q > 0 && owner[q] <= owner[q - 1]))
      return 0;
  return 1;
}

static int part_owned_by(const int *owner, int new_n, int me)
{
  for (int q = 0; q < new_n; q++)
    if (owner[q] == me)
      return q;
  return -1;
}

int morph__plan_build_owned(const morph__dist *d, const int64_t *old_counts, int old_n,
                            int new_n, const int *owner, int me, morph__plan *plan)
{
  if (!plan)
    return MORPH_EINVAL;
  memset(plan, 0, sizeof *plan);
  int err = check_args(d, old_counts, old_n, new_n, me);
  if (!err && (!owner || !owners_ok(owner, new_n)))
    err = MORPH_EINVAL;
  layouts l = {0};
  if (!err)
    err = layouts_init(&l, d, old_counts, old_n, new_n);
  if (!err && me < old_n)
    err = part_send(&l, me, &plan->send, &plan->nsend);
  for (size_t i = 0; !err && i < plan->nsend; i++)
    plan->send[i].peer = owner[plan->send[i].peer];
  int q = err ? -1 : part_owned_by(owner, new_n, me);
  if (q >= 0) {
    err = part_recv(&l, q, &plan->recv, &plan->nrecv);
    plan->new_count = new_len(&l, q);
  }
  layouts_free(&l);
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
