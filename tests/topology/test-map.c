/*
 * Mapping strategies (morph/map.h) on small tori worked out by hand, the
 * paper's Listing 1.1 branches, remapping after a resize, and bad input:
 * matrices of the wrong size, machines too small, every node certain to
 * fail, Scotch refusing its strategy.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "morph/map.h"
#include "map_fixture.h"

/* A ring 0-1-...-(k-1)-0 with w bytes each way on every edge. */
static void ring(fixture *F, int k, uint64_t w)
{
  for (int i = 0; i < k; i++) {
    F->traffic[i * k + (i + 1) % k] += w;
    F->traffic[((i + 1) % k) * k + i] += w;
  }
}

static int hops(fixture *F, int u, int v) { return morph_topo_route(F->t, u, v, NULL, 0); }

static void all_distinct(fixture *F, int k)
{
  for (int i = 0; i < k; i++)
    for (int j = i + 1; j < k; j++)
      assert_int_not_equal(F->node[i], F->node[j]);
}

static void default_takes_first_free_nodes_in_order(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 1, 3);
  int avail[] = {9, 2, 5, 7};
  F->in.available = avail, F->in.navailable = 4;
  assert_int_equal(morph_map_compute(MORPH_MAP_DEFAULT, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->node[0], 2);
  assert_int_equal(F->node[1], 5);
  assert_int_equal(F->node[2], 7);
  assert_int_equal(F->rep.fallback, 0);
  drop(F);
}

static void random_is_seeded_and_distinct(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 4, 16);
  int first[16];
  assert_int_equal(morph_map_compute(MORPH_MAP_RANDOM, &F->in, F->node, &F->rep), MORPH_OK);
  all_distinct(F, 16);
  memcpy(first, F->node, sizeof first);
  assert_int_equal(morph_map_compute(MORPH_MAP_RANDOM, &F->in, F->node, &F->rep), MORPH_OK);
  assert_memory_equal(first, F->node, sizeof first);
  F->in.seed = 2;
  assert_int_equal(morph_map_compute(MORPH_MAP_RANDOM, &F->in, F->node, &F->rep), MORPH_OK);
  assert_true(memcmp(first, F->node, sizeof first) != 0);
  drop(F);
}

/* Listing 1.1, line 14: a ring of 4 ranks, no fault: the window is nodes
 * 0-3, the x ring of the 4x4x4 torus, where a cyclic order has every
 * neighbour one hop away: cost 4 edges x 2 ways x 1000 bytes x 1 hop. */
static void tofa_ring_in_first_window_costs_one_hop_per_edge(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 4, 4);
  ring(F, 4, 1000);
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.tofa_window, 1);
  assert_int_equal(F->rep.fallback, 0);
  all_distinct(F, 4);
  for (int r = 0; r < 4; r++) {
    assert_true(F->node[r] >= 0 && F->node[r] < 4);
    assert_int_equal(hops(F, F->node[r], F->node[(r + 1) % 4]), 1);
  }
  assert_true(F->rep.cost == 8000);
  drop(F);
}

/* Line 14 with faults: node 3 may fail, so the first window of 8
 * fault-free nodes starts at node 4 (rows y = 1 and 2 of the first
 * plane); a ring of 8 fits a 2 x 4 block with every edge one hop. */
static void tofa_window_skips_faulty_node(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 4, 8);
  ring(F, 8, 500);
  morph_faults_set(F->f, 3, 0.02);
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.tofa_window, 1);
  assert_int_equal(F->rep.on_faulty, 0);
  all_distinct(F, 8);
  for (int r = 0; r < 8; r++)
    assert_true(F->node[r] >= 4 && F->node[r] <= 11);
  morph_map_report d;
  int dn[8];
  assert_int_equal(morph_map_compute(MORPH_MAP_DEFAULT, &F->in, dn, &d), MORPH_OK);
  assert_int_equal(d.on_faulty, 1); /* Slurm's order runs a rank on node 3 */
  assert_true(F->rep.cost <= d.cost);
  assert_true(F->rep.cost == 8 * 2 * 500); /* Scotch finds the Hamiltonian ring */
  drop(F);
}

/* Line 12: every third node may fail, no 4 consecutive fault-free nodes
 * exist on the 4 x 4 torus; the ranks still avoid the faulty nodes. */
static void tofa_without_window_avoids_faulty_nodes(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 1, 4);
  ring(F, 4, 100);
  for (int v = 2; v < 16; v += 3)
    morph_faults_set(F->f, v, 0.05);
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.tofa_window, 0);
  assert_int_equal(F->rep.fallback, 0);
  assert_int_equal(F->rep.on_faulty, 0);
  all_distinct(F, 4);
  drop(F);
}

static void greedy_puts_heavy_pair_one_hop_apart_off_faulty_nodes(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 1, 3);
  F->traffic[0 * 3 + 2] = 1 << 20; /* 0 <-> 2 heavy, 1 light */
  F->traffic[1 * 3 + 0] = 10;
  morph_faults_set(F->f, 0, 0.1);
  morph_faults_set(F->f, 1, 0.1);
  assert_int_equal(morph_map_compute(MORPH_MAP_GREEDY, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(hops(F, F->node[0], F->node[2]), 1);
  assert_int_equal(F->rep.on_faulty, 0);
  all_distinct(F, 3);
  drop(F);
}

static void tofa_on_fat_tree_keeps_pairs_under_one_leaf(void **state)
{
  (void)state;
  fixture *F = make(1, 1, 1, 4);
  assert_int_equal(morph_topo_fattree(F->t, 4, 2), MORPH_OK);
  morph_faults_destroy(F->f);
  F->in.faults = NULL;
  F->f = NULL;
  F->traffic[0 * 4 + 3] = F->traffic[3 * 4 + 0] = 1000; /* pairs (0,3) and (1,2) */
  F->traffic[1 * 4 + 2] = F->traffic[2 * 4 + 1] = 1000;
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.fallback, 0);
  assert_int_equal(hops(F, F->node[0], F->node[3]), 2); /* same leaf */
  assert_int_equal(hops(F, F->node[1], F->node[2]), 2);
  drop(F);
}

