/*
 * Report tests. The golden example, on 4 nodes (idle 100 W, loaded 340 W):
 *   A flexible: submit 0, start 0, end 20; 2 nodes 0-10, 4 nodes 10-20
 *   B fixed:    submit 0, start 5, end 10; 2 nodes
 *   C fixed:    submit 2, never started (skipped: larger than the cluster)
 * waits 0 and 5 (avg 2.5), executions 20 and 5 (12.5), completions 20 and
 * 10 (15); makespan 20 - 0 = 20 s; 2 jobs / 20 s = 0.1 jobs/s; busy
 * node-seconds 2*10 + 4*10 + 2*5 = 70 of 80: allocation 87.5 %; energy
 * 340 * 70 + 100 * 10 = 24,800 J.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

#include "morph/report.h"

static const morph_seg seg_a[] = {{0, 2}, {10, 4}};
static const morph_seg seg_b[] = {{5, 2}};

static morph_report *golden(void)
{
  morph_report_config c;
  morph_report_config_init(&c);
  c.units = 4;
  c.interval = 10;
  morph_report *r;
  assert_int_equal(morph_report_create(&c, &r), MORPH_OK);
  morph_job_record a = {"A", "cg", MORPH_KIND_FLEXIBLE, MORPH_JOB_COMPLETED, 0, 0, 20, 2, seg_a, 1};
  morph_job_record b = {"B", "jacobi", MORPH_KIND_FIXED, MORPH_JOB_COMPLETED, 0, 5, 10, 1, seg_b, 0};
  morph_job_record c2 = {"C", "nbody", MORPH_KIND_FIXED, MORPH_JOB_SKIPPED, 2, 0, 0, 0, NULL, 0};
  assert_int_equal(morph_report_add(r, &a), MORPH_OK);
  assert_int_equal(morph_report_add(r, &b), MORPH_OK);
  assert_int_equal(morph_report_add(r, &c2), MORPH_OK);
  return r;
}

static void totals_match_hand_computed_golden(void **state)
{
  (void)state;
  morph_report *r = golden();
  morph_report_totals t;
  morph_report_totals_get(r, &t);
  assert_int_equal(t.jobs, 3);
  assert_int_equal(t.completed, 2);
  assert_int_equal(t.skipped, 1);
  assert_true(fabs(t.all.wait - 2.5) < 1e-12);
  assert_true(fabs(t.all.exec - 12.5) < 1e-12);
  assert_true(fabs(t.all.completion - 15) < 1e-12);
  assert_true(fabs(t.makespan - 20) < 1e-12);
  assert_true(fabs(t.throughput - 0.1) < 1e-12);
  assert_true(fabs(t.allocation_rate - 0.875) < 1e-12);
  assert_true(fabs(t.energy_j - 24800) < 1e-9);
  assert_int_equal(t.kind[MORPH_KIND_FIXED].jobs, 1);
  assert_true(fabs(t.kind[MORPH_KIND_FLEXIBLE].exec - 20) < 1e-12);
  assert_int_equal(t.resizes, 1);
  morph_report_destroy(r);
}

/* Bounded slowdown: completion over execution, execution floored at 10 s,
 * never below 1. D waits 30 s and runs 5 s: 35 / 10 = 3.5; E waits 20 s
 * and runs 40 s: 60 / 40 = 1.5; the golden jobs never wait long: 1 each. */
static void bounded_slowdown_floors_short_jobs(void **state)
{
  (void)state;
  morph_report *r = golden();
  morph_report_totals t;
  morph_report_totals_get(r, &t);
  assert_true(fabs(t.all.bsld - 1.0) < 1e-12);
  static const morph_seg seg_d[] = {{30, 1}}, seg_e[] = {{20, 1}};
  morph_job_record d = {"D", "cg", MORPH_KIND_FIXED, MORPH_JOB_COMPLETED, 0, 30, 35, 1, seg_d, 0};
  morph_job_record e = {"E", "cg", MORPH_KIND_FIXED, MORPH_JOB_COMPLETED, 0, 20, 60, 1, seg_e, 0};
  assert_int_equal(morph_report_add(r, &d), MORPH_OK);
  assert_int_equal(morph_report_add(r, &e), MORPH_OK);
  morph_report_totals_get(r, &t);
  assert_true(fabs(t.all.bsld - (1 + 1 + 3.5 + 1.5) / 4) < 1e-12);
  assert_true(fabs(t.kind[MORPH_KIND_FIXED].bsld - (1 + 3.5 + 1.5) / 3) < 1e-12);
  morph_report_destroy(r);
}

