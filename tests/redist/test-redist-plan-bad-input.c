/* Plans refuse bad sizes with MORPH_EINVAL and leave nothing allocated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "morph/error.h"
#include "plan_sim.h"

static void expect_einval(const morph__dist *d, const int64_t *counts, int m, int n, int me)
{
  morph__plan plan;
  memset(&plan, 0xff, sizeof plan);
  assert_int_equal(morph__plan_build(d, counts, m, n, me, &plan), MORPH_EINVAL);
  assert_null(plan.send);
  assert_null(plan.recv);
  assert_int_equal(plan.nsend + plan.nrecv, 0);
}

static void test_bad_sizes(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_BLOCK, 10, 1};
  expect_einval(&d, NULL, 0, 2, 0);
  expect_einval(&d, NULL, 2, 0, 0);
  expect_einval(&d, NULL, 2, 2, -1);
  expect_einval(NULL, NULL, 2, 2, 0);
  d.global = -1;
  expect_einval(&d, NULL, 2, 2, 0);
  morph__dist bc = {MORPH__DIST_BLOCK_CYCLIC, 10, 0};
  expect_einval(&bc, NULL, 2, 3, 0);
  morph__dist bad_kind = {(enum morph__dist_kind)7, 10, 1};
  expect_einval(&bad_kind, NULL, 2, 3, 0);
  assert_int_equal(morph__plan_build(&d, NULL, 2, 2, 0, NULL), MORPH_EINVAL);
}

static void test_bad_counts(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_VARCOUNT, 0, 1};
  expect_einval(&d, NULL, 2, 2, 0);
  int64_t negative[] = {3, -1};
  expect_einval(&d, negative, 2, 2, 0);
  int64_t overflow[] = {INT64_MAX, 1};
  expect_einval(&d, overflow, 2, 2, 0);
}

static void test_bad_holder(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_BLOCK, 10, 1};
  int holder[] = {0, -1, 1};
  morph__plan plan;
  memset(&plan, 0xff, sizeof plan);
  assert_int_equal(morph__plan_build_held(&d, NULL, 3, 2, holder, 0, &plan), MORPH_EINVAL);
  assert_null(plan.send);
  assert_null(plan.recv);
  assert_int_equal(plan.nsend + plan.nrecv, 0);
}

static void test_free_twice(void **state)
{
  (void)state;
  morph__dist d = {MORPH__DIST_BLOCK, 10, 1};
  morph__plan plan;
  assert_int_equal(morph__plan_build(&d, NULL, 2, 3, 1, &plan), MORPH_OK);
  morph__plan_free(&plan);
  morph__plan_free(&plan);
  morph__plan_free(NULL);
}

int main(void)
{
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_bad_sizes),
                                     cmocka_unit_test(test_bad_counts),
                                     cmocka_unit_test(test_bad_holder),
                                     cmocka_unit_test(test_free_twice)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
