/* The referee: morph_policy_actions_check() rejects every kind of infeasible
 * action list, and morph_policy_snapshot_apply() plays feasible ones
 * forward on a clone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

static const char *base = "nodes 4 1; run 1 malleable 2 1 1 3 @ 0,1; run 2 rigid 1 @ 2;"
                          "pend 3 rigid 1; pend 4 moldable 1-2";

/* Appends an action with pieces given as "node:slots,...". */
static void add(morph_policy_actions *a, morph_policy_op op, int64_t job, int idx, int from,
                int to, int dep, const char *pieces)
{
  a->v = realloc(a->v, sizeof(*a->v) * (size_t)(a->n + 1));
  a->allocs = realloc(a->allocs, sizeof(*a->allocs) * (size_t)(a->nallocs + 8));
  a->v[a->n] = (morph_policy_action){.op = op, .job = job, .job_index = idx, .from = from,
                                     .to = to, .alloc_first = a->nallocs, .depends = dep};
  for (const char *p = pieces; p && *p;) {
    int node, slots, used;
    assert_int_equal(sscanf(p, "%d:%d%n", &node, &slots, &used), 2);
    a->allocs[a->nallocs++] = (morph_policy_alloc){node, slots};
    a->v[a->n].alloc_count++;
    p += used + (p[used] == ',');
  }
  a->n++;
}

/* Builds actions with `build`, expects check to fail with `word`. */
static void expect_rejected_on(const char *desc, void (*build)(morph_policy_actions *),
                               const char *word)
{
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, desc);
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  build(&a);
  char msg[256];
  assert_int_equal(morph_policy_actions_check(&t->s, &a, msg, sizeof(msg)), MORPH_EINVAL);
  if (!strstr(msg, word))
    fail_msg("message \"%s\" lacks \"%s\"", msg, word);
  morph_policy_snapshot *c;
  assert_int_equal(morph_policy_snapshot_clone(&t->s, &c), MORPH_OK);
  assert_int_equal(morph_policy_snapshot_apply(c, &a, NULL, 0), MORPH_EINVAL);
  assert_int_equal(c->npending, t->s.npending); /* unchanged */
  morph_policy_snapshot_free(c);
  morph_policy_actions_free(&a);
  free(t);
}

static void expect_rejected(void (*build)(morph_policy_actions *), const char *word)
{
  expect_rejected_on(base, build, word);
}

static void two_starts_same_node(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, -1, "3:1");
  add(a, MORPH_POLICY_START, 4, 1, 0, 1, -1, "3:1");
}
static void start_on_down_node(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, -1, "3:1");
}
static void start_on_used_node(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, -1, "2:1");
}
static void expand_beyond_max(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_EXPAND, 1, 0, 2, 4, -1, "2:1,3:1");
}
static void shrink_master(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "0:1");
}
static void shrink_not_own(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "2:1");
}
static void resize_rigid(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_EXPAND, 2, 1, 1, 2, -1, "3:1");
}
static void start_outside_request(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_START, 4, 1, 0, 3, -1, "3:1,1:1,0:1");
}
static void start_twice(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, -1, "3:1");
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, -1, "3:1");
}
static void two_actions_one_job(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "1:1");
  add(a, MORPH_POLICY_EXPAND, 1, 0, 1, 2, -1, "3:1");
}
static void bad_depends(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, 5, "3:1");
}
static void pieces_do_not_add_up(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_START, 4, 1, 0, 2, -1, "3:1");
}
static void wrong_job_id(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_START, 99, 0, 0, 1, -1, "3:1");
}
static void migrate_unsupported(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_MIGRATE, 1, 0, 2, 2, -1, "");
}
static void from_not_size(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_EXPAND, 1, 0, 1, 2, -1, "3:1");
}

static void released_reused_without_depends(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "1:1");
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, -1, "1:1");
}
static void shrink_serves_two_starts(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "1:1");
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, 0, "3:1");
  add(a, MORPH_POLICY_START, 4, 1, 0, 1, 0, "1:1");
}
static void released_left_over_reused(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_SHRINK, 1, 0, 3, 1, -1, "2:1,1:1");
  add(a, MORPH_POLICY_START, 3, 0, 0, 1, 0, "2:1");
  add(a, MORPH_POLICY_START, 4, 1, 0, 1, -1, "1:1");
}
static void release_up_on_draining_node(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "1:1");
  a->v[0].release = MORPH_POLICY_RELEASE_UP;
}
static void unknown_release_rule(morph_policy_actions *a)
{
  add(a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "1:1");
  a->v[0].release = (morph_policy_release)7;
}

