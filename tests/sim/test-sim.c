/*
 * Simulator tests. The schedules use jobs with perfect scaling (Amdahl,
 * serial 0: t(n) = t1 / n), no inhibitor and, unless a test says so, free
 * reconfigurations at any time, so every start, resize and end can be
 * worked out on paper; each test's comment shows the working.
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

/* 4 nodes, FCFS. A (4 nodes, 100 s) runs 0-100; B and C (2 nodes, 50 s
 * each) wait for it and run side by side 100-150. */
static void fixed_fcfs_runs_in_order(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "fcfs");
  add(&w, "A", MORPH_KIND_FIXED, 0, 4, 4, 4, 4, 4, 400);
  add(&w, "B", MORPH_KIND_FIXED, 10, 2, 2, 2, 2, 2, 100);
  add(&w, "C", MORPH_KIND_FIXED, 20, 2, 2, 2, 2, 2, 100);
  world_run(&w, MORPH_OK);
  expect_job(&w, 0, 0, 100, 0);
  expect_job(&w, 1, 100, 150, 0);
  expect_job(&w, 2, 100, 150, 0);
  world_free(&w);
}

/* 4 nodes. A (2 nodes) runs 0-100; B (4 nodes, 100 s) waits for it. C (2
 * nodes, 50 s, submitted at 2): FCFS keeps it behind B (starts 200),
 * EASY backfills it at once, since it ends (52) before B's reservation
 * (100). */
static void fixed_fcfs_vs_easy_backfill(void **state)
{
  (void)state;
  const char *policy[] = {"fcfs", "easy"};
  double c_start[] = {200, 2};
  for (int p = 0; p < 2; p++) {
    world w;
    world_init(&w, 4, policy[p]);
    add(&w, "A", MORPH_KIND_FIXED, 0, 2, 2, 2, 2, 2, 200);
    add(&w, "B", MORPH_KIND_FIXED, 1, 4, 4, 4, 4, 4, 400);
    add(&w, "C", MORPH_KIND_FIXED, 2, 2, 2, 2, 2, 2, 100);
    world_run(&w, MORPH_OK);
    expect_job(&w, 0, 0, 100, 0);
    expect_job(&w, 1, 100, 200, 0);
    expect_job(&w, 2, c_start[p], c_start[p] + 50, 0);
    world_free(&w);
  }
}

/* Moldable 1-4 on 4 free nodes takes all 4 (100 s); the second one waits
 * and takes all 4 too: 0-100, 100-200. */
static void moldable_takes_all_free_nodes(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "fcfs");
  add(&w, "A", MORPH_KIND_MOLDABLE, 0, 1, 4, 1, 4, 4, 400);
  add(&w, "B", MORPH_KIND_MOLDABLE, 10, 1, 4, 1, 4, 4, 400);
  world_run(&w, MORPH_OK);
  expect_job(&w, 0, 0, 100, 0);
  expect_job(&w, 1, 100, 200, 0);
  world_free(&w);
}

/* DMR, malleable A (rigid 4, pref 2, 400 s on one node) starts at 4. At 10,
 * fixed B (2 nodes, 50 s) arrives: A is above pref, shrinking it to 2 lets
 * B start, so A shrinks and B starts at 10 (free resize). B ends at 60,
 * A grows back to 4. A's work: 10/100 + 50/200 = 0.35 by 60, the rest
 * 0.65 at 100 s per job = 65 s: A ends at 125 after 2 resizes. */
static void malleable_dmr_shrinks_for_pending_job(void **state)
{
  (void)state;
  const char *policy[] = {"dmr", "dmr+easy"};
  for (int p = 0; p < 2; p++) {
    world w;
    world_init(&w, 4, policy[p]);
    add(&w, "A", MORPH_KIND_MALLEABLE, 0, 4, 4, 1, 2, 4, 400);
    add(&w, "B", MORPH_KIND_FIXED, 10, 2, 2, 2, 2, 2, 100);
    world_run(&w, MORPH_OK);
    expect_job(&w, 0, 0, 125, 2);
    expect_job(&w, 1, 10, 60, 0);
    world_free(&w);
  }
}

/* The same with fixed A under DMR: nothing is resized, B waits until 100. */
static void fixed_dmr_is_never_resized(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "dmr");
  add(&w, "A", MORPH_KIND_FIXED, 0, 4, 4, 4, 4, 4, 400);
  add(&w, "B", MORPH_KIND_FIXED, 10, 2, 2, 2, 2, 2, 100);
  world_run(&w, MORPH_OK);
  expect_job(&w, 0, 0, 100, 0);
  expect_job(&w, 1, 100, 150, 0);
  world_free(&w);
}

