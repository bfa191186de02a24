/*
 * Journal first, then act, without a running daemon: a journal whose
 * writes fail (SQLite's query_only, or max_page_count for a full disk),
 * what it keeps and when it writes it, the files it refuses, and what
 * morphd's decisions do when the journal does not take them (against a
 * test backend that counts what it is asked). The start marker of the
 * embedded backend's launcher with a real fork. Each cmocka_unit_test is
 * its own ctest test; tests/durability/cases.sh has the same paths end to
 * end against a real morphd.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/launch.h"
#include "rms/morphd.h"
#include "daemon-rig.h"

/* One node of 4 slots; what morphd asked of it. Its events are handed to
 * morphd's handlers by the tests themselves. */
typedef struct counter {
  morph__backend base;
  morph__node node;
  int starts, holds;
} counter;

static counter *self(morph__backend *b)
{
  return (counter *)b;
}

static void book(counter *c, const morph__alloc *a, int sign)
{
  c->node.used += sign * morph__alloc_total(a);
}

static void c_close(morph__backend *b)
{
  (void)b;
}

static int c_read(morph__backend *b, morph__backend_view *v)
{
  *v = (morph__backend_view){.unit = MORPH_POLICY_UNIT_SLOT, .nodes = &self(b)->node, .nnodes = 1};
  return MORPH_OK;
}

static int c_start(morph__backend *b, morph__job *job)
{
  book(self(b), &job->alloc, 1);
  job->pid = 1000 + ++self(b)->starts;
  return MORPH_OK;
}

static int c_hold(morph__backend *b, const morph__job *job, const morph__alloc *pieces)
{
  (void)job;
  book(self(b), pieces, 1);
  self(b)->holds++;
  return MORPH_OK;
}

static int c_release(morph__backend *b, const morph__job *job, int req, const morph__alloc *p)
{
  (void)b, (void)job, (void)req, (void)p;
  return MORPH_OK;
}

static void c_drop(morph__backend *b, const morph__job *job)
{
  book(self(b), &job->alloc, -1);
  book(self(b), &job->extra, -1);
}

static const morph__backend_ops counter_ops = {
  .name = "counter", .close = c_close, .read = c_read, .start = c_start, .hold = c_hold,
  .release = c_release, .drop = c_drop,
};

typedef struct rig {
  counter c;
  morph__daemon d;
  daemon_rig t;
} rig;

static rig *rig_new(void)
{
  rig *r = calloc(1, sizeof *r);
  assert_non_null(r);
  r->c.base.ops = &counter_ops;
  r->c.node = (morph__node){.host = "localhost", .slots = 4};
  daemon_rig_open(&r->t, &r->d, &r->c.base, "test-durability", MORPH__C_CLI);
  assert_int_equal(morph_place_create("firstfit", NULL, 0, &r->d.place), MORPH_OK);
  return r;
}

static void rig_free(rig *r)
{
  daemon_rig_close(&r->t, &r->d);
  free(r);
}

/* The journal's connection stops (1) or starts again (0) taking writes. */
static void writes_fail(morph__journal *j, int on)
{
  char sql[64];
  snprintf(sql, sizeof sql, "PRAGMA query_only=%d", on);
  assert_int_equal(sqlite3_exec(morph__journal_db(j), sql, NULL, NULL, NULL), SQLITE_OK);
}

/* One number from the file, read on a connection of its own. */
static long long in_file(const char *path, const char *sql)
{
  sqlite3 *db;
  sqlite3_stmt *st;
  assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
  assert_int_equal(sqlite3_step(st), SQLITE_ROW);
  long long n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return n;
}

