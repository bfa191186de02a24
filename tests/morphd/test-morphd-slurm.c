/*
 * The slurm backend (src/rms/slurm*.c) against a libslurm stand-in
 * (slurm-mock.c): what it does when Slurm's tables change between two of
 * its pictures, without a Slurm cluster. Each cmocka_unit_test is its own
 * ctest test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/backend.h"
#include "slurm-mock.h"

static const morph__sayer quiet = {.prog = "test", .verbose = 0};

static morph__backend *open_backend(void)
{
  morph__backend_conf conf = {.log = &quiet};
  morph__backend *b = NULL;
  char err[256];
  setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1); /* the mock never reads it */
  assert_int_equal(morph__slurm_ops.open(&conf, &b, err, sizeof err), MORPH_OK);
  return b;
}

/* *job: job `id`, running in the mock, claimed by the backend as morphd's. */
static void claim(morph__backend *b, morph__job *job, long long id, int size)
{
  morph__job_init(job);
  job->id = id, job->size = size;
  char err[256] = "";
  assert_int_equal(morph__slurm_ops.claim(b, job, err, sizeof err), MORPH_OK);
}

/* A backend on a fresh mock that claimed job 10, running on nodes 0 to
 * `last` (2 processes a node). */
static morph__backend *open_claiming(morph__job *job, int last)
{
  mock_reset();
  mock_job(10, JOB_RUNNING, 0, last);
  morph__backend *b = open_backend();
  claim(b, job, 10, 2 * (last + 1));
  return b;
}

/* Drops the claimed job and closes the backend. */
static void close_claimed(morph__backend *b, morph__job *job)
{
  morph__slurm_ops.drop(b, job);
  morph__job_clear(job);
  morph__slurm_ops.close(b);
}

/* The next event within `seconds` (the backend reads Slurm at most every
 * second while it has a claimed job, an expander's record every 0.3 s
 * while a grow waits); 0 if none came. */
static int next_within(morph__backend *b, double seconds, morph__backend_event *ev)
{
  double until = morph__wall() + seconds;
  while (morph__wall() < until) {
    if (morph__slurm_ops.next(b, ev) == 1)
      return 1;
    usleep(20000);
  }
  return 0;
}

/* A job that is not morphd's comes into the queue while morphd has a job
 * on Slurm: one QUEUE event names it (morphd decides at once instead of
 * at its interval), and no second one while it keeps waiting. */
static void queue_event_for_new_pending_job(void **state)
{
  (void)state;
  morph__job job;
  morph__backend *b = open_claiming(&job, 0);
  morph__backend_event ev;
  assert_int_equal(next_within(b, 1.3, &ev), 0); /* nothing waits */
  slurm_job_info_t *j = mock_job(7, JOB_PENDING, -1, -1);
  j->num_nodes = 2;
  j->state_reason = WAIT_RESOURCES;
  assert_int_equal(next_within(b, 1.5, &ev), 1);
  assert_int_equal(ev.kind, MORPH__BE_QUEUE);
  assert_non_null(strstr(ev.text, "job 7 waits"));
  assert_int_equal(next_within(b, 1.3, &ev), 0); /* the same job: no new event */
  /* A job held by a dependency does not wait for nodes: no event. */
  j = mock_job(8, JOB_PENDING, -1, -1);
  j->state_reason = WAIT_DEPENDENCY;
  j->dependency = "afterok:7";
  assert_int_equal(next_within(b, 1.3, &ev), 0);
  close_claimed(b, &job);
}

/* A morph job on node1 grows onto node3; while its expander is pending,
 * Slurm starts another job on node3. The expander is cancelled at once
 * (not after the 10 s a grant may take) and the grow is refused. */