static void check_rejects_infeasible(void **state)
{
  (void)state;
  expect_rejected(two_starts_same_node, "whole free node");
  expect_rejected_on("unit slot; nodes 4 1; run 1 malleable 2 1 1 3 @ 0:1,1:1; run 2 rigid 1 @ 2;"
                     "pend 3 rigid 1; pend 4 moldable 1-2",
                     two_starts_same_node, "double-booked");
  expect_rejected_on("nodes 4 1; down 3; pend 3 rigid 1", start_on_down_node, "not up");
  expect_rejected(start_on_used_node, "whole free node");
  expect_rejected(expand_beyond_max, "max");
  expect_rejected(shrink_master, "master");
  expect_rejected(shrink_not_own, "does not hold");
  expect_rejected(resize_rigid, "not malleable");
  expect_rejected(start_outside_request, "request");
  expect_rejected(start_twice, "twice");
  expect_rejected(two_actions_one_job, "two actions");
  expect_rejected(bad_depends, "depends");
  expect_rejected(pieces_do_not_add_up, "units");
  expect_rejected(wrong_job_id, "mismatch");
  expect_rejected(migrate_unsupported, "not supported");
  expect_rejected(from_not_size, "size");
  expect_rejected(released_reused_without_depends, "whole free node");
  expect_rejected(shrink_serves_two_starts, "already serves");
  expect_rejected_on("nodes 4 1; run 1 malleable 3 1 1 3 @ 0,1,2; pend 3 rigid 1; pend 4 rigid 1",
                     released_left_over_reused, "whole free node");
  expect_rejected_on("nodes 4 1; drain 1; run 1 malleable 2 1 1 3 @ 0,1", release_up_on_draining_node,
                     "not up");
  expect_rejected(unknown_release_rule, "release rule");
}

static void check_accepts_released_then_reused(void **state)
{
  (void)state;
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, base);
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  add(&a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "1:1");
  add(&a, MORPH_POLICY_START, 4, 1, 0, 2, 0, "1:1,3:1");
  assert_int_equal(morph_policy_actions_check(&t->s, &a, NULL, 0), MORPH_OK);
  morph_policy_actions_free(&a);
  free(t);
}

static void apply_moves_jobs_and_slots(void **state)
{
  (void)state;
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, base);
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  add(&a, MORPH_POLICY_SHRINK, 1, 0, 2, 1, -1, "1:1");
  add(&a, MORPH_POLICY_START, 4, 1, 0, 2, 0, "1:1,3:1");
  morph_policy_snapshot *c;
  char msg[128];
  assert_int_equal(morph_policy_snapshot_apply(&t->s, &a, msg, sizeof(msg)), MORPH_EINVAL);
  assert_non_null(strstr(msg, "clone"));
  assert_int_equal(morph_policy_snapshot_clone(&t->s, &c), MORPH_OK);
  assert_int_equal(morph_policy_snapshot_apply(c, &a, msg, sizeof(msg)), MORPH_OK);
  assert_int_equal(c->nrunning, 3);
  assert_int_equal(c->npending, 1);
  assert_int_equal(c->pending[0].id, 3);
  assert_int_equal(c->running[0].size, 1);
  assert_int_equal(c->running[0].nalloc, 1);
  assert_int_equal(c->running[2].id, 4);
  assert_int_equal(c->running[2].size, 2);
  assert_true(c->running[2].start_time == c->now);
  for (int i = 0; i < 4; i++)
    assert_int_equal(c->nodes[i].used, 1);
  /* The caller's snapshot is untouched. */
  assert_int_equal(t->s.npending, 2);
  assert_int_equal(t->nodes[3].used, 0);
  morph_policy_snapshot_free(c);
  morph_policy_actions_free(&a);
  free(t);
}

static void apply_expand_merges_pieces(void **state)
{
  (void)state;
  test_snap *t = calloc(1, sizeof(*t));
  test_snap_parse(t, "unit slot; nodes 2 4; run 1 malleable 2 1 1 8 @ 0:2");
  morph_policy_actions a;
  morph_policy_actions_init(&a);
  add(&a, MORPH_POLICY_EXPAND, 1, 0, 2, 5, -1, "0:1,1:2");
  morph_policy_snapshot *c;
  assert_int_equal(morph_policy_snapshot_clone(&t->s, &c), MORPH_OK);
  assert_int_equal(morph_policy_snapshot_apply(c, &a, NULL, 0), MORPH_OK);
  assert_int_equal(c->running[0].nalloc, 2);
  assert_int_equal(c->running[0].alloc[0].slots, 3);
  assert_int_equal(c->running[0].alloc[1].slots, 2);
  assert_int_equal(c->nodes[0].used, 3);
  morph_policy_snapshot_free(c);
  morph_policy_snapshot_free(NULL);
  morph_policy_actions_free(&a);
  free(t);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(check_rejects_infeasible),
      cmocka_unit_test(check_accepts_released_then_reused),
      cmocka_unit_test(apply_moves_jobs_and_slots),
      cmocka_unit_test(apply_expand_merges_pieces),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests_name("test-policy-check", tests, NULL, NULL);
}
