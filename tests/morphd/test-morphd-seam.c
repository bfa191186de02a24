/*
 * morphd's scheduler against the backend seam, with a test backend whose
 * grow and release complete only when the test says so (as Slurm's do,
 * ~0.4 s later, or never), whose nodes can go down, and which may leave
 * starting jobs to its own resource manager. The real backend is tested
 * end to end by cases.sh; this checks the asynchronous paths that the
 * embedded backend, which completes everything at once, never takes.
 * Each cmocka_unit_test is its own ctest test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "morph/error.h"
#include "rms/morphd.h"
#include "daemon-rig.h"

/* Two nodes of 2 slots; completions queued by the test. */
typedef struct fake {
  morph__backend base;
  morph__node nodes[2];
  morph__backend_event q[8];
  int nq;
  int grows, releases, starts, stops;
  int above; /* the view's grow_above_master (Slurm's batch host rule) */
  int by_node; /* the view counts whole nodes (Slurm's units) */
  morph__alloc grown; /* the pieces of the last grow */
} fake;

static fake *self(morph__backend *b)
{
  return (fake *)b;
}

static void book(fake *f, const morph__alloc *a, int sign)
{
  for (int k = 0; k < a->n; k++)
    f->nodes[a->v[k].node].used += sign * a->v[k].slots;
}

static void fake_close(morph__backend *b)
{
  (void)b;
}

static int fake_read(morph__backend *b, morph__backend_view *v)
{
  v->unit = self(b)->by_node ? MORPH_POLICY_UNIT_NODE : MORPH_POLICY_UNIT_SLOT;
  v->nodes = self(b)->nodes;
  v->nnodes = 2;
  v->grow_above_master = self(b)->above;
  return MORPH_OK;
}

static int fake_start(morph__backend *b, morph__job *job)
{
  book(self(b), &job->alloc, 1);
  self(b)->starts++;
  return MORPH_OK;
}

static int fake_hold(morph__backend *b, const morph__job *job, const morph__alloc *pieces)
{
  (void)job;
  book(self(b), pieces, 1);
  return MORPH_OK;
}

static int fake_grow(morph__backend *b, const morph__job *job, int req, const morph__alloc *pieces)
{
  (void)job, (void)req;
  book(self(b), pieces, 1); /* asked for: nobody else gets them meanwhile */
  self(b)->grows++;
  morph__alloc_copy(&self(b)->grown, pieces);
  return MORPH_OK;
}

static int fake_release(morph__backend *b, const morph__job *job, int req,
                        const morph__alloc *pieces)
{
  (void)job, (void)req, (void)pieces;
  self(b)->releases++;
  return MORPH_OK;
}

static void fake_drop(morph__backend *b, const morph__job *job)
{
  book(self(b), &job->alloc, -1);
  book(self(b), &job->extra, -1);
}

static int fake_stop(morph__backend *b, const morph__job *job)
{
  (void)job;
  self(b)->stops++;
  return MORPH_OK;
}

static int fake_next(morph__backend *b, morph__backend_event *ev)
{
  fake *f = self(b);
  if (f->nq == 0)
    return 0;
  *ev = f->q[0];
  memmove(f->q, f->q + 1, (size_t)(--f->nq) * sizeof *f->q);
  return 1;
}

static const morph__backend_ops fake_ops = {
  .name = "fake", .close = fake_close, .read = fake_read, .start = fake_start,
  .hold = fake_hold, .grow = fake_grow, .release = fake_release, .drop = fake_drop,
  .stop = fake_stop, .next = fake_next,
};

/* Slurm-like: the resource manager starts jobs, morphd does not. */
static const morph__backend_ops fake_ops_rm_starts = {
  .name = "fake", .close = fake_close, .read = fake_read, .grow = fake_grow,
  .release = fake_release, .drop = fake_drop, .stop = fake_stop, .next = fake_next,
};

/* Its claim: every job it started belongs to uid 1234 and holds node 0. */
static int fake_claim(morph__backend *b, morph__job *job, char *err, size_t errsize)
{
  (void)b, (void)err, (void)errsize;
  job->uid = 1234, job->gid = 1234;
  return morph__alloc_parse(&job->alloc, "0:2");
}

static const morph__backend_ops fake_ops_claims = {
  .name = "fake", .close = fake_close, .read = fake_read, .grow = fake_grow,
  .release = fake_release, .drop = fake_drop, .stop = fake_stop, .next = fake_next,
  .claim = fake_claim,
};