static void remap_grow_keeps_staying_ranks(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 4, 6);
  ring(F, 6, 1000);
  int old[6] = {0, 1, 2, 3, -1, -1};
  assert_int_equal(morph_map_remap(&F->in, old, 100.0, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.moved, 0);
  for (int r = 0; r < 4; r++)
    assert_int_equal(F->node[r], old[r]);
  all_distinct(F, 6);
  for (int r = 4; r < 6; r++) /* the new ranks join next to the old ones */
    assert_true(hops(F, F->node[r], 0) <= 2 || hops(F, F->node[r], 3) <= 2);
  drop(F);
}

/* A staying rank on a node that may fail moves when fault-free nodes are
 * free: the building block of moving a job off a failing node. */
static void remap_moves_rank_off_failing_node(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 1, 4);
  ring(F, 4, 1000);
  int old[4] = {0, 1, 2, 3};
  morph_faults_set(F->f, 2, 0.3);
  assert_int_equal(morph_map_remap(&F->in, old, 100.0, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.on_faulty, 0);
  assert_true(F->rep.moved >= 1);
  assert_int_equal(F->node[0], 0);
  all_distinct(F, 4);
  drop(F);
}

static void touches_sees_routes_through_failed_nodes(void **state)
{
  (void)state;
  fixture *F = make(4, 1, 1, 2);
  F->traffic[0 * 2 + 1] = 1;
  int node[2] = {0, 2}; /* route 0>1>2 crosses node 1 */
  unsigned char failed[4] = {0, 1, 0, 0};
  assert_int_equal(morph_map_touches(&F->in, node, failed), 1);
  failed[1] = 0, failed[3] = 1;
  assert_int_equal(morph_map_touches(&F->in, node, failed), 0);
  failed[3] = 0, failed[2] = 1;
  assert_int_equal(morph_map_touches(&F->in, node, failed), 1);
  drop(F);
}

static void bad_input_clear_errors_and_fallbacks(void **state)
{
  (void)state;
  fixture *F = make(4, 4, 1, 4);
  ring(F, 4, 10);
  F->in.traffic_n = 5;
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_ESIZE);
  assert_non_null(strstr(F->rep.msg, "the communication matrix is 5 x 5 but the job has 4 ranks"));
  F->in.traffic_n = 4;
  F->in.nprocs = 20, F->in.traffic_n = 20;
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_ESIZE);
  assert_non_null(strstr(F->rep.msg, "20 ranks need 20 nodes: the torus topology has 16, 16 of them free"));
  F->in.nprocs = 4, F->in.traffic_n = 4;
  int twice[] = {1, 1, 2, 3};
  F->in.available = twice, F->in.navailable = 4;
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_EINVAL);
  assert_non_null(strstr(F->rep.msg, "node1 is listed twice"));
  F->in.available = NULL;
  for (int v = 0; v < 16; v++)
    morph_faults_set(F->f, v, 1.0);
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.fallback, 1);
  assert_non_null(strstr(F->rep.msg, "all 16 free nodes will fail"));
  for (int r = 0; r < 4; r++)
    assert_int_equal(F->node[r], r);
  for (int v = 0; v < 16; v++)
    morph_faults_set(F->f, v, 0);
  F->in.scotch_strategy = "xyz((";
  assert_int_equal(morph_map_compute(MORPH_MAP_TOFA, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.fallback, 1);
  assert_int_equal(F->rep.used, MORPH_MAP_DEFAULT);
  assert_non_null(strstr(F->rep.msg, "Scotch rejected the mapping strategy"));
  for (int r = 0; r < 4; r++)
    assert_int_equal(F->node[r], r);
  F->in.traffic = NULL;
  F->in.scotch_strategy = NULL;
  assert_int_equal(morph_map_compute(MORPH_MAP_GREEDY, &F->in, F->node, &F->rep), MORPH_OK);
  assert_int_equal(F->rep.fallback, 1);
  assert_non_null(strstr(F->rep.msg, "no communication matrix"));
  morph_map_strategy s;
  assert_int_equal(morph_map_strategy_parse("tofa", &s), MORPH_OK);
  assert_int_equal(s, MORPH_MAP_TOFA);
  assert_int_equal(morph_map_strategy_parse("best", &s), MORPH_EINVAL);
  drop(F);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(default_takes_first_free_nodes_in_order),
    cmocka_unit_test(random_is_seeded_and_distinct),
    cmocka_unit_test(tofa_ring_in_first_window_costs_one_hop_per_edge),
    cmocka_unit_test(tofa_window_skips_faulty_node),
    cmocka_unit_test(tofa_without_window_avoids_faulty_nodes),
    cmocka_unit_test(greedy_puts_heavy_pair_one_hop_apart_off_faulty_nodes),
    cmocka_unit_test(tofa_on_fat_tree_keeps_pairs_under_one_leaf),
    cmocka_unit_test(remap_grow_keeps_staying_ranks),
    cmocka_unit_test(remap_moves_rank_off_failing_node),
    cmocka_unit_test(touches_sees_routes_through_failed_nodes),
    cmocka_unit_test(bad_input_clear_errors_and_fallbacks),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
