/* Workload tests: formats, errors that name file, line and field, the
 * generator and the catalog. Files are written under TEST_DIR, one name
 * per test so that tests may run in parallel. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "morph/workload.h"

static morph_workload *wl_new(void)
{
  morph_workload *wl;
  assert_int_equal(morph_workload_create(&wl), MORPH_OK);
  return wl;
}

static const char *write_file(const char *name, const char *text)
{
  static char path[1024];
  int n = snprintf(path, sizeof path, "%s/%s", TEST_DIR, name);
  assert_true(n > 0 && (size_t)n < sizeof path);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return path;
}

/* Expects rc to be EPARSE with a message containing want, and wl empty;
 * destroys wl. */
static void expect_eparse(morph_workload *wl, int rc, const char *want)
{
  if (rc != MORPH_EPARSE || !strstr(morph_workload_errmsg(wl), want))
    fprintf(stderr, "got %d '%s', want '%s'\n", rc, morph_workload_errmsg(wl), want);
  assert_int_equal(rc, MORPH_EPARSE);
  assert_non_null(strstr(morph_workload_errmsg(wl), want));
  assert_int_equal(wl->njobs, 0);
  morph_workload_destroy(wl);
}

/* Parses text and expects an EPARSE whose message contains want. */
static void expect_parse_error(const char *text, const char *want)
{
  morph_workload *wl = wl_new();
  expect_eparse(wl, morph_workload_parse_json(wl, text, "w.json"), want);
}

static void json_bad_kind_names_line_and_field(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [\n"
                     "  {\"submit\": 0, \"kind\": \"fixed\", \"app\": \"cg\"},\n"
                     "  {\"submit\": 5,\n"
                     "   \"kind\": \"elastic\", \"app\": \"cg\"}\n"
                     "]}\n",
                     "w.json:4: jobs[1].kind: unknown kind 'elastic'");
}

static void json_bad_model_field_names_line(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [\n"
                     "  {\"submit\": 0, \"kind\": \"fixed\", \"app\": \"cg\",\n"
                     "   \"model\": {\"type\": \"amdahl\", \"t1\": \"long\"}}\n"
                     "]}\n",
                     "w.json:3: jobs[0].model.t1: expected a number");
}

