/*
 * Communication matrices without MPI: Matrix Market round trips, the
 * variants a reader must accept, every malformed file with the file, line
 * and field in its message (and the matrix left as it was), and the
 * per-process files of a run: good, foreign, truncated, absent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "morph/prof.h"
#include "prof/rankfile.h"

static const char *path_of(const char *name)
{
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s/%s", TEST_DIR, name);
  return buf;
}

static const char *write_text(const char *name, const char *text)
{
  const char *p = path_of(name);
  FILE *f = fopen(p, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  return p;
}

static void save_then_load_gives_same_matrix(void **state)
{
  (void)state;
  morph_comm_matrix *m, *r;
  assert_int_equal(morph_comm_matrix_create(3, &m), MORPH_OK);
  m->bytes[0 * 3 + 1] = 4096;
  m->bytes[2 * 3 + 0] = 7;
  m->msgs[0 * 3 + 1] = 2;
  m->origin.crashed = 1;
  assert_int_equal(morph_comm_matrix_save(m, path_of("rt.bytes.mtx"), MORPH_CM_BYTES), MORPH_OK);
  assert_int_equal(morph_comm_matrix_save(m, path_of("rt.msgs.mtx"), MORPH_CM_MSGS), MORPH_OK);
  assert_int_equal(morph_comm_matrix_create(0, &r), MORPH_OK);
  assert_int_equal(morph_comm_matrix_load(r, path_of("rt.bytes.mtx"), MORPH_CM_BYTES), MORPH_OK);
  assert_int_equal(morph_comm_matrix_load(r, path_of("rt.msgs.mtx"), MORPH_CM_MSGS), MORPH_OK);
  assert_int_equal(r->n, 3);
  assert_int_equal(r->msgs[1], 2);
  assert_int_equal(morph_comm_matrix_total(r, MORPH_CM_BYTES), 0); /* the msgs load reset it */
  assert_int_equal(morph_comm_matrix_load(r, path_of("rt.bytes.mtx"), MORPH_CM_BYTES), MORPH_OK);
  assert_int_equal(r->bytes[1], 4096);
  assert_int_equal(r->bytes[6], 7);
  assert_int_equal(morph_comm_matrix_total(r, MORPH_CM_BYTES), 4103);
  morph_comm_matrix_destroy(m);
  morph_comm_matrix_destroy(r);
}

