/* BLOCK plans for every M, N in 1..16 and sizes not divisible, smaller
 * than the number of processes, or zero: simulated in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_sim.h"

static void test_all_sizes(void **state)
{
  (void)state;
  const int64_t sizes[] = {0, 1, 2, 3, 5, 7, 15, 16, 17, 31, 100, 257};
  for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
    for (int m = 1; m <= 16; m++)
      for (int n = 1; n <= 16; n++) {
        morph__dist d = {MORPH__DIST_BLOCK, sizes[s], 1};
        int64_t remote = sim_check(&d, NULL, m, n);
        /* Ranges meet at most once per pair: M + N - 1 slices in all. */
        assert_true(remote <= m + n - 1);
        if (m == n)
          assert_int_equal(remote, 0);
      }
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_all_sizes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
