/* BLOCK_CYCLIC plans for every M, N in 1..16, several block sizes, short
 * last blocks and fewer blocks than processes: simulated in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_sim.h"

static void test_all_sizes(void **state)
{
  (void)state;
  const int64_t blocks[] = {1, 2, 3, 5, 8};
  const int64_t sizes[] = {0, 1, 4, 7, 16, 17, 50, 101};
  for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
      for (int m = 1; m <= 16; m++)
        for (int n = 1; n <= 16; n++) {
          morph__dist d = {MORPH__DIST_BLOCK_CYCLIC, sizes[s], blocks[b]};
          int64_t remote = sim_check(&d, NULL, m, n);
          if (m == n)
            assert_int_equal(remote, 0);
        }
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_all_sizes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
