#include "plan_sim.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "morph/error.h"

uint64_t sim_random(uint64_t *seed)
{
  *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
  return *seed >> 33;
}

void sim_random_counts(int64_t *counts, int m, uint64_t *seed)
{
  for (int p = 0; p < m; p++) {
    uint64_t r = sim_random(seed);
    counts[p] = r % 3 == 0 ? 0 : (int64_t)(r % 23);
  }
}

/* Total of a VARCOUNT layout; the new side is BLOCK of it. */
static int64_t ref_total(const morph__dist *d, const int64_t *counts, int n)
{
  if (d->kind != MORPH__DIST_VARCOUNT || !counts)
    return d->global;
  int64_t t = 0;
  for (int r = 0; r < n; r++)
    t += counts[r];
  return t;
}

int64_t sim_ref_count(const morph__dist *d, const int64_t *counts, int r, int n)
{
  if (d->kind == MORPH__DIST_VARCOUNT && counts)
    return counts[r];
  if (d->kind != MORPH__DIST_BLOCK_CYCLIC)
    return (r + 1) * d->global / n - r * d->global / n;
  int64_t c = 0;
  for (int64_t b = r; b * d->block < d->global; b += n)
    c += d->global - b * d->block < d->block ? d->global - b * d->block : d->block;
  return c;
}

int64_t sim_ref_global(const morph__dist *d, const int64_t *counts, int r, int n, int64_t i)
{
  if (d->kind == MORPH__DIST_VARCOUNT && counts) {
    int64_t off = 0;
    for (int p = 0; p < r; p++)
      off += counts[p];
    return off + i;
  }
  if (d->kind != MORPH__DIST_BLOCK_CYCLIC)
    return r * d->global / n + i;
  int64_t k = i / d->block;
  return (r + k * n) * d->block + i % d->block;
}

/* A list is sorted by peer, then by index in the sender's old buffer
 * (and, when every part is on its owner, also in the new part), and has no
 * empty or mergeable slice. */
static void check_list(const morph__slice *v, size_t n, int npeers, int own)
{
  for (size_t i = 0; i < n; i++) {
    assert_true(v[i].count > 0);
    assert_true(v[i].peer >= 0 && v[i].peer < npeers);
    if (i == 0)
      continue;
    const morph__slice *a = &v[i - 1], *b = &v[i];
    assert_true(a->peer <= b->peer);
    if (a->peer != b->peer)
      continue;
    assert_true(a->src_index + a->count <= b->src_index);
    assert_true(!own || a->dst_index + a->count <= b->dst_index);
    assert_false(a->src_index + a->count == b->src_index &&
                 a->dst_index + a->count == b->dst_index);
  }
}

/* The slices p sends to q are exactly the slices q receives from p. */
static void check_pair(const morph__plan *sp, const morph__plan *rp, int p, int q)
{
  size_t i = 0, j = 0;
  while (i < sp->nsend && sp->send[i].peer != q)
    i++;
  while (j < rp->nrecv && rp->recv[j].peer != p)
    j++;
  for (; i < sp->nsend && sp->send[i].peer == q; i++, j++) {
    assert_true(j < rp->nrecv && rp->recv[j].peer == p);
    assert_int_equal(sp->send[i].src_index, rp->recv[j].src_index);
    assert_int_equal(sp->send[i].dst_index, rp->recv[j].dst_index);
    assert_int_equal(sp->send[i].count, rp->recv[j].count);
  }
  assert_false(j < rp->nrecv && rp->recv[j].peer == p);
}

/* Moves the old buffers' global indices into the new parts through the
 * send lists, refusing any element written twice; returns remote slices. */
static int64_t apply_sends(const morph__plan *plans, int64_t **old, const int64_t *old_len,
                           int64_t **nw, const int64_t *new_len, int nranks)
{
  int64_t remote = 0;
  for (int r = 0; r < nranks; r++) {
    int64_t sum = 0;
    for (size_t k = 0; k < plans[r].nsend; k++) {
      const morph__slice *s = &plans[r].send[k];
      assert_true(s->src_index + s->count <= old_len[r]);
      assert_true(s->dst_index + s->count <= new_len[s->peer]);
      for (int64_t i = 0; i < s->count; i++) {
        assert_int_equal(nw[s->peer][s->dst_index + i], -1);
        nw[s->peer][s->dst_index + i] = old[r][s->src_index + i];
      }
      sum += s->count;
      remote += s->peer != r;
    }
    assert_int_equal(sum, old_len[r]);
  }
  return remote;
}

static int64_t **alloc_parts(int n, const int64_t *len)
{
  int64_t **v = calloc((size_t)n, sizeof *v);
  assert_non_null(v);
  for (int r = 0; r < n; r++) {
    v[r] = malloc((size_t)(len[r] ? len[r] : 1) * sizeof **v);
    assert_non_null(v[r]);
  }
  return v;
}

