/*
 * Unit tests of morphd's pool, allocations, embedded backend, journal and
 * journal -> report, without a daemon. Each cmocka_unit_test is its own
 * ctest test.
 */
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <sqlite3.h>

#include "morph/error.h"
#include "rms/backend.h"
#include "rms/history.h"
#include "rms/journal.h"
#include "rms/pool.h"

/* The folders temp_dir made, removed with what they hold when the test's
 * process exits, after a failed assertion too (each test is a process). */
#define MADE_MAX 8
static char made[MADE_MAX][64];
static int nmade;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

static void remove_made(void)
{
  for (int i = 0; i < nmade; i++)
    nftw(made[i], remove_entry, 8, FTW_DEPTH | FTW_PHYS);
}

static void temp_dir(char *buf, size_t size)
{
  snprintf(buf, size, "/tmp/test-morphd-XXXXXX");
  assert_non_null(mkdtemp(buf));
  assert_true(nmade < MADE_MAX);
  if (nmade == 0)
    atexit(remove_made);
  snprintf(made[nmade++], sizeof made[0], "%s", buf);
}

static void alloc_of(morph__alloc *a, const char *text)
{
  morph__alloc_init(a);
  assert_int_equal(morph__alloc_parse(a, text), MORPH_OK);
}

static void pool_local_books_and_releases(void **state)
{
  (void)state;
  morph__pool p;
  morph__alloc a;
  assert_int_equal(morph__pool_local(&p, 6), MORPH_OK);
  alloc_of(&a, "0:4");
  assert_int_equal(morph__pool_book(&p, &a), MORPH_OK);
  assert_int_equal(morph__pool_free_slots(&p), 2);
  morph__pool_release(&p, &a);
  assert_int_equal(morph__pool_free_slots(&p), 6);
  morph__pool_free(&p);
  assert_int_equal(morph__pool_local(&p, 0), MORPH_EINVAL);
  morph__alloc_free(&a);
  morph__pool_free(&p);
}

/* Two decisions racing for the same slots: whichever books second is
 * refused as a whole and the pool is unchanged. */
static void pool_racing_bookings_never_double_book(void **state)
{
  (void)state;
  morph__pool p;
  char dir[64], path[128];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/hosts", dir);
  FILE *f = fopen(path, "w");
  fputs("a slots=2\nb slots=2\n", f);
  fclose(f);
  assert_int_equal(morph__pool_hostfile(&p, path, path, sizeof path), MORPH_OK);
  morph__alloc first, second;
  alloc_of(&first, "0:2,1:1");
  alloc_of(&second, "1:2");
  assert_int_equal(morph__pool_book(&p, &first), MORPH_OK);
  assert_int_equal(morph__pool_book(&p, &second), MORPH_EBUSY);
  assert_int_equal(p.nodes[0].used, 2);
  assert_int_equal(p.nodes[1].used, 1);
  assert_int_equal(morph__alloc_parse(&second, "1:1"), MORPH_OK);
  assert_int_equal(morph__pool_book(&p, &second), MORPH_OK);
  assert_int_equal(morph__pool_book(&p, &second), MORPH_EBUSY);
  assert_int_equal(morph__pool_free_slots(&p), 0);
  morph__alloc_free(&first);
  morph__alloc_free(&second);
  morph__pool_free(&p);
}

static void pool_hostfile_error_names_line(void **state)
{
  (void)state;
  morph__pool p;
  char dir[64], path[128], err[256];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/hosts", dir);
  FILE *f = fopen(path, "w");
  fputs("# cluster\nn1 slots=4\nn2 slots=many\n", f);
  fclose(f);
  assert_int_equal(morph__pool_hostfile(&p, path, err, sizeof err), MORPH_EPARSE);
  assert_non_null(strstr(err, ":3: slots"));
  assert_int_equal(morph__pool_hostfile(&p, "/nonexistent/hosts", err, sizeof err), MORPH_EIO);
}

