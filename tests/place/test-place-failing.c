/* Proactive moves: a node whose outage probability reaches the placement's
 * threshold is "failing" (morph_place_failing()); morphd and the simulator
 * mark it DRAINING in their snapshots, and the granularity policy with the
 * tofa placement then shrinks a malleable job off it, the master's node
 * kept. Runs in tests/place (data/torus44.topo, data/faults-node9: node 9
 * at 0.2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "place_harness.h"

static morph_place *tofa(const char *threshold)
{
  morph_place_param params[] = {{"topology", "data/torus44.topo"},
                                {"faults", "data/faults-node9"},
                                {"threshold", threshold}};
  morph_place *p;
  assert_int_equal(morph_place_create("tofa", params, threshold ? 3 : 2, &p), MORPH_OK);
  return p;
}

static void failing_at_or_above_threshold(void **state)
{
  (void)state;
  morph_place *low = tofa("0.1"), *high = tofa("0.3"), *none = tofa(NULL);
  assert_int_equal(morph_place_failing(low, 9), 1);
  assert_int_equal(morph_place_failing(low, 5), 0);
  assert_int_equal(morph_place_failing(high, 9), 0);
  assert_int_equal(morph_place_failing(none, 9), 0);
  morph_place *ff;
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &ff), MORPH_OK);
  assert_int_equal(morph_place_failing(ff, 9), 0);
  morph_place_destroy(low), morph_place_destroy(high), morph_place_destroy(none);
  morph_place_destroy(ff);
}

/* morphd's heartbeat estimates (morph_place_outage_set): they make a node
 * failing with a topology; a faults file pins the probabilities; a
 * strategy without probabilities or a topology says ENOSYS. */
static void outage_estimates_set_failing_unless_file(void **state)
{
  (void)state;
  morph_place_param est[] = {{"topology", "data/torus44.topo"}, {"threshold", "0.3"}};
  morph_place *p, *flat, *ff, *pinned = tofa("0.3");
  assert_int_equal(morph_place_create("tofa", est, 2, &p), MORPH_OK);
  assert_int_equal(morph_place_failing(p, 3), 0);
  assert_int_equal(morph_place_outage_set(p, 3, 0.35), MORPH_OK);
  assert_int_equal(morph_place_failing(p, 3), 1);
  assert_int_equal(morph_place_outage_set(p, 3, 0.0), MORPH_OK);
  assert_int_equal(morph_place_failing(p, 3), 0);
  assert_int_equal(morph_place_outage_set(p, 16, 0.5), MORPH_EINVAL);
  assert_int_equal(morph_place_outage_set(p, 3, 1.5), MORPH_EINVAL);
  assert_int_equal(morph_place_outage_set(pinned, 3, 0.9), MORPH_OK);
  assert_int_equal(morph_place_failing(pinned, 3), 0); /* the file says 0 */
  assert_int_equal(morph_place_create("tofa", &est[1], 1, &flat), MORPH_OK);
  assert_int_equal(morph_place_outage_set(flat, 3, 0.9), MORPH_ENOSYS);
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &ff), MORPH_OK);
  assert_int_equal(morph_place_outage_set(ff, 3, 0.9), MORPH_ENOSYS);
  assert_int_equal(morph_place_outage_set(NULL, 3, 0.9), MORPH_EINVAL);
  morph_place_destroy(p), morph_place_destroy(pinned), morph_place_destroy(flat);
  morph_place_destroy(ff);
}

static void job_shrinks_off_failing_node(void **state)
{
  (void)state;
  morph_place *p = tofa("0.1");
  test_snap *t = calloc(1, sizeof *t);
  assert_non_null(t);
  test_snap_parse(t, "nodes 16 1; run 1 malleable 3 1 1 3 @ 5,9,6");
  for (int i = 0; i < t->s.nnodes; i++) /* what morphd's and the simulator's snapshots do */
    if (morph_place_failing(p, i))
      t->s.nodes[i].state = MORPH_POLICY_NODE_DRAINING;
  morph_policy_params params;
  morph_policy_params_default(&params);
  morph_policy *pol;
  assert_int_equal(morph_policy_create("granularity", &params, &pol), MORPH_OK);
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  assert_int_equal(morph_policy_decide(pol, &t->s, &a), MORPH_OK);
  assert_int_equal(morph_place_actions(p, &t->s, &a), MORPH_OK);
  char why[256];
  assert_int_equal(morph_policy_actions_check(&t->s, &a, why, sizeof why), MORPH_OK);
  char text[256];
  test_actions_format(&a, 1, 0, text, sizeof text);
  print_message("actions: %s\n", text);
  assert_string_equal(text, "shrink 1 3->2 @9");
  morph_policy_actions_free(&a);
  morph_policy_destroy(pol);
  morph_place_destroy(p);
  free(t);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest all[] = {cmocka_unit_test(failing_at_or_above_threshold),
                                   cmocka_unit_test(outage_estimates_set_failing_unless_file),
                                   cmocka_unit_test(job_shrinks_off_failing_node)};
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(all, NULL, NULL);
}