static void push(fake *f, morph__backend_event_kind kind, int64_t job, int req, int outcome)
{
  morph__backend_event *ev = &f->q[f->nq++];
  memset(ev, 0, sizeof *ev);
  ev->kind = kind, ev->job = job, ev->req = req, ev->outcome = outcome, ev->status = -1;
}

typedef struct rig {
  fake f;
  morph__daemon d;
  daemon_rig t; /* t.peer: the job side of the relay connection */
} rig;

static rig *rig_new(const morph__backend_ops *ops)
{
  rig *r = calloc(1, sizeof *r);
  assert_non_null(r);
  r->f.base.ops = ops;
  for (int n = 0; n < 2; n++) {
    snprintf(r->f.nodes[n].host, sizeof r->f.nodes[n].host, "node%d", n + 1);
    r->f.nodes[n].slots = 2;
  }
  daemon_rig_open(&r->t, &r->d, &r->f.base, "test-morphd-seam", MORPH__C_JOB);
  return r;
}

static void rig_free(rig *r)
{
  morph__alloc_free(&r->f.grown);
  daemon_rig_close(&r->t, &r->d);
  free(r);
}

/* A job in `state` holding `alloc` ("" for none); RUNNING jobs are
 * malleable, connected on client 0 and ready to resize. */
static morph__job *job_add(rig *r, morph__jstate state, const char *alloc)
{
  morph__job *j = daemon_rig_job(&r->d, state, alloc);
  book(&r->f, &j->alloc, 1);
  if (state == MORPH__J_RUNNING) {
    j->conn = 0, j->ready = 1;
    r->d.clients[0].job = j->id;
  }
  assert_int_equal(morph__job_add(&r->d, j), MORPH_OK);
  return j;
}

/* The next message morphd sent the job; 0 if there is none. */
static int received(rig *r, morph__msg *m)
{
  char line[4096], err[128];
  ssize_t n = recv(r->t.peer, line, sizeof line - 1, MSG_DONTWAIT);
  if (n <= 0)
    return 0;
  line[n] = '\0';
  assert_int_equal(morph__msg_decode(line, m, err, sizeof err), MORPH_OK);
  return 1;
}

static void ack(rig *r, morph__job *job, int id, int outcome, int new_size)
{
  morph__msg a;
  morph__msg_init(&a, MORPH__MSG_ACK);
  a.id = id, a.outcome = outcome, a.new_size = new_size;
  morph__resize_ack(&r->d, job, &a);
}

static morph__alloc pieces(const char *text)
{
  morph__alloc a;
  morph__alloc_init(&a);
  assert_int_equal(morph__alloc_parse(&a, text), MORPH_OK);
  return a;
}

static void assert_alloc(const morph__alloc *a, const char *text)
{
  char buf[64];
  morph__alloc_format(a, buf, sizeof buf);
  assert_string_equal(buf, text);
}

static int journal_count(rig *r, const char *sql)
{
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_prepare_v2(morph__journal_db(r->d.journal), sql, -1, &st, NULL),
                   SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  int n = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  return n;
}

/* Nothing of a resize is left: not in flight, nothing held without
 * processes, not counted against the job, and the books agree. */
static void assert_settled(rig *r, const morph__job *j, int size)
{
  assert_int_equal(j->rz_id, 0);
  assert_int_equal(j->size, size);
  assert_alloc(&j->extra, "");
  assert_int_equal(j->failed_resizes, 0);
  assert_int_equal(morph__jobs_check_books(&r->d), MORPH_OK);
}

/* The job is told nothing until the backend has granted the slots; then
 * RESIZE names the granted hosts and a good ACK makes them the job's. */
