/* The watch's verdict on hosts lost after the job left them (watch.h),
 * from hand-made host states: no session is started. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "launch/watch.h"

/* A host whose last count came at `seen` (-1: never started). */
static struct morph__launch_host host(const char *name, int count, double seen)
{
  struct morph__launch_host h = {.pid = 0, .fd = -1, .count = count, .seen = seen, .ended = -1};
  snprintf(h.name, sizeof h.name, "%s", name);
  return h;
}

static int idle_lost(struct morph__launch_host *h, int n, double now, char *names, size_t size)
{
  struct morph__launch_watch w = {.h = h, .n = n};
  return morph__launch_watch_idle_lost(&w, now, names, size);
}

static void test_host_left_then_lost_is_idle(void **state)
{
  (void)state;
  struct morph__launch_host h[] = {host("node1", 2, 99.5), host("node2", 2, 99.8),
                                   host("node3", 0, 80.0)};
  char names[64];
  assert_int_equal(idle_lost(h, 3, 100.0, names, sizeof names), 1);
  assert_string_equal(names, "node3");
}

static void test_host_lost_with_processes_is_not_idle(void **state)
{
  (void)state;
  struct morph__launch_host h[] = {host("node1", 2, 99.5), host("node2", 0, 80.0),
                                   host("node3", 2, 80.0)};
  char names[64];
  assert_int_equal(idle_lost(h, 3, 100.0, names, sizeof names), 0);
}

static void test_silent_for_less_than_the_limit_is_not_lost(void **state)
{
  (void)state;
  struct morph__launch_host h[] = {host("node1", 2, 99.5),
                                   host("node3", 0, 100.0 - MORPH__WATCH_SILENT_S + 1)};
  char names[64];
  assert_int_equal(idle_lost(h, 2, 100.0, names, sizeof names), 0);
  assert_string_equal(names, "");
}

/* The host died a moment ago: its session ended (sshd went with it) and
 * has not counted since, well before the silence limit. */
static void test_session_ended_after_last_count_is_lost(void **state)
{
  (void)state;
  struct morph__launch_host h[] = {host("node1", 2, 99.5), host("node3", 0, 98.0)};
  h[1].ended = 98.4;
  char names[64];
  assert_int_equal(idle_lost(h, 2, 100.0, names, sizeof names), 1);
  assert_string_equal(names, "node3");
  h[1].seen = 99.0; /* a new session has counted since */
  assert_int_equal(idle_lost(h, 2, 100.0, names, sizeof names), 0);
}

static void test_never_answered_is_not_idle(void **state)
{
  (void)state;
  struct morph__launch_host h[] = {host("node1", 2, 99.5), host("node3", -1, 10.0)};
  char names[64];
  assert_int_equal(idle_lost(h, 2, 100.0, names, sizeof names), 0);
}

static void test_several_idle_hosts_are_named(void **state)
{
  (void)state;
  struct morph__launch_host h[] = {host("node1", 0, 10.0), host("node2", 4, 99.9),
                                   host("node3", 0, 20.0)};
  char names[64];
  assert_int_equal(idle_lost(h, 3, 100.0, names, sizeof names), 2);
  assert_string_equal(names, "node1, node3");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_host_left_then_lost_is_idle),
    cmocka_unit_test(test_host_lost_with_processes_is_not_idle),
    cmocka_unit_test(test_silent_for_less_than_the_limit_is_not_lost),
    cmocka_unit_test(test_session_ended_after_last_count_is_lost),
    cmocka_unit_test(test_never_answered_is_not_idle),
    cmocka_unit_test(test_several_idle_hosts_are_named),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
