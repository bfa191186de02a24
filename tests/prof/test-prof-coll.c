/*
 * The collective schedules of libmorph-prof (src/prof/coll.c), without
 * MPI: the messages each rank sends, listed by hand for small sizes, and
 * the totals every correct schedule of the assumed algorithm has.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "prof/coll.h"

#define MAXP 16

typedef struct sched {
  int p;
  uint64_t bytes[MAXP][MAXP];
  int msgs[MAXP][MAXP];
  int from; /* the rank whose messages are being recorded */
} sched;

static void rec(void *arg, int peer, uint64_t bytes)
{
  sched *s = arg;
  assert_true(peer >= 0 && peer < s->p);
  assert_int_not_equal(peer, s->from);
  s->bytes[s->from][peer] += bytes;
  s->msgs[s->from][peer]++;
}

static int total_msgs(const sched *s)
{
  int n = 0;
  for (int i = 0; i < s->p; i++)
    for (int j = 0; j < s->p; j++)
      n += s->msgs[i][j];
  return n;
}

static void bcast_binomial_p6_root2(void **state)
{
  (void)state;
  sched s = {.p = 6};
  for (s.from = 0; s.from < 6; s.from++)
    morph__coll_bcast(6, s.from, 2, 10, rec, &s);
  /* Relative ranks 0..5 are ranks 2,3,4,5,0,1: 0->4,2,1; 2->3; 4->5. */
  assert_int_equal(s.msgs[2][0], 1); /* v0 -> v4 */
  assert_int_equal(s.msgs[2][4], 1); /* v0 -> v2 */
  assert_int_equal(s.msgs[2][3], 1); /* v0 -> v1 */
  assert_int_equal(s.msgs[4][5], 1); /* v2 -> v3 */
  assert_int_equal(s.msgs[0][1], 1); /* v4 -> v5 */
  assert_int_equal(total_msgs(&s), 5);
  assert_int_equal(s.bytes[2][0], 10);
}

static void reduce_binomial_p5_root0(void **state)
{
  (void)state;
  sched s = {.p = 5};
  for (s.from = 0; s.from < 5; s.from++)
    morph__coll_reduce(5, s.from, 0, 8, rec, &s);
  assert_int_equal(s.msgs[1][0], 1);
  assert_int_equal(s.msgs[2][0], 1);
  assert_int_equal(s.msgs[3][2], 1);
  assert_int_equal(s.msgs[4][0], 1);
  assert_int_equal(total_msgs(&s), 4);
}

static void allreduce_recursive_doubling_p8(void **state)
{
  (void)state;
  sched s = {.p = 8};
  for (s.from = 0; s.from < 8; s.from++)
    morph__coll_allreduce(8, s.from, 4, rec, &s);
  assert_int_equal(total_msgs(&s), 8 * 3);
  for (int r = 0; r < 8; r++)
    for (int m = 1; m < 8; m <<= 1)
      assert_int_equal(s.msgs[r][r ^ m], 1);
}

static void allreduce_non_power_of_two_p5(void **state)
{
  (void)state;
  sched s = {.p = 5};
  for (s.from = 0; s.from < 5; s.from++)
    morph__coll_allreduce(5, s.from, 4, rec, &s);
  /* pof2 4, rem 1: 0 hands to 1; ranks 1,2,3,4 are new ranks 0..3
   * exchanging at distances 1 and 2; 1 sends the result back to 0. */
  assert_int_equal(s.msgs[0][1], 1);
  assert_int_equal(s.msgs[1][0], 1);
  assert_int_equal(s.msgs[1][2], 1);
  assert_int_equal(s.msgs[2][1], 1);
  assert_int_equal(s.msgs[3][4], 1);
  assert_int_equal(s.msgs[4][3], 1);
  assert_int_equal(s.msgs[1][3], 1);
  assert_int_equal(s.msgs[3][1], 1);
  assert_int_equal(s.msgs[2][4], 1);
  assert_int_equal(s.msgs[4][2], 1);
  assert_int_equal(total_msgs(&s), 10);
}

static void allgather_ring_forwards_all_but_own(void **state)
{
  (void)state;
  sched s = {.p = 4};
  uint64_t block[4] = {1, 2, 3, 4};
  for (s.from = 0; s.from < 4; s.from++)
    morph__coll_allgather(4, s.from, block, rec, &s);
  for (int r = 0; r < 4; r++) {
    int next = (r + 1) % 4;
    assert_int_equal(s.msgs[r][next], 3);
    assert_int_equal(s.bytes[r][next], 10 - block[next]);
  }
  assert_int_equal(total_msgs(&s), 12);
}

static void barrier_dissemination_p5(void **state)
{
  (void)state;
  sched s = {.p = 5};
  for (s.from = 0; s.from < 5; s.from++)
    morph__coll_barrier(5, s.from, rec, &s);
  for (int r = 0; r < 5; r++) {
    assert_int_equal(s.msgs[r][(r + 1) % 5], 1);
    assert_int_equal(s.msgs[r][(r + 2) % 5], 1);
    assert_int_equal(s.msgs[r][(r + 4) % 5], 1);
  }
  assert_int_equal(total_msgs(&s), 15);
}

static void scan_partners_exist_only(void **state)
{
  (void)state;
  sched s = {.p = 5};
  for (s.from = 0; s.from < 5; s.from++)
    morph__coll_scan(5, s.from, 8, rec, &s);
  assert_int_equal(s.msgs[4][0], 1); /* 4 xor 4; 4 xor 1 and 4 xor 2 do not exist */
  assert_int_equal(s.msgs[3][2], 1);
  assert_int_equal(s.msgs[3][1], 1);
  assert_int_equal(s.msgs[0][4], 1);
  assert_int_equal(total_msgs(&s), 3 + 2 + 2 + 2 + 1);
}

static void pairwise_skips_self_and_empty(void **state)
{
  (void)state;
  sched s = {.p = 3};
  uint64_t to[3] = {5, 0, 7};
  s.from = 1;
  morph__coll_pairwise(3, 1, to, rec, &s);
  assert_int_equal(s.bytes[1][0], 5);
  assert_int_equal(s.bytes[1][2], 7);
  assert_int_equal(total_msgs(&s), 2);
  s.from = 0;
  morph__coll_pairwise(3, 0, to, rec, &s); /* 0 -> 1 is empty */
  assert_int_equal(total_msgs(&s), 3);
}

static void gather_scatter_linear(void **state)
{
  (void)state;
  sched s = {.p = 4};
  uint64_t blk[4] = {1, 2, 3, 4};
  for (s.from = 0; s.from < 4; s.from++) {
    morph__coll_gather(4, s.from, 3, 6, rec, &s);
    morph__coll_scatter(4, s.from, 0, blk, rec, &s);
  }
  for (int r = 1; r < 3; r++)
    assert_int_equal(s.bytes[r][3], 6);
  assert_int_equal(s.bytes[0][1], 2);
  assert_int_equal(s.bytes[0][3], 6 + 4); /* gathered to 3, and scattered to it */
  assert_int_equal(total_msgs(&s), 6);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(bcast_binomial_p6_root2),
    cmocka_unit_test(reduce_binomial_p5_root0),
    cmocka_unit_test(allreduce_recursive_doubling_p8),
    cmocka_unit_test(allreduce_non_power_of_two_p5),
    cmocka_unit_test(allgather_ring_forwards_all_but_own),
    cmocka_unit_test(barrier_dissemination_p5),
    cmocka_unit_test(scan_partners_exist_only),
    cmocka_unit_test(pairwise_skips_self_and_empty),
    cmocka_unit_test(gather_scatter_linear),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