static void seam_grow_granted_later_then_acked(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops);
  morph__job *j = job_add(r, MORPH__J_RUNNING, "0:2");
  morph__alloc more = pieces("1:2");
  int id = morph__resize_expand(&r->d, j, 4, &more);
  morph__msg m;
  assert_true(id > 0);
  assert_int_equal(r->f.grows, 1);
  assert_int_equal(j->rz_phase, MORPH__P_GROW);
  assert_alloc(&j->extra, "1:2");
  assert_int_equal(received(r, &m), 0);
  assert_int_equal(morph__jobs_check_books(&r->d), MORPH_OK);
  push(&r->f, MORPH__BE_GROWN, j->id, id, MORPH_OK);
  snprintf(r->f.q[0].hosts, sizeof r->f.q[0].hosts, "node2,node2");
  morph__events_drain(&r->d);
  assert_int_equal(received(r, &m), 1);
  assert_int_equal(m.kind, MORPH__MSG_RESIZE);
  assert_int_equal(m.size, 4);
  assert_string_equal(m.hosts, "node2,node2");
  assert_int_equal(j->rz_phase, MORPH__P_SENT);
  ack(r, j, id, MORPH_OK, 4);
  assert_alloc(&j->alloc, "0:2,1:2");
  assert_settled(r, j, 4);
  morph__alloc_free(&more);
  rig_free(r);
}

/* A backend whose jobs grow only above their first node (Slurm's batch
 * host rule): a job on node2 with node1 free is not grown; the same job
 * on node1 grows onto node2; without the rule the job on node2 grows onto
 * node1. */
static int decide_grows(int above, const char *alloc, const char *want)
{
  rig *r = rig_new(&fake_ops);
  r->f.above = above;
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &r->d.place), MORPH_OK);
  morph__job *j = job_add(r, MORPH__J_RUNNING, alloc);
  j->pref = 4;
  assert_int_equal(morph__sched_decide(&r->d), MORPH_OK);
  int grows = r->f.grows;
  if (want)
    assert_alloc(&r->f.grown, want);
  assert_int_equal(morph__jobs_check_books(&r->d), MORPH_OK);
  rig_free(r);
  return grows;
}

static void seam_grow_only_above_the_master_when_the_backend_says_so(void **state)
{
  (void)state;
  assert_int_equal(decide_grows(1, "1:2", NULL), 0);
  assert_int_equal(decide_grows(1, "0:2", "1:2"), 1);
  assert_int_equal(decide_grows(0, "1:2", "0:2"), 1);
}

/* A grow the backend refuses later fails the resize, but not because of
 * the job: it does not count against max_failed_resizes. */
static void seam_grow_refused_later_is_not_the_jobs_failure(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops);
  morph__job *j = job_add(r, MORPH__J_RUNNING, "0:2");
  morph__alloc more = pieces("1:1");
  int id = morph__resize_expand(&r->d, j, 3, &more);
  book(&r->f, &more, -1); /* what a backend that refuses has not booked */
  push(&r->f, MORPH__BE_GROWN, j->id, id, MORPH_EBUSY);
  morph__events_drain(&r->d);
  morph__msg m;
  assert_int_equal(received(r, &m), 0);
  assert_int_equal(journal_count(r, "SELECT COUNT(*) FROM resizes WHERE state = 'failed'"), 1);
  assert_settled(r, j, 2);
  morph__alloc_free(&more);
  rig_free(r);
}

/* A START waiting for a shrink starts only when the backend reports the
 * released slots free, not when the job's ACK arrives. */
static void seam_waiting_start_needs_the_release_not_the_ack(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops);
  morph__job *big = job_add(r, MORPH__J_RUNNING, "0:2,1:2");
  morph__alloc give = pieces("1:2");
  int id = morph__resize_shrink(&r->d, big, 2, &give);
  morph__msg m;
  assert_int_equal(received(r, &m), 1);
  assert_int_equal(m.size, 2);
  morph__job *next = job_add(r, MORPH__J_STARTING, "");
  next->rz_id = id, next->rz_to = 2;
  morph__alloc_copy(&next->plan, &give);
  ack(r, big, id, MORPH_OK, 2);
  assert_int_equal(r->f.releases, 1);
  assert_int_equal(big->size, 2);
  assert_int_equal(big->rz_phase, MORPH__P_RELEASE); /* still resizing */
  assert_alloc(&big->extra, "1:2");
  assert_int_equal(next->state, MORPH__J_STARTING);
  assert_int_equal(morph__jobs_check_books(&r->d), MORPH_OK);
  book(&r->f, &give, -1); /* the backend frees them, then says so */
  push(&r->f, MORPH__BE_RELEASED, big->id, id, MORPH_OK);
  morph__events_drain(&r->d);
  assert_settled(r, big, 2);
  assert_int_equal(next->state, MORPH__J_RUNNING);
  assert_int_equal(r->f.starts, 1);
  assert_alloc(&next->alloc, "1:2");
  morph__alloc_free(&give);
  rig_free(r);
}