/* Flexible A (1-4, pref 2, 400 s) arrives at 5 while fixed B holds 3 of 4
 * nodes until 100: it starts on 1 node. At 100 it is below pref and nodes
 * are free: it grows to 4. Work by 100: 95/400; the rest 0.7625 * 100 s:
 * A ends at 176.25. */
static void flexible_dmr_grows_when_nodes_free(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "dmr");
  add(&w, "B", MORPH_KIND_FIXED, 0, 3, 3, 3, 3, 3, 300);
  add(&w, "A", MORPH_KIND_FLEXIBLE, 5, 1, 4, 1, 2, 4, 400);
  world_run(&w, MORPH_OK);
  expect_job(&w, 0, 0, 100, 0);
  expect_job(&w, 1, 5, 176.25, 1);
  world_free(&w);
}

/* As above with a 200 s inhibitor on A: it may not grow before 5 + 200 =
 * 205; the first periodic decision after that is at 210. Work by 210:
 * 205/400 = 0.5125; the rest at 100 s per job: A ends at 258.75. */
static void flexible_dmr_waits_for_inhibitor(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "dmr");
  add(&w, "B", MORPH_KIND_FIXED, 0, 3, 3, 3, 3, 3, 300);
  add(&w, "A", MORPH_KIND_FLEXIBLE, 5, 1, 4, 1, 2, 4, 400);
  w.wl->jobs[1].model.inhibit_s = 200;
  world_run(&w, MORPH_OK);
  expect_job(&w, 1, 5, 258.75, 1);
  world_free(&w);
}

/* Resizes wait for an iteration end and cost time. A: malleable, 10
 * iterations (10 s each at 4 nodes), 40 GB of state; links 10 GB/s; fixed
 * costs 1 s. B arrives at 15: A's next iteration end is at 20 (0.2 done);
 * the shrink 4 -> 2 moves half the data over 2 links: 1 + 20/20 = 2 s, so
 * B starts at 22 and ends at 72. A, at 2 nodes from 22, reaches 0.45 at
 * 72; its next iteration end (0.5) is at 82; growing 2 -> 4 costs 2 s
 * again; the remaining 0.5 at 100 s per job: A ends at 134. */
static void malleable_resize_waits_for_iteration_and_costs(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "dmr");
  w.cfg.expand_cost = w.cfg.shrink_cost = 1;
  w.cfg.bandwidth = 1e10;
  add(&w, "A", MORPH_KIND_MALLEABLE, 0, 4, 4, 1, 2, 4, 400);
  add(&w, "B", MORPH_KIND_FIXED, 15, 2, 2, 2, 2, 2, 100);
  w.wl->jobs[0].model.iterations = 10;
  w.wl->jobs[0].model.data_bytes = 4e10;
  world_run(&w, MORPH_OK);
  expect_job(&w, 0, 0, 134, 2);
  expect_job(&w, 1, 22, 72, 0);
  world_free(&w);
}

static void reconf_cost_follows_data_and_size_change(void **state)
{
  (void)state;
  morph_sim_config c;
  morph_sim_config_init(&c);
  c.expand_cost = 1;
  c.shrink_cost = 0.5;
  c.bandwidth = 1e9;
  morph_model m = {0};
  m.data_bytes = 8e9;
  assert_true(fabs(morph_sim_reconf_cost(&c, &m, 2, 4) - (1 + 4e9 / 2e9)) < 1e-9);
  assert_true(fabs(morph_sim_reconf_cost(&c, &m, 8, 2) - (0.5 + 6e9 / 2e9)) < 1e-9);
  assert_true(morph_sim_reconf_cost(&c, &m, 4, 4) == 0);
}

/* A job asking for more nodes than the cluster has is skipped and counted;
 * with --reject-impossible the run refuses the workload. */
static void impossible_job_skipped_or_rejected(void **state)
{
  (void)state;
  world w;
  world_init(&w, 4, "fcfs");
  add(&w, "big", MORPH_KIND_FIXED, 0, 8, 8, 8, 8, 8, 100);
  add(&w, "ok", MORPH_KIND_FIXED, 1, 2, 2, 2, 2, 2, 100);
  world_run(&w, MORPH_OK);
  morph_report_totals t;
  morph_report_totals_get(w.rep, &t);
  assert_int_equal(t.jobs, 2);
  assert_int_equal(t.skipped, 1);
  assert_int_equal(t.completed, 1);
  world_free(&w);
  world_init(&w, 4, "fcfs");
  w.cfg.impossible = MORPH_IMPOSSIBLE_REJECT;
  add(&w, "big", MORPH_KIND_FIXED, 0, 8, 8, 8, 8, 8, 100);
  world_run(&w, MORPH_ESIZE);
  assert_non_null(strstr(morph_sim_errmsg(w.sim), "big"));
  world_free(&w);
}

/* Issue 12: a malleable job of 1e9 s beside free nodes made the periodic
 * decision step through all of it, 10 s at a time. Ticks now fall only
 * where a decision could differ, so the run takes a handful of events. */
