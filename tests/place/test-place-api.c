/* The placement object's API: creation by name and parameters, the names
 * table, and morph_place_actions()'s handling of bad arguments, bad
 * snapshots, stale pieces and reuse after an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "place_harness.h"

static void create_unknown_name_lists_known(void **state)
{
  (void)state;
  static const char *bad[] = {"nope", "", "FIRSTFIT", "firstfit "};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    morph_place *p = (morph_place *)1;
    char msg[256];
    assert_int_equal(morph_place_create(bad[i], NULL, 0, &p), MORPH_EINVAL);
    assert_null(p);
    assert_int_equal(morph_place_create_error(bad[i], NULL, 0, msg, sizeof(msg)), MORPH_EINVAL);
    assert_non_null(strstr(msg, "unknown placement"));
    assert_non_null(strstr(msg, "known: firstfit"));
  }
  assert_int_equal(morph_place_create(NULL, NULL, 0, NULL), MORPH_EINVAL);
  morph_place *p;
  assert_int_equal(morph_place_create(NULL, NULL, 0, &p), MORPH_EINVAL);
  assert_int_equal(morph_place_create_error("firstfit", NULL, 0, NULL, 0), MORPH_OK);
}

static void create_firstfit_takes_no_parameters(void **state)
{
  (void)state;
  morph_place_param kv = {"seed", "1"};
  morph_place *p = (morph_place *)1;
  char msg[256];
  assert_int_equal(morph_place_create("firstfit", &kv, 1, &p), MORPH_EINVAL);
  assert_null(p);
  assert_int_equal(morph_place_create_error("firstfit", &kv, 1, msg, sizeof(msg)), MORPH_EINVAL);
  assert_non_null(strstr(msg, "takes no parameters (got 'seed')"));
  assert_int_equal(morph_place_create("firstfit", NULL, 1, &p), MORPH_EINVAL);
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &p), MORPH_OK);
  assert_string_equal(morph_place_name(p), "firstfit");
  assert_string_equal(morph_place_errmsg(p), "");
  morph_place_destroy(p);
  morph_place_destroy(NULL);
}

static void names_table(void **state)
{
  (void)state;
  char names[256], small[4];
  size_t full = morph_place_names(names, sizeof(names));
  assert_int_equal(full, strlen(names));
  assert_non_null(strstr(names, "firstfit"));
  assert_int_equal(morph_place_names(small, sizeof(small)), full);
  assert_int_equal(strlen(small), 3);
  assert_int_equal(morph_place_names(NULL, 0), full);
  assert_true(morph_place_count() >= 1);
  for (int i = 0; i < morph_place_count(); i++) {
    assert_non_null(morph_place_table_name(i));
    assert_non_null(morph_place_table_description(i));
  }
  assert_string_equal(morph_place_table_name(0), "firstfit");
  assert_null(morph_place_table_name(morph_place_count()));
  assert_null(morph_place_table_description(-1));
}

static void place_null_arguments(void **state)
{
  (void)state;
  morph_place *p;
  morph_policy_actions a;
  morph_policy_snapshot s = {0};
  morph_policy_actions_init(&a);
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &p), MORPH_OK);
  assert_int_equal(morph_place_actions(NULL, &s, &a), MORPH_EINVAL);
  assert_int_equal(morph_place_actions(p, NULL, &a), MORPH_EINVAL);
  assert_non_null(strstr(morph_place_errmsg(p), "NULL"));
  assert_int_equal(morph_place_actions(p, &s, NULL), MORPH_EINVAL);
  assert_int_equal(morph_place_actions(p, &s, &a), MORPH_OK); /* empty cluster, no action */
  assert_string_equal(morph_place_name(NULL), "");
  assert_string_equal(morph_place_errmsg(NULL), "");
  morph_place_destroy(p);
}

/* Decides and places on t with `policy`; the referee must agree. */
static void decide_and_place(const test_snap *t, const char *policy, morph_place *p,
                             morph_policy_actions *a)
{
  morph_policy *pol;
  char msg[256];
  assert_int_equal(morph_policy_create(policy, NULL, &pol), MORPH_OK);
  assert_int_equal(morph_policy_decide(pol, &t->s, a), MORPH_OK);
  for (int i = 0; i < a->n; i++)
    assert_int_equal(a->v[i].alloc_count, 0); /* the policy only counts */
  assert_int_equal(morph_place_actions(p, &t->s, a), MORPH_OK);
  if (morph_policy_actions_check(&t->s, a, msg, sizeof(msg)) != MORPH_OK)
    fail_msg("referee: %s", msg);
  morph_policy_destroy(pol);
}