/* Slots of a host listed again add up: past INT_MAX in total is an error
 * naming the line, not a signed overflow. */
static void pool_hostfile_total_beyond_int_refused(void **state)
{
  (void)state;
  morph__pool p;
  char dir[64], path[128], err[256];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/hosts", dir);
  FILE *f = fopen(path, "w");
  for (int i = 0; i < 21475; i++)
    fputs("a slots=100000\n", f);
  fclose(f);
  assert_int_equal(morph__pool_hostfile(&p, path, err, sizeof err), MORPH_EPARSE);
  assert_non_null(strstr(err, ":21475: slots=: the pool would hold more than"));
  assert_int_equal(p.n, 0);
}

static void alloc_sub_keeps_first_piece_and_refuses_foreign(void **state)
{
  (void)state;
  morph__alloc a, b;
  char text[64];
  alloc_of(&a, "3:2,1:2");
  alloc_of(&b, "1:2");
  assert_int_equal(morph__alloc_sub(&a, &b), MORPH_OK);
  morph__alloc_format(&a, text, sizeof text);
  assert_string_equal(text, "3:2");
  assert_int_equal(morph__alloc_parse(&b, "2:1"), MORPH_OK);
  assert_int_equal(morph__alloc_sub(&a, &b), MORPH_EINVAL);
  assert_int_equal(morph__alloc_total(&a), 2);
  assert_int_equal(morph__alloc_parse(&b, "1:x"), MORPH_EPARSE);
  morph__alloc_free(&a);
  morph__alloc_free(&b);
}

static morph__backend *open_embedded(int slots)
{
  morph__backend_conf conf = {.socket = "/tmp/none.sock", .outdir = "/tmp", .slots = slots};
  morph__backend *b;
  char err[256];
  assert_int_equal(morph__backend_open("embedded", &conf, &b, err, sizeof err), MORPH_OK);
  return b;
}

static int used(morph__backend *b)
{
  morph__backend_view v;
  assert_int_equal(morph__backend_read(b, &v), MORPH_OK);
  return v.nodes[0].used;
}

/* A grow books at once and is granted by the next event; a release gives
 * the pieces back only when its event is reported; drop frees what is left
 * and forgets what was still queued. */
static void embedded_grow_release_report_in_order(void **state)
{
  (void)state;
  morph__backend *b = open_embedded(6);
  morph__job job;
  morph__job_init(&job);
  job.id = 3;
  morph__alloc two, one;
  alloc_of(&two, "0:2");
  alloc_of(&one, "0:1");
  morph__backend_event ev;
  assert_int_equal(morph__backend_hold(b, &job, &two), MORPH_OK);
  assert_int_equal(morph__backend_grow(b, &job, 41, &two), MORPH_OK);
  assert_int_equal(used(b), 4);
  assert_int_equal(morph__backend_grow(b, &job, 42, &two), MORPH_OK);
  assert_int_equal(morph__backend_grow(b, &job, 43, &one), MORPH_EBUSY); /* 6 of 6 */
  assert_int_equal(morph__backend_release(b, &job, 44, &two), MORPH_OK);
  assert_int_equal(used(b), 6); /* not before its event */
  assert_int_equal(morph__backend_next(b, &ev), 1);
  assert_int_equal(ev.kind, MORPH__BE_GROWN);
  assert_int_equal(ev.req, 41);
  assert_int_equal(ev.outcome, MORPH_OK);
  assert_string_equal(ev.hosts, ""); /* this machine: morph run's default */
  assert_int_equal(morph__backend_next(b, &ev), 1);
  assert_int_equal(ev.req, 42);
  assert_int_equal(morph__backend_next(b, &ev), 1);
  assert_int_equal(ev.kind, MORPH__BE_RELEASED);
  assert_int_equal(ev.req, 44);
  assert_int_equal(ev.outcome, MORPH_OK);
  assert_int_equal(used(b), 4);
  assert_int_equal(morph__backend_release(b, &job, 45, &one), MORPH_OK);
  morph__backend_drop(b, &job);
  assert_int_equal(used(b), 0);
  assert_int_equal(morph__backend_next(b, &ev), 0); /* 45 forgotten */
  assert_int_equal(morph__backend_release(b, &job, 46, &one), MORPH_EINVAL);
  assert_int_equal(morph__backend_stop(b, &job), MORPH_ESTATE); /* no process */
  morph__alloc_free(&two);
  morph__alloc_free(&one);
  morph__backend_close(b);
}

