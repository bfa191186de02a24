/* The policy object's API: creation by name, parameters, names table, and
 * decide's handling of bad arguments and inconsistent snapshots. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static void create_every_listed_name(void **state)
{
  (void)state;
  char names[2048], *save;
  morph_policy_names(names, sizeof(names));
  int n = 0;
  for (char *x = strtok_r(names, ", ", &save); x; x = strtok_r(NULL, ", ", &save), n++) {
    morph_policy *p;
    assert_int_equal(morph_policy_create(x, NULL, &p), MORPH_OK);
    assert_non_null(p);
    morph_policy_destroy(p);
  }
  /* Every start policy, and every resize policy alone and with each. */
  assert_int_equal(n, 2 + 3 * (morph_policy_count() - 2));
}

static void create_composed_name(void **state)
{
  (void)state;
  morph_policy *p;
  assert_int_equal(morph_policy_create("dmr", NULL, &p), MORPH_OK);
  assert_string_equal(morph_policy_name(p), "dmr+fcfs");
  morph_policy_destroy(p);
  assert_int_equal(morph_policy_create("mtct+easy", NULL, &p), MORPH_OK);
  assert_string_equal(morph_policy_name(p), "mtct+easy");
  morph_policy_destroy(p);
  assert_int_equal(morph_policy_create("easy", NULL, &p), MORPH_OK);
  assert_string_equal(morph_policy_name(p), "easy");
  morph_policy_destroy(p);
}

static void create_unknown_name_lists_valid(void **state)
{
  (void)state;
  static const char *bad[] = {"nope", "easy+dmr", "dmr+", "dmr+mtct", "+fcfs", "", "fcfs+easy"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    morph_policy *p = (morph_policy *)1;
    char msg[512];
    assert_int_equal(morph_policy_create(bad[i], NULL, &p), MORPH_EINVAL);
    assert_null(p);
    assert_int_equal(morph_policy_create_error(bad[i], NULL, msg, sizeof(msg)), MORPH_EINVAL);
    assert_non_null(strstr(msg, "unknown policy"));
    assert_non_null(strstr(msg, "dmr+easy"));
  }
  assert_int_equal(morph_policy_create(NULL, NULL, NULL), MORPH_EINVAL);
  assert_int_equal(morph_policy_create_error("dmr", NULL, NULL, 0), MORPH_OK);
}

static void create_bad_params(void **state)
{
  (void)state;
  morph_policy_params pp;
  morph_policy_params_default(&pp);
  pp.mtct_lower = 0.9;
  pp.mtct_upper = 0.1;
  morph_policy *p;
  char msg[256];
  assert_int_equal(morph_policy_create("mtct", &pp, &p), MORPH_EINVAL);
  assert_null(p);
  assert_int_equal(morph_policy_create_error("mtct", &pp, msg, sizeof(msg)), MORPH_EINVAL);
  assert_non_null(strstr(msg, "mtct_lower"));
}

static void params_set_by_key(void **state)
{
  (void)state;
  morph_policy_params p, before;
  morph_policy_params_default(&p);
  assert_int_equal(morph_policy_params_set(&p, "mtct_upper", "0.7"), MORPH_OK);
  assert_true(p.mtct_upper == 0.7);
  assert_int_equal(morph_policy_params_set(&p, "sizes", "pow2"), MORPH_OK);
  assert_int_equal(p.sizes, MORPH_POLICY_SIZES_POW2);
  assert_int_equal(morph_policy_params_set(&p, "max_failed_resizes", "5"), MORPH_OK);
  assert_int_equal(p.max_failed_resizes, 5);
  assert_int_equal(morph_policy_params_set(&p, "step_period", "30"), MORPH_OK);
  assert_true(p.step_period == 30);
  assert_int_equal(morph_policy_params_set(&p, "step_units", "4"), MORPH_OK);
  assert_int_equal(p.step_units, 4);
  assert_int_equal(morph_policy_params_set(&p, "shrink_floor", "min"), MORPH_OK);
  assert_int_equal(p.shrink_to_min, 1);
  assert_int_equal(morph_policy_params_set(&p, "shrink_jobs", "2"), MORPH_OK);
  assert_int_equal(p.shrink_jobs, 2);
  before = p;
  assert_int_equal(morph_policy_params_set(&p, "no_such_key", "1"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "mtct_upper", "abc"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "mtct_upper", "-1"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "max_failed_resizes", "1.5"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "sizes", "odd"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "step_units", "0"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "step_units", "1.5"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "step_period", "-1"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "shrink_floor", "max"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "shrink_jobs", "-1"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(&p, "shrink_jobs", "0.5"), MORPH_EINVAL);
  assert_int_equal(morph_policy_params_set(NULL, "sizes", "any"), MORPH_EINVAL);
  assert_memory_equal(&p, &before, sizeof(p));
}

static void names_truncate_safely(void **state)
{
  (void)state;
  char small[8];
  size_t full = morph_policy_names(NULL, 0);
  assert_true(full > 40);
  assert_int_equal(morph_policy_names(small, sizeof(small)), full);
  assert_int_equal(strlen(small), 7);
  assert_int_equal(morph_policy_count(), 10);
  for (int i = 0; i < morph_policy_count(); i++) {
    assert_non_null(morph_policy_table_name(i));
    assert_non_null(morph_policy_table_description(i));
  }
  assert_null(morph_policy_table_name(10));
  assert_null(morph_policy_table_description(-1));
}

/* Decides on a snapshot made inconsistent by `edit`; expects EINVAL with a
 * message containing `word`, empty actions and a usable policy. */
static void expect_invalid(const char *desc, void (*edit)(test_snap *), const char *word)
{
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, desc);
  edit(t);
  morph_policy *p;
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  assert_int_equal(morph_policy_create("dmr+easy", NULL, &p), MORPH_OK);
  assert_int_equal(morph_policy_decide(p, &t->s, &a), MORPH_EINVAL);
  assert_int_equal(a.n, 0);
  if (!strstr(morph_policy_errmsg(p), word))
    fail_msg("message \"%s\" lacks \"%s\"", morph_policy_errmsg(p), word);
  char msg[256];
  assert_int_equal(morph_policy_actions_check(&t->s, &a, msg, sizeof(msg)), MORPH_EINVAL);
  assert_int_equal(morph_policy_snapshot_check(&t->s, msg, sizeof(msg)), MORPH_EINVAL);
  if (!strstr(msg, word))
    fail_msg("snapshot check: message \"%s\" lacks \"%s\"", msg, word);
  test_snap_parse(t, "nodes 2 1; pend 1 rigid 1");
  assert_int_equal(morph_policy_decide(p, &t->s, &a), MORPH_OK);
  assert_int_equal(a.n, 1);
  assert_int_equal(morph_policy_snapshot_check(&t->s, NULL, 0), MORPH_OK);
  morph_policy_actions_free(&a);
  morph_policy_destroy(p);
  free(t);
}