static void place_rejects_inconsistent_snapshot(void **state)
{
  (void)state;
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, "nodes 2 1; pend 2 rigid 1");
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  place_actions_parse(t, "start 2 1", &a);
  t->nodes[0].used = 3;
  morph_place *p;
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &p), MORPH_OK);
  assert_int_equal(morph_place_actions(p, &t->s, &a), MORPH_EINVAL);
  assert_non_null(strstr(morph_place_errmsg(p), "used"));
  assert_int_equal(a.n, 1);
  assert_int_equal(a.v[0].alloc_count, 0);
  t->nodes[0].used = 0;
  t->s.unit = (morph_policy_unit)5;
  assert_int_equal(morph_place_actions(p, &t->s, &a), MORPH_EINVAL);
  assert_non_null(strstr(morph_place_errmsg(p), "unit"));
  /* Usable again once the snapshot is right. */
  t->s.unit = MORPH_POLICY_UNIT_NODE;
  assert_int_equal(morph_place_actions(p, &t->s, &a), MORPH_OK);
  assert_string_equal(morph_place_errmsg(p), "");
  assert_int_equal(a.v[0].alloc_count, 1);
  morph_place_destroy(p);
  morph_policy_actions_free(&a);
  free(t);
}

static void place_checks_resized_allocation(void **state)
{
  (void)state;
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, "nodes 4 1; run 1 malleable 2 1 1 4 @ 0,1");
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  place_actions_parse(t, "expand 1 2->3", &a);
  morph_place *p;
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &p), MORPH_OK);
  t->allocs[0][1].node = 9;
  assert_int_equal(morph_place_actions(p, &t->s, &a), MORPH_EINVAL);
  assert_non_null(strstr(morph_place_errmsg(p), "piece 1"));
  t->allocs[0][1].node = 1;
  t->running[0].size = 3;
  place_actions_parse(t, "expand 1 3->4", &a);
  assert_int_equal(morph_place_actions(p, &t->s, &a), MORPH_EINVAL);
  assert_non_null(strstr(morph_place_errmsg(p), "holds 2 units, not its size 3"));
  morph_place_destroy(p);
  morph_policy_actions_free(&a);
  free(t);
}

static void place_replaces_stale_pieces(void **state)
{
  (void)state;
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, "nodes 4 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; pend 2 rigid 3");
  morph_place *p;
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &p), MORPH_OK);
  decide_and_place(t, "dmr", p, &a);
  char first[512], again[512];
  test_actions_format(&a, 1, 0, first, sizeof(first));
  assert_string_equal(first, "shrink 1 4->1 @3,2,1; start 2 3 dep=0 @3,2,1");
  assert_int_equal(morph_place_actions(p, &t->s, &a), MORPH_OK); /* pieces present: redone */
  test_actions_format(&a, 1, 0, again, sizeof(again));
  assert_string_equal(again, first);
  assert_int_equal(a.nallocs, 6);
  morph_place_destroy(p);
  morph_policy_actions_free(&a);
  free(t);
}

static void place_error_leaves_no_pieces(void **state)
{
  (void)state;
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, "nodes 3 1; pend 2 rigid 1; pend 3 rigid 3");
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  place_actions_parse(t, "start 2 1; start 3 3", &a);
  morph_place *p;
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &p), MORPH_OK);
  assert_int_equal(morph_place_actions(p, &t->s, &a), MORPH_EBUSY);
  assert_non_null(strstr(morph_place_errmsg(p), "action 1"));
  assert_int_equal(a.n, 2);
  assert_int_equal(a.nallocs, 0);
  assert_int_equal(a.v[0].alloc_count, 0);
  assert_int_equal(a.v[1].to, 3);
  morph_place_destroy(p);
  morph_policy_actions_free(&a);
  free(t);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_unknown_name_lists_known),
      cmocka_unit_test(create_firstfit_takes_no_parameters),
      cmocka_unit_test(names_table),
      cmocka_unit_test(place_null_arguments),
      cmocka_unit_test(place_rejects_inconsistent_snapshot),
      cmocka_unit_test(place_checks_resized_allocation),
      cmocka_unit_test(place_replaces_stale_pieces),
      cmocka_unit_test(place_error_leaves_no_pieces),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests_name("test-place-api", tests, NULL, NULL);
}
