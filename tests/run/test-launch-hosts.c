/* Where a relaunch puts the job's processes (launch/hosts.h): the
 * hostfile morph run writes for mpirun after grows and shrinks, live or
 * by relaunch, from a hand-made launch context (no mpirun, no watcher:
 * the program is unknown, so no host is watched). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch/hosts.h"
#include "launch/watch.h"
#include "morph/error.h"

struct fixture {
  struct morph__launch_opts o;
  struct morph__launch r;
  char user[PATH_MAX + 16];
};

/* A launch of np processes on the hostfile `lines`. */
static struct fixture *start(const char *lines, int np)
{
  struct fixture *f = calloc(1, sizeof *f);
  snprintf(f->r.dir, sizeof f->r.dir, "/tmp/test-launch-hosts-XXXXXX");
  assert_non_null(mkdtemp(f->r.dir));
  snprintf(f->user, sizeof f->user, "%s/user-hostfile", f->r.dir);
  FILE *h = fopen(f->user, "w");
  assert_non_null(h);
  fputs(lines, h);
  fclose(h);
  f->o.cmd.hostfile = f->user;
  f->r.opt = &f->o;
  f->r.log = (morph__sayer){.prog = "test", .verbose = 0};
  assert_int_equal(morph__launch_hosts_init(&f->r, np), MORPH_OK);
  return f;
}

/* mpirun's hostfile now, as one string. */
static const char *written(struct fixture *f)
{
  static char buf[1024];
  FILE *h = fopen(f->o.cmd.hostfile, "r");
  assert_non_null(h);
  size_t n = fread(buf, 1, sizeof buf - 1, h);
  buf[n] = '\0';
  fclose(h);
  return buf;
}

static void finish(struct fixture *f)
{
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s", f->r.hostdir);
  morph__launch_hosts_free(&f->r);
  if (dir[0])
    assert_int_equal(access(dir, F_OK), -1); /* the hostfile's folder is gone */
  unlink(f->user);
  rmdir(f->r.dir);
  free(f);
}

static morph__msg ack(int from, int to, const char *hosts)
{
  morph__msg m;
  morph__msg_init(&m, MORPH__MSG_ACK);
  m.old_size = from, m.new_size = to;
  snprintf(m.hosts, sizeof m.hosts, "%s", hosts);
  return m;
}

/* A Slurm job's script names its own node only: the relaunch onto the
 * node merged into the job puts 2 processes there, and the shrink off
 * it puts the job back on the batch host. */
static void test_relaunch_grow_onto_named_host_then_shrink_off_it(void **state)
{
  (void)state;
  struct fixture *f = start("node1 slots=2\n", 2);
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 4, "node2,node2"), MORPH_OK);
  assert_string_equal(written(f), "node1 slots=2\nnode2 slots=2\n");
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 2, "node2:2"), MORPH_OK);
  assert_string_equal(written(f), "node1 slots=2\n");
  finish(f);
}

/* Grown live onto node3 (not the hostfile's next line): a relaunch
 * keeps node1 and node3 first, then the rest of the user's hosts. */
static void test_relaunch_keeps_hosts_of_a_live_grow(void **state)
{
  (void)state;
  struct fixture *f = start("node1 slots=2\nnode2 slots=2\nnode3 slots=2\n", 2);
  morph__msg a = ack(2, 4, "node3:2");
  morph__launch_hosts_resized(&f->r, &a);
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 4, ""), MORPH_OK);
  assert_string_equal(written(f), "node1 slots=2\nnode3 slots=2\nnode2 slots=2\n");
  finish(f);
}

/* No hosts named: a grow takes the first free slots of the hostfile, a
 * shrink drops the last processes; a live shrink's leavers go. */
static void test_relaunch_without_names_follows_the_hostfile(void **state)
{
  (void)state;
  struct fixture *f = start("node1:2\nnode2:2\nnode3:2\n", 4);
  morph__msg a = ack(4, 2, "node1:2");
  morph__launch_hosts_resized(&f->r, &a);
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 6, NULL), MORPH_OK);
  assert_string_equal(written(f), "node2 slots=2\nnode1 slots=2\nnode3 slots=2\n");
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 3, NULL), MORPH_OK);
  assert_string_equal(written(f), "node2 slots=2\nnode1 slots=1\nnode3 slots=2\n");
  finish(f);
}

/* morphd moves a job at 6 on node1..3 off node3 by relaunch (the RESIZE
 * names node3:2): the new mpirun must not know node3 (Open MPI would start
 * a daemon there and end the job when node3 dies). A grow back onto it
 * (named) returns it. A host left in part keeps its other slots. */
static void test_relaunch_shrink_leaves_named_host_out(void **state)
{
  (void)state;
  struct fixture *f = start("node1 slots=2\nnode2 slots=2\nnode3 slots=2\n", 6);
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 4, "node3:2"), MORPH_OK);
  assert_string_equal(written(f), "node1 slots=2\nnode2 slots=2\n");
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 3, "node2:1"), MORPH_OK);
  assert_string_equal(written(f), "node1 slots=2\nnode2 slots=1\n");
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 5, "node3:2"), MORPH_OK);
  assert_string_equal(written(f), "node1 slots=2\nnode2 slots=1\nnode3 slots=2\n");
  finish(f);
}

/* A live shrink off a host does not leave it for good: a later relaunch
 * still lists it after the placement, for live grows. */
static void test_live_shrink_keeps_host_for_later_grows(void **state)
{
  (void)state;
  struct fixture *f = start("node1 slots=2\nnode2 slots=2\nnode3 slots=2\n", 6);
  morph__msg a = ack(6, 4, "node3:2");
  morph__launch_hosts_resized(&f->r, &a);
  assert_int_equal(morph__launch_hosts_relaunch(&f->r, 4, ""), MORPH_OK);
  assert_string_equal(written(f), "node1 slots=2\nnode2 slots=2\nnode3 slots=2\n");
  finish(f);
}

/* The watcher forgets hosts left (a name that only starts like one of
 * them stays). */
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

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_relaunch_grow_onto_named_host_then_shrink_off_it),
    cmocka_unit_test(test_relaunch_keeps_hosts_of_a_live_grow),
    cmocka_unit_test(test_relaunch_without_names_follows_the_hostfile),
    cmocka_unit_test(test_relaunch_shrink_leaves_named_host_out),
    cmocka_unit_test(test_live_shrink_keeps_host_for_later_grows),
    cmocka_unit_test(test_watch_forgets_the_hosts_left),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