/* A job of the table in `state` on `alloc` (""). */
static morph__job *job_add(rig *r, morph__jstate state, const char *alloc)
{
  morph__job *j = daemon_rig_job(&r->d, state, alloc);
  j->cwd = strdup("/"), j->out = strdup("/dev/null"), j->err = strdup("/dev/null");
  j->pid = state == MORPH__J_RUNNING ? 77 : 0;
  book(&r->c, &j->alloc, 1);
  assert_int_equal(morph__job_add(&r->d, j), MORPH_OK);
  morph__job_save(&r->d, j);
  return j;
}

/* The journal is tried again only MORPH__JOURNAL_RETRY_S after it failed. */
static void after_retry(void)
{
  morph__sleep(MORPH__JOURNAL_RETRY_S + 0.1);
}

/* A decision's transaction the file does not take (commit_first) is
 * neither written nor kept, and the message names the file and the
 * reason in words: a full disk (max_page_count) is "disk full". */
static void journal_failed_commit_first_keeps_nothing_names_file(void **state)
{
  (void)state;
  rig *r = rig_new();
  morph__journal *j = r->d.journal;
  assert_int_equal(sqlite3_exec(morph__journal_db(j), "PRAGMA max_page_count=1", NULL, NULL, NULL),
                   SQLITE_OK);
  static char big[20000]; /* more than the pages the file has */
  memset(big, 'x', sizeof big - 1);
  morph__journal_begin(j);
  morph__journal_event(j, 1, 1, "submit", "small");
  morph__journal_meta_set(j, "big", big);
  assert_int_equal(morph__journal_commit_first(j), MORPH_EIO);
  char want[256];
  snprintf(want, sizeof want, "journal %s: cannot write a setting: disk full", r->t.path);
  assert_string_equal(morph__journal_errmsg(j), want);
  assert_int_equal(morph__journal_writable(j), 0); /* not before the retry */
  assert_int_equal(sqlite3_exec(morph__journal_db(j), "PRAGMA max_page_count=100000", NULL, NULL,
                                NULL), SQLITE_OK);
  after_retry();
  assert_int_equal(morph__journal_writable(j), 1);
  assert_int_equal(in_file(r->t.path, "SELECT COUNT(*) FROM events"), 0);
  rig_free(r);
}

/* What happened while the file took no writes is kept in memory, in
 * order, and written once it takes them again: the last row of a job
 * rewritten twice wins. */
static void journal_kept_writes_reach_the_file_in_order(void **state)
{
  (void)state;
  rig *r = rig_new();
  morph__job *a = job_add(r, MORPH__J_RUNNING, "0:2");
  writes_fail(r->d.journal, 1);
  morph__journal_begin(r->d.journal);
  morph__journal_event(r->d.journal, 2, a->id, "end", "completed");
  morph__job_save(&r->d, a);
  assert_int_equal(morph__journal_commit(r->d.journal), MORPH_EIO);
  a->state = MORPH__J_COMPLETED;
  morph__job_save(&r->d, a); /* outside a transaction: after the kept ones */
  writes_fail(r->d.journal, 0);
  assert_int_equal(in_file(r->t.path, "SELECT COUNT(*) FROM events"), 0);
  assert_int_equal(morph__journal_writable(r->d.journal), 0);
  after_retry();
  assert_int_equal(morph__journal_writable(r->d.journal), 1);
  assert_int_equal(in_file(r->t.path, "SELECT COUNT(*) FROM events WHERE kind = 'end'"), 1);
  assert_int_equal(in_file(r->t.path, "SELECT state = 'completed' FROM jobs"), 1);
  rig_free(r);
}

/* opens path (written with `text` first if given); returns the error. */
static int open_error(const char *path, const char *text, char *err, size_t size)
{
  if (text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
  }
  morph__journal *j = NULL;
  int rc = morph__journal_open(path, 0, &j, err, size);
  morph__journal_close(j);
  return rc;
}

/* A file that is not an SQLite database, another program's database and
 * a damaged journal are refused, the message naming the file and what is
 * wrong, not SQL. */
