/* The schedule syntax of morph run: good entries are read exactly, bad ones
 * are refused with a message that names the entry (and, for files, the
 * line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "morph/error.h"
#include "launch/schedule.h"

static void test_list_of_iterations_and_times(void **state)
{
  (void)state;
  struct morph__launch_sched s = { 0 };
  char err[256] = "";
  assert_int_equal(morph__launch_sched_parse_list(&s, "4@it100, 2@it300,3@t5.5", err, sizeof err),
                   MORPH_OK);
  assert_int_equal(s.n, 3);
  assert_int_equal(s.e[0].size, 4);
  assert_int_equal(s.e[0].by_time, 0);
  assert_int_equal(s.e[0].iteration, 100);
  assert_int_equal(s.e[0].mechanism, -1);
  assert_int_equal(s.e[1].iteration, 300);
  assert_int_equal(s.e[2].by_time, 1);
  assert_true(s.e[2].at == 5.5);
  morph__launch_sched_free(&s);
}

static void test_mechanism_suffix(void **state)
{
  (void)state;
  struct morph__launch_sched_entry e;
  char err[256], text[64];
  assert_int_equal(morph__launch_sched_parse_entry("3@it7:relaunch", &e, err, sizeof err),
                   MORPH_OK);
  assert_int_equal(e.mechanism, MORPH__LAUNCH_MECH_RELAUNCH);
  morph__launch_sched_format(&e, text, sizeof text);
  assert_string_equal(text, "3@it7:relaunch");
  assert_int_equal(morph__launch_sched_parse_entry("1@t0", &e, err, sizeof err), MORPH_OK);
  assert_true(e.by_time && e.at == 0);
}

static void test_bad_entries_are_named(void **state)
{
  (void)state;
  static const char *const bad[] = {
    "4",      "@it3",   "0@it3",  "-1@it3", "x@it3", "4@", "4@it",  "4@it-1", "4@itx",
    "4@t",    "4@t-2",  "4@tx",   "4@x100", "4@it3:fast", "4@it3:", "4.5@it3", "4@t1e999",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct morph__launch_sched_entry e;
    char err[256] = "";
    assert_int_equal(morph__launch_sched_parse_entry(bad[i], &e, err, sizeof err), MORPH_EINVAL);
    char quoted[64];
    snprintf(quoted, sizeof quoted, "'%s'", bad[i]);
    assert_non_null(strstr(err, quoted));
  }
}

static void test_list_stops_at_the_bad_entry(void **state)
{
  (void)state;
  struct morph__launch_sched s = { 0 };
  char err[256] = "";
  assert_int_equal(morph__launch_sched_parse_list(&s, "4@it1,2@xyz,3@it9", err, sizeof err),
                   MORPH_EINVAL);
  assert_int_equal(s.n, 1);
  assert_non_null(strstr(err, "'2@xyz'"));
  morph__launch_sched_free(&s);
}

static char *write_file(const char *text)
{
  static char path[] = "/tmp/test-run-sched-XXXXXX";
  strcpy(path, "/tmp/test-run-sched-XXXXXX");
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
  close(fd);
  return path;
}

static void test_file_with_comments(void **state)
{
  (void)state;
  char *path = write_file("# grow, then shrink\n4@it100  # first\n\n2@it300, 3@t5.5\n   \n");
  struct morph__launch_sched s = { 0 };
  char err[256] = "";
  int rc = morph__launch_sched_parse_file(&s, path, err, sizeof err);
  unlink(path); /* before any assertion, so a failure leaves no file */
  assert_int_equal(rc, MORPH_OK);
  assert_int_equal(s.n, 3);
  assert_int_equal(s.e[1].size, 2);
  morph__launch_sched_free(&s);
}

static void test_file_error_names_line(void **state)
{
  (void)state;
  char *path = write_file("4@it100\n# ok\n2@it3OO\n");
  struct morph__launch_sched s = { 0 };
  char err[256] = "", where[300];
  int rc = morph__launch_sched_parse_file(&s, path, err, sizeof err);
  unlink(path);
  assert_int_equal(rc, MORPH_EINVAL);
  snprintf(where, sizeof where, "%s:3:", path);
  assert_non_null(strstr(err, where));
  assert_non_null(strstr(err, "'2@it3OO'"));
  morph__launch_sched_free(&s);
  assert_int_equal(morph__launch_sched_parse_file(&s, "/nonexistent/x", err, sizeof err),
                   MORPH_EIO);
}

static void test_limits(void **state)
{
  (void)state;
  struct morph__launch_sched s = { 0 };
  char err[256] = "";
  assert_int_equal(morph__launch_sched_parse_list(&s, "2@it1,9@it2", err, sizeof err), MORPH_OK);
  assert_int_equal(morph__launch_sched_check(&s, 1, 0, err, sizeof err), MORPH_OK);
  assert_int_equal(morph__launch_sched_check(&s, 1, 8, err, sizeof err), MORPH_EINVAL);
  assert_non_null(strstr(err, "'9@it2'"));
  assert_int_equal(morph__launch_sched_check(&s, 3, 0, err, sizeof err), MORPH_EINVAL);
  assert_non_null(strstr(err, "'2@it1'"));
  morph__launch_sched_free(&s);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_list_of_iterations_and_times),
    cmocka_unit_test(test_mechanism_suffix),
    cmocka_unit_test(test_bad_entries_are_named),
    cmocka_unit_test(test_list_stops_at_the_bad_entry),
    cmocka_unit_test(test_file_with_comments),
    cmocka_unit_test(test_file_error_names_line),
    cmocka_unit_test(test_limits),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
