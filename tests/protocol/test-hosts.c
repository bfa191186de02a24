/* Host lists (proto/hosts.h): both wire forms parse to the same runs, the
 * short form comes back, bad entries are refused whole, a list that does
 * not fit is never written cut short, and host names match up to a
 * domain. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "morph/error.h"
#include "proto/hosts.h"

static void test_long_and_short_forms_agree(void **state)
{
  (void)state;
  morph__hostlist a, b;
  morph__hostlist_init(&a);
  morph__hostlist_init(&b);
  assert_int_equal(morph__hostlist_parse(&a, "node2,node2,node3,node2"), MORPH_OK);
  assert_int_equal(morph__hostlist_parse(&b, "node2:2,node3,node2:1"), MORPH_OK);
  assert_int_equal(a.n, 3);
  assert_int_equal(b.n, 3);
  char fa[128], fb[128];
  assert_int_equal(morph__hostlist_format(&a, fa, sizeof fa), MORPH_OK);
  assert_int_equal(morph__hostlist_format(&b, fb, sizeof fb), MORPH_OK);
  assert_string_equal(fa, "node2:2,node3,node2");
  assert_string_equal(fa, fb);
  assert_int_equal(morph__hostlist_total(&a), 4);
  assert_int_equal(morph__hostlist_on(&a, "node2"), 3);
  assert_int_equal(morph__hostlist_on(&a, "node9"), 0);
  morph__hostlist_free(&a);
  morph__hostlist_free(&b);
}

static void test_empty_list(void **state)
{
  (void)state;
  morph__hostlist l;
  morph__hostlist_init(&l);
  assert_int_equal(morph__hostlist_parse(&l, ""), MORPH_OK);
  assert_int_equal(morph__hostlist_parse(&l, NULL), MORPH_OK);
  assert_int_equal(l.n, 0);
  char f[8] = "x";
  assert_int_equal(morph__hostlist_format(&l, f, sizeof f), MORPH_OK);
  assert_string_equal(f, "");
  morph__hostlist_free(&l);
}

static void test_bad_entries_refused_whole(void **state)
{
  (void)state;
  const char *bad[] = {"node1,,node2", "node1,", ",node1", "node1:0", "node1:x", "node1:-2",
                       ":3", "node1:2000000",
                       "a-host-name-that-is-far-too-long-for-any-cluster-node-name-at-all-x"};
  morph__hostlist l;
  morph__hostlist_init(&l);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    assert_int_equal(morph__hostlist_parse(&l, "ok:2"), MORPH_OK);
    assert_int_equal(morph__hostlist_parse(&l, bad[i]), MORPH_EPARSE);
    assert_int_equal(l.n, 0);
  }
  assert_int_equal(morph__hostlist_add(&l, "", 1), MORPH_EINVAL);
  assert_int_equal(morph__hostlist_add(&l, "a", -1), MORPH_EINVAL);
  assert_int_equal(morph__hostlist_add(&l, "a", 0), MORPH_OK);
  assert_int_equal(l.n, 0);
  morph__hostlist_free(&l);
}

static void test_format_never_cut_short(void **state)
{
  (void)state;
  morph__hostlist l;
  morph__hostlist_init(&l);
  for (int i = 0; i < 40; i++)
    assert_int_equal(morph__hostlist_add(&l, i % 2 ? "nodeA" : "nodeB", 1), MORPH_OK);
  char small[32];
  assert_int_equal(morph__hostlist_format(&l, small, sizeof small), MORPH_EINVAL);
  assert_string_equal(small, "");
  morph__hostlist_free(&l);
}

static void test_same_host_up_to_domain(void **state)
{
  (void)state;
  assert_true(morph__host_same("node1", "node1"));
  assert_true(morph__host_same("node1", "node1.cluster"));
  assert_true(morph__host_same("node1.cluster", "node1"));
  assert_false(morph__host_same("node1.a", "node1.b"));
  assert_false(morph__host_same("node1", "node11"));
  assert_false(morph__host_same("node1", "node2.cluster"));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_long_and_short_forms_agree),
      cmocka_unit_test(test_empty_list),
      cmocka_unit_test(test_bad_entries_refused_whole),
      cmocka_unit_test(test_format_never_cut_short),
      cmocka_unit_test(test_same_host_up_to_domain),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
