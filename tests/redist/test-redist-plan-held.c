/* Plans from old parts held away from their owners (morph__plan_build_held),
 * simulated in memory: for every M, N in 1..16, old part p on rank p mod N
 * (where the runtime's callbacks transport leaves it, as the DMRlib
 * front-end receives it), and on random holders, some holding nothing,
 * some beyond N. Block, block-cyclic and varcount. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "morph/error.h"
#include "plan_sim.h"

/* Every kind the front-end uses, on sizes no M or N divides, and empty. */
static void check_kinds(int m, int n, const int *holder, uint64_t *seed)
{
  const morph__dist dists[] = {
      {MORPH__DIST_BLOCK, 0, 1},          {MORPH__DIST_BLOCK, 5, 1},
      {MORPH__DIST_BLOCK, 101, 1},        {MORPH__DIST_BLOCK_CYCLIC, 37 * 5, 5},
      {MORPH__DIST_BLOCK_CYCLIC, 17, 3},  {MORPH__DIST_BLOCK_CYCLIC, 7, 1},
  };
  for (size_t k = 0; k < sizeof dists / sizeof *dists; k++)
    sim_check_held(&dists[k], NULL, m, n, holder);
  int64_t counts[16];
  sim_random_counts(counts, m, seed);
  morph__dist v = {MORPH__DIST_VARCOUNT, -1, 1};
  sim_check_held(&v, counts, m, n, holder);
}

static void test_round_robin(void **state)
{
  (void)state;
  uint64_t seed = 5;
  int holder[16];
  for (int m = 1; m <= 16; m++)
    for (int n = 1; n <= 16; n++) {
      for (int p = 0; p < m; p++)
        holder[p] = p % n;
      check_kinds(m, n, holder, &seed);
    }
}

static void test_random_holders(void **state)
{
  (void)state;
  uint64_t seed = 11;
  int holder[16];
  for (int m = 1; m <= 16; m++)
    for (int n = 1; n <= 16; n++)
      for (int trial = 0; trial < 3; trial++) {
        for (int p = 0; p < m; p++)
          holder[p] = (int)(sim_random(&seed) % 20);
        check_kinds(m, n, holder, &seed);
      }
}

/* Field by field: the struct has padding. */
static void same_slices(const morph__slice *a, const morph__slice *b, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(a[i].peer, b[i].peer);
    assert_int_equal(a[i].src_index, b[i].src_index);
    assert_int_equal(a[i].dst_index, b[i].dst_index);
    assert_int_equal(a[i].count, b[i].count);
  }
}

/* Holders that are the owners give exactly morph__plan_build's plan. */
static void test_identity(void **state)
{
  (void)state;
  int holder[16];
  for (int p = 0; p < 16; p++)
    holder[p] = p;
  morph__dist d = {MORPH__DIST_BLOCK_CYCLIC, 101, 3};
  for (int m = 1; m <= 16; m++)
    for (int n = 1; n <= 16; n++)
      for (int me = 0; me < 17; me++) {
        morph__plan a, b;
        assert_int_equal(morph__plan_build(&d, NULL, m, n, me, &a), MORPH_OK);
        assert_int_equal(morph__plan_build_held(&d, NULL, m, n, holder, me, &b), MORPH_OK);
        assert_int_equal(a.nsend, b.nsend);
        assert_int_equal(a.nrecv, b.nrecv);
        assert_int_equal(a.new_count, b.new_count);
        same_slices(a.send, b.send, a.nsend);
        same_slices(a.recv, b.recv, a.nrecv);
        morph__plan_free(&a);
        morph__plan_free(&b);
      }
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_round_robin),
                                     cmocka_unit_test(test_random_holders),
                                     cmocka_unit_test(test_identity)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
