/* Choosing the leavers of a shrink (src/runtime/leavers.c), without MPI:
 * named hosts empty first, highest ranks of a host first, rank 0 never
 * leaves, what the names leave unsaid comes from the highest ranks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "morph/error.h"
#include "runtime/leavers.h"

/* "0011" -> leave[] as expected by the string. */
static void expect(const char *const *host_of, int n, int nleave, const char *hosts, int unmet,
                   const char *want)
{
  unsigned char leave[16];
  assert_int_equal(morph__leavers_choose(host_of, n, nleave, hosts, leave), unmet);
  for (int r = 0; r < n; r++)
    assert_int_equal(leave[r], want[r] == '1');
}

static void test_named_host_empties(void **state)
{
  (void)state;
  /* ranks 0,1 on node1; 2,3 on node2 (grown); 4,5 on node3 (grown). */
  const char *h[] = {"node1", "node1", "node2", "node2", "node3", "node3"};
  expect(h, 6, 2, "node2:2", 0, "001100");
  expect(h, 6, 2, "node2,node2", 0, "001100");
  expect(h, 6, 2, "node3:2", 0, "000011");
  expect(h, 6, 3, "node2:2,node3", 0, "001101");
  expect(h, 6, 4, "node2:2,node3:2", 0, "001111");
}

static void test_without_names_highest_ranks(void **state)
{
  (void)state;
  const char *h[] = {"a", "b", "a", "b", "a"};
  expect(h, 5, 2, "", 0, "00011");
  expect(h, 5, 2, NULL, 0, "00011");
  expect(h, 5, 0, "", 0, "00000");
}

static void test_rank0_never_leaves(void **state)
{
  (void)state;
  const char *h[] = {"node1", "node1", "node2"};
  /* Two named on node1 but only rank 1 may go: one is taken elsewhere. */
  expect(h, 3, 2, "node1:2", 1, "011");
}

static void test_unknown_host_falls_back(void **state)
{
  (void)state;
  const char *h[] = {"n1", "n1", "n2", "n2"};
  expect(h, 4, 1, "n9", 1, "0001");
  /* Fewer names than leavers: the rest are the highest ranks left. */
  expect(h, 4, 2, "n1", 0, "0101");
  /* Domain names match short ones. */
  expect(h, 4, 2, "n2.cluster:2", 0, "0011");
}

static void test_bad_input(void **state)
{
  (void)state;
  const char *h[] = {"n1", "n2"};
  unsigned char leave[2] = {9, 9};
  assert_int_equal(morph__leavers_choose(h, 2, 2, "", leave), MORPH_EINVAL);
  assert_int_equal(morph__leavers_choose(h, 2, -1, "", leave), MORPH_EINVAL);
  assert_int_equal(morph__leavers_choose(h, 2, 1, "n1,,n2", leave), MORPH_EINVAL);
  assert_int_equal(leave[0] + leave[1], 0);
}

/* "0100" -> hold[] as expected, from leave[] given the same way. */
static void expect_hold(const char *const *host_of, const char *const *job_of, int n,
                        const char *leaving, int held, const char *want)
{
  unsigned char leave[16], hold[16];
  for (int r = 0; r < n; r++)
    leave[r] = leaving[r] == '1';
  assert_int_equal(morph__leavers_hold(host_of, job_of, n, leave, hold), held);
  for (int r = 0; r < n; r++)
    assert_int_equal(hold[r], want[r] == '1');
}

/* Issue 23's schedule: 2 on node1 (job A), grown by 3 (job B: 2 on
 * node2, 1 on node3). Shrinking off node2:1 + node3:1 empties the pair
 * (B, node3) while B keeps a stayer on node2: node3's leaver holds. */
static void test_hold_last_of_a_job_on_a_host(void **state)
{
  (void)state;
  const char *h[] = {"node1", "node1", "node2", "node2", "node3"};
  const char *j[] = {"A", "A", "B", "B", "B"};
  expect_hold(h, j, 5, "00011", 1, "00001");
  /* node2 keeps a process of B: its leaver goes. */
  expect_hold(h, j, 5, "00010", 0, "00000");
  /* B leaves everywhere: nothing of it is a parent again, none holds. */
  expect_hold(h, j, 5, "00111", 0, "00000");
}

/* The original job across three hosts leaves node3 whole: one of the two
 * holds (the lowest rank), as the daemon needs only one. */
static void test_hold_one_per_pair(void **state)
{
  (void)state;
  const char *h[] = {"node1", "node1", "node2", "node2", "node3", "node3"};
  const char *j[] = {"A", "A", "A", "A", "A", "A"};
  expect_hold(h, j, 6, "000011", 1, "000010");
  expect_hold(h, j, 6, "001111", 2, "001010");
  /* No job known (not under an Open MPI daemon): nobody holds. */
  const char *none[] = {"", "", "", "", "", ""};
  expect_hold(h, none, 6, "000011", 0, "000000");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_named_host_empties),
      cmocka_unit_test(test_without_names_highest_ranks),
      cmocka_unit_test(test_rank0_never_leaves),
      cmocka_unit_test(test_hold_last_of_a_job_on_a_host),
      cmocka_unit_test(test_hold_one_per_pair),
      cmocka_unit_test(test_unknown_host_falls_back),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