/* With a hostfile, a grant names the joiners' hosts, one per slot, for
 * the RESIZE. */
static void embedded_hostfile_grant_names_joiner_hosts(void **state)
{
  (void)state;
  char dir[64], path[128], err[256];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/hosts", dir);
  FILE *f = fopen(path, "w");
  fputs("a slots=2\nb slots=2\n", f);
  fclose(f);
  morph__backend_conf conf = {.socket = "/tmp/none.sock", .outdir = dir, .hostfile = path};
  morph__backend *b;
  assert_int_equal(morph__backend_open("embedded", &conf, &b, err, sizeof err), MORPH_OK);
  morph__job job;
  morph__job_init(&job);
  job.id = 2;
  morph__alloc more;
  alloc_of(&more, "0:1,1:2");
  assert_int_equal(morph__backend_grow(b, &job, 7, &more), MORPH_OK);
  morph__backend_event ev;
  assert_int_equal(morph__backend_next(b, &ev), 1);
  assert_string_equal(ev.hosts, "a,b,b");
  morph__backend_drop(b, &job);
  morph__alloc_free(&more);
  morph__backend_close(b);
}

/* After a restart, a job that holds more than the pool has is refused
 * with a reason, and nothing of it is booked. */
static void embedded_adopt_refuses_slots_it_lacks(void **state)
{
  (void)state;
  morph__backend *b = open_embedded(4);
  morph__job job;
  morph__job_init(&job);
  job.id = 9;
  job.state = MORPH__J_RUNNING;
  morph__alloc_parse(&job.alloc, "0:3");
  morph__alloc_parse(&job.extra, "0:2");
  char err[256] = "";
  assert_int_equal(morph__backend_adopt(b, &job, err, sizeof err), MORPH_EINVAL);
  assert_non_null(strstr(err, "job 9 holds slots this pool does not have"));
  assert_int_equal(used(b), 0);
  morph__alloc_clear(&job.extra);
  assert_int_equal(morph__backend_adopt(b, &job, err, sizeof err), MORPH_OK);
  assert_int_equal(used(b), 3);
  morph__job_clear(&job);
  morph__backend_close(b);
}

static void backend_unknown_and_unbuilt_names_say_so(void **state)
{
  (void)state;
  morph__backend_conf conf = {.slots = 1};
  morph__backend *b = (morph__backend *)&conf;
  char err[256];
  assert_int_equal(morph__backend_open("pbs", &conf, &b, err, sizeof err), MORPH_EINVAL);
  assert_null(b);
  assert_string_equal(err, "unknown backend 'pbs' (embedded, slurm)");
  /* Built with libslurm it needs SLURM_CONF; without, it says it is not built. */
  unsetenv("SLURM_CONF");
  int rc = morph__backend_open("slurm", &conf, &b, err, sizeof err);
  assert_null(b);
  if (rc == MORPH_EINVAL)
    assert_non_null(strstr(err, "needs SLURM_CONF"));
  else
    assert_int_equal(rc, MORPH_ENOSYS), assert_non_null(strstr(err, "not built"));
}

