/* The hostfile line shared by morphd's pool, morph run's host watcher and
 * its MPICH host list (src/common/hostfile.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/hostfile.h"
#include "morph/error.h"

static int parse(const char *line, struct morph__hostline *h)
{
  char err[128] = "";
  return morph__hostline_parse(line, h, err, sizeof err);
}

static void open_mpi_form_gives_slots(void **state)
{
  (void)state;
  struct morph__hostline h;
  assert_int_equal(parse("node1 slots=2\n", &h), 1);
  assert_string_equal(h.host, "node1");
  assert_int_equal(h.slots, 2);
}

static void hydra_form_gives_slots(void **state)
{
  (void)state;
  struct morph__hostline h;
  assert_int_equal(parse("  node2:4\r\n", &h), 1);
  assert_string_equal(h.host, "node2");
  assert_int_equal(h.slots, 4);
}

static void no_count_is_zero(void **state)
{
  (void)state;
  struct morph__hostline h;
  assert_int_equal(parse("node3", &h), 1);
  assert_string_equal(h.host, "node3");
  assert_int_equal(h.slots, 0);
}

static void max_slots_is_not_a_count(void **state)
{
  (void)state;
  struct morph__hostline h;
  assert_int_equal(parse("node5 max_slots=4 slots=2\n", &h), 1);
  assert_int_equal(h.slots, 2);
  assert_int_equal(parse("node6 max_slots=4\n", &h), 1);
  assert_int_equal(h.slots, 0);
}

static void comment_is_not_read(void **state)
{
  (void)state;
  struct morph__hostline h;
  assert_int_equal(parse("# node1 slots=2\n", &h), 0);
  assert_int_equal(parse("   \t\n", &h), 0);
  assert_int_equal(parse("", &h), 0);
  assert_int_equal(parse("node7 # slots=9\n", &h), 1);
  assert_int_equal(h.slots, 0);
  assert_int_equal(parse("node8 slots=3# was 9\n", &h), 1);
  assert_int_equal(h.slots, 3);
}

static void bad_count_refused(void **state)
{
  (void)state;
  struct morph__hostline h;
  char err[128];
  const char *bad[] = {"n slots=many", "n slots=0", "n slots=", "n:0", "n:x", "n:2x",
                       "n slots=100001"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    err[0] = '\0';
    assert_int_equal(morph__hostline_parse(bad[i], &h, err, sizeof err), MORPH_EPARSE);
    assert_non_null(strstr(err, "slots"));
  }
}

static void long_name_refused(void **state)
{
  (void)state;
  struct morph__hostline h;
  char line[100], err[128];
  memset(line, 'a', 64);
  line[64] = '\0';
  assert_int_equal(morph__hostline_parse(line, &h, err, sizeof err), MORPH_EPARSE);
  assert_non_null(strstr(err, "longer than 63"));
  line[63] = '\0';
  assert_int_equal(morph__hostline_parse(line, &h, err, sizeof err), 1);
  assert_int_equal(strlen(h.host), 63);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(open_mpi_form_gives_slots), cmocka_unit_test(hydra_form_gives_slots),
    cmocka_unit_test(no_count_is_zero),          cmocka_unit_test(max_slots_is_not_a_count),
    cmocka_unit_test(comment_is_not_read),       cmocka_unit_test(bad_count_refused),
    cmocka_unit_test(long_name_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