static void json_syntax_error_names_line_and_column(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [\n  {\"submit\": 0,,}\n]}\n", "w.json:2:");
}

static void json_unknown_field_rejected(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [\n  {\"submit\": 0, \"kind\": \"fixed\", \"app\": \"cg\",\n"
                     "   \"nodes\": 4}\n]}\n",
                     "w.json:3: jobs[0].nodes: unknown field");
}

static void json_missing_submit_rejected(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [{\"kind\": \"fixed\", \"app\": \"cg\"}]}",
                     "w.json:1: jobs[0].submit: missing");
}

static void json_range_for_rigid_kind_rejected(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [\n{\"submit\": 0, \"kind\": \"malleable\", \"app\": \"cg\",\n"
                     " \"request\": \"2-32\"}]}",
                     "w.json:3: jobs[0].request: a malleable job is submitted rigid");
}

static void json_limits_out_of_order_rejected(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [\n{\"submit\": 0, \"kind\": \"flexible\", \"app\": \"cg\",\n"
                     " \"min\": 40}]}",
                     "jobs[0].min: need 1 <= min <= pref <= max");
}

static void json_duplicate_name_rejected(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [\n{\"name\": \"a\", \"submit\": 0, \"kind\": \"fixed\", "
                     "\"app\": \"cg\"},\n{\"name\": \"a\", \"submit\": 1, \"kind\": \"fixed\", "
                     "\"app\": \"cg\"}]}",
                     "w.json:3: jobs[1].name: 'a' is already used");
}

/* Table 6: rigid submissions ask for the upper limit, moldable ones for
 * the range; Table 5 limits come from the catalog. */
static void json_defaults_follow_tables_5_and_6(void **state)
{
  (void)state;
  morph_workload *wl = wl_new();
  int rc = morph_workload_parse_json(
      wl,
      "{\"jobs\": [{\"submit\": 0, \"kind\": \"fixed\", \"app\": \"hpg-aligner\"},"
      "{\"submit\": 1, \"kind\": \"flexible\", \"app\": \"cg\", \"args\": [\"-n\", \"10\"]},"
      "{\"submit\": 2, \"kind\": \"moldable\", \"app\": \"nbody\", \"request\": [4, 8]}]}",
      "d.json");
  assert_int_equal(rc, MORPH_OK);
  assert_int_equal(wl->njobs, 3);
  assert_int_equal(wl->jobs[0].req_min, 12);
  assert_int_equal(wl->jobs[0].req_max, 12);
  assert_int_equal(wl->jobs[1].req_min, 2);
  assert_int_equal(wl->jobs[1].req_max, 32);
  assert_int_equal(wl->jobs[1].pref, 16);
  assert_int_equal(wl->jobs[1].argc, 2);
  assert_string_equal(wl->jobs[1].argv[1], "10");
  assert_int_equal(wl->jobs[2].req_min, 4);
  assert_int_equal(wl->jobs[2].req_max, 8);
  morph_workload_destroy(wl);
}

static void json_save_load_roundtrip(void **state)
{
  (void)state;
  morph_workload *a = wl_new(), *b = wl_new();
  morph_gen_options o;
  morph_gen_options_init(&o);
  o.njobs = 50;
  o.moldable = 1;
  o.malleable_share = 0.5;
  assert_int_equal(morph_workload_generate(a, &o), MORPH_OK);
  const char *path = write_file("roundtrip.json", "");
  assert_int_equal(morph_workload_save_json(a, path), MORPH_OK);
  assert_int_equal(morph_workload_load_json(b, path), MORPH_OK);
  assert_int_equal(a->njobs, b->njobs);
  for (size_t i = 0; i < a->njobs; i++) {
    const morph_wjob *x = &a->jobs[i], *y = &b->jobs[i];
    assert_string_equal(x->name, y->name);
    assert_true(x->submit == y->submit);
    assert_int_equal(x->kind, y->kind);
    assert_int_equal(x->req_min, y->req_min);
    assert_int_equal(x->pref, y->pref);
    assert_true(memcmp(&x->model, &y->model, sizeof x->model) == 0);
  }
  morph_workload_destroy(a);
  morph_workload_destroy(b);
}

static void json_unreadable_file_is_eio(void **state)
{
  (void)state;
  morph_workload *wl = wl_new();
  assert_int_equal(morph_workload_load_json(wl, "/nonexistent/w.json"), MORPH_EIO);
  assert_non_null(strstr(morph_workload_errmsg(wl), "/nonexistent/w.json"));
  morph_workload_destroy(wl);
}

static const char mtx_ok[] = "%%MatrixMarket matrix coordinate integer general\n"
                             "2 2 2\n1 2 100\n2 1 50\n";

/* A workload in its own folder naming matrix files; returns its path. */
static const char *matrix_workload(const char *sub, const char *job_line)
{
  static char path[1024];
  char dir[1024], cmd[1100];
  snprintf(dir, sizeof dir, "%s/%s", TEST_DIR, sub);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
  assert_int_equal(system(cmd), 0);
  snprintf(path, sizeof path, "%s/m.mtx", sub);
  write_file(path, mtx_ok);
  snprintf(path, sizeof path, "%s/bad.mtx", sub);
  write_file(path, "%%MatrixMarket matrix coordinate integer general\n2 2 1\n3 1 5\n");
  char text[1024];
  snprintf(text, sizeof text,
           "{\"jobs\": [\n  {\"submit\": 0, \"kind\": \"malleable\", \"app\": \"cg\",\n"
           "   %s},\n  {\"submit\": 1, \"kind\": \"fixed\", \"app\": \"cg\"}\n]}\n",
           job_line);
  snprintf(path, sizeof path, "%s/w.json", sub);
  return write_file(path, text);
}

/* "matrix" is resolved against the workload file's folder, not the
 * current one, kept absolute, and a saved workload loads back with it. */
static void json_matrix_resolved_against_the_file(void **state)
{
  (void)state;
  morph_workload *wl = wl_new(), *back = wl_new();
  const char *path = matrix_workload("mtx-ok", "\"matrix\": \"m.mtx\"");
  assert_int_equal(morph_workload_load_json(wl, path), MORPH_OK);
  char want[1024], real[4096];
  snprintf(want, sizeof want, "%s/mtx-ok/m.mtx", TEST_DIR);
  assert_non_null(realpath(want, real));
  int i = wl->jobs[0].submit == 0 ? 0 : 1;
  assert_non_null(wl->jobs[i].matrix);
  assert_string_equal(wl->jobs[i].matrix, real);
  assert_null(wl->jobs[1 - i].matrix);
  const char *saved = write_file("mtx-saved.json", "");
  assert_int_equal(morph_workload_save_json(wl, saved), MORPH_OK);
  assert_int_equal(morph_workload_load_json(back, saved), MORPH_OK);
  assert_string_equal(back->jobs[i].matrix, real);
  assert_null(back->jobs[1 - i].matrix);
  morph_workload_destroy(wl);
  morph_workload_destroy(back);
}

/* Loads the workload of job_line and expects EPARSE naming want. */
static void expect_matrix_error(const char *sub, const char *job_line, const char *want)
{
  morph_workload *wl = wl_new();
  expect_eparse(wl, morph_workload_load_json(wl, matrix_workload(sub, job_line)), want);
}

static void json_matrix_errors_name_file_line_field(void **state)
{
  (void)state;
  expect_matrix_error("mtx-missing", "\"matrix\": \"none.mtx\"", "w.json:3: jobs[0].matrix: ");
  expect_matrix_error("mtx-missing", "\"matrix\": \"none.mtx\"", "mtx-missing/none.mtx");
  expect_matrix_error("mtx-bad", "\"matrix\": \"bad.mtx\"", "w.json:3: jobs[0].matrix: ");
  expect_matrix_error("mtx-bad", "\"matrix\": \"bad.mtx\"", "bad.mtx:3");
  expect_matrix_error("mtx-type", "\"matrix\": 7", "w.json:3: jobs[0].matrix: expected the path");
  expect_matrix_error("mtx-type", "\"matrix\": \"\"", "jobs[0].matrix: expected the path");
}

static const char swf_ok[] = "; Version: 2.2\n"
                             "; a comment\n"
                             "1 100 5 1000 4 -1 -1 4 2000 -1 1 1 1 1 1 -1 -1 -1\n"
                             "2 150 0 -1 8 -1 -1 8 100 -1 5 1 1 1 1 -1 -1 -1\n"
                             "3 160 0 500 -1 -1 -1 16 600 -1 1 1 1 1 1 -1 -1 -1\n";

/* Cancelled jobs (run time -1) are counted as skipped; submit times start
 * at 0; the Amdahl model gives back the traced run time at the traced size;
 * requested processors stand in when allocated ones are missing. */
static void swf_import_keeps_sizes_and_times(void **state)
{
  (void)state;
  morph_workload *wl = wl_new();
  const char *path = write_file("ok.swf", swf_ok);
  assert_int_equal(morph_workload_load_swf(wl, path, NULL), MORPH_OK);
  assert_int_equal(wl->njobs, 2);
  assert_int_equal(wl->skipped, 1);
  assert_true(wl->jobs[0].submit == 0);
  assert_true(wl->jobs[1].submit == 60);
  assert_int_equal(wl->jobs[0].req_min, 4);
  assert_int_equal(wl->jobs[1].req_min, 16);
  assert_true(fabs(morph_model_time(&wl->jobs[0].model, 4) - 1000) < 1e-6);
  assert_int_equal(wl->jobs[0].kind, MORPH_KIND_FIXED);
  morph_workload_destroy(wl);
}

static void swf_malleable_share_converts_jobs(void **state)
{
  (void)state;
  morph_workload *wl = wl_new();
  char text[64 * 1024] = "";
  for (int i = 1; i <= 400; i++) {
    char line[128];
    snprintf(line, sizeof line, "%d %d 0 100 8 -1 -1 8 200 -1 1 1 1 1 1 -1 -1 -1\n", i, i * 10);
    strcat(text, line);
  }
  morph_swf_options o;
  morph_swf_options_init(&o);
  o.malleable_share = 0.5;
  o.seed = 42;
  assert_int_equal(morph_workload_load_swf(wl, write_file("share.swf", text), &o), MORPH_OK);
  size_t mall = 0;
  for (size_t i = 0; i < wl->njobs; i++)
    if (wl->jobs[i].kind == MORPH_KIND_MALLEABLE) {
      mall++;
      assert_int_equal(wl->jobs[i].min, 2);
      assert_int_equal(wl->jobs[i].pref, 8);
      assert_int_equal(wl->jobs[i].max, 16);
    }
  assert_in_range(mall, 160, 240);
  morph_workload_destroy(wl);
}

static void expect_swf_error(const char *name, const char *text, const char *want)
{
  morph_workload *wl = wl_new();
  int rc = morph_workload_load_swf(wl, write_file(name, text), NULL);
  if (rc != MORPH_EPARSE || !strstr(morph_workload_errmsg(wl), want))
    fprintf(stderr, "got %d '%s', want '%s'\n", rc, morph_workload_errmsg(wl), want);
  assert_int_equal(rc, MORPH_EPARSE);
  assert_non_null(strstr(morph_workload_errmsg(wl), want));
  assert_int_equal(wl->njobs, 0);
  morph_workload_destroy(wl);
}

static void swf_bad_field_names_file_line_field(void **state)
{
  (void)state;
  expect_swf_error("bad.swf",
                   "; header\n1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"
                   "2 5 0 10 four -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n",
                   "bad.swf:3: field 5 (allocated processors): not a number: 'four'");
}

static void swf_short_line_names_missing_field(void **state)
{
  (void)state;
  expect_swf_error("short.swf", "1 0 0 10 4 -1 -1 4\n", "short.swf:1: field 9 (requested time)");
}

static void swf_repeated_job_number_rejected(void **state)
{
  (void)state;
  expect_swf_error("dup.swf",
                   "1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"
                   "1 5 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n",
                   "dup.swf:2: field 1 (job number)");
}

/* Issue 12: a huge model time used to make `morph sim` run forever; every
 * limit of docs/workload.md is checked at load with file, line and field. */
static void json_time_beyond_limit_names_line_and_field(void **state)
{
  (void)state;
  expect_parse_error("{\"jobs\": [\n"
                     "  {\"submit\": 0, \"kind\": \"fixed\", \"app\": \"generic\",\n"
                     "   \"model\": {\"type\": \"amdahl\", \"t1\": 1e300, \"serial\": 0.05}}\n"
                     "]}\n",
                     "w.json:3: jobs[0].model: the job's time");
  expect_parse_error("{\"jobs\": [{\"submit\": 0, \"kind\": \"fixed\", \"app\": \"cg\",\n"
                     "   \"model\": {\"scale\": 1e300}}]}",
                     "w.json:2: jobs[0].model: the job's time");
  expect_parse_error("{\"jobs\": [{\"submit\": 2e9, \"kind\": \"fixed\", \"app\": \"cg\"}]}",
                     "w.json:1: jobs[0].submit: must be a time in 0..1e+09 s");
  expect_parse_error("{\"jobs\": [{\"submit\": 0, \"kind\": \"fixed\", \"app\": \"cg\",\n"
                     "  \"request\": \"99999999999\"}]}",
                     "w.json:2: jobs[0].request: sizes are limited");
}

/* Records the importer does not load are kept by name and line, so a
 * runner can count them as skipped (docs/workload.md's promise). */
static void swf_skipped_records_kept_by_name(void **state)
{
  (void)state;
  morph_workload *wl = wl_new();
  const char *text = "1 100 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 110 0 -1 4 -1 -1 4 10 -1 5 1 1 1 1 -1 -1 -1\n"
                     "3 120 0 20 0 -1 -1 0 10 -1 1 1 1 1 1 -1 -1 -1\n";
  assert_int_equal(morph_workload_load_swf(wl, write_file("skips.swf", text), NULL), MORPH_OK);
  assert_int_equal(wl->njobs, 1);
  assert_int_equal(wl->skipped, 2);
  assert_string_equal(wl->skips[0].name, "swf-2");
  assert_int_equal(wl->skips[0].line, 2);
  assert_string_equal(wl->skips[1].name, "swf-3");
  assert_true(wl->skips[1].submit == 20);
  morph_workload_destroy(wl);
}

/* An unsorted trace is read, not refused: times start at the earliest. */
static void swf_unsorted_records_sorted(void **state)
{
  (void)state;
  morph_workload *wl = wl_new();
  const char *text = "1 10 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"
                     "2 5 0 10 2 -1 -1 2 10 -1 1 1 1 1 1 -1 -1 -1\n";
  assert_int_equal(morph_workload_load_swf(wl, write_file("unsorted.swf", text), NULL), MORPH_OK);
  assert_int_equal(wl->njobs, 2);
  assert_string_equal(wl->jobs[0].name, "swf-2");
  assert_true(wl->jobs[0].submit == 0 && wl->jobs[1].submit == 5);
  morph_workload_destroy(wl);
}

static void swf_binary_input_rejected_with_line(void **state)
{
  (void)state;
  static const char nul_line[] = "1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n"
                                 "2 5 0 10 4 -1 -1 4 10\0-1 1 1 1 1 1 -1 -1 -1\n";
  char path[1024];
  snprintf(path, sizeof path, "%s/nul.swf", TEST_DIR);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  fwrite(nul_line, 1, sizeof nul_line - 1, f);
  fclose(f);
  morph_workload *wl = wl_new();
  assert_int_equal(morph_workload_load_swf(wl, path, NULL), MORPH_EPARSE);
  assert_non_null(strstr(morph_workload_errmsg(wl), "nul.swf:2: NUL byte at column 22"));
  morph_workload_destroy(wl);
  expect_swf_error("comments.swf", "; nothing\n\n; but comments\n", "comments.swf:3: no job record");
  expect_swf_error("garbage.swf", "\x7f\x45\x4c\x46\x02\x01\x01 \x03\x3e\n", "garbage.swf:1: field 1");
}

/* 2^31 - 1 processors overflowed an int on the way to units (UBSan). */
static void swf_values_beyond_limits_rejected(void **state)
{
  (void)state;
  expect_swf_error("procs.swf", "1 0 0 10 2147483647 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n",
                   "procs.swf:1: field 5 (allocated processors): 2147483647 units, above the limit");
  expect_swf_error("req.swf", "1 0 0 10 -1 -1 -1 1e12 10 -1 1 1 1 1 1 -1 -1 -1\n",
                   "req.swf:1: field 8 (requested processors)");
  expect_swf_error("run.swf", "1 0 0 1e12 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n",
                   "run.swf:1: field 4 (run time): above the limit");
}

/* --max-size has one meaning for every input: requests and limits above
 * it are cut to it; the first cut job is named. */
static void cap_sizes_cuts_requests_and_limits(void **state)
{
  (void)state;
  morph_workload *wl = wl_new();
  assert_int_equal(morph_workload_parse_json(wl,
                   "{\"jobs\": [{\"submit\": 0, \"kind\": \"malleable\", \"app\": \"cg\"},\n"
                   " {\"submit\": 1, \"kind\": \"fixed\", \"app\": \"nbody\", \"request\": 8},\n"
                   " {\"submit\": 2, \"kind\": \"flexible\", \"app\": \"jacobi\"}]}", "cap.json"),
                   MORPH_OK);
  assert_int_equal(morph_workload_cap_sizes(wl, 16), 2);
  assert_non_null(strstr(morph_workload_errmsg(wl), "job-0 (line 1) asked for 32"));
  assert_int_equal(wl->jobs[0].req_max, 16);
  assert_int_equal(wl->jobs[0].max, 16);
  assert_int_equal(wl->jobs[0].pref, 16);
  assert_int_equal(wl->jobs[1].req_max, 8);
  assert_int_equal(wl->jobs[2].req_min, 2);
  assert_int_equal(wl->jobs[2].max, 16);
  assert_int_equal(wl->jobs[2].pref, 4);
  assert_int_equal(morph_workload_cap_sizes(wl, 0), 0);
  morph_workload_destroy(wl);
}

/* The modelled MPI share is the efficiency lost to scaling: Amdahl with 10 %
 * serial work on 10 units runs 0.19 t1, efficiency 1 / 1.9. */
static void model_mpi_share_follows_efficiency(void **state)
{
  (void)state;
  morph_model m = {.type = MORPH_MODEL_AMDAHL, .t1 = 100, .serial = 0.1, .scale = 1};
  assert_true(morph_model_mpi_share(&m, 1) == 0);
  assert_true(fabs(morph_model_mpi_share(&m, 10) - (1 - 1 / 1.9)) < 1e-12);
  m.mpi_share = 0.2;
  assert_true(fabs(morph_model_mpi_share(&m, 1) - 0.2) < 1e-12);
  assert_true(fabs(morph_model_mpi_share(&m, 10) - (1 - 0.8 / 1.9)) < 1e-12);
  morph_app_info cg;
  assert_int_equal(morph_app_lookup("cg", &cg), MORPH_OK);
  assert_true(fabs(morph_model_mpi_share(&cg.model, 16) - (1 - 1 / (16 * 0.17))) < 1e-9);
}

/* Lublin-Feitelson: same seed, same trace; the load is reached; sizes stay
 * within the machine, a share of serial jobs and of powers of two, and the
 * daily cycle puts more arrivals in the afternoon than at night. */
static void lublin_generator_follows_the_model(void **state)
{
  (void)state;
  morph_workload *a = wl_new(), *b = wl_new();
  morph_lublin_options o;
  morph_lublin_options_init(&o);
  assert_int_equal(morph_lublin_options_shape(&o, "kth"), MORPH_OK);
  assert_int_equal(morph_lublin_options_shape(&o, "vax"), MORPH_EINVAL);
  o.njobs = 3000;
  o.load = 0.8;
  o.seed = 7;
  assert_int_equal(morph_workload_generate_lublin(a, &o), MORPH_OK);
  assert_int_equal(morph_workload_generate_lublin(b, &o), MORPH_OK);
  assert_int_equal(a->njobs, 3000);
  assert_true(fabs(morph_workload_offered_load(a, 100) - 0.8) < 0.02);
  size_t serial = 0, pow2 = 0, day = 0, night = 0;
  for (size_t i = 0; i < a->njobs; i++) {
    const morph_wjob *j = &a->jobs[i];
    assert_true(j->submit == b->jobs[i].submit && j->req_max == b->jobs[i].req_max);
    assert_in_range(j->req_max, 1, 100);
    serial += j->req_max == 1;
    pow2 += (j->req_max & (j->req_max - 1)) == 0;
    double hour = fmod(j->submit, 86400) / 3600;
    day += hour >= 12 && hour < 18;
    night += hour >= 0 && hour < 6;
  }
  assert_in_range(serial, 300, 900);
  assert_in_range(pow2, 1500, 3000);
  assert_true(day > 2 * night);
  morph_workload_destroy(a);
  morph_workload_destroy(b);
}

/* A workload written as SWF reads back with the same jobs. */
static void swf_write_then_read_back(void **state)
{
  (void)state;
  morph_workload *a = wl_new(), *b = wl_new();
  morph_lublin_options o;
  morph_lublin_options_init(&o);
  o.njobs = 200;
  assert_int_equal(morph_workload_generate_lublin(a, &o), MORPH_OK);
  char path[1024];
  snprintf(path, sizeof path, "%s/lublin.swf", TEST_DIR);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  assert_int_equal(morph_workload_write_swf(a, f, "test"), MORPH_OK);
  fclose(f);
  assert_int_equal(morph_workload_load_swf(b, path, NULL), MORPH_OK);
  assert_int_equal(b->njobs, a->njobs);
  for (size_t i = 0; i < a->njobs; i++) {
    assert_int_equal(b->jobs[i].req_max, a->jobs[i].req_max);
    double ta = morph_model_time(&a->jobs[i].model, a->jobs[i].req_max);
    double tb = morph_model_time(&b->jobs[i].model, b->jobs[i].req_max);
    assert_true(fabs(ta - tb) < 1e-6 * ta);
    assert_true(fabs((b->jobs[i].submit + floor(a->jobs[0].submit)) - floor(a->jobs[i].submit)) < 1e-9);
  }
  morph_workload_destroy(a);
  morph_workload_destroy(b);
}

/* Paper 000, section 5.3 and Table 5: the catalog's time curves give back
 * the published limits through the heuristic. */
static void gain_limits_reproduce_table5(void **state)
{
  (void)state;
  const char *apps[] = {"cg", "jacobi", "nbody", "hpg-aligner"};
  for (int i = 0; i < 4; i++) {
    morph_app_info a;
    assert_int_equal(morph_app_lookup(apps[i], &a), MORPH_OK);
    int lo, hi, pref;
    assert_int_equal(morph_gain_limits(a.model.table_size, a.model.table_time, a.model.table_len,
                                       10, &lo, &hi, &pref, NULL),
                     MORPH_OK);
    assert_int_equal(lo, a.min);
    assert_int_equal(pref, a.pref);
    assert_int_equal(hi, a.max);
  }
}

/* The paper's worked example: s(12) of HPG-aligner = (t(6) - t(12)) / t(3). */
static void gain_difference_uses_first_time(void **state)
{
  (void)state;
  int size[] = {3, 6, 12};
  double t[] = {100, 60, 50}, g[3];
  int lo, hi, pref;
  assert_int_equal(morph_gain_limits(size, t, 3, 10, &lo, &hi, &pref, g), MORPH_OK);
  assert_true(fabs(g[2] - 10.0) < 1e-12);
  assert_true(fabs(g[1] - 40.0) < 1e-12);
  assert_int_equal(morph_gain_limits(size, t, 0, 10, &lo, &hi, &pref, g), MORPH_EINVAL);
}

static void generator_deterministic_for_seed(void **state)
{
  (void)state;
  morph_workload *a = wl_new(), *b = wl_new(), *c = wl_new();
  morph_gen_options o;
  morph_gen_options_init(&o);
  o.njobs = 500;
  assert_int_equal(morph_workload_generate(a, &o), MORPH_OK);
  assert_int_equal(morph_workload_generate(b, &o), MORPH_OK);
  o.seed = 2;
  assert_int_equal(morph_workload_generate(c, &o), MORPH_OK);
  int differ = 0;
  for (size_t i = 0; i < 500; i++) {
    assert_true(a->jobs[i].submit == b->jobs[i].submit);
    assert_string_equal(a->jobs[i].app, b->jobs[i].app);
    differ |= a->jobs[i].submit != c->jobs[i].submit;
  }
  assert_true(differ);
  /* Poisson arrivals: the mean gap is close to the requested one. */
  double mean = a->jobs[499].submit / 499.0;
  assert_true(mean > 9.0 && mean < 11.0);
  morph_workload_destroy(a);
  morph_workload_destroy(b);
  morph_workload_destroy(c);
}

/* Table 7: only one application malleable; the kinds follow the
 * submission mode. Same arrivals and applications whatever the kinds. */
static void generator_one_malleable_app(void **state)
{
  (void)state;
  morph_workload *a = wl_new(), *b = wl_new();
  morph_gen_options o;
  morph_gen_options_init(&o);
  o.njobs = 200;
  o.moldable = 1;
  o.malleable_app = "nbody";
  assert_int_equal(morph_workload_generate(a, &o), MORPH_OK);
  o.malleable_app = NULL;
  o.malleable_share = 0;
  o.moldable = 0;
  assert_int_equal(morph_workload_generate(b, &o), MORPH_OK);
  for (size_t i = 0; i < a->njobs; i++) {
    int nb = !strcmp(a->jobs[i].app, "nbody");
    assert_int_equal(a->jobs[i].kind, nb ? MORPH_KIND_FLEXIBLE : MORPH_KIND_MOLDABLE);
    assert_int_equal(b->jobs[i].kind, MORPH_KIND_FIXED);
    assert_string_equal(a->jobs[i].app, b->jobs[i].app);
    assert_true(a->jobs[i].submit == b->jobs[i].submit);
    assert_true(a->jobs[i].req_max <= 32);
  }
  o.malleable_app = "nope";
  assert_int_equal(morph_workload_generate(a, &o), MORPH_EINVAL);
  morph_workload_destroy(a);
  morph_workload_destroy(b);
}

static void model_amdahl_downey_table_values(void **state)
{
  (void)state;
  morph_model m = {0};
  m.type = MORPH_MODEL_AMDAHL;
  m.t1 = 100;
  m.serial = 0.1;
  assert_true(fabs(morph_model_time(&m, 10) - 19.0) < 1e-9);
  m.type = MORPH_MODEL_DOWNEY;
  m.downey_a = 8;
  m.downey_sigma = 0;
  assert_true(fabs(morph_model_time(&m, 4) - 25.0) < 1e-9);
  assert_true(fabs(morph_model_time(&m, 64) - 12.5) < 1e-9);
  m.type = MORPH_MODEL_TABLE;
  m.table_len = 2;
  m.table_size[0] = 1, m.table_size[1] = 4;
  m.table_time[0] = 100, m.table_time[1] = 25;
  m.scale = 2;
  assert_true(fabs(morph_model_time(&m, 2) - 100.0) < 1e-9);
  assert_true(fabs(morph_model_time(&m, 8) - 50.0) < 1e-9);
}

static void check_counts_impossible_jobs(void **state)
{
  (void)state;
  morph_workload *wl = wl_new();
  assert_int_equal(morph_workload_parse_json(
                       wl,
                       "{\"jobs\": [{\"submit\": 0, \"kind\": \"fixed\", \"app\": \"cg\"},"
                       "{\"submit\": 1, \"kind\": \"flexible\", \"app\": \"cg\"}]}",
                       "i.json"),
                   MORPH_OK);
  size_t bad = 0;
  assert_int_equal(morph_workload_check(wl, 16, MORPH_IMPOSSIBLE_SKIP, &bad), MORPH_OK);
  assert_int_equal(bad, 1);
  assert_int_equal(morph_workload_check(wl, 16, MORPH_IMPOSSIBLE_REJECT, &bad), MORPH_ESIZE);
  assert_non_null(strstr(morph_workload_errmsg(wl), "job-0"));
  morph_workload_destroy(wl);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(json_bad_kind_names_line_and_field),
    cmocka_unit_test(json_bad_model_field_names_line),
    cmocka_unit_test(json_syntax_error_names_line_and_column),
    cmocka_unit_test(json_unknown_field_rejected),
    cmocka_unit_test(json_missing_submit_rejected),
    cmocka_unit_test(json_range_for_rigid_kind_rejected),
    cmocka_unit_test(json_limits_out_of_order_rejected),
    cmocka_unit_test(json_duplicate_name_rejected),
    cmocka_unit_test(json_defaults_follow_tables_5_and_6),
    cmocka_unit_test(json_save_load_roundtrip),
    cmocka_unit_test(json_unreadable_file_is_eio),
    cmocka_unit_test(json_matrix_resolved_against_the_file),
    cmocka_unit_test(json_matrix_errors_name_file_line_field),
    cmocka_unit_test(swf_import_keeps_sizes_and_times),
    cmocka_unit_test(swf_malleable_share_converts_jobs),
    cmocka_unit_test(swf_bad_field_names_file_line_field),
    cmocka_unit_test(swf_short_line_names_missing_field),
    cmocka_unit_test(swf_repeated_job_number_rejected),
    cmocka_unit_test(json_time_beyond_limit_names_line_and_field),
    cmocka_unit_test(swf_skipped_records_kept_by_name),
    cmocka_unit_test(swf_unsorted_records_sorted),
    cmocka_unit_test(swf_binary_input_rejected_with_line),
    cmocka_unit_test(swf_values_beyond_limits_rejected),
    cmocka_unit_test(cap_sizes_cuts_requests_and_limits),
    cmocka_unit_test(model_mpi_share_follows_efficiency),
    cmocka_unit_test(lublin_generator_follows_the_model),
    cmocka_unit_test(swf_write_then_read_back),
    cmocka_unit_test(gain_limits_reproduce_table5),
    cmocka_unit_test(gain_difference_uses_first_time),
    cmocka_unit_test(generator_deterministic_for_seed),
    cmocka_unit_test(generator_one_malleable_app),
    cmocka_unit_test(model_amdahl_downey_table_values),
    cmocka_unit_test(check_counts_impossible_jobs),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