static morph__job *sample_job(int64_t id)
{
  static morph__job j;
  const char *argv[] = {"/bin/app", "--iters", "10"};
  morph__job_init(&j);
  j.id = id;
  snprintf(j.name, sizeof j.name, "job%lld", (long long)id);
  j.kind = MORPH_KIND_MALLEABLE;
  j.req_min = j.req_max = 2, j.min = 1, j.pref = 2, j.max = 4;
  morph__job_set_argv(&j, 3, argv);
  j.cwd = strdup("/tmp"), j.out = strdup("/tmp/o"), j.err = strdup("/tmp/e");
  j.state = MORPH__J_RUNNING;
  j.submit = 100, j.start = 101, j.size = 3, j.pid = 4242;
  morph__alloc_parse(&j.alloc, "0:3");
  morph__alloc_parse(&j.extra, "0:1");
  j.rz_id = 7, j.rz_op = MORPH__R_EXPAND, j.rz_to = 4;
  return &j;
}

static int collect(void *ctx, morph__job *job)
{
  morph__job *out = ctx;
  *out = *job;
  return MORPH_OK;
}

/* Killing and restarting morphd loses no job record: what is saved reads
 * back identical from a fresh handle. */
static void journal_job_survives_reopen(void **state)
{
  (void)state;
  char dir[64], path[128], err[256];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/journal.db", dir);
  morph__journal *j;
  assert_int_equal(morph__journal_open(path, 0, &j, err, sizeof err), MORPH_OK);
  morph__job *in = sample_job(5);
  assert_int_equal(morph__journal_job_save(j, in), MORPH_OK);
  morph__journal_close(j); /* no clean shutdown needed: each save commits */
  assert_int_equal(morph__journal_open(path, 0, &j, err, sizeof err), MORPH_OK);
  morph__job out;
  morph__job_init(&out);
  assert_int_equal(morph__journal_jobs_load(j, collect, &out), MORPH_OK);
  assert_int_equal(out.id, 5);
  assert_string_equal(out.argv[2], "10");
  assert_int_equal(out.state, MORPH__J_RUNNING);
  assert_int_equal(out.size, 3);
  assert_int_equal(morph__alloc_total(&out.extra), 1);
  assert_int_equal(out.rz_id, 7);
  assert_int_equal(out.rz_op, MORPH__R_EXPAND);
  assert_int_equal(out.pid, 4242);
  int64_t max_job;
  int max_resize;
  assert_int_equal(morph__journal_resize_begin(j, 9, 5, MORPH__R_SHRINK, 3, 2, &in->alloc, -1, 1),
                   MORPH_OK);
  assert_int_equal(morph__journal_max_ids(j, &max_job, &max_resize), MORPH_OK);
  assert_int_equal(max_job, 5);
  assert_int_equal(max_resize, 9);
  morph__job_clear(&out);
  morph__job_clear(in);
  morph__journal_close(j);
}

/* A fresh journal in a new folder (its name in dir) with a pool of 4
 * units and job 1 completed: submitted at 1000, ran 1002-1012. */
static morph__journal *report_journal(char *dir, size_t size, const char *backend, int ppu)
{
  char path[128], err[256];
  temp_dir(dir, size);
  snprintf(path, sizeof path, "%s/journal.db", dir);
  morph__journal *j;
  assert_int_equal(morph__journal_open(path, 0, &j, err, sizeof err), MORPH_OK);
  morph__journal_meta_set(j, "slots", "4");
  morph__journal_meta_set(j, "backend", backend);
  morph__job *a = sample_job(1);
  a->state = MORPH__J_COMPLETED, a->submit = 1000, a->start = 1002, a->end = 1012, a->size = 2;
  a->ppu = ppu;
  assert_int_equal(morph__journal_job_save(j, a), MORPH_OK);
  morph__job_clear(a);
  return j;
}

/* The report of journal j in its own units; *rc what morph__history_report
 * said (err its message). */
