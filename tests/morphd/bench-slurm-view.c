/*
 * bench-slurm-view: what morphd's Slurm backend costs beyond the emulated
 * cluster. A cluster of --nodes nodes and --jobs jobs is built in memory as
 * libslurm's own structures (node_info_t, slurm_job_info_t) and handed to
 * the backend through the libslurm stand-in (slurm-mock.c, tables lent, not
 * copied); then, --reps times: the backend reads the tables and builds its
 * view (the picture), morphd's snapshot is made of it, and the default
 * Slurm policy decides once. Prints the median time of each step, the
 * process's peak RSS, and
 *
 *   RESULT view_nodes=N view_jobs=M view_ms=... snapshot_ms=... decide_ms=...
 *          view_100k_jobs_ms=... view_rss_mb=...
 *
 * (view_100k_jobs_ms is the three steps together, the key
 * bench/slurm-scale.sh reports). Exits 1 if the view does not hold the
 * cluster it was given (every node, every running and pending job).
 *
 * The cluster: nodes of 2 CPUs; running jobs of 1-4 nodes fill 90 % of
 * them, every 100th malleable (as a claimed job of morphd's would be in
 * the snapshot); the other jobs pend for 1-8 nodes (WAIT_PRIORITY, random
 * priorities), so Slurm's queue order has to be sorted.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/clock.h"
#include "morph/error.h"
#include "morph/policy.h"
#include "rms/backend.h"
#include "slurm-mock.h"

typedef struct cluster {
  node_info_t *nodes;
  slurm_job_info_t *jobs;
  int32_t (*inx)[3];
  char (*names)[16];
  int nnodes, njobs, nrunning, npending;
} cluster;

static void add_job(cluster *c, int k, uint32_t state, int first, int count)
{
  slurm_job_info_t *j = &c->jobs[k];
  memset(j, 0, sizeof *j);
  j->job_id = (uint32_t)(1000 + k);
  j->job_state = state;
  j->num_nodes = (uint32_t)count;
  j->time_limit = 60;
  j->submit_time = j->start_time = time(NULL) - 600 + k % 600;
  j->name = "job";
  j->partition = "main";
  j->array_task_id = NO_VAL;
  j->priority = (uint32_t)(rand() % 100000);
  if (state == JOB_PENDING) {
    j->state_reason = WAIT_PRIORITY;
    return;
  }
  c->inx[k][0] = first, c->inx[k][1] = first + count - 1, c->inx[k][2] = -1;
  j->node_inx = c->inx[k];
  j->batch_host = c->names[first];
  for (int n = first; n < first + count; n++)
    c->nodes[n].node_state = NODE_STATE_ALLOCATED;
}

static int make_cluster(cluster *c, int nnodes, int njobs)
{
  c->nnodes = nnodes, c->njobs = njobs;
  c->nodes = calloc((size_t)nnodes, sizeof *c->nodes);
  c->names = calloc((size_t)nnodes, sizeof *c->names);
  c->jobs = calloc((size_t)njobs, sizeof *c->jobs);
  c->inx = calloc((size_t)njobs, sizeof *c->inx);
  if (!c->nodes || !c->names || !c->jobs || !c->inx)
    return MORPH_ENOMEM;
  for (int n = 0; n < nnodes; n++) {
    snprintf(c->names[n], sizeof c->names[n], "n%05d", n);
    c->nodes[n].name = c->names[n];
    c->nodes[n].node_state = NODE_STATE_IDLE;
    c->nodes[n].cpus = 2;
  }
  int next = 0, k = 0;
  for (; k < njobs; k++) {
    int count = 1 + k % 4;
    if (next + count > nnodes * 9 / 10)
      break;
    add_job(c, k, JOB_RUNNING, next, count);
    next += count;
  }
  c->nrunning = k;
  for (; k < njobs; k++)
    add_job(c, k, JOB_PENDING, 0, 1 + k % 8);
  c->npending = njobs - c->nrunning;
  return MORPH_OK;
}

/* morphd's snapshot of the view (rms/sched.c's build, without morphd's own
 * jobs): every 100th running job malleable, as a claimed one would be. */
static int snapshot(const morph__backend_view *v, morph_policy_snapshot *s)
{
  memset(s, 0, sizeof *s);
  s->nodes = calloc((size_t)v->nnodes + 1, sizeof *s->nodes);
  s->running = calloc((size_t)v->nrunning + 1, sizeof *s->running);
  s->pending = calloc((size_t)v->npending + 1, sizeof *s->pending);
  if (!s->nodes || !s->running || !s->pending)
    return MORPH_ENOMEM;
  s->now = (double)time(NULL);
  s->unit = v->unit;
  for (int i = 0; i < v->nnodes; i++)
    s->nodes[i] = (morph_policy_node){.id = i, .slots = v->nodes[i].slots,
                                      .used = v->nodes[i].used, .state = v->nodes[i].state};
  s->nnodes = v->nnodes;
  memcpy(s->running, v->running, (size_t)v->nrunning * sizeof *s->running);
  memcpy(s->pending, v->pending, (size_t)v->npending * sizeof *s->pending);
  s->nrunning = v->nrunning, s->npending = v->npending;
  for (int k = 0; k < s->nrunning; k += 100) {
    morph_policy_job *p = &s->running[k];
    p->kind = MORPH_POLICY_JOB_MALLEABLE;
    p->min = 1, p->max = 2 * p->size, p->pref = p->size;
  }
  return MORPH_OK;
}