static void used_above_slots(test_snap *t) { t->nodes[0].used = 5; }
static void alloc_sum_wrong(test_snap *t) { t->running[0].size = 3; }
static void partial_node(test_snap *t) { t->allocs[0][0].slots = 1; }
static void booked_above_used(test_snap *t) { t->nodes[1].used = 0; }
static void bad_limits(test_snap *t) { t->running[0].pref = 9; }
static void bad_request(test_snap *t) { t->pending[0].req_min = 0; }
static void bad_kind(test_snap *t) { t->pending[0].kind = (morph_policy_kind)7; }
static void bad_state(test_snap *t) { t->nodes[0].state = (morph_policy_node_state)9; }
static void bad_unit(test_snap *t) { t->s.unit = (morph_policy_unit)3; }
static void null_array(test_snap *t) { t->s.pending = NULL; }
static void bad_piece_node(test_snap *t) { t->allocs[0][1].node = 99; }

static void decide_rejects_inconsistent_snapshots(void **state)
{
  (void)state;
  const char *d = "nodes 4 2; run 1 malleable 2 1 1 4 @ 0,1; pend 2 rigid 1";
  expect_invalid(d, used_above_slots, "used");
  expect_invalid(d, alloc_sum_wrong, "units");
  expect_invalid(d, partial_node, "whole node");
  expect_invalid(d, booked_above_used, "used");
  expect_invalid(d, bad_limits, "min <= pref <= max");
  expect_invalid(d, bad_request, "req_min");
  expect_invalid(d, bad_kind, "kind");
  expect_invalid(d, bad_state, "state");
  expect_invalid(d, bad_unit, "unit");
  expect_invalid(d, null_array, "NULL");
  expect_invalid(d, bad_piece_node, "piece");
}

static void decide_null_arguments(void **state)
{
  (void)state;
  morph_policy *p;
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  morph_policy_snapshot s = {0};
  assert_int_equal(morph_policy_create("fcfs", NULL, &p), MORPH_OK);
  assert_int_equal(morph_policy_decide(NULL, &s, &a), MORPH_EINVAL);
  assert_int_equal(morph_policy_decide(p, NULL, &a), MORPH_EINVAL);
  assert_int_equal(morph_policy_decide(p, &s, NULL), MORPH_EINVAL);
  assert_int_equal(morph_policy_decide(p, &s, &a), MORPH_OK); /* empty cluster */
  assert_int_equal(a.n, 0);
  morph_policy_destroy(p);
  morph_policy_destroy(NULL);
  morph_policy_actions_free(&a);
  assert_string_equal(morph_policy_name(NULL), "");
  assert_string_equal(morph_policy_errmsg(NULL), "");
  assert_int_equal(morph_policy_snapshot_check(NULL, NULL, 0), MORPH_EINVAL);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_every_listed_name),
      cmocka_unit_test(create_composed_name),
      cmocka_unit_test(create_unknown_name_lists_valid),
      cmocka_unit_test(create_bad_params),
      cmocka_unit_test(params_set_by_key),
      cmocka_unit_test(names_truncate_safely),
      cmocka_unit_test(decide_rejects_inconsistent_snapshots),
      cmocka_unit_test(decide_null_arguments),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests_name("test-policy-api", tests, NULL, NULL);
}