static morph_report *report_of(morph__journal *j, double *t0, int *rc, char *err, size_t errsize)
{
  morph_report_config cfg;
  morph_report_config_init(&cfg);
  cfg.units = morph__history_units(j);
  assert_int_equal(cfg.units, 4);
  cfg.unit_name = morph__history_unit_name(j);
  morph_report *rep;
  assert_int_equal(morph_report_create(&cfg, &rep), MORPH_OK);
  *rc = morph__history_report(j, rep, t0, err, errsize);
  return rep;
}

/* The report of journal j, which must succeed, and its totals in *t. */
static morph_report *totals_of(morph__journal *j, double *t0, morph_report_totals *t)
{
  char err[256];
  int rc;
  morph_report *rep = report_of(j, t0, &rc, err, sizeof err);
  assert_int_equal(rc, MORPH_OK);
  morph_report_totals_get(rep, t);
  return rep;
}

/* The report built from a journal has the journal's numbers. */
static void history_report_agrees_with_journal(void **state)
{
  (void)state;
  char dir[64];
  morph__journal *j = report_journal(dir, sizeof dir, "embedded", 1);
  morph__journal_size(j, 1, 1002, 2);
  morph__journal_size(j, 1, 1006, 4);
  morph__journal_size(j, 1, 1012, 0);
  morph__alloc a;
  alloc_of(&a, "0:4");
  morph__journal_resize_begin(j, 1, 1, MORPH__R_EXPAND, 2, 4, &a, -1, 1005);
  morph__journal_resize_end(j, 1, 1006, MORPH_OK, 4, "");
  morph__alloc_free(&a);
  double t0;
  morph_report_totals t;
  morph_report *rep = totals_of(j, &t0, &t);
  assert_true(t0 == 1000);
  assert_int_equal(t.completed, 1);
  assert_true(t.all.wait > 1.999 && t.all.wait < 2.001);
  assert_true(t.all.exec > 9.999 && t.all.exec < 10.001);
  assert_true(t.busy_unit_s > 31.999 && t.busy_unit_s < 32.001); /* 2*4 + 4*6 */
  assert_int_equal(t.resizes, 1);
  morph_report_destroy(rep);
  morph__journal_close(j);
}

/* True if the gnuplot script dir/prefix.gp has the line `want`. */
static int script_has(const char *dir, const char *prefix, const char *want)
{
  char gp[160], line[512];
  snprintf(gp, sizeof gp, "%s/%s.gp", dir, prefix);
  FILE *f = fopen(gp, "r");
  assert_non_null(f);
  int found = 0;
  while (fgets(line, sizeof line, f))
    found |= strstr(line, want) != NULL;
  fclose(f);
  return found;
}

/* A Slurm backend's journal (pool in nodes, job sizes in processes, the
 * job's processes per node saved) is reported in nodes, and its plots say
 * so; a Slurm job without its processes per node (an older journal) is
 * refused with a message naming it. */
static void history_report_slurm_journal_in_nodes(void **state)
{
  (void)state;
  char dir[64], err[256];
  morph__journal *j = report_journal(dir, sizeof dir, "slurm", 2);
  assert_string_equal(morph__history_unit_name(j), "nodes");
  morph__journal_size(j, 1, 1002, 2); /* 1 node */
  morph__journal_size(j, 1, 1006, 6); /* 3 nodes: 6 processes would not fit a pool of 4 */
  morph__journal_size(j, 1, 1012, 0);
  double t0;
  morph_report_totals t;
  morph_report *rep = totals_of(j, &t0, &t);
  assert_true(t.busy_unit_s > 21.999 && t.busy_unit_s < 22.001); /* 1*4 + 3*6 node-s */
  int rc = morph_report_plot(rep, dir, "slurm");
  assert_true(rc == MORPH_OK || rc == MORPH_ENOSYS); /* the script is written either way */
  assert_true(script_has(dir, "slurm", "set ylabel 'allocated nodes'"));
  morph_report_destroy(rep);
  morph__journal_close(j);
  /* As a journal written before ppu was saved reads back. */
  j = report_journal(dir, sizeof dir, "slurm", 0);
  morph__journal_size(j, 1, 1002, 2);
  rep = report_of(j, &t0, &rc, err, sizeof err);
  assert_int_equal(rc, MORPH_EINVAL);
  assert_non_null(strstr(err, "job 1: the journal does not say its processes per node"));
  morph_report_destroy(rep);
  morph__journal_close(j);
}