/* A node going down stops the jobs that run there; they end as failed,
 * saying why, whatever their exit status. Others are left alone. */
static void seam_node_down_fails_its_jobs_with_the_reason(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops);
  morph__job *there = job_add(r, MORPH__J_RUNNING, "1:2");
  morph__job *elsewhere = job_add(r, MORPH__J_RUNNING, "0:1");
  r->f.nodes[1].state = MORPH_POLICY_NODE_DOWN;
  push(&r->f, MORPH__BE_NODE, 0, 0, MORPH_OK);
  r->f.q[0].node = 1, r->f.q[0].state = MORPH_POLICY_NODE_DOWN;
  snprintf(r->f.q[0].text, sizeof r->f.q[0].text, "link lost");
  morph__events_drain(&r->d);
  assert_int_equal(r->f.stops, 1);
  assert_int_equal(there->state, MORPH__J_RUNNING); /* until its processes are gone */
  push(&r->f, MORPH__BE_ENDED, there->id, 0, MORPH_OK);
  r->f.q[0].known = 1, r->f.q[0].status = 0;
  morph__events_drain(&r->d);
  assert_int_equal(there->state, MORPH__J_FAILED);
  assert_non_null(strstr(there->note, "node2 is down: link lost"));
  assert_int_equal(elsewhere->state, MORPH__J_RUNNING);
  assert_int_equal(journal_count(r, "SELECT COUNT(*) FROM events WHERE kind = 'node'"), 1);
  assert_int_equal(morph__jobs_check_books(&r->d), MORPH_OK);
  rig_free(r);
}

/* Where the resource manager starts jobs itself, a START is not morphd's
 * to carry out: the job stays pending, nothing is booked or failed. */
static void seam_start_left_to_the_resource_manager(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops_rm_starts);
  morph__job *j = job_add(r, MORPH__J_PENDING, "");
  morph__alloc where = pieces("0:2");
  assert_int_equal(morph__job_start(&r->d, j, &where, 2), MORPH_ENOSYS);
  assert_int_equal(j->state, MORPH__J_PENDING);
  assert_alloc(&j->alloc, "");
  assert_int_equal(journal_count(r, "SELECT COUNT(*) FROM resizes"), 0);
  assert_int_equal(morph__jobs_check_books(&r->d), MORPH_OK);
  morph__alloc_free(&where);
  rig_free(r);
}

/* A job its resource manager started becomes morphd's only when a relay
 * of the job's own user claims it; the claim gives it a secret, said in
 * WELCOME, that later HELLOs must carry. */
static void seam_claim_only_by_the_jobs_own_user(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops_claims);
  morph__msg h, m;
  morph__msg_init(&h, MORPH__MSG_HELLO);
  snprintf(h.job, sizeof h.job, "7");
  h.size = 2;
  r->d.clients[0].uid = 0;
  morph__relay_message(&r->d, 0, &h);
  assert_null(morph__job_find(&r->d, 7));
  assert_true(received(r, &m));
  assert_int_equal(m.kind, MORPH__MSG_ERROR);
  assert_non_null(strstr(m.text, "belongs to uid 1234, not to uid 0"));
  assert_true(r->d.clients[0].dead);
  r->d.clients[0].dead = 0, r->d.clients[0].uid = 1234;
  morph__relay_message(&r->d, 0, &h);
  morph__job *j = morph__job_find(&r->d, 7);
  assert_non_null(j);
  assert_int_equal(j->uid, 1234);
  assert_int_equal(strlen(j->secret), MORPH__SECRET_HEX);
  assert_true(received(r, &m));
  assert_int_equal(m.kind, MORPH__MSG_WELCOME);
  assert_string_equal(m.secret, j->secret);
  rig_free(r);
}

/* morphd restarted after asking for slots but before telling the job:
 * the grant is given back instead of leaving the job resizing forever. */
static void seam_restart_gives_back_a_grow_never_told(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops);
  morph__job *j = job_add(r, MORPH__J_RUNNING, "0:2");
  morph__alloc more = pieces("1:2");
  int id = morph__resize_expand(&r->d, j, 4, &more);
  morph__resize_resume(&r->d, j); /* as after loading the journal */
  assert_int_equal(r->f.releases, 1);
  assert_int_equal(j->rz_phase, MORPH__P_RELEASE);
  assert_int_equal(journal_count(r, "SELECT COUNT(*) FROM resizes WHERE state = 'failed'"), 1);
  book(&r->f, &more, -1);
  push(&r->f, MORPH__BE_RELEASED, j->id, id, MORPH_OK);
  morph__events_drain(&r->d);
  assert_settled(r, j, 2);
  morph__alloc_free(&more);
  rig_free(r);
}