static void symmetric_real_and_pattern_accepted(void **state)
{
  (void)state;
  morph_comm_matrix *m;
  assert_int_equal(morph_comm_matrix_create(0, &m), MORPH_OK);
  const char *p = write_text("sym.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                        "% a comment\n\n2 2 2\n2 1 2.6\n2 2 1\n");
  assert_int_equal(morph_comm_matrix_load(m, p, MORPH_CM_BYTES), MORPH_OK);
  assert_int_equal(m->bytes[1], 3); /* (1,2) mirrored from (2,1), rounded */
  assert_int_equal(m->bytes[2], 3);
  assert_int_equal(m->bytes[3], 1);
  p = write_text("pat.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 1\n1 3\n");
  assert_int_equal(morph_comm_matrix_load(m, p, MORPH_CM_BYTES), MORPH_OK);
  assert_int_equal(m->n, 3);
  assert_int_equal(m->bytes[2], 1);
  morph_comm_matrix_destroy(m);
}

/* Each malformed file fails with MORPH_EPARSE, a message that contains
 * `want`, and the matrix unchanged (still the 2 x 2 one loaded first). */
static void expect_parse_error(morph_comm_matrix *m, const char *name, const char *text,
                               const char *want)
{
  const char *p = write_text(name, text);
  assert_int_equal(morph_comm_matrix_load(m, p, MORPH_CM_BYTES), MORPH_EPARSE);
  if (!strstr(morph_comm_matrix_errmsg(m), want))
    fail_msg("message '%s' lacks '%s'", morph_comm_matrix_errmsg(m), want);
  assert_int_equal(m->n, 2);
  assert_int_equal(m->bytes[1], 5);
}

static void malformed_files_name_line_and_field(void **state)
{
  (void)state;
  morph_comm_matrix *m;
  assert_int_equal(morph_comm_matrix_create(0, &m), MORPH_OK);
  const char *ok = write_text("ok.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 5\n");
  assert_int_equal(morph_comm_matrix_load(m, ok, MORPH_CM_BYTES), MORPH_OK);
  const char *h = "%%MatrixMarket matrix coordinate integer general\n";
  char buf[512];
  expect_parse_error(m, "e1.mtx", "", "e1.mtx:0: header: empty file");
  expect_parse_error(m, "e2.mtx", "1 2 3\n", "e2.mtx:1: banner: not a Matrix Market file");
  expect_parse_error(m, "e3.mtx", "%%MatrixMarket matrix array real general\n", "e3.mtx:1: format: 'array'");
  expect_parse_error(m, "e4.mtx", "%%MatrixMarket matrix coordinate complex general\n", "e4.mtx:1: field: 'complex'");
  expect_parse_error(m, "e5.mtx", "%%MatrixMarket matrix coordinate integer hermitian\n", "symmetry: 'hermitian'");
  snprintf(buf, sizeof buf, "%s%% c\n3 4 1\n", h);
  expect_parse_error(m, "e6.mtx", buf, "e6.mtx:3: columns: 3 rows but 4 columns");
  snprintf(buf, sizeof buf, "%s3 3 1\n1 4 9\n", h);
  expect_parse_error(m, "e7.mtx", buf, "e7.mtx:3: column: 4 is outside 1..3");
  snprintf(buf, sizeof buf, "%s3 3 2\n1 2 9\n", h);
  expect_parse_error(m, "e8.mtx", buf, "entries: 2 declared but the file ends after 1");
  snprintf(buf, sizeof buf, "%s3 3 1\n1 2 9\n2 1 4\n", h);
  expect_parse_error(m, "e9.mtx", buf, "e9.mtx:4: entries: more entries than the 1 declared");
  snprintf(buf, sizeof buf, "%s3 3 1\n1 2 -9\n", h);
  expect_parse_error(m, "e10.mtx", buf, "e10.mtx:3: value:");
  snprintf(buf, sizeof buf, "%s3 3 1\nx 2 9\n", h);
  expect_parse_error(m, "e11.mtx", buf, "e11.mtx:3: row: missing or not a number");
  snprintf(buf, sizeof buf, "%s3 3\n", h);
  expect_parse_error(m, "e12.mtx", buf, "e12.mtx:2: entries: missing");
  /* fuzz-matrix: 60000 rows made the loader ask for 2 x 28.8 GB. */
  snprintf(buf, sizeof buf, "%s60000 60000 1\n1 1 1\n", h);
  expect_parse_error(m, "e13.mtx", buf, "e13.mtx:2: rows: 60000 is outside 1..8192");
  assert_int_equal(morph_comm_matrix_load(m, path_of("absent.mtx"), MORPH_CM_BYTES), MORPH_EIO);
  assert_non_null(strstr(morph_comm_matrix_errmsg(m), "absent.mtx: cannot read"));
  morph_comm_matrix_destroy(m);
}

/* A per-process file as libmorph-prof writes it. */
static void write_rankfile(const char *dir, uint64_t tag, int n, int rank, int finished,
                           size_t cut)
{
  size_t len = sizeof(morph__rankfile) + sizeof(uint64_t) * 4 * (size_t)n;
  morph__rankfile *h = calloc(1, len);
  memcpy(h->magic, MORPH__RANKFILE_MAGIC, 8);
  h->version = MORPH__RANKFILE_VERSION;
  h->header_size = sizeof *h;
  h->tag = tag, h->world_size = n, h->world_rank = rank, h->finished = finished;
  h->start = (double)tag;
  morph__rankfile_array(h, MORPH__RF_BYTES)[(rank + 1) % n] = 100 * (uint64_t)(rank + 1);
  morph__rankfile_array(h, MORPH__RF_MSGS)[(rank + 1) % n] = 1;
  morph__rankfile_array(h, MORPH__RF_PULLED_BYTES)[(rank + 1) % n] = 8;
  char p[4096];
  snprintf(p, sizeof p, "%s/%016llx-%06d.prof", dir, (unsigned long long)tag, rank);
  FILE *f = fopen(p, "wb");
  assert_non_null(f);
  fwrite(h, 1, len - cut, f);
  fclose(f);
  free(h);
}

static const char *fresh_dir(const char *name)
{
  static char d[4096];
  snprintf(d, sizeof d, "%s/%s", TEST_DIR, name);
  char cmd[8300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", d, d);
  assert_int_equal(system(cmd), 0);
  return d;
}

static void collect_builds_one_matrix_per_world(void **state)
{
  (void)state;
  const char *d = fresh_dir("run1");
  for (int r = 0; r < 3; r++)
    write_rankfile(d, 7, 3, r, r == 1 ? 0 : 1, 0); /* rank 1 crashed */
  write_rankfile(d, 9, 2, 0, 2, 0);               /* a later world of 2, rank 1 absent */
  morph_comm_matrix **w;
  int n;
  char err[600];
  assert_int_equal(morph_prof_collect(d, &w, &n, err, sizeof err), MORPH_OK);
  assert_int_equal(n, 2);
  assert_int_equal(w[0]->n, 3);
  assert_int_equal(w[0]->bytes[0 * 3 + 1], 100);
  assert_int_equal(w[0]->bytes[1 * 3 + 2], 200);
  assert_int_equal(w[0]->bytes[1 * 3 + 0], 8); /* rank 0 pulled 8 bytes from 1 */
  assert_int_equal(w[0]->origin.finished, 2);
  assert_int_equal(w[0]->origin.crashed, 1);
  assert_int_equal(w[1]->n, 2);
  assert_int_equal(w[1]->origin.exited, 1);
  assert_int_equal(w[1]->origin.missing, 1);
  morph_prof_collect_free(w, n);
}

static void collect_rejects_foreign_truncated_and_empty(void **state)
{
  (void)state;
  morph_comm_matrix **w;
  int n;
  char err[600];
  const char *d = fresh_dir("run2");
  assert_int_equal(morph_prof_collect(d, &w, &n, err, sizeof err), MORPH_ENOENT);
  assert_non_null(strstr(err, "no traffic files"));
  write_rankfile(d, 5, 4, 0, 1, 9);
  assert_int_equal(morph_prof_collect(d, &w, &n, err, sizeof err), MORPH_EPARSE);
  assert_non_null(strstr(err, "truncated"));
  d = fresh_dir("run3");
  char p[4200];
  snprintf(p, sizeof p, "%s/x.prof", d);
  FILE *f = fopen(p, "w");
  fputs("this is not a traffic file, but long enough to hold a header of one ...........", f);
  fclose(f);
  assert_int_equal(morph_prof_collect(d, &w, &n, err, sizeof err), MORPH_EPARSE);
  assert_non_null(strstr(err, "x.prof: not a morph-prof traffic file"));
  assert_int_equal(morph_prof_collect(path_of("no-such-dir"), &w, &n, err, sizeof err), MORPH_EIO);
}

static void plot_writes_png_and_script(void **state)
{
  (void)state;
  morph_comm_matrix *m;
  assert_int_equal(morph_comm_matrix_create(4, &m), MORPH_OK);
  for (int i = 0; i < 4; i++)
    m->bytes[i * 4 + (i + 1) % 4] = 1000u << i;
  const char *png = path_of("heat.png");
  unlink(png);
  assert_int_equal(morph_comm_matrix_plot(m, png, MORPH_CM_BYTES, "test"), MORPH_OK);
  struct stat st;
  assert_int_equal(stat(png, &st), 0);
  assert_true(st.st_size > 1000);
  assert_int_equal(stat(path_of("heat.gp"), &st), 0);
  assert_int_equal(morph_comm_matrix_plot(m, path_of("heat.svg"), MORPH_CM_BYTES, "x"), MORPH_EINVAL);
  morph_comm_matrix_destroy(m);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(save_then_load_gives_same_matrix),
    cmocka_unit_test(symmetric_real_and_pattern_accepted),
    cmocka_unit_test(malformed_files_name_line_and_field),
    cmocka_unit_test(collect_builds_one_matrix_per_world),
    cmocka_unit_test(collect_rejects_foreign_truncated_and_empty),
    cmocka_unit_test(plot_writes_png_and_script),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