/* The 95th percentile of waits, nearest rank: of 20 jobs waiting 1..20 s
 * the 19th, 19 s; per kind too (the 10 flexible ones wait 11..20: 20). */
static void wait_p95_is_the_nearest_rank(void **state)
{
  (void)state;
  morph_report_config c;
  morph_report_config_init(&c);
  c.units = 4;
  morph_report *r;
  assert_int_equal(morph_report_create(&c, &r), MORPH_OK);
  static const morph_seg seg[] = {{0, 1}};
  for (int i = 1; i <= 20; i++) {
    morph_job_record j = {"J", "cg", i > 10 ? MORPH_KIND_FLEXIBLE : MORPH_KIND_FIXED,
                          MORPH_JOB_COMPLETED, 0, i, i + 10.0, 1, seg, 0};
    assert_int_equal(morph_report_add(r, &j), MORPH_OK);
  }
  morph_report_totals t;
  morph_report_totals_get(r, &t);
  assert_true(t.all.wait_p95 == 19);
  assert_true(t.kind[MORPH_KIND_FLEXIBLE].wait_p95 == 20);
  assert_true(t.kind[MORPH_KIND_FIXED].wait_p95 == 10);
  morph_report_destroy(r);
}

static char *to_string(int (*fn)(const morph_report *, FILE *), const morph_report *r)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  assert_int_equal(fn(r, f), MORPH_OK);
  fclose(f);
  return buf;
}

static void jobs_and_timeline_csv_match_golden(void **state)
{
  (void)state;
  morph_report *r = golden();
  char *jobs = to_string(morph_report_write_jobs_csv, r);
  assert_string_equal(jobs,
      "name,app,kind,state,submit,start,end,wait,exec,completion,first_size,last_size,"
      "max_size,resizes,unit_seconds\n"
      "A,cg,flexible,completed,0.000,0.000,20.000,0.000,20.000,20.000,2,4,4,1,60.0\n"
      "B,jacobi,fixed,completed,0.000,5.000,10.000,5.000,5.000,10.000,2,2,2,0,10.0\n"
      "C,nbody,fixed,skipped,2.000,,,,,,0,0,0,0,0.0\n");
  char *tl = to_string(morph_report_write_timeline_csv, r);
  assert_string_equal(tl, "time,allocated,running\n0.000,2,1\n5.000,4,2\n10.000,4,1\n"
                          "20.000,0,0\n");
  free(jobs);
  free(tl);
  morph_report_destroy(r);
}

static void speedup_of_run_over_fixed(void **state)
{
  (void)state;
  morph_report_totals a = {0}, b = {0};
  a.all.completion = 300, b.all.completion = 100;
  a.makespan = 1000, b.makespan = 250;
  a.throughput = 1, b.throughput = 4;
  a.energy_j = 10, b.energy_j = 3;
  morph_report_speedup s;
  morph_report_speedup_get(&a, &b, &s);
  assert_true(fabs(s.completion - 3) < 1e-12);
  assert_true(fabs(s.makespan - 4) < 1e-12);
  assert_true(fabs(s.throughput - 4) < 1e-12);
  assert_true(fabs(s.energy_ratio - 0.3) < 1e-12);
  assert_true(s.wait == 0);
}

static void bad_records_rejected_report_unchanged(void **state)
{
  (void)state;
  morph_report *r = golden();
  morph_seg big[] = {{0, 5}};
  morph_seg back[] = {{0, 1}, {-1, 2}};
  morph_job_record x = {"X", NULL, MORPH_KIND_FIXED, MORPH_JOB_COMPLETED, 10, 5, 20, 0, NULL, 0};
  assert_int_equal(morph_report_add(r, &x), MORPH_EINVAL);
  x.start = 10;
  x.nseg = 1;
  x.seg = big;
  assert_int_equal(morph_report_add(r, &x), MORPH_EINVAL);
  assert_non_null(strstr(morph_report_errmsg(r), "X"));
  x.nseg = 2;
  x.seg = back;
  assert_int_equal(morph_report_add(r, &x), MORPH_EINVAL);
  assert_int_equal(morph_report_count(r), 3);
  morph_report_config c;
  morph_report_config_init(&c);
  morph_report *none = (morph_report *)1;
  assert_int_equal(morph_report_create(&c, &none), MORPH_EINVAL);
  assert_null(none);
  morph_report_destroy(r);
}

