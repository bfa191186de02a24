/* Requested times (walltime) in workloads: SWF field 9 and JSON
 * "walltime" read and written, the offered load as a knob, and Tsafrir's
 * model of user estimates. Files are written under TEST_DIR, one name per
 * test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "morph/workload.h"

static const char *path_of(const char *name)
{
  static char path[1024];
  snprintf(path, sizeof path, "%s/%s", TEST_DIR, name);
  return path;
}

static const char *write_file(const char *name, const char *text)
{
  const char *path = path_of(name);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Field 9 is the request; a job that ran past it keeps its run time (the
 * site did not kill it there); -1 is unknown. Written back as read. */
static void swf_requested_time_read_and_written(void **state)
{
  (void)state;
  morph_workload *wl;
  assert_int_equal(morph_workload_create(&wl), MORPH_OK);
  const char *text = "1 0 0 100 4 -1 -1 4 600 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 5 0 900 2 -1 -1 2 600 -1 1 1 1 1 1 -1 -1 -1\n"
                     "3 9 0 50 1 -1 -1 1 -1 -1 1 1 1 1 1 -1 -1 -1\n";
  assert_int_equal(morph_workload_load_swf(wl, write_file("req.swf", text), NULL), MORPH_OK);
  assert_true(wl->jobs[0].walltime == 600);
  assert_true(wl->jobs[1].walltime == 900);
  assert_true(wl->jobs[2].walltime == 0);
  double largest;
  assert_int_equal(morph_workload_walltimes(wl, &largest), 2);
  assert_true(largest == 900);
  FILE *f = fopen(path_of("req-out.swf"), "w");
  assert_int_equal(morph_workload_write_swf(wl, f, NULL), MORPH_OK);
  fclose(f);
  morph_workload *back;
  assert_int_equal(morph_workload_create(&back), MORPH_OK);
  assert_int_equal(morph_workload_load_swf(back, path_of("req-out.swf"), NULL), MORPH_OK);
  for (size_t i = 0; i < 3; i++)
    assert_true(back->jobs[i].walltime == wl->jobs[i].walltime);
  morph_workload_destroy(back);
  morph_workload_destroy(wl);
}

static void json_walltime_read_written_and_checked(void **state)
{
  (void)state;
  morph_workload *wl;
  assert_int_equal(morph_workload_create(&wl), MORPH_OK);
  const char *ok = "{\"jobs\": [{\"submit\": 0, \"kind\": \"fixed\", \"app\": \"cg\", "
                   "\"walltime\": 1800}]}";
  assert_int_equal(morph_workload_parse_json(wl, ok, "w.json"), MORPH_OK);
  assert_true(wl->jobs[0].walltime == 1800);
  FILE *f = fopen(path_of("walltime.json"), "w");
  assert_int_equal(morph_workload_write_json(wl, f), MORPH_OK);
  fclose(f);
  assert_int_equal(morph_workload_load_json(wl, path_of("walltime.json")), MORPH_OK);
  assert_true(wl->jobs[0].walltime == 1800);
  const char *bad = "{\"jobs\": [\n{\"submit\": 0, \"kind\": \"fixed\", \"app\": \"cg\", "
                    "\"walltime\": -5}]}";
  assert_int_equal(morph_workload_parse_json(wl, bad, "w.json"), MORPH_EPARSE);
  assert_non_null(strstr(morph_workload_errmsg(wl), "w.json:2: jobs[0].walltime"));
  morph_workload_destroy(wl);
}

/* Two jobs of 100 s on 1 of 2 units, 100 s apart: load 200 / (2 x 100) =
 * 1. Compressed to load 2 the gap halves. */
static void set_load_scales_arrivals(void **state)
{
  (void)state;
  morph_workload *wl;
  assert_int_equal(morph_workload_create(&wl), MORPH_OK);
  const char *text = "1 0 0 100 1 -1 -1 1 100 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 100 0 100 1 -1 -1 1 100 -1 1 1 1 1 1 -1 -1 -1\n";
  assert_int_equal(morph_workload_load_swf(wl, write_file("load.swf", text), NULL), MORPH_OK);
  assert_true(fabs(morph_workload_offered_load(wl, 2) - 1.0) < 1e-9);
  double f;
  assert_int_equal(morph_workload_set_load(wl, 2, 2.0, &f), MORPH_OK);
  assert_true(fabs(f - 0.5) < 1e-12);
  assert_true(fabs(wl->jobs[1].submit - 50) < 1e-9);
  assert_int_equal(morph_workload_set_load(wl, 2, 0, NULL), MORPH_EINVAL);
  morph_workload_destroy(wl);
}

/* The model on 2,000 Lublin-Feitelson jobs (ctc shape, 18 h limit): no
 * estimate below its job's run time or above the limit, few distinct
 * values, the limit the most popular (about a fifth of the jobs), the
 * same values for the same seed. */
static void tsafrir_estimates_cover_run_times(void **state)
{
  (void)state;
  morph_lublin_options o;
  morph_lublin_options_init(&o);
  assert_int_equal(morph_lublin_options_shape(&o, "ctc"), MORPH_OK);
  o.njobs = 2000;
  morph_workload *a, *b;
  assert_int_equal(morph_workload_create(&a), MORPH_OK);
  assert_int_equal(morph_workload_create(&b), MORPH_OK);
  assert_int_equal(morph_workload_generate_lublin(a, &o), MORPH_OK);
  assert_int_equal(morph_workload_generate_lublin(b, &o), MORPH_OK);
  size_t at_max = 0, distinct = 0;
  double seen[256];
  for (size_t i = 0; i < a->njobs; i++) {
    const morph_wjob *j = &a->jobs[i];
    assert_true(j->walltime >= morph_model_time(&j->model, j->req_max) - 1e-6);
    assert_true(j->walltime <= 18 * 3600.0);
    assert_true(j->walltime == b->jobs[i].walltime);
    at_max += j->walltime == 18 * 3600.0;
    size_t k = 0;
    while (k < distinct && seen[k] != j->walltime)
      k++;
    if (k == distinct && distinct < 256)
      seen[distinct++] = j->walltime;
  }
  assert_true(distinct <= 41); /* the model gives 41 values to 2,000 jobs */
  assert_true(at_max > 300 && at_max < 560);
  assert_int_equal(morph_workload_estimates_tsafrir(a, 60, 1), MORPH_EINVAL);
  morph_workload_destroy(a);
  morph_workload_destroy(b);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(swf_requested_time_read_and_written),
    cmocka_unit_test(json_walltime_read_written_and_checked),
    cmocka_unit_test(set_load_scales_arrivals),
    cmocka_unit_test(tsafrir_estimates_cover_run_times),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