static void snapshot_free(morph_policy_snapshot *s)
{
  free(s->nodes), free(s->running), free(s->pending);
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, int n)
{
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* One picture, snapshot and decision; the three times in ms. */
static int one_round(morph_policy *policy, const cluster *c, double *ms)
{
  static const morph__sayer quiet = {.prog = "bench-slurm-view", .verbose = 0};
  morph__backend_conf conf = {.log = &quiet};
  morph__backend *b = NULL;
  char err[256] = "";
  double t0 = morph__now();
  int rc = morph__slurm_ops.open(&conf, &b, err, sizeof err);
  morph__backend_view v;
  if (rc == MORPH_OK)
    rc = morph__slurm_ops.read(b, &v);
  double t1 = morph__now();
  if (rc != MORPH_OK) {
    fprintf(stderr, "bench-slurm-view: the backend failed: %s\n", err);
    return rc;
  }
  long units = 0;
  for (int i = 0; i < v.nnodes; i++)
    units += v.nodes[i].used;
  if (v.nnodes != c->nnodes || v.nrunning != c->nrunning || v.npending != c->npending) {
    fprintf(stderr, "bench-slurm-view: the view holds %d nodes, %d running, %d pending; "
            "the cluster %d, %d, %d (%ld slots used)\n", v.nnodes, v.nrunning, v.npending,
            c->nnodes, c->nrunning, c->npending, units);
    morph__slurm_ops.close(b);
    return MORPH_EINVAL;
  }
  morph_policy_snapshot s;
  morph_policy_actions acts;
  morph_policy_actions_init(&acts);
  rc = snapshot(&v, &s);
  double t2 = morph__now();
  if (rc == MORPH_OK)
    rc = morph_policy_decide(policy, &s, &acts);
  double t3 = morph__now();
  if (rc != MORPH_OK)
    fprintf(stderr, "bench-slurm-view: decision failed: %s\n", morph_policy_errmsg(policy));
  ms[0] = 1e3 * (t1 - t0), ms[1] = 1e3 * (t2 - t1), ms[2] = 1e3 * (t3 - t2);
  morph_policy_actions_free(&acts);
  snapshot_free(&s);
  morph__slurm_ops.close(b);
  return rc;
}

static int parse(int argc, char **argv, int *nodes, int *jobs, int *reps)
{
  static const struct option opts[] = {{"nodes", required_argument, NULL, 'n'},
                                       {"jobs", required_argument, NULL, 'j'},
                                       {"reps", required_argument, NULL, 'r'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  for (int o; (o = getopt_long(argc, argv, "h", opts, NULL)) != -1;) {
    char *end;
    long x = o == 'h' || o == '?' ? 0 : strtol(optarg, &end, 10);
    if (o == 'h' || o == '?' || *end || x < 1 || x > 10000000) {
      fprintf(stderr, "usage: bench-slurm-view [--nodes N] [--jobs M] [--reps R]\n");
      return o == 'h' ? 1 : 2;
    }
    *(o == 'n' ? nodes : o == 'j' ? jobs : reps) = (int)x;
  }
  return 0;
}

int main(int argc, char **argv)
{
  int nnodes = 10000, njobs = 100000, reps = 5;
  int rc = parse(argc, argv, &nnodes, &njobs, &reps);
  if (rc)
    return rc == 1 ? 0 : 2;
  srand(20261128);
  setenv("SLURM_CONF", "/nonexistent/slurm.conf (in memory)", 1);
  cluster c;
  morph_policy *policy = NULL;
  if (make_cluster(&c, nnodes, njobs) != MORPH_OK ||
      morph_policy_create("rdmr+easy", NULL, &policy) != MORPH_OK) {
    fprintf(stderr, "bench-slurm-view: out of memory\n");
    return 1;
  }
  mock_reset();
  mock.nodes = c.nodes, mock.nnodes = c.nnodes;
  mock.jobs = c.jobs, mock.njobs = c.njobs;
  mock.lend = 1;
  mock_touch();
  double *t = calloc((size_t)reps * 3, sizeof *t);
  for (int r = 0; t && r < reps && rc == MORPH_OK; r++) {
    double ms[3];
    rc = one_round(policy, &c, ms);
    for (int k = 0; k < 3; k++)
      t[k * reps + r] = ms[k];
  }
  if (!t || rc != MORPH_OK)
    return 1;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  double view = median(t, reps), snap = median(t + reps, reps), dec = median(t + 2 * reps, reps);
  printf("%d nodes, %d jobs (%d running, %d pending), %d rounds: picture %.3f ms, snapshot "
         "%.3f ms, decision %.3f ms (medians)\n",
         nnodes, njobs, c.nrunning, c.npending, reps, view, snap, dec);
  printf("RESULT view_nodes=%d view_jobs=%d view_ms=%.3f snapshot_ms=%.3f decide_ms=%.3f "
         "view_100k_jobs_ms=%.3f view_rss_mb=%.1f\n",
         nnodes, njobs, view, snap, dec, view + snap + dec, ru.ru_maxrss / 1024.0);
  morph_policy_destroy(policy);
  free(t);
  return 0;
}
