/* VARCOUNT plans: old parts of random lengths (many of them zero) for every
 * M, N in 1..16, rebalanced to BLOCK: simulated in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>

#include <cmocka.h>

#include "plan_sim.h"

static void test_all_sizes(void **state)
{
  (void)state;
  uint64_t seed = 42;
  int64_t counts[16];
  for (int m = 1; m <= 16; m++)
    for (int n = 1; n <= 16; n++)
      for (int trial = 0; trial < 8; trial++) {
        sim_random_counts(counts, m, &seed);
        morph__dist d = {MORPH__DIST_VARCOUNT, -1, 1}; /* global unused */
        int64_t remote = sim_check(&d, counts, m, n);
        assert_true(remote <= m + n - 1);
      }
}

static void test_all_empty(void **state)
{
  (void)state;
  int64_t counts[16] = {0};
  for (int m = 1; m <= 16; m++)
    for (int n = 1; n <= 16; n++) {
      morph__dist d = {MORPH__DIST_VARCOUNT, 0, 1};
      assert_int_equal(sim_check(&d, counts, m, n), 0);
    }
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_all_sizes),
                                     cmocka_unit_test(test_all_empty)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