static void expander_cancelled_when_its_node_is_taken(void **state)
{
  (void)state;
  morph__job job;
  morph__backend *b = open_claiming(&job, 0);
  morph__alloc grow;
  morph__alloc_init(&grow);
  assert_int_equal(morph__alloc_add(&grow, 2, 2), MORPH_OK);
  assert_int_equal(morph__slurm_ops.grow(b, &job, 5, &grow), MORPH_OK);
  assert_string_equal(mock.alloc_nodes, "node3");
  slurm_job_info_t *e = mock_job(100, JOB_PENDING, -1, -1); /* the expander */
  e->state_reason = WAIT_RESOURCES;
  morph__backend_event ev;
  assert_int_equal(next_within(b, 0.5, &ev), 0); /* pending, node3 free: it waits */
  assert_int_equal(mock.nkilled, 0);
  mock_job(11, JOB_RUNNING, 2, 2); /* Slurm gives node3 to job 11 */
  double t0 = morph__wall();
  assert_int_equal(next_within(b, 2.0, &ev), 1);
  assert_true(morph__wall() - t0 < 1.0);
  assert_int_equal(ev.kind, MORPH__BE_GROWN);
  assert_int_equal(ev.job, 10);
  assert_int_equal(ev.req, 5);
  assert_int_equal(ev.outcome, MORPH_EBUSY);
  assert_non_null(strstr(ev.text, "gave node3 to another job"));
  assert_int_equal(mock.nkilled, 1);
  assert_int_equal(mock.killed[0], 100);
  morph__alloc_free(&grow);
  close_claimed(b, &job);
}

/* Node n in the backend's view now. */
static morph__node view_node(morph__backend *b, int n)
{
  morph__backend_view v;
  assert_int_equal(morph__slurm_ops.read(b, &v), MORPH_OK);
  assert_true(n < v.nnodes);
  return v.nodes[n];
}

/* The state of node n in the backend's view after its next picture. */
static morph_policy_node_state view_state(morph__backend *b, int n)
{
  morph__backend_event ev;
  while (next_within(b, 1.3, &ev) == 1)
    ;
  return view_node(b, n).state;
}

/* A node still completing a job gets nothing new (an expander would wait
 * for it), whether it runs another job or not, unless it is a node of a
 * job of morphd's (just merged into it, its expander ending): that job is
 * not leaving it. */
static void completing_node_drains_unless_a_claimed_job_runs_there(void **state)
{
  (void)state;
  morph__job job;
  morph__backend *b = open_claiming(&job, 1);
  mock_job(11, JOB_RUNNING, 3, 3);
  assert_int_equal(view_state(b, 1), MORPH_POLICY_NODE_UP);
  mock.nodes[1].node_state = NODE_STATE_ALLOCATED | NODE_STATE_COMPLETING; /* job 10's */
  mock.nodes[2].node_state = NODE_STATE_IDLE | NODE_STATE_COMPLETING;
  mock.nodes[3].node_state = NODE_STATE_ALLOCATED | NODE_STATE_COMPLETING; /* job 11's */
  mock_touch();
  assert_int_equal(view_state(b, 1), MORPH_POLICY_NODE_UP);
  assert_int_equal(view_state(b, 2), MORPH_POLICY_NODE_DRAINING);
  assert_int_equal(view_state(b, 3), MORPH_POLICY_NODE_DRAINING);
  close_claimed(b, &job);
}

/* While Slurm's tables do not change, each picture costs slurmctld one
 * RPC, the job table's, answered "no change" (nothing packed), and the
 * view stands on the tables loaded before; a change shows within a
 * picture. (A picture loaded jobs, nodes and reservations, three RPCs.) */
static void tables_reused_while_slurm_says_no_change(void **state)
{
  (void)state;
  morph__job job;
  morph__backend *b = open_claiming(&job, 0);
  morph__backend_event ev;
  /* Settled when Slurm first says "no change": its copies are newer
   * than the last change (a second newer: Slurm's rule). */
  double until = morph__wall() + 8.0;
  while (mock.same == 0 && morph__wall() < until)
    next_within(b, 0.1, &ev);
  assert_true(mock.same > 0);
  long packed = mock.packed, same = mock.same, rpcs = mock.rpcs;
  assert_int_equal(next_within(b, 3.5, &ev), 0);
  assert_int_equal(mock.packed, packed);
  assert_true(mock.same - same >= 2);
  assert_true(mock.rpcs - rpcs <= 4); /* one a second, at most */
  assert_int_equal(view_node(b, 0).used, 2);
  assert_int_equal(view_node(b, 1).used, 0);
  mock_job(11, JOB_RUNNING, 1, 1); /* Slurm starts a job on node2 */
  next_within(b, 1.5, &ev);
  assert_true(mock.packed > packed);
  assert_int_equal(view_node(b, 1).used, 2);
  close_claimed(b, &job);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest all[] = {
    cmocka_unit_test(queue_event_for_new_pending_job),
    cmocka_unit_test(expander_cancelled_when_its_node_is_taken),
    cmocka_unit_test(completing_node_drains_unless_a_claimed_job_runs_there),
    cmocka_unit_test(tables_reused_while_slurm_says_no_change),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(all, NULL, NULL);
}