/* The mechanism of the RESIZE that shrinks the job off node2 (pieces
 * "1:2"), node2 failing for the placement (1), drained in the backend's
 * view (2: Slurm's DRAIN) or neither (0), the job's HELLO naming a
 * checkpoint folder every host reads (morph run --checkpoint-dir) or not,
 * the job able to relaunch or not, under the named backend (NULL:
 * embedded); *said: morphd's log line about a live move. */
static int shrink_mechanism_sent(int failing, int shared, unsigned mechanisms, const char *backend,
                                 char *said, size_t saidsize)
{
  rig *r = rig_new(&fake_ops);
  char topo[128];
  snprintf(topo, sizeof topo, "%s/hosts", r->t.dir);
  FILE *f = fopen(topo, "w");
  assert_non_null(f);
  fputs("node1 slots=2\nnode2 slots=2\n", f);
  fclose(f);
  morph_place_param p[] = {{"topology", topo}, {"threshold", "0.1"}};
  assert_int_equal(morph_place_create("tofa", p, 2, &r->d.place), MORPH_OK);
  assert_int_equal(morph_place_outage_set(r->d.place, 1, failing == 1 ? 0.5 : 0), MORPH_OK);
  if (failing == 2)
    r->f.nodes[1].state = MORPH_POLICY_NODE_DRAINING;
  r->d.opt.backend = backend;
  morph__job *j = job_add(r, MORPH__J_RUNNING, "0:2,1:2");
  j->mechanisms = mechanisms;
  j->shared_checkpoints = shared;
  morph__alloc give = pieces("1:2");
  /* morphd's log goes to stderr: into a file for the call */
  char log[128];
  snprintf(log, sizeof log, "%s/log", r->t.dir);
  FILE *logf = fopen(log, "w+");
  assert_non_null(logf);
  fflush(stderr);
  int saved = dup(2);
  assert_true(saved >= 0 && dup2(fileno(logf), 2) == 2);
  int id = morph__resize_shrink(&r->d, j, 2, &give);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  assert_true(id > 0);
  morph__msg m;
  assert_int_equal(received(r, &m), 1);
  assert_int_equal(m.kind, MORPH__MSG_RESIZE);
  assert_string_equal(m.hosts, "node2:2");
  rewind(logf);
  said[0] = '\0';
  char line[512];
  while (fgets(line, sizeof line, logf))
    if (strstr(line, "live shrink"))
      snprintf(said, saidsize, "%s", strstr(line, "job 1:"));
  fclose(logf);
  unlink(log);
  morph__alloc_free(&give);
  unlink(topo);
  rig_free(r);
  return m.mechanism;
}

/* A move off a failing or drained node is a relaunch (so morph run can
 * restart without the node, leaving no Open MPI daemon there) when the job
 * can relaunch and its morph run named a checkpoint folder every host
 * reads, on the Slurm backend as on the embedded one; else the job
 * chooses, and a move that stays live is said in the log with the reason. */
static void seam_shrink_off_failing_node_is_a_relaunch(void **state)
{
  (void)state;
  unsigned both = MORPH__MECH_BIT_LIVE | MORPH__MECH_BIT_RELAUNCH;
  char said[512];
  assert_int_equal(shrink_mechanism_sent(1, 1, both, NULL, said, sizeof said),
                   MORPH__MECH_RELAUNCH);
  assert_string_equal(said, "");
  assert_int_equal(shrink_mechanism_sent(1, 1, both, "slurm", said, sizeof said),
                   MORPH__MECH_RELAUNCH);
  assert_int_equal(shrink_mechanism_sent(2, 1, both, "slurm", said, sizeof said),
                   MORPH__MECH_RELAUNCH);
  assert_int_equal(shrink_mechanism_sent(2, 0, both, "slurm", said, sizeof said), 0);
  assert_non_null(strstr(said, "draining node by a live shrink (its morph run has no"));
  assert_int_equal(shrink_mechanism_sent(0, 1, both, "slurm", said, sizeof said), 0);
  assert_string_equal(said, ""); /* not a move: nothing to say */
  assert_int_equal(shrink_mechanism_sent(1, 0, both, "slurm", said, sizeof said), 0);
  assert_non_null(strstr(said, "live shrink (its morph run has no --checkpoint-dir"));
  assert_int_equal(shrink_mechanism_sent(1, 1, MORPH__MECH_BIT_LIVE, NULL, said, sizeof said), 0);
  assert_non_null(strstr(said, "live shrink (it cannot relaunch)"));
}