/* A journal written before the backend seam (version 1: no rz_phase) is
 * migrated when morphd opens it, and its expansion in flight reads back as
 * sent, with its new pieces as the plan. */
static void journal_version1_migrates(void **state)
{
  (void)state;
  char dir[64], path[128], err[256];
  temp_dir(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/journal.db", dir);
  sqlite3 *db;
  assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
  assert_int_equal(sqlite3_exec(db,
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);"
    "INSERT INTO meta VALUES('version', '1');"
    "CREATE TABLE jobs(id INTEGER PRIMARY KEY, name TEXT, kind TEXT, req_min INT, req_max INT,"
    " min INT, max INT, pref INT, argv TEXT, cwd TEXT, out TEXT, err TEXT, submit REAL,"
    " start REAL, end REAL, state TEXT, exit_status INT, pid INT, size INT, alloc TEXT,"
    " extra TEXT, plan TEXT, failed_resizes INT, resizes INT, rz_id INT, rz_op TEXT, rz_to INT,"
    " last_change REAL, cancel INT, iter_time REAL, mpi_time REAL, note TEXT);"
    "INSERT INTO jobs VALUES(4, 'j', 'malleable', 2, 2, 1, 4, 2, '[\"/bin/app\"]', '/', 'o',"
    " 'e', 1, 2, 0, 'running', -1, 77, 2, '0:2', '0:2', '', 0, 0, 5, 'expand', 4, 2, 0, 0, 0,"
    " '');", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(db);
  morph__journal *j;
  assert_int_equal(morph__journal_open(path, 0, &j, err, sizeof err), MORPH_OK);
  char version[16];
  morph__journal_meta_get(j, "version", version, sizeof version);
  assert_string_equal(version, "3");
  morph__job out;
  morph__job_init(&out);
  assert_int_equal(morph__journal_jobs_load(j, collect, &out), MORPH_OK);
  assert_int_equal(out.id, 4);
  assert_int_equal(out.rz_phase, MORPH__P_SENT);
  /* A job of a morph without owners is an administrator's alone. */
  assert_true(out.uid == (uid_t)-1 && out.gid == (gid_t)-1);
  assert_string_equal(out.secret, "");
  char plan[64];
  morph__alloc_format(&out.plan, plan, sizeof plan);
  assert_string_equal(plan, "0:2");
  morph__job_clear(&out);
  morph__journal_close(j);
}

int main(int argc, char **argv)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(pool_local_books_and_releases),
    cmocka_unit_test(pool_racing_bookings_never_double_book),
    cmocka_unit_test(pool_hostfile_error_names_line),
    cmocka_unit_test(pool_hostfile_total_beyond_int_refused),
    cmocka_unit_test(alloc_sub_keeps_first_piece_and_refuses_foreign),
    cmocka_unit_test(journal_job_survives_reopen),
    cmocka_unit_test(history_report_agrees_with_journal),
    cmocka_unit_test(history_report_slurm_journal_in_nodes),
    cmocka_unit_test(journal_version1_migrates),
    cmocka_unit_test(embedded_grow_release_report_in_order),
    cmocka_unit_test(embedded_hostfile_grant_names_joiner_hosts),
    cmocka_unit_test(embedded_adopt_refuses_slots_it_lacks),
    cmocka_unit_test(backend_unknown_and_unbuilt_names_say_so),
  };
  if (argc > 1)
    cmocka_set_test_filter(argv[1]);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
