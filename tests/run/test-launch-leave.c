/* The hostfile of a relaunch that leaves hosts (src/launch/leave.h), and
 * the watch forgetting those hosts (watch.h): files in a temporary folder,
 * no session is started. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch/leave.h"
#include "launch/watch.h"
#include "morph/error.h"

static char dir[] = "/tmp/test-launch-leave.XXXXXX";
static char in[64], out[64];

static void put(const char *text)
{
  FILE *f = fopen(in, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

static char *slurp(const char *path)
{
  static char buf[1024];
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static int leave(const char *hosts, char *gone, char *err)
{
  unlink(out);
  return morph__launch_hostfile_leave(in, hosts, out, gone, 64, err, 256);
}

/* morphd's hostfile of a job at 6 on node1..3: node3's two leave. */
static void test_host_left_whole_is_dropped(void **state)
{
  (void)state;
  char gone[64], err[256];
  put("# job 1\nnode1 slots=2\nnode2 slots=2\nnode3 slots=2\n");
  assert_int_equal(leave("node3:2", gone, err), MORPH_OK);
  assert_string_equal(slurp(out), "# job 1\nnode1 slots=2\nnode2 slots=2\n");
  assert_string_equal(gone, "node3");
}

static void test_host_left_in_part_keeps_the_rest(void **state)
{
  (void)state;
  char gone[64], err[256];
  put("node1:4\nnode2 slots=2 max_slots=4\nnode3\n");
  assert_int_equal(leave("node1,node3,node2:2", gone, err), MORPH_OK);
  assert_string_equal(slurp(out), "node1 slots=3\n");
  assert_string_equal(gone, "node2, node3");
}

static void test_errors_leave_no_file(void **state)
{
  (void)state;
  char gone[64], err[256];
  put("node1 slots=2\nnode2 slots=2\n");
  assert_int_equal(leave("node9:1", gone, err), MORPH_ENOENT);
  assert_non_null(strstr(err, "node9, where processes leave, is not a host of it"));
  assert_int_equal(leave("node2:3", gone, err), MORPH_ENOENT);
  assert_int_equal(leave("node1:2,node2:2", gone, err), MORPH_EINVAL);
  assert_non_null(strstr(err, "no host would be left"));
  assert_int_equal(leave("node1:x", gone, err), MORPH_EPARSE);
  assert_null(slurp(out));
  assert_string_equal(gone, "");
  put("node1 slots=2\nnode2 slots=zero\n");
  assert_int_equal(leave("node1:1", gone, err), MORPH_EPARSE);
  assert_non_null(strstr(err, ":2: "));
  assert_null(slurp(out));
  unlink(in);
  assert_int_equal(leave("node1:1", gone, err), MORPH_EIO);
}

/* The way back: a grow onto node3, which the job left, appends it; hosts
 * the file names stay as they are; nothing new writes nothing. */
static void test_join_appends_only_hosts_left(void **state)
{
  (void)state;
  char added[64], err[256];
  put("node1 slots=2\nnode2 slots=2\n");
  unlink(out);
  assert_int_equal(morph__launch_hostfile_join(in, "node3,node2,node3", out, added, 64, err, 256),
                   MORPH_OK);
  assert_string_equal(slurp(out), "node1 slots=2\nnode2 slots=2\nnode3 slots=2\n");
  assert_string_equal(added, "node3");
  unlink(out);
  assert_int_equal(morph__launch_hostfile_join(in, "node2:2", out, added, 64, err, 256), MORPH_OK);
  assert_string_equal(added, "");
  assert_null(slurp(out));
  assert_int_equal(morph__launch_hostfile_join(in, "node2:x", out, added, 64, err, 256),
                   MORPH_EPARSE);
}

static void test_watch_forgets_the_hosts_left(void **state)
{
  (void)state;
  struct morph__launch_host h[4];
  const char *names[] = {"node1", "node2", "node3", "node33"};
  for (int i = 0; i < 4; i++) {
    memset(&h[i], 0, sizeof h[i]);
    h[i].fd = -1;
    snprintf(h[i].name, sizeof h[i].name, "%s", names[i]);
  }
  struct morph__launch_watch w = {.h = h, .n = 4};
  assert_int_equal(morph__launch_watch_drop(&w, "node3, node1"), 2);
  assert_int_equal(w.n, 2);
  assert_string_equal(w.h[0].name, "node2");
  assert_string_equal(w.h[1].name, "node33");
  assert_int_equal(morph__launch_watch_drop(&w, ""), 0);
}

static void test_watch_takes_back_hosts_rejoined(void **state)
{
  (void)state;
  struct morph__launch_watch w = {.h = NULL, .n = 0};
  assert_int_equal(morph__launch_watch_add(&w, "node3"), MORPH_OK);
  assert_int_equal(w.n, 0); /* it watches nothing: the job runs here only */
  snprintf(w.script, sizeof w.script, "echo 0");
  assert_int_equal(morph__launch_watch_add(&w, "node3, node4,node3"), MORPH_OK);
  assert_int_equal(w.n, 2);
  assert_string_equal(w.h[0].name, "node3");
  assert_string_equal(w.h[1].name, "node4");
  assert_int_equal(w.h[1].fd, -1);
  assert_int_equal(w.h[1].count, -1);
  morph__launch_watch_close(&w);
}

int main(void)
{
  if (!mkdtemp(dir))
    return 1;
  snprintf(in, sizeof in, "%s/hosts", dir);
  snprintf(out, sizeof out, "%s/hosts.1", dir);
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_host_left_whole_is_dropped),
    cmocka_unit_test(test_host_left_in_part_keeps_the_rest),
    cmocka_unit_test(test_errors_leave_no_file),
    cmocka_unit_test(test_join_appends_only_hosts_left),
    cmocka_unit_test(test_watch_forgets_the_hosts_left),
    cmocka_unit_test(test_watch_takes_back_hosts_rejoined),
  };
  int rc = cmocka_run_group_tests(tests, NULL, NULL);
  unlink(in);
  unlink(out);
  rmdir(dir);
  return rc;
}