static void journal_refuses_foreign_or_damaged_files_naming_them(void **state)
{
  (void)state;
  char dir[64] = "/tmp/test-durability-XXXXXX", path[128], err[512], want[256];
  assert_non_null(mkdtemp(dir));
  snprintf(path, sizeof path, "%s/text.db", dir);
  assert_int_equal(open_error(path, "jobs: 1 2 3\n", err, sizeof err), MORPH_EIO);
  snprintf(want, sizeof want, "journal %s: not an SQLite database (no SQLite header): name "
           "another file", path);
  assert_string_equal(err, want);
  snprintf(path, sizeof path, "%s/other.db", dir);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db, "CREATE TABLE songs(title)", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  assert_int_equal(open_error(path, NULL, err, sizeof err), MORPH_EIO);
  assert_non_null(strstr(err, "other.db: an SQLite database, but not a morph journal"));
  snprintf(path, sizeof path, "%s/damaged.db", dir);
  morph__journal *j;
  assert_int_equal(morph__journal_open(path, 0, &j, err, sizeof err), MORPH_OK);
  for (int i = 0; i < 200; i++)
    morph__journal_event(j, i, i, "submit", "job %d with some text to fill pages", i);
  morph__journal_close(j); /* the last connection: the WAL goes into the file */
  FILE *f = fopen(path, "r+");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  static const char zeros[8];
  for (long page = 1; page < ftell(f) / 4096; page++) { /* every b-tree page header but the first */
    fseek(f, page * 4096, SEEK_SET);
    fwrite(zeros, 1, sizeof zeros, f);
    fseek(f, 0, SEEK_END);
  }
  fclose(f);
  assert_int_equal(open_error(path, NULL, err, sizeof err), MORPH_EIO);
  snprintf(want, sizeof want, "journal %s: damaged", path);
  assert_memory_equal(err, want, strlen(want));
  assert_null(strchr(err, '\n'));
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

/* The reply client 0 got, as one line. */
static void reply(rig *r, char *buf, size_t size)
{
  ssize_t n = recv(r->t.peer, buf, size - 1, MSG_DONTWAIT);
  buf[n > 0 ? n : 0] = '\0';
}

/* A submission the journal does not take is refused, saying why, and
 * forgotten: no job, and the next id is the same. */
static void submit_refused_and_forgotten_when_not_journaled(void **state)
{
  (void)state;
  rig *r = rig_new();
  json_t *req = json_pack("{s:s, s:[s], s:i, s:s}", "cmd", "submit", "argv", "/bin/app",
                          "req_min", 1, "kind", "fixed");
  writes_fail(r->d.journal, 1);
  morph__cli_request(&r->d, 0, req);
  char line[1024];
  reply(r, line, sizeof line);
  assert_non_null(strstr(line, "\"ok\":false"));
  assert_non_null(strstr(line, "read-only; the job is not submitted"));
  assert_non_null(strstr(line, r->t.path));
  assert_int_equal(r->d.njobs, 0);
  assert_int_equal(r->d.next_job, 1);
  morph__cli_request(&r->d, 0, req); /* before the retry: refused at once */
  reply(r, line, sizeof line);
  assert_non_null(strstr(line, "the job is not submitted"));
  writes_fail(r->d.journal, 0);
  after_retry();
  morph__cli_request(&r->d, 0, req);
  reply(r, line, sizeof line);
  assert_non_null(strstr(line, "\"id\":1"));
  assert_int_equal(in_file(r->t.path, "SELECT COUNT(*) FROM jobs"), 1);
  json_decref(req);
  rig_free(r);
}

/* A decision the journal does not take is undone whole: nothing started,
 * nothing held, the job pending; and none is taken until the journal is
 * writable again. */
static void decision_undone_when_not_journaled(void **state)
{
  (void)state;
  rig *r = rig_new();
  morph__job *a = job_add(r, MORPH__J_PENDING, "");
  writes_fail(r->d.journal, 1);
  morph__sched_decide(&r->d);
  assert_int_equal(r->c.starts, 0);
  assert_int_equal(a->state, MORPH__J_PENDING);
  assert_int_equal(morph__alloc_total(&a->alloc), 0);
  assert_int_equal(r->c.node.used, 0);
  assert_int_equal(morph__sched_decide(&r->d), MORPH_EIO); /* not tried again yet */
  writes_fail(r->d.journal, 0);
  after_retry();
  assert_int_equal(morph__sched_decide(&r->d), MORPH_OK);
  assert_int_equal(r->c.starts, 1);
  assert_int_equal(in_file(r->t.path, "SELECT pid FROM jobs"), 1001);
  assert_int_equal(morph__jobs_check_books(&r->d), MORPH_OK);
  rig_free(r);
}

/* A shrink's release heard while the journal fails: the release is kept
 * in memory and the start that waited for it goes back to the queue
 * instead of starting; both reach the file when it can be written. */
static void waiter_requeued_when_its_start_not_journaled(void **state)
{
  (void)state;
  rig *r = rig_new();
  morph__job *big = job_add(r, MORPH__J_RUNNING, "0:2");
  big->rz_id = 5, big->rz_op = MORPH__R_SHRINK, big->rz_phase = MORPH__P_RELEASE, big->rz_to = 2;
  morph__alloc_parse(&big->plan, "0:2");
  morph__alloc_parse(&big->extra, "0:2");
  book(&r->c, &big->extra, 1);
  morph__job *next = job_add(r, MORPH__J_STARTING, "");
  next->rz_id = 5, next->rz_to = 2;
  morph__alloc_parse(&next->plan, "0:2");
  writes_fail(r->d.journal, 1);
  book(&r->c, &big->plan, -1); /* the backend frees them, then says so */
  morph__backend_event ev = {.kind = MORPH__BE_RELEASED, .job = big->id, .req = 5};
  morph__resize_released(&r->d, big, &ev);
  assert_int_equal(big->rz_id, 0);
  assert_int_equal(next->state, MORPH__J_PENDING);
  assert_int_equal(r->c.starts, 0);
  assert_int_equal(morph__jobs_check_books(&r->d), MORPH_OK);
  writes_fail(r->d.journal, 0);
  after_retry();
  assert_int_equal(morph__journal_writable(r->d.journal), 1);
  assert_int_equal(in_file(r->t.path, "SELECT COUNT(*) FROM jobs WHERE state = 'pending'"), 1);
  assert_int_equal(in_file(r->t.path, "SELECT COUNT(*) FROM jobs WHERE rz_id != 0"), 0);
  rig_free(r);
}

/* A resize the journal does not take is not sent: the job hears nothing. */
static void resize_not_sent_when_not_journaled(void **state)
{
  (void)state;
  rig *r = rig_new();
  morph__job *a = job_add(r, MORPH__J_RUNNING, "0:4");
  a->conn = 0, a->ready = 1;
  r->d.clients[0].type = MORPH__C_JOB, r->d.clients[0].job = a->id;
  morph__alloc give;
  morph__alloc_init(&give);
  morph__alloc_parse(&give, "0:2");
  writes_fail(r->d.journal, 1);
  assert_int_equal(morph__resize_shrink(&r->d, a, 2, &give), 0);
  char line[512];
  reply(r, line, sizeof line);
  assert_string_equal(line, "");
  assert_int_equal(a->rz_id, 0);
  morph__alloc_free(&give);
  rig_free(r);
}

/* A job that ends while the journal fails ends in memory at once (its
 * slots free); the file says so once it can be written. */
static void job_end_kept_and_written_when_journal_recovers(void **state)
{
  (void)state;
  rig *r = rig_new();
  morph__job *a = job_add(r, MORPH__J_RUNNING, "0:2");
  writes_fail(r->d.journal, 1);
  morph__job_end(&r->d, a, 0, NULL); /* its processes are gone, status 0 */
  assert_int_equal(a->state, MORPH__J_COMPLETED);
  assert_int_equal(r->c.node.used, 0);
  assert_int_equal(in_file(r->t.path, "SELECT state = 'running' FROM jobs"), 1);
  writes_fail(r->d.journal, 0);
  after_retry();
  assert_int_equal(morph__journal_writable(r->d.journal), 1);
  assert_int_equal(in_file(r->t.path, "SELECT state = 'completed' FROM jobs"), 1);
  assert_int_equal(in_file(r->t.path, "SELECT COUNT(*) FROM sizes WHERE size = 0"), 1);
  rig_free(r);
}

/* The launcher's start marker: a start of the job asked again (morphd
 * restarted before it journaled the pid) takes on the process that
 * claimed it; a marker of another start (another journal) is replaced; a
 * symlink at the marker's place is never followed. */
static void start_marker_second_start_takes_on_the_first(void **state)
{
  (void)state;
  char dir[64] = "/tmp/test-durability-XXXXXX", marker[128], target[128], err[256];
  assert_non_null(mkdtemp(dir));
  morph__launcher l;
  assert_int_equal(morph__launcher_init(&l, "/bin/true", "/nowhere.sock", dir, NULL, err,
                                        sizeof err), MORPH_OK);
  morph__job job;
  morph__job_init(&job);
  const char *argv[] = {"/bin/app"};
  morph__job_set_argv(&job, 1, argv);
  job.id = 3, job.size = 1, job.kind = MORPH_KIND_FIXED, job.start = 1700000000.25;
  pid_t first, again;
  int taken;
  assert_int_equal(morph__launcher_run(&l, &job, NULL, 0, &first, &taken), MORPH_OK);
  assert_int_equal(taken, 0);
  assert_int_equal(morph__launcher_run(&l, &job, NULL, 0, &again, &taken), MORPH_OK);
  assert_int_equal(taken, 1);
  assert_int_equal(again, first);
  snprintf(marker, sizeof marker, "%s/3.started", dir);
  struct stat st;
  assert_int_equal(stat(marker, &st), 0);
  assert_int_equal(st.st_mode & 0777, 0600);
  job.start += 1; /* another start of a job 3 */
  assert_int_equal(morph__launcher_run(&l, &job, NULL, 0, &again, &taken), MORPH_OK);
  assert_int_equal(taken, 0);
  assert_true(again != first);
  snprintf(target, sizeof target, "%s/target", dir);
  FILE *f = fopen(target, "w");
  assert_non_null(f);
  fclose(f);
  unlink(marker);
  assert_int_equal(symlink(target, marker), 0);
  job.start += 1;
  assert_int_equal(morph__launcher_run(&l, &job, NULL, 0, &again, &taken), MORPH_OK);
  assert_int_equal(taken, 0);
  assert_int_equal(stat(target, &st), 0);
  assert_int_equal(st.st_size, 0); /* untouched */
  assert_int_equal(lstat(marker, &st), 0);
  assert_true(S_ISREG(st.st_mode));
  while (waitpid(-1, NULL, 0) > 0)
    ;
  morph__job_clear(&job);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  assert_int_equal(system(cmd), 0);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(journal_failed_commit_first_keeps_nothing_names_file),
    cmocka_unit_test(journal_kept_writes_reach_the_file_in_order),
    cmocka_unit_test(journal_refuses_foreign_or_damaged_files_naming_them),
    cmocka_unit_test(submit_refused_and_forgotten_when_not_journaled),
    cmocka_unit_test(decision_undone_when_not_journaled),
    cmocka_unit_test(waiter_requeued_when_its_start_not_journaled),
    cmocka_unit_test(resize_not_sent_when_not_journaled),
    cmocka_unit_test(job_end_kept_and_written_when_journal_recovers),
    cmocka_unit_test(start_marker_second_start_takes_on_the_first),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
