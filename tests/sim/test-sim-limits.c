/*
 * Estimates and time limits in the simulator (morph/sim.h,
 * morph_sim_estimates; docs/sim.md "Estimates and time limits"), and the
 * pairing of edmr with FCFS starts. Jobs scale perfectly (t(n) = t1 / n)
 * and resizes are free, so every schedule is worked out in the comments.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "world.h"

static void walltime(world *w, size_t i, double s)
{
  w->wl->jobs[i].walltime = s;
}

/* 4 nodes, EASY. A (2 nodes, 100 s, asks 300 s) runs 0-100; B (4 nodes)
 * waits for it; C (2 nodes, 50 s, asks 400 s) arrives at 2.
 *  - exact: B's reservation is at A's real end, 100; C ends at 52, before
 *    it: C backfills at 2.
 *  - requested: the reservation is at A's limit, 300; C would end at 402
 *    by its own and no node is left over at 300: C waits, starts after B.
 *  - f=2: A's limit is 200 and C's 100: C (102) backfills at 2. */
static void easy_plans_with_the_estimate_mode(void **state)
{
  (void)state;
  const char *mode[] = {"exact", "requested", "f=2"};
  double c_start[] = {2, 200, 2};
  for (int m = 0; m < 3; m++) {
    world w;
    world_init(&w, 4, "easy");
    assert_int_equal(morph_sim_estimates_parse(mode[m], &w.cfg.estimates, &w.cfg.estimate_factor),
                     MORPH_OK);
    add(&w, "A", MORPH_KIND_FIXED, 0, 2, 2, 2, 2, 2, 200);
    add(&w, "B", MORPH_KIND_FIXED, 1, 4, 4, 4, 4, 4, 400);
    add(&w, "C", MORPH_KIND_FIXED, 2, 2, 2, 2, 2, 2, 100);
    walltime(&w, 0, 300), walltime(&w, 1, 100), walltime(&w, 2, 400);
    world_run(&w, MORPH_OK);
    expect_job(&w, 0, 0, 100, 0);
    expect_job(&w, 1, 100, 200, 0);
    expect_job(&w, 2, c_start[m], c_start[m] + 50, 0);
    assert_int_equal(w.st.timeouts, 0);
    world_free(&w);
  }
}

/* A (4 nodes, 100 s) asks for 60 s: killed at 60, like Slurm's TIMEOUT,
 * recorded failed and counted; B, waiting for all 4 nodes, starts then. */
static void job_killed_at_its_limit_and_counted(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "easy");
  add(&w, "A", MORPH_KIND_FIXED, 0, 4, 4, 4, 4, 4, 400);
  add(&w, "B", MORPH_KIND_FIXED, 1, 4, 4, 4, 4, 4, 400);
  walltime(&w, 0, 60), walltime(&w, 1, 200);
  world_run(&w, MORPH_OK);
  expect_job(&w, 0, 0, 60, 0);
  expect_job(&w, 1, 60, 160, 0);
  assert_int_equal(w.st.timeouts, 1);
  morph_report_totals t;
  morph_report_totals_get(w.rep, &t);
  assert_int_equal(t.completed, 1);
  assert_int_equal(t.failed, 1);
  world_free(&w);
}

/* DMR. Malleable A (rigid 4, pref 2, 100 s at 4) asks for exactly 100 s.
 * B (2 nodes, 50 s) arrives at 10: A shrinks to 2 (limit left 90 s, now
 * for half the nodes: 180 s, until 190), B runs 10-60, A grows back to 4
 * at 60 (the limit stays at 190) and ends at 125: not killed. Without the
 * stretch it would have been killed at 100. */
static void shrink_stretches_the_limit_and_grow_keeps_it(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "dmr");
  add(&w, "A", MORPH_KIND_MALLEABLE, 0, 4, 4, 1, 2, 4, 400);
  add(&w, "B", MORPH_KIND_FIXED, 10, 2, 2, 2, 2, 2, 100);
  walltime(&w, 0, 100), walltime(&w, 1, 50);
  world_run(&w, MORPH_OK);
  expect_job(&w, 0, 0, 125, 2);
  expect_job(&w, 1, 10, 60, 0);
  assert_int_equal(w.st.timeouts, 0);
  world_free(&w);
}

/* Moldable A (1-4, 400 s on one node) asks 100 s for 4 nodes and starts
 * on 1 (B holds 3 until 100): its limit is 4 x 100 s, it needs 400 s on
 * its node and ends at 405, not killed. */
static void moldable_start_below_request_stretches_the_limit(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "fcfs");
  add(&w, "B", MORPH_KIND_FIXED, 0, 3, 3, 3, 3, 3, 300);
  add(&w, "A", MORPH_KIND_MOLDABLE, 5, 1, 4, 1, 4, 4, 400);
  walltime(&w, 0, 100), walltime(&w, 1, 100);
  world_run(&w, MORPH_OK);
  expect_job(&w, 1, 5, 405, 0);
  assert_int_equal(w.st.timeouts, 0);
  world_free(&w);
}

/* Without any requested time the run falls back to exact estimates;
 * with some, the others get the largest (a partition's default limit). */