static void idle_time_costs_no_ticks(void **state)
{
  (void)state;
  world w;
  world_init(&w, 10, "dmr");
  add(&w, "long", MORPH_KIND_MALLEABLE, 0, 4, 4, 1, 4, 8, 1e9);
  add(&w, "short", MORPH_KIND_FIXED, 1, 2, 2, 2, 2, 2, 100);
  w.wl->jobs[0].model.inhibit_s = 10;
  world_run(&w, MORPH_OK);
  assert_int_equal(w.st.completed, 2);
  assert_true(w.st.events < 50);
  /* It grew to 8 at its first chance (dmr line 2 / 11): 1e9 / 8 s. */
  expect_job(&w, 0, 0, 10 + (1e9 - 10 * 4) / 8, 1);
  world_free(&w);
}

/* A job whose time is infinite (only a caller that edits a loaded job can
 * make one: loads check the limits) never ends; the run names it and fails
 * instead of reporting the others as if nothing happened. */
static void job_that_cannot_end_is_named(void **state)
{
  (void)state;
  world w;
  world_init(&w, 8, "fcfs");
  add(&w, "ok", MORPH_KIND_FIXED, 0, 2, 2, 2, 2, 2, 100);
  add(&w, "forever", MORPH_KIND_FIXED, 1, 2, 2, 2, 2, 2, 100);
  w.wl->jobs[1].model.t1 = 1e300;
  w.wl->jobs[1].model.scale = 1e300;
  world_run(&w, MORPH_ESTATE);
  assert_non_null(strstr(morph_sim_errmsg(w.sim), "1 job(s) did not complete"));
  assert_non_null(strstr(morph_sim_errmsg(w.sim), "forever"));
  assert_int_equal(w.st.unfinished, 1);
  assert_int_equal(w.st.completed, 1);
  morph_report_totals t;
  morph_report_totals_get(w.rep, &t);
  assert_int_equal(t.unfinished, 1);
  world_free(&w);
}

/* Records the SWF importer skipped are in the report as skipped jobs. */
static void loader_skipped_records_counted(void **state)
{
  (void)state;
  world w;
  world_init(&w, 8, "fcfs");
  const char *path = TEST_DIR "/skipped.swf";
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"
        "2 5 0 -1 4 -1 -1 4 10 -1 5 1 1 1 1 -1 -1 -1\n"
        "3 6 0 10 0 -1 -1 -1 10 -1 1 1 1 1 1 -1 -1 -1\n", f);
  fclose(f);
  assert_int_equal(morph_workload_load_swf(w.wl, path, NULL), MORPH_OK);
  world_run(&w, MORPH_OK);
  morph_report_totals t;
  morph_report_totals_get(w.rep, &t);
  assert_int_equal(t.jobs, 3);
  assert_int_equal(t.completed, 1);
  assert_int_equal(t.skipped, 2);
  assert_int_equal(w.st.skipped, 2);
  world_free(&w);
}

/* Paper 002's thresholds act in simulation on the modelled MPI share: a
 * CG job started on 32 nodes runs at efficiency 1 / (32 x 0.14), MTCT
 * 0.78 > 0.5: halved to 16 (MTCT 0.63), 8 (0.55), 4 (0.375: between the
 * thresholds, it stays). A job at efficiency 1 (MTCT 0 < 0.2) doubles. */
static void mtct_halves_on_modelled_mpi_time(void **state)
{
  (void)state;
  world w;
  world_init(&w, 40, "mtct");
  w.cfg.params.sizes = MORPH_POLICY_SIZES_ANY;
  assert_int_equal(morph_workload_parse_json(w.wl,
                   "{\"jobs\": [{\"name\": \"cg\", \"submit\": 0, \"kind\": \"malleable\", "
                   "\"app\": \"cg\", \"min\": 1},"
                   "{\"name\": \"farm\", \"submit\": 0, \"kind\": \"malleable\", "
                   "\"app\": \"farm\", \"request\": 2, \"min\": 1, \"max\": 8}]}", "mtct.json"),
                   MORPH_OK);
  world_run(&w, MORPH_OK);
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(morph_report_write_jobs_csv(w.rep, f), MORPH_OK);
  fclose(f);
  /* name,app,kind,state,submit,start,end,wait,exec,completion,first,last,max,... */
  assert_non_null(strstr(buf, "\ncg,cg,malleable,completed,"));
  assert_non_null(strstr(buf, ",32,4,32,3,"));
  assert_non_null(strstr(buf, "\nfarm,farm,malleable,completed,"));
  assert_non_null(strstr(buf, ",2,8,8,2,"));
  free(buf);
  world_free(&w);
}