static void plot_writes_csv_script_and_images(void **state)
{
  (void)state;
  morph_report *r = golden();
  const char *dir = TEST_DIR "/plots";
  mkdir(dir, 0777);
  int rc = morph_report_plot(r, dir, "golden");
  assert_true(rc == MORPH_OK || rc == MORPH_ENOSYS);
  const char *files[] = {"golden-jobs.csv", "golden-summary.csv", "golden-timeline.csv",
                         "golden-completed.csv", "golden-gantt.csv", "golden-jobbars.csv",
                         "golden.gp"};
  for (int i = 0; i < 7; i++) {
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    assert_int_equal(stat(path, &st), 0);
  }
  if (rc == MORPH_OK) {
    struct stat st;
    assert_int_equal(stat(TEST_DIR "/plots/golden-timeline.png", &st), 0);
    assert_int_equal(stat(TEST_DIR "/plots/golden-completed.svg", &st), 0);
    assert_int_equal(stat(TEST_DIR "/plots/golden-gantt.png", &st), 0);
    assert_int_equal(stat(TEST_DIR "/plots/golden-jobs.png", &st), 0);
  }
  morph_report_destroy(r);
}

/* The golden example's chart: A holds 2 of the chart's largest 4 nodes
 * (band 0.4 high on row 0's base line 0.9), then 4 (0.8); B waits 0-5 (the
 * 0.25 band of one waiting job) then holds 2; C never ran: an empty row. */
static void gantt_and_bars_csv_match_golden(void **state)
{
  (void)state;
  morph_report *r = golden();
  char *gantt = to_string(morph_report_write_gantt_csv, r);
  assert_string_equal(gantt, "row,label,t0,t1,y0,y1,phase,amount\n"
                             "0,A,0.000,10.000,0.5000,0.9000,run,2\n"
                             "0,A,10.000,20.000,0.1000,0.9000,run,4\n"
                             "1,B,0.000,5.000,1.6500,1.9000,wait,1\n"
                             "1,B,5.000,10.000,1.5000,1.9000,run,2\n");
  char *bars = to_string(morph_report_write_jobbars_csv, r);
  assert_string_equal(bars, "row,label,completed,wait,exec\n"
                            "0,A,1,0.000,20.000\n"
                            "1,B,1,5.000,5.000\n"
                            "2,C,0,0.000,0.000\n");
  free(gantt);
  free(bars);
  morph_report_destroy(r);
}

/* 1,000 jobs cannot have a row each: 17 consecutive jobs share a row (59
 * rows), whose band is their sum. Job i waits 1 s and then runs 10 s on 1
 * node; jobs are submitted 1 s apart, so about 11 of them overlap. */
static void gantt_groups_jobs_beyond_sixty_rows(void **state)
{
  (void)state;
  morph_report_config c;
  morph_report_config_init(&c);
  c.units = 64;
  morph_report *r;
  assert_int_equal(morph_report_create(&c, &r), MORPH_OK);
  for (int i = 0; i < 1000; i++) {
    char name[16];
    snprintf(name, sizeof name, "j%d", i);
    morph_seg seg = {i + 1.0, 1};
    morph_job_record j = {name, "cg", MORPH_KIND_FIXED, MORPH_JOB_COMPLETED, i, i + 1.0,
                          i + 11.0, 1, &seg, 0};
    assert_int_equal(morph_report_add(r, &j), MORPH_OK);
  }
  char *bars = to_string(morph_report_write_jobbars_csv, r);
  int lines = 0;
  for (char *p = bars; *p; p++)
    lines += *p == '\n';
  assert_int_equal(lines, 1 + 59);
  assert_non_null(strstr(bars, "\n0,1-17,17,1.000,10.000\n"));
  assert_non_null(strstr(bars, "\n58,987-1000,14,1.000,10.000\n"));
  char *gantt = to_string(morph_report_write_gantt_csv, r);
  /* Jobs start and end on whole seconds, so row 0's band changes every
   * second while its jobs run; rows stop at 58. */
  assert_non_null(strstr(gantt, "\n0,1-17,11.000,12.000,"));
  assert_null(strstr(gantt, "\n59,"));
  free(bars);
  free(gantt);
  morph_report_destroy(r);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(totals_match_hand_computed_golden),
    cmocka_unit_test(bounded_slowdown_floors_short_jobs),
    cmocka_unit_test(wait_p95_is_the_nearest_rank),
    cmocka_unit_test(jobs_and_timeline_csv_match_golden),
    cmocka_unit_test(speedup_of_run_over_fixed),
    cmocka_unit_test(bad_records_rejected_report_unchanged),
    cmocka_unit_test(plot_writes_csv_script_and_images),
    cmocka_unit_test(gantt_and_bars_csv_match_golden),
    cmocka_unit_test(gantt_groups_jobs_beyond_sixty_rows),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
