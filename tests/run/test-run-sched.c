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

/* Host clauses: grows onto hosts, shrinks off hosts, moves; read back in
 * the same words and sent as the protocol's host lists. */
static void test_host_clauses(void **state)
{
  (void)state;
  struct morph__launch_sched s = { 0 };
  char err[256] = "", text[256], hosts[256], from[256];
  assert_int_equal(morph__launch_sched_parse_list(&s, "4@it10 onto node2, 2@it20:live off "
                   "node2:1+node3:1, move@it30 off node1 onto node3", err, sizeof err), MORPH_OK);
  assert_int_equal(s.n, 3);
  assert_string_equal(s.e[0].onto, "node2");
  assert_string_equal(s.e[1].off, "node2:1+node3:1");
  assert_int_equal(s.e[2].move, 1);
  morph__launch_sched_format(&s.e[2], text, sizeof text);
  assert_string_equal(text, "move@it30 off node1 onto node3");
  morph__launch_sched_format(&s.e[1], text, sizeof text);
  assert_string_equal(text, "2@it20:live off node2:1+node3:1");
  assert_int_equal(morph__launch_sched_check_clauses(&s, 2, err, sizeof err), MORPH_OK);
  /* A bare host takes every process of the change. */
  assert_int_equal(morph__launch_sched_wire(&s.e[0], 2, hosts, from, sizeof hosts), MORPH_OK);
  assert_string_equal(hosts, "node2:2");
  assert_string_equal(from, "");
  assert_int_equal(morph__launch_sched_wire(&s.e[1], 4, hosts, from, sizeof hosts), MORPH_OK);
  assert_string_equal(hosts, "node2,node3");
  assert_int_equal(morph__launch_sched_wire(&s.e[2], 2, hosts, from, sizeof hosts), MORPH_OK);
  assert_string_equal(hosts, "node3");
  assert_string_equal(from, "node1");
  const char *job[] = {"node1", "node2", "node3"};
  assert_int_equal(morph__launch_sched_check_known(&s, job, 3, "--hostfile hf", err, sizeof err),
                   MORPH_OK);
  assert_int_equal(morph__launch_sched_check_known(&s, job, 2, "--hostfile hf", err, sizeof err),
                   MORPH_ENOENT);
  assert_non_null(strstr(err, "'2@it20:live off node2:1+node3:1': 'node3' is not a host of the "
                              "job (--hostfile hf: node1, node2)"));
  morph__launch_sched_free(&s);
}

/* Clauses that do not fit the step are refused naming it. */
static void test_bad_host_clauses(void **state)
{
  (void)state;
  const struct { const char *list, *why; } bad[] = {
    {"4@it1 off node2", "'off' names the hosts of leavers, but this step does not shrink"},
    {"1@it1 onto node2", "'onto' names joiners' hosts, but this step shrinks"},
    {"2@it1 onto node2", "the size does not change"},
    {"5@it1 onto node2:1+node3:1", "must name 3 process(es), the joiners"},
    {"move@it1 off node1:2 onto node3:1", "must name 2 process(es), the processes moved"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct morph__launch_sched s = { 0 };
    char err[256] = "";
    assert_int_equal(morph__launch_sched_parse_list(&s, bad[i].list, err, sizeof err), MORPH_OK);
    assert_int_equal(morph__launch_sched_check_clauses(&s, 2, err, sizeof err), MORPH_EINVAL);
    if (!strstr(err, bad[i].why))
      fail_msg("%s: %s", bad[i].list, err);
    morph__launch_sched_free(&s);
  }
  const char *unparsable[] = {"move@it1 onto node3", "4@it1 into node2", "4@it1 onto",
                              "4@it1 onto node2 onto node3", "4@it1 onto node2:x",
                              "move@it1 off node1 onto node1", "4@it1 onto a++b"};
  for (size_t i = 0; i < sizeof unparsable / sizeof unparsable[0]; i++) {
    struct morph__launch_sched_entry e;
    char err[256] = "";
    int rc = morph__launch_sched_parse_entry(unparsable[i], &e, err, sizeof err);
    if (rc != MORPH_EINVAL || !strstr(err, unparsable[i]))
      fail_msg("%s: rc %d, '%s'", unparsable[i], rc, err);
  }
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
    cmocka_unit_test(test_host_clauses),
    cmocka_unit_test(test_bad_host_clauses),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
