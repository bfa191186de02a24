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

/* A seed must fit an unsigned int: converting a larger double is undefined
 * (gcc -O2 warned that the failed parse's value was used). */
static void create_random_seed_must_fit(void **state)
{
  (void)state;
  static const char *bad[] = {"1e20", "1.5", "inf", "x"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    morph_place_param kv[] = {{"topology", "data/torus44.topo"}, {"seed", bad[i]}};
    morph_place *p = (morph_place *)1;
    char msg[256];
    assert_int_equal(morph_place_create("random", kv, 2, &p), MORPH_EINVAL);
    assert_null(p);
    assert_int_equal(morph_place_create_error("random", kv, 2, msg, sizeof(msg)), MORPH_EINVAL);
    assert_non_null(strstr(msg, "placement parameter seed"));
  }
  morph_place_param ok[] = {{"topology", "data/torus44.topo"}, {"seed", "4294967295"}};
  morph_place *p;
  assert_int_equal(morph_place_create("random", ok, 2, &p), MORPH_OK);
  morph_place_destroy(p);
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

/* A snapshot, actions parsed against it (or none) and a firstfit placement. */
typedef struct fixture {
  test_snap *t;
  morph_policy_actions a;
  morph_place *p;
} fixture;

static void setup(fixture *f, const char *snapshot, const char *actions)
{
  f->t = calloc(1, sizeof(*f->t));
  assert_non_null(f->t);
  test_snap_parse(f->t, snapshot);
  morph_policy_actions_init(&f->a);
  if (actions)
    place_actions_parse(f->t, actions, &f->a);
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &f->p), MORPH_OK);
}

static void teardown(fixture *f)
{
  morph_place_destroy(f->p);
  morph_policy_actions_free(&f->a);
  free(f->t);
}

/* Places f's actions; expects rc and, on error, `word` in the message and
 * no piece left. */
static void expect_place(fixture *f, int rc, const char *word)
{
  assert_int_equal(morph_place_actions(f->p, &f->t->s, &f->a), rc);
  if (word && !strstr(morph_place_errmsg(f->p), word))
    fail_msg("message \"%s\" lacks \"%s\"", morph_place_errmsg(f->p), word);
  if (rc != MORPH_OK) {
    assert_int_equal(f->a.nallocs, 0);
    for (int i = 0; i < f->a.n; i++)
      assert_int_equal(f->a.v[i].alloc_count, 0);
  }
}

static void place_rejects_inconsistent_snapshot(void **state)
{
  (void)state;
  fixture f;
  setup(&f, "nodes 2 1; pend 2 rigid 1", "start 2 1");
  f.t->nodes[0].used = 3;
  expect_place(&f, MORPH_EINVAL, "used");
  assert_int_equal(f.a.n, 1);
  f.t->nodes[0].used = 0;
  f.t->s.unit = (morph_policy_unit)5;
  expect_place(&f, MORPH_EINVAL, "unit");
  /* Usable again once the snapshot is right. */
  f.t->s.unit = MORPH_POLICY_UNIT_NODE;
  expect_place(&f, MORPH_OK, NULL);
  assert_string_equal(morph_place_errmsg(f.p), "");
  assert_int_equal(f.a.v[0].alloc_count, 1);
  teardown(&f);
}

static void place_checks_resized_allocation(void **state)
{
  (void)state;
  fixture f;
  setup(&f, "nodes 4 1; run 1 malleable 2 1 1 4 @ 0,1", "expand 1 2->3");
  f.t->allocs[0][1].node = 9;
  expect_place(&f, MORPH_EINVAL, "piece 1");
  f.t->allocs[0][1].node = 1;
  f.t->running[0].size = 3;
  place_actions_parse(f.t, "expand 1 3->4", &f.a);
  expect_place(&f, MORPH_EINVAL, "holds 2 units, not its size 3");
  teardown(&f);
}

/* The policy counts (no pieces), firstfit places; the referee agrees, and
 * placing again replaces the pieces with the same ones. */
static void place_replaces_stale_pieces(void **state)
{
  (void)state;
  fixture f;
  setup(&f, "nodes 4 1; run 1 malleable 4 1 1 4 @ 0,1,2,3; pend 2 rigid 3", NULL);
  morph_policy *pol;
  char first[512], again[512];
  assert_int_equal(morph_policy_create("dmr", NULL, &pol), MORPH_OK);
  assert_int_equal(morph_policy_decide(pol, &f.t->s, &f.a), MORPH_OK);
  morph_policy_destroy(pol);
  assert_int_equal(f.a.nallocs, 0);
  expect_place(&f, MORPH_OK, NULL);
  assert_int_equal(morph_policy_actions_check(&f.t->s, &f.a, first, sizeof(first)), MORPH_OK);
  test_actions_format(&f.a, 1, 0, first, sizeof(first));
  assert_string_equal(first, "shrink 1 4->1 @3,2,1; start 2 3 dep=0 @3,2,1");
  expect_place(&f, MORPH_OK, NULL);
  test_actions_format(&f.a, 1, 0, again, sizeof(again));
  assert_string_equal(again, first);
  assert_int_equal(f.a.nallocs, 6);
  teardown(&f);
}

static void place_error_leaves_no_pieces(void **state)
{
  (void)state;
  fixture f;
  setup(&f, "nodes 3 1; pend 2 rigid 1; pend 3 rigid 3", "start 2 1; start 3 3");
  expect_place(&f, MORPH_EBUSY, "action 1");
  assert_int_equal(f.a.n, 2);
  assert_int_equal(f.a.v[1].to, 3);
  teardown(&f);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(create_unknown_name_lists_known),
      cmocka_unit_test(create_firstfit_takes_no_parameters),
      cmocka_unit_test(create_random_seed_must_fit),
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