static void generate(world *w, size_t n, uint64_t seed, morph_job_kind kind)
{
  morph_gen_options o;
  morph_gen_options_init(&o);
  o.njobs = n;
  o.seed = seed;
  o.moldable = morph_job_kind_moldable(kind);
  o.malleable_share = morph_job_kind_malleable(kind);
  assert_int_equal(morph_workload_generate(w->wl, &o), MORPH_OK);
}

/* Every input job appears in the report, whatever the kind and policy. */
static void every_input_job_counted(void **state)
{
  (void)state;
  const char *policy[] = {"fcfs", "easy", "dmr", "dmr+easy"};
  for (int k = 0; k < MORPH_KIND_COUNT; k++)
    for (int p = 0; p < 4; p++) {
      world w;
      world_init(&w, 128, policy[p]);
      generate(&w, 300, 7, (morph_job_kind)k);
      world_run(&w, MORPH_OK);
      morph_report_totals t;
      morph_report_totals_get(w.rep, &t);
      assert_int_equal(t.jobs, 300);
      assert_int_equal(t.completed, 300);
      world_free(&w);
    }
}

static char *jobs_csv(world *w)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  morph_report_write_jobs_csv(w->rep, f);
  fclose(f);
  return buf;
}

/* Same seed, same schedule, bit for bit; another seed, another one. Two
 * simulators interleaved in one process do not disturb each other. */
static void deterministic_for_seed(void **state)
{
  (void)state;
  char *csv[3];
  uint64_t seeds[] = {3, 3, 4};
  for (int i = 0; i < 3; i++) {
    world w;
    world_init(&w, 128, "dmr");
    w.cfg.expand_cost = 0.8;
    w.cfg.shrink_cost = 0.25;
    generate(&w, 400, seeds[i], MORPH_KIND_FLEXIBLE);
    world_run(&w, MORPH_OK);
    csv[i] = jobs_csv(&w);
    world_free(&w);
  }
  assert_string_equal(csv[0], csv[1]);
  assert_true(strcmp(csv[0], csv[2]) != 0);
  for (int i = 0; i < 3; i++)
    free(csv[i]);
}

static void two_simulators_in_one_process(void **state)
{
  (void)state;
  world a, b;
  world_init(&a, 64, "dmr");
  world_init(&b, 64, "dmr");
  generate(&a, 200, 9, MORPH_KIND_MALLEABLE);
  generate(&b, 200, 9, MORPH_KIND_MALLEABLE);
  world_run(&a, MORPH_OK);
  world_run(&b, MORPH_OK);
  /* Run a again on the same simulator: identical to b. */
  morph_report_destroy(a.rep);
  morph_report_config rc;
  morph_report_config_init(&rc);
  rc.units = 64;
  assert_int_equal(morph_report_create(&rc, &a.rep), MORPH_OK);
  assert_int_equal(morph_sim_run(a.sim, a.wl, a.rep, &a.st), MORPH_OK);
  char *x = jobs_csv(&a), *y = jobs_csv(&b);
  assert_string_equal(x, y);
  free(x);
  free(y);
  world_free(&a);
  world_free(&b);
}

static void unknown_policy_rejected_with_names(void **state)
{
  (void)state;
  morph_sim_config c;
  morph_sim *sim = NULL;
  char why[512];
  morph_sim_config_init(&c);
  c.policy = "nope";
  assert_int_equal(morph_sim_config_check(&c, why, sizeof why), MORPH_EINVAL);
  assert_non_null(strstr(why, "dmr"));
  assert_int_equal(morph_sim_create(&c, &sim), MORPH_EINVAL);
  assert_null(sim);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(fixed_fcfs_runs_in_order),
    cmocka_unit_test(fixed_fcfs_vs_easy_backfill),
    cmocka_unit_test(moldable_takes_all_free_nodes),
    cmocka_unit_test(malleable_dmr_shrinks_for_pending_job),
    cmocka_unit_test(fixed_dmr_is_never_resized),
    cmocka_unit_test(flexible_dmr_grows_when_nodes_free),
    cmocka_unit_test(flexible_dmr_waits_for_inhibitor),
    cmocka_unit_test(malleable_resize_waits_for_iteration_and_costs),
    cmocka_unit_test(reconf_cost_follows_data_and_size_change),
    cmocka_unit_test(impossible_job_skipped_or_rejected),
    cmocka_unit_test(idle_time_costs_no_ticks),
    cmocka_unit_test(job_that_cannot_end_is_named),
    cmocka_unit_test(loader_skipped_records_counted),
    cmocka_unit_test(mtct_halves_on_modelled_mpi_time),
    cmocka_unit_test(every_input_job_counted),
    cmocka_unit_test(deterministic_for_seed),
    cmocka_unit_test(two_simulators_in_one_process),
    cmocka_unit_test(unknown_policy_rejected_with_names),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