/* Node units (Slurm), issue 23: a program's limits count processes, a
 * node holds the job's ppu of them. DMR_Set_parameters(1, 8, 2) on nodes
 * of 2 processes: the minimum rounds up to one node, and the job grows
 * (it used to be min 0 nodes: every decision failed, each second). */
static void seam_node_units_round_the_minimum_up(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops);
  r->f.by_node = 1;
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &r->d.place), MORPH_OK);
  morph__job *j = job_add(r, MORPH__J_RUNNING, "0:2");
  j->ppu = 2, j->min = 1, j->pref = 2, j->max = 8;
  int min, pref, max;
  assert_int_equal(morph__job_unit_limits(j, &min, &pref, &max), 1);
  assert_int_equal(min, 1), assert_int_equal(pref, 1), assert_int_equal(max, 4);
  j->pref = 4;
  assert_int_equal(morph__sched_decide(&r->d), MORPH_OK);
  assert_int_equal(journal_count(r, "SELECT COUNT(*) FROM events WHERE kind = 'error'"), 0);
  assert_int_equal(r->f.grows, 1); /* to 2 nodes, 4 processes */
  /* No whole node between the limits: kept at its size, no failure. */
  j->min = 3, j->max = 3, j->pref = 3;
  assert_int_equal(morph__job_unit_limits(j, &min, &pref, &max), 0);
  rig_free(r);
}

/* A decision that cannot be made is said once while it lasts (morphd
 * decides every second), and its end is said too. */
static void seam_decision_failure_said_once(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops);
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &r->d.place), MORPH_OK);
  job_add(r, MORPH__J_RUNNING, "0:2");
  r->f.nodes[1].used = 5; /* more than its slots: the snapshot is refused */
  for (int k = 0; k < 3; k++)
    assert_int_not_equal(morph__sched_decide(&r->d), MORPH_OK);
  assert_int_equal(journal_count(r, "SELECT COUNT(*) FROM events WHERE kind = 'error'"), 1);
  r->f.nodes[1].used = 0;
  assert_int_equal(morph__sched_decide(&r->d), MORPH_OK);
  rig_free(r);
}

/* Node units, one process per node of 2 CPUs: the leavers of a shrink off
 * node2 are its one process (it was "node2:2", the node's CPUs). */
static void seam_node_units_leaver_hosts_count_processes(void **state)
{
  (void)state;
  rig *r = rig_new(&fake_ops);
  r->f.by_node = 1;
  morph__job *j = job_add(r, MORPH__J_RUNNING, "0:2,1:2");
  j->ppu = 1, j->size = 2, j->min = 1, j->pref = 1, j->max = 2;
  morph__alloc less = pieces("1:2");
  assert_true(morph__resize_shrink(&r->d, j, 1, &less) > 0);
  morph__msg m;
  assert_int_equal(received(r, &m), 1);
  assert_int_equal(m.kind, MORPH__MSG_RESIZE);
  assert_string_equal(m.hosts, "node2"); /* one process */
  morph__alloc_free(&less);
  rig_free(r);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(seam_grow_granted_later_then_acked),
    cmocka_unit_test(seam_grow_only_above_the_master_when_the_backend_says_so),
    cmocka_unit_test(seam_grow_refused_later_is_not_the_jobs_failure),
    cmocka_unit_test(seam_waiting_start_needs_the_release_not_the_ack),
    cmocka_unit_test(seam_node_down_fails_its_jobs_with_the_reason),
    cmocka_unit_test(seam_start_left_to_the_resource_manager),
    cmocka_unit_test(seam_claim_only_by_the_jobs_own_user),
    cmocka_unit_test(seam_restart_gives_back_a_grow_never_told),
    cmocka_unit_test(seam_shrink_off_failing_node_is_a_relaunch),
    cmocka_unit_test(seam_node_units_round_the_minimum_up),
    cmocka_unit_test(seam_decision_failure_said_once),
    cmocka_unit_test(seam_node_units_leaver_hosts_count_processes),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
