/* Plans whose new parts go to ranks other than 0..N-1
 * (morph__plan_build_owned): a shrink whose leavers are not the highest
 * ranks. For every M in 2..12 and N < M, random increasing owner sets
 * (rank 0 always among them, as in the runtime), simulated in memory:
 * every element lands exactly once where the new layout says, each send
 * slice has its receive twin, and owners 0..N-1 give morph__plan_build's
 * plan. Block, block-cyclic and varcount; bad owners are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "morph/error.h"
#include "plan_sim.h"

/* Moves the global indices of every old part through the send lists into
 * the new parts, then checks them against the reference layout. */
static void simulate(const morph__dist *d, const int64_t *counts, int m, int n,
                     const int *owner, morph__plan *plans)
{
  morph__dist nd = *d;
  if (d->kind == MORPH__DIST_VARCOUNT) {
    int64_t total = 0;
    for (int p = 0; p < m; p++)
      total += counts[p];
    nd = (morph__dist){MORPH__DIST_BLOCK, total, 1};
  }
  int64_t *nw[16] = {0};
  for (int q = 0; q < n; q++) {
    int64_t len = sim_ref_count(&nd, NULL, q, n);
    assert_int_equal(plans[owner[q]].new_count, len);
    nw[q] = malloc((size_t)(len + 1) * sizeof **nw);
    for (int64_t i = 0; i < len; i++)
      nw[q][i] = -1;
  }
  for (int p = 0; p < m; p++)
    for (size_t k = 0; k < plans[p].nsend; k++) {
      const morph__slice *s = &plans[p].send[k];
      int q = 0;
      while (q < n && owner[q] != s->peer)
        q++;
      assert_true(q < n);
      for (int64_t i = 0; i < s->count; i++) {
        assert_int_equal(nw[q][s->dst_index + i], -1);
        nw[q][s->dst_index + i] = sim_ref_global(d, counts, p, m, s->src_index + i);
      }
    }
  for (int q = 0; q < n; q++) {
    for (int64_t i = 0; i < plans[owner[q]].new_count; i++)
      assert_int_equal(nw[q][i], sim_ref_global(&nd, NULL, q, n, i));
    free(nw[q]);
  }
}

/* Every send slice p -> o appears in o's receive list with peer p. */
static void check_twins(const morph__plan *plans, int m)
{
  for (int p = 0; p < m; p++)
    for (size_t k = 0; k < plans[p].nsend; k++) {
      const morph__slice *s = &plans[p].send[k];
      const morph__plan *o = &plans[s->peer];
      int found = 0;
      for (size_t j = 0; j < o->nrecv && !found; j++)
        found = o->recv[j].peer == p && o->recv[j].src_index == s->src_index &&
                o->recv[j].dst_index == s->dst_index && o->recv[j].count == s->count;
      assert_true(found);
      assert_true(k == 0 || plans[p].send[k - 1].peer <= s->peer);
    }
}

static void check_one(const morph__dist *d, const int64_t *counts, int m, int n,
                      const int *owner)
{
  morph__plan plans[16];
  for (int r = 0; r < m; r++)
    assert_int_equal(morph__plan_build_owned(d, counts, m, n, owner, r, &plans[r]), MORPH_OK);
  simulate(d, counts, m, n, owner, plans);
  check_twins(plans, m);
  for (int r = 0; r < m; r++)
    morph__plan_free(&plans[r]);
}

/* n increasing ranks of 0..m-1, rank 0 first. */
static void random_owners(int m, int n, int *owner, uint64_t *seed)
{
  int pick[16] = {1};
  for (int k = 1; k < n;) {
    int r = 1 + (int)(sim_random(seed) % (uint64_t)(m - 1));
    if (!pick[r])
      pick[r] = 1, k++;
  }
  for (int r = 0, q = 0; r < m; r++)
    if (pick[r])
      owner[q++] = r;
}

static void test_random_owners(void **state)
{
  (void)state;
  uint64_t seed = 7;
  const morph__dist dists[] = {
      {MORPH__DIST_BLOCK, 0, 1},         {MORPH__DIST_BLOCK, 101, 1},
      {MORPH__DIST_BLOCK_CYCLIC, 37, 5}, {MORPH__DIST_BLOCK_CYCLIC, 7, 1},
  };
  int64_t counts[16];
  int owner[16];
  for (int m = 2; m <= 12; m++)
    for (int n = 1; n < m; n++)
      for (int trial = 0; trial < 4; trial++) {
        random_owners(m, n, owner, &seed);
        for (size_t k = 0; k < sizeof dists / sizeof *dists; k++)
          check_one(&dists[k], NULL, m, n, owner);
        sim_random_counts(counts, m, &seed);
        morph__dist v = {MORPH__DIST_VARCOUNT, -1, 1};
        check_one(&v, counts, m, n, owner);
      }
}

/* Field by field: the struct has padding. */
static void same_list(const morph__slice *a, size_t na, const morph__slice *b, size_t nb)
{
  assert_int_equal(na, nb);
  for (size_t i = 0; i < na; i++) {
    assert_int_equal(a[i].peer, b[i].peer);
    assert_int_equal(a[i].src_index, b[i].src_index);
    assert_int_equal(a[i].dst_index, b[i].dst_index);
    assert_int_equal(a[i].count, b[i].count);
  }
}

static void test_identity_is_plan_build(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_BLOCK, 1000, 1};
  int owner[] = {0, 1, 2};
  for (int me = 0; me < 7; me++) {
    morph__plan a, b;
    assert_int_equal(morph__plan_build_owned(&d, NULL, 7, 3, owner, me, &a), MORPH_OK);
    assert_int_equal(morph__plan_build(&d, NULL, 7, 3, me, &b), MORPH_OK);
    same_list(a.send, a.nsend, b.send, b.nsend);
    same_list(a.recv, a.nrecv, b.recv, b.nrecv);
    assert_int_equal(a.new_count, b.new_count);
    morph__plan_free(&a);
    morph__plan_free(&b);
  }
}

static void test_bad_owners(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_BLOCK, 10, 1};
  morph__plan p;
  int unordered[] = {0, 3, 2}, repeated[] = {0, 2, 2}, negative[] = {-1, 1, 2};
  assert_int_equal(morph__plan_build_owned(&d, NULL, 5, 3, NULL, 0, &p), MORPH_EINVAL);
  assert_int_equal(morph__plan_build_owned(&d, NULL, 5, 3, unordered, 0, &p), MORPH_EINVAL);
  assert_int_equal(morph__plan_build_owned(&d, NULL, 5, 3, repeated, 0, &p), MORPH_EINVAL);
  assert_int_equal(morph__plan_build_owned(&d, NULL, 5, 3, negative, 0, &p), MORPH_EINVAL);
  assert_null(p.send);
  assert_null(p.recv);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_random_owners),
      cmocka_unit_test(test_identity_is_plan_build),
      cmocka_unit_test(test_bad_owners),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
