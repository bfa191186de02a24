/* Plans at scale, checked by their sums: BLOCK with 2^40 elements (index
 * arithmetic without overflow) and a block-cyclic plan of 2^22 blocks,
 * which must stay linear in the number of blocks (the test has a time
 * limit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "morph/error.h"
#include "plan_sim.h"

static void check_sums(const morph__dist *d, int m, int n)
{
  int np = m > n ? m : n;
  for (int me = 0; me < np; me++) {
    morph__plan plan;
    assert_int_equal(morph__plan_build(d, NULL, m, n, me, &plan), MORPH_OK);
    int64_t sent = 0, got = 0;
    for (size_t i = 0; i < plan.nsend; i++)
      sent += plan.send[i].count;
    for (size_t i = 0; i < plan.nrecv; i++)
      got += plan.recv[i].count;
    assert_int_equal(sent, morph__dist_count(d, me, m));
    assert_int_equal(got, morph__dist_count(d, me, n));
    assert_int_equal(plan.new_count, got);
    morph__plan_free(&plan);
  }
}

static void test_block_2_40(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_BLOCK, ((int64_t)1 << 40) + 3, 1};
  check_sums(&d, 7, 13);
  check_sums(&d, 13, 7);
}

static void test_block_cyclic_many_blocks(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_BLOCK_CYCLIC, ((int64_t)1 << 22) * 3 + 1, 3};
  /* Correctness only: the time it takes is the benchmarks' business (a
   * sanitized build on a loaded machine is 10 times slower). */
  check_sums(&d, 3, 5);
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_block_2_40),
                                     cmocka_unit_test(test_block_cyclic_many_blocks)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