static void free_parts(int64_t **v, int n)
{
  for (int r = 0; r < n; r++)
    free(v[r]);
  free(v);
}

/* The rank that holds old part p. */
static int hold(const int *holder, int p) { return holder ? holder[p] : p; }

/* Ranks the simulation needs: every holder and new owner, plus one that
 * owns and holds nothing. */
static int sim_ranks(const int *holder, int old_n, int new_n)
{
  int top = new_n;
  for (int p = 0; p < old_n; p++)
    if (hold(holder, p) + 1 > top)
      top = hold(holder, p) + 1;
  return top + 1;
}

/* Builds the plans of every rank; the last one must be empty. */
static morph__plan *build_all(const morph__dist *d, const int64_t *counts, int old_n, int new_n,
                              const int *holder, int np)
{
  morph__plan *plans = calloc((size_t)np, sizeof *plans);
  assert_non_null(plans);
  for (int me = 0; me < np; me++)
    assert_int_equal(holder ? morph__plan_build_held(d, counts, old_n, new_n, holder, me, &plans[me])
                            : morph__plan_build(d, counts, old_n, new_n, me, &plans[me]),
                     MORPH_OK);
  assert_int_equal(plans[np - 1].nsend + plans[np - 1].nrecv, 0);
  assert_int_equal(plans[np - 1].new_count, 0);
  return plans;
}

/* Each rank's old buffer: the parts it holds, concatenated in part order,
 * filled with their elements' global indices. */
static int64_t **old_buffers(const morph__dist *d, const int64_t *counts, int old_n,
                             const int *holder, int np, int64_t *len)
{
  for (int p = 0; p < old_n; p++)
    len[hold(holder, p)] += sim_ref_count(d, counts, p, old_n);
  int64_t **old = alloc_parts(np, len), *at = calloc((size_t)np, sizeof *at);
  assert_non_null(at);
  for (int p = 0; p < old_n; p++) {
    int r = hold(holder, p);
    for (int64_t i = 0; i < sim_ref_count(d, counts, p, old_n); i++)
      old[r][at[r]++] = sim_ref_global(d, counts, p, old_n, i);
  }
  free(at);
  return old;
}

int64_t sim_check_held(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n,
                       const int *holder)
{
  int np = sim_ranks(holder, old_n, new_n);
  morph__plan *plans = build_all(d, old_counts, old_n, new_n, holder, np);
  morph__dist nd = *d;
  if (d->kind == MORPH__DIST_VARCOUNT)
    nd = (morph__dist){MORPH__DIST_BLOCK, ref_total(d, old_counts, old_n), 1};
  int64_t *old_len = calloc((size_t)np, sizeof *old_len);
  int64_t *new_len = calloc((size_t)np, sizeof *new_len);
  assert_true(old_len && new_len);
  for (int q = 0; q < new_n; q++) {
    new_len[q] = sim_ref_count(&nd, NULL, q, new_n);
    assert_int_equal(plans[q].new_count, new_len[q]);
    if (d->kind != MORPH__DIST_VARCOUNT)
      assert_int_equal(morph__dist_count(d, q, new_n), new_len[q]);
  }
  int64_t **old = old_buffers(d, old_counts, old_n, holder, np, old_len);
  int64_t **nw = alloc_parts(new_n, new_len);
  for (int q = 0; q < new_n; q++)
    for (int64_t i = 0; i < new_len[q]; i++)
      nw[q][i] = -1;
  int64_t remote = apply_sends(plans, old, old_len, nw, new_len, np);
  for (int q = 0; q < new_n; q++) {
    int64_t sum = 0;
    for (size_t k = 0; k < plans[q].nrecv; k++)
      sum += plans[q].recv[k].count;
    assert_int_equal(sum, new_len[q]);
    for (int64_t i = 0; i < new_len[q]; i++)
      assert_int_equal(nw[q][i], sim_ref_global(&nd, NULL, q, new_n, i));
  }
  for (int r = 0; r < np; r++) {
    check_list(plans[r].send, plans[r].nsend, new_n, !holder);
    check_list(plans[r].recv, plans[r].nrecv, np, !holder);
  }
  for (int p = 0; p < np; p++)
    for (int q = 0; q < new_n; q++)
      check_pair(&plans[p], &plans[q], p, q);
  for (int r = 0; r < np; r++)
    morph__plan_free(&plans[r]);
  free(plans);
  free_parts(old, np);
  free_parts(nw, new_n);
  free(old_len);
  free(new_len);
  return remote;
}

int64_t sim_check(const morph__dist *d, const int64_t *old_counts, int old_n, int new_n)
{
  return sim_check_held(d, old_counts, old_n, new_n, NULL);
}
