/* Index arithmetic: morph__dist_count / morph__dist_offset against naive
 * formulas for small sizes, and without overflow for G up to 2^40 with
 * any int number of processes. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_sim.h"

static void test_block_small(void **state)
{
  (void)state;
  for (int64_t g = 0; g <= 40; g++)
    for (int n = 1; n <= 16; n++) {
      morph__dist d = {MORPH__DIST_BLOCK, g, 1};
      int64_t sum = 0;
      for (int r = 0; r < n; r++) {
        assert_int_equal(morph__dist_offset(&d, r, n), r * g / n);
        assert_int_equal(morph__dist_count(&d, r, n), sim_ref_count(&d, NULL, r, n));
        sum += morph__dist_count(&d, r, n);
      }
      assert_int_equal(sum, g);
      assert_int_equal(morph__dist_offset(&d, n, n), g);
      assert_int_equal(morph__dist_count(&d, n, n), 0);
    }
}

static void test_block_cyclic_small(void **state)
{
  (void)state;
  const int64_t blocks[] = {1, 2, 3, 5, 8, 100};
  for (size_t bi = 0; bi < sizeof blocks / sizeof *blocks; bi++)
    for (int64_t g = 0; g <= 60; g++)
      for (int n = 1; n <= 16; n++) {
        morph__dist d = {MORPH__DIST_BLOCK_CYCLIC, g, blocks[bi]};
        int64_t sum = 0;
        for (int r = 0; r < n; r++) {
          int64_t c = morph__dist_count(&d, r, n);
          assert_int_equal(c, sim_ref_count(&d, NULL, r, n));
          assert_int_equal(morph__dist_offset(&d, r, n), c ? r * blocks[bi] : g);
          sum += c;
        }
        assert_int_equal(sum, g);
      }
}

/* G = 2^40 + 7 over up to INT_MAX processes: r * G overflows int64, so
 * compare with 128-bit arithmetic at ranks where errors would show. */
static void test_block_huge(void **state)
{
  (void)state;
  const int64_t g = ((int64_t)1 << 40) + 7;
  const int ns[] = {1, 3, 1000, 1 << 20, INT_MAX - 1, INT_MAX};
  for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
    int n = ns[i];
    morph__dist d = {MORPH__DIST_BLOCK, g, 1};
    const int ranks[] = {0, 1, n / 3, n / 2, n - 2, n - 1};
    for (size_t k = 0; k < sizeof ranks / sizeof *ranks; k++) {
      int r = ranks[k] < 0 ? 0 : ranks[k] >= n ? n - 1 : ranks[k];
      __int128 want = (__int128)r * g / n, next = (__int128)(r + 1) * g / n;
      assert_true(morph__dist_offset(&d, r, n) == (int64_t)want);
      assert_true(morph__dist_count(&d, r, n) == (int64_t)(next - want));
    }
    assert_int_equal(morph__dist_offset(&d, n - 1, n) + morph__dist_count(&d, n - 1, n), g);
  }
}

static void test_block_cyclic_huge(void **state)
{
  (void)state;
  const int64_t g = ((int64_t)1 << 40) + 5, b = 1 << 20;
  morph__dist d = {MORPH__DIST_BLOCK_CYCLIC, g, b};
  int64_t nblocks = g / b + 1, sum = 0;
  for (int r = 0; r < 7; r++)
    sum += morph__dist_count(&d, r, 7);
  assert_int_equal(sum, g);
  assert_int_equal(morph__dist_count(&d, (int)((nblocks - 1) % 7), 7) % b, 5);
  morph__dist big = {MORPH__DIST_BLOCK_CYCLIC, 10, INT64_MAX};
  assert_int_equal(morph__dist_count(&big, 0, 3), 10);
  assert_int_equal(morph__dist_count(&big, 1, 3), 0);
  assert_int_equal(morph__dist_offset(&big, 1, 3), 10);
}

static void test_bad_dist(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_BLOCK_CYCLIC, 10, 0};
  assert_int_equal(morph__dist_count(&d, 0, 2), 0);
  assert_int_equal(morph__dist_count(NULL, 0, 2), 0);
  d.block = 2;
  assert_int_equal(morph__dist_count(&d, 0, 0), 0);
  assert_int_equal(morph__dist_count(&d, -1, 2), 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_block_small),     cmocka_unit_test(test_block_cyclic_small),
      cmocka_unit_test(test_block_huge),      cmocka_unit_test(test_block_cyclic_huge),
      cmocka_unit_test(test_bad_dist),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