static void requested_falls_back_and_defaults_to_the_largest(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "easy");
  add(&w, "A", MORPH_KIND_FIXED, 0, 2, 2, 2, 2, 2, 200);
  add(&w, "B", MORPH_KIND_FIXED, 1, 2, 2, 2, 2, 2, 200);
  world_run(&w, MORPH_OK);
  assert_int_equal(w.st.estimates, MORPH_SIM_EST_EXACT);
  assert_int_equal(w.st.default_limits, 0);
  world_free(&w);
  world_init(&w, 4, "easy");
  add(&w, "A", MORPH_KIND_FIXED, 0, 2, 2, 2, 2, 2, 200);
  add(&w, "B", MORPH_KIND_FIXED, 1, 2, 2, 2, 2, 2, 200);
  walltime(&w, 0, 300);
  world_run(&w, MORPH_OK);
  assert_int_equal(w.st.estimates, MORPH_SIM_EST_REQUESTED);
  assert_int_equal(w.st.default_limits, 1);
  assert_int_equal(w.st.timeouts, 0);
  world_free(&w);
}

static void estimate_modes_parsed_and_checked(void **state)
{
  (void)state;
  morph_sim_estimates e;
  double k = 0;
  assert_int_equal(morph_sim_estimates_parse("exact", &e, &k), MORPH_OK);
  assert_int_equal(e, MORPH_SIM_EST_EXACT);
  assert_int_equal(morph_sim_estimates_parse("f=2.5", &e, &k), MORPH_OK);
  assert_int_equal(e, MORPH_SIM_EST_FACTOR);
  assert_true(k == 2.5);
  const char *bad[] = {"f=0.5", "f=", "f=2x", "x", ""};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    assert_int_equal(morph_sim_estimates_parse(bad[i], &e, &k), MORPH_EINVAL);
  morph_sim_config c;
  char why[512];
  morph_sim_config_init(&c);
  c.estimates = MORPH_SIM_EST_FACTOR;
  c.estimate_factor = 0.5;
  assert_int_equal(morph_sim_config_check(&c, why, sizeof why), MORPH_EINVAL);
  assert_non_null(strstr(why, "f=K"));
}

/* One run of a Lublin-Feitelson trace (kth shape, 2,000 jobs, load 0.85,
 * seed 6) with half the jobs flexible; returns the makespan and the
 * allocation rate. */
static void lublin_run(const char *policy, int flexible, double *makespan, double *alloc)
{
  morph_lublin_options lo;
  morph_lublin_options_init(&lo);
  assert_int_equal(morph_lublin_options_shape(&lo, "kth"), MORPH_OK);
  lo.njobs = 2000, lo.load = 0.85, lo.seed = 6;
  world w;
  world_init(&w, 100, policy);
  w.cfg.params.sizes = MORPH_POLICY_SIZES_ANY;
  w.cfg.expand_cost = 0.8, w.cfg.shrink_cost = 0.25;
  char path[512];
  snprintf(path, sizeof path, "%s/edmr-fcfs-%s-%d.swf", TEST_DIR, policy, flexible);
  assert_int_equal(morph_workload_generate_lublin(w.wl, &lo), MORPH_OK);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(morph_workload_write_swf(w.wl, f, NULL), MORPH_OK);
  fclose(f);
  morph_swf_options so;
  morph_swf_options_init(&so);
  so.malleable_share = flexible ? 0.5 : 0, so.moldable = so.rest_fixed = flexible;
  assert_int_equal(morph_workload_load_swf(w.wl, path, &so), MORPH_OK);
  remove(path);
  world_run(&w, MORPH_OK);
  morph_report_totals t;
  morph_report_totals_get(w.rep, &t);
  *makespan = t.makespan, *alloc = t.allocation_rate;
  world_free(&w);
}

/* Plain edmr (FCFS starts) kept the units it freed for a blocked head and
 * never grew a job while one waited: with no backfill nobody else could
 * use them. On this trace it ended later than FCFS on the rigid jobs, at
 * a lower allocation rate (672 ks against 637 ks, 0.50 against 0.58). */
static void edmr_with_fcfs_starts_beats_fixed_fcfs(void **state)
{
  (void)state;
  double fixed_m, fixed_a, edmr_m, edmr_a;
  lublin_run("fcfs", 0, &fixed_m, &fixed_a);
  lublin_run("edmr", 1, &edmr_m, &edmr_a);
  if (!(edmr_m < fixed_m && edmr_a > fixed_a))
    fprintf(stderr, "edmr: makespan %.0f s, allocation %.3f; fixed fcfs: %.0f s, %.3f\n", edmr_m,
            edmr_a, fixed_m, fixed_a);
  assert_true(edmr_m < fixed_m);
  assert_true(edmr_a > fixed_a);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(easy_plans_with_the_estimate_mode),
    cmocka_unit_test(job_killed_at_its_limit_and_counted),
    cmocka_unit_test(shrink_stretches_the_limit_and_grow_keeps_it),
    cmocka_unit_test(moldable_start_below_request_stretches_the_limit),
    cmocka_unit_test(requested_falls_back_and_defaults_to_the_largest),
    cmocka_unit_test(estimate_modes_parsed_and_checked),
    cmocka_unit_test(edmr_with_fcfs_starts_beats_fixed_fcfs),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
