/* The job's communication matrix in the placement stage (morph submit
 * --matrix; morph_policy_job.traffic): on a 4x4 torus (data/torus44.topo,
 * node i at x = i % 4, y = i / 4), a job of 4 whose ranks 0 and 2, and 1
 * and 3, talk. Without the matrix (every pair alike) tofa puts the ranks
 * in order on the ring 4..7, so 0 and 2 are two links apart; with it, each
 * talking pair is one link apart (tofa and greedy). Run in tests/place (the data files). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "morph/topology.h"
#include "place_harness.h"

/* Places the one action `action` on snapshot `snap` with `strategy` on
 * the 4x4 torus, the first pending job (pending) or running one having the
 * n x n matrix `traffic` (NULL: none); node[] gets the nodes of the
 * action's `count` pieces, each checked to have `slots` slots. */
static void place_one(const char *strategy, const char *snap, int pending, const char *action,
                      const uint64_t *traffic, int n, int count, int slots, int *node)
{
  test_snap t;
  test_snap_parse(&t, snap);
  morph_policy_job *job = pending ? &t.pending[0] : &t.running[0];
  job->traffic = traffic;
  job->traffic_n = traffic ? n : 0;
  morph_place_param p = {"topology", "data/torus44.topo"};
  morph_place *pl;
  assert_int_equal(morph_place_create(strategy, &p, 1, &pl), MORPH_OK);
  morph_policy_actions a;
  memset(&a, 0, sizeof a);
  place_actions_parse(&t, action, &a);
  assert_int_equal(morph_place_actions(pl, &t.s, &a), MORPH_OK);
  assert_int_equal(a.v[0].alloc_count, count);
  for (int r = 0; r < count; r++) {
    assert_int_equal(a.allocs[a.v[0].alloc_first + r].slots, slots);
    node[r] = a.allocs[a.v[0].alloc_first + r].node;
  }
  morph_policy_actions_free(&a);
  morph_place_destroy(pl);
}

/* rank -> node of the START of a 4-process job, placed by `strategy`. */
static void place4(const char *strategy, const uint64_t *traffic, int node[4])
{
  place_one(strategy, "nodes 16 1; run 1 rigid 1 @ 1; pend 2 rigid 4", 1, "start 2 4", traffic, 4,
            4, 1, node);
}

static int hops(int u, int v)
{
  morph_topo *t;
  assert_int_equal(morph_topo_create(&t), MORPH_OK);
  assert_int_equal(morph_topo_load(t, "data/torus44.topo"), MORPH_OK);
  morph_link l[16];
  int n = morph_topo_route(t, u, v, l, 16);
  morph_topo_destroy(t);
  return n;
}

/* With the matrix each talking pair is one link apart; without it, for
 * tofa, ranks 0 and 2 are `uniform_hops` apart (0: not checked). */
static void check(const char *strategy, int uniform_hops)
{
  static const uint64_t pairs[16] = {0, 0, 900, 0, /* 0 <-> 2, 1 <-> 3 */
                                     0, 0, 0, 900, 900, 0, 0, 0, 0, 900, 0, 0};
  int uniform[4], known[4];
  place4(strategy, NULL, uniform);
  place4(strategy, pairs, known);
  if (uniform_hops)
    assert_int_equal(hops(uniform[0], uniform[2]), uniform_hops);
  assert_int_equal(hops(known[0], known[2]), 1);
  assert_int_equal(hops(known[1], known[3]), 1);
}

static void tofa_matrix_puts_talking_ranks_side_by_side(void **state)
{
  (void)state;
  check("tofa", 2);
}

static void greedy_matrix_puts_talking_ranks_side_by_side(void **state)
{
  (void)state;
  check("greedy", 0); /* greedy alternates sides even without it */
}

/* Nodes of the two new pieces of a grow 4 -> 8 in slot units (2 slots per
 * node) of a job running 0,1 on node 5 and 2,3 on node 6, placed by
 * `strategy` with the 8-process matrix `traffic` (NULL: none). */
static void grow8(const char *strategy, const uint64_t *traffic, int node[2])
{
  place_one(strategy, "unit slot; nodes 16 2; run 1 malleable 4 2 8 8 @ 5:2,6:2", 0,
            "expand 1 4->8", traffic, 8, 2, 2, node);
}

/* The grow remaps with the job's matrix folded onto nodes (src/place/
 * fold.h), not uniform traffic: the new processes 4,5 (first new node)
 * talk to 2,3 on node 6 and 6,7 (second new node) to 0,1 on node 5, so
 * the first new node lands next to node 6 and the second next to node 5.
 * Every pair alike (no matrix, or before the fold: 8 processes are not 4
 * nodes), tofa puts the first next to node 5: the other way round. */
static void tofa_grow_remaps_with_the_folded_matrix(void **state)
{
  (void)state;
  static uint64_t m[64];
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) {
      m[(4 + i) * 8 + 2 + j] = m[(2 + j) * 8 + 4 + i] = 1000; /* 4,5 <-> 2,3 */
      m[(6 + i) * 8 + j] = m[j * 8 + 6 + i] = 1000;           /* 6,7 <-> 0,1 */
    }
  m[0 * 8 + 1] = m[2 * 8 + 3] = 10; /* a little inside the old nodes */
  int uniform[2], known[2];
  grow8("tofa", NULL, uniform);
  grow8("tofa", m, known);
  print_message("uniform: %d %d, with the matrix: %d %d\n", uniform[0], uniform[1], known[0],
                known[1]);
  assert_int_equal(hops(uniform[0], 5), 1);
  assert_int_equal(hops(known[0], 6), 1);
  assert_int_equal(hops(known[1], 5), 1);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(tofa_matrix_puts_talking_ranks_side_by_side),
    cmocka_unit_test(greedy_matrix_puts_talking_ranks_side_by_side),
    cmocka_unit_test(tofa_grow_remaps_with_the_folded_matrix),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
