/*
 * morphd's setup: folders, paths, backend, policy, journal (the jobs it
 * holds are handed to the backend again), then the socket, refusing to
 * start next to a live morphd.
 */
#include <errno.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/safedir.h"
#include "morph/error.h"
#include "rms/morphd.h"

__attribute__((format(printf, 3, 4))) static int fail(morph__daemon *d, int rc, const char *fmt,
                                                      ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(d->errmsg, sizeof d->errmsg, fmt, ap);
  va_end(ap);
  return rc;
}

/* The folder holding path (a socket or journal named apart from the
 * state folder) must be ours too. */
static int parent_own(morph__daemon *d, const char *path)
{
  char dir[PATH_MAX], err[512];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash)
    snprintf(dir, sizeof dir, ".");
  else
    slash[slash == dir] = '\0'; /* "/x" is in "/" */
  struct stat st;
  if (stat(dir, &st) == 0 && st.st_uid == 0 && !(st.st_mode & (S_IWGRP | S_IWOTH)))
    return MORPH_OK; /* root's own folder, such as /run */
  int rc = morph__dir_own(dir, 0700, err, sizeof err);
  return rc == MORPH_OK ? MORPH_OK : fail(d, rc, "%s", err);
}

/* A checkpoint folder is shared by the jobs of every user: a real folder
 * that others may write in only if it is sticky (as /tmp), so that nobody
 * replaces another's checkpoint. */
static int checkpoint_dir_ok(morph__daemon *d, const char *dir)
{
  struct stat st;
  if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return fail(d, MORPH_EINVAL, "--checkpoint-dir %s: not a folder (a symbolic link is not "
                "taken)", dir);
  if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
    return fail(d, MORPH_EINVAL, "--checkpoint-dir %s: everyone may write in it but it is not "
                "sticky (chmod +t): anyone could replace another user's checkpoint", dir);
  return MORPH_OK;
}

static int paths(morph__daemon *d)
{
  const morph__daemon_opts *o = &d->opt;
  char err[512];
  /* 0711: other users reach the socket and their jobs' outputs inside,
   * but can neither list nor write anything. */
  int rc = morph__dir_own(o->dir, 0711, err, sizeof err);
  snprintf(d->outdir, sizeof d->outdir, "%s/jobs", o->dir);
  if (rc == MORPH_OK)
    rc = morph__dir_own(d->outdir, 0711, err, sizeof err);
  if (rc != MORPH_OK)
    return fail(d, rc, "%s", err);
  if (o->checkpoint_dir && checkpoint_dir_ok(d, o->checkpoint_dir) != MORPH_OK)
    return MORPH_EINVAL;
  int n = o->socket ? snprintf(d->sock, sizeof d->sock, "%s", o->socket)
                    : snprintf(d->sock, sizeof d->sock, "%s/morphd.sock", o->dir);
  if (n < 0 || (size_t)n >= sizeof d->sock)
    return fail(d, MORPH_EINVAL, "socket path too long (at most 107 bytes): %s", o->dir);
  if (o->socket && !morph__addr_is_tcp(o->socket) && parent_own(d, o->socket) != MORPH_OK)
    return MORPH_EINVAL;
  if (o->journal)
    snprintf(d->jpath, sizeof d->jpath, "%s", o->journal);
  else
    snprintf(d->jpath, sizeof d->jpath, "%s/journal.db", o->dir);
  if (o->journal && parent_own(d, o->journal) != MORPH_OK)
    return MORPH_EINVAL;
  rc = morph__file_own(d->jpath, err, sizeof err);
  return rc == MORPH_OK ? MORPH_OK : fail(d, rc, "%s", err);
}

/* Members of opt.admin_group act on every job. */
static int admin_group(morph__daemon *d)
{
  d->admin_gid = (gid_t)-1;
  if (!d->opt.admin_group)
    return MORPH_OK;
  struct group gr, *res = NULL;
  char buf[4096];
  if (getgrnam_r(d->opt.admin_group, &gr, buf, sizeof buf, &res) != 0 || !res)
    return fail(d, MORPH_EINVAL, "--admin-group %s: no such group", d->opt.admin_group);
  d->admin_gid = res->gr_gid;
  return MORPH_OK;
}

/* The policy when none is named: mdmr on EASY, the default of morph sim
 * too (docs/policy-evaluation.md). On Slurm, rdmr: Slurm starts its queue
 * in priority order and grants an expander only nodes no higher-priority
 * job waits for, so morph jobs grow only with units no waiting job (foreign
 * or morph's) needs, and several grown jobs shrink back to their preferred
 * size together to start a waiting job that needs more nodes than one of
 * them can give. dmr grew into the idle nodes Slurm was keeping for a
 * waiting foreign job (expanders pending for Priority) and shrank one job
 * only: the foreign jobs waited 18 % longer with morph (docs/slurm.md). */
static const char *default_policy(const char *backend)
{
  return backend && !strcmp(backend, "slurm") ? "rdmr+easy" : "mdmr+easy";
}

static int backend_and_policy(morph__daemon *d)
{
  char err[512] = "";
  morph__backend_conf conf = {.socket = d->sock, .outdir = d->outdir,
                              .launcher = d->opt.launcher, .hostfile = d->opt.hostfile,
                              .checkpoint_dir = d->opt.checkpoint_dir,
                              .slots = d->opt.slots, .log = &d->log};
  int rc = morph__backend_open(d->opt.backend ? d->opt.backend : "embedded", &conf, &d->be, err,
                               sizeof err);
  if (rc != MORPH_OK)
    return fail(d, rc, "%s", err[0] ? err : morph_strerror(rc));
  const char *policy = d->opt.policy ? d->opt.policy : default_policy(d->opt.backend);
  rc = morph_policy_create(policy, &d->opt.params, &d->policy);
  if (rc != MORPH_OK) {
    morph_policy_create_error(policy, &d->opt.params, err, sizeof err);
    return fail(d, rc, "policy: %s", err);
  }
  rc = morph_place_create(d->opt.placement, d->opt.place_params, d->opt.nplace_params, &d->place);
  if (rc != MORPH_OK) {
    morph_place_create_error(d->opt.placement, d->opt.place_params, d->opt.nplace_params, err,
                             sizeof err);
    return fail(d, rc, "placement: %s", err);
  }
  morph_policy_actions_init(&d->acts);
  return MORPH_OK;
}

/* Snapshot node i is the placement's topology node i (the backend's node
 * order: the hostfile's, Slurm's node table): a topology naming other
 * hosts, or the same in another order, would place jobs on the wrong
 * nodes, so it is refused. One of another size is placed first fit by the
 * stage: said once here. */
static int topology_matches(morph__daemon *d)
{
  morph__backend_view v;
  int n = 0;
  while (morph_place_node_name(d->place, n))
    n++;
  if (n == 0 || morph__backend_read(d->be, &v) != MORPH_OK)
    return MORPH_OK; /* no topology file; an unreadable backend is journal()'s to report */
  if (n != v.nnodes) {
    morph__say(&d->log, 0, "warning: the placement's topology has %d nodes, the %s backend %d: "
               "jobs are placed first fit", n, morph__backend_name(d->be), v.nnodes);
    return MORPH_OK;
  }
  for (int i = 0; i < n; i++)
    if (strcmp(morph_place_node_name(d->place, i), v.nodes[i].host))
      return fail(d, MORPH_EINVAL, "placement topology: node %d is '%s' where the %s backend's "
                  "node %d is '%s': list the topology's nodes as the backend numbers them (%s)",
                  i, morph_place_node_name(d->place, i), morph__backend_name(d->be), i,
                  v.nodes[i].host, v.unit == MORPH_POLICY_UNIT_NODE ? "Slurm's node table order"
                                                                     : "the hostfile's order");
  return MORPH_OK;
}

/* A live morphd answers on the socket; a stale socket file does not. */
static int another_daemon(const char *sock)
{
  morph__conn c;
  if (morph__connect(sock, 0.2, &c) != MORPH_OK)
    return 0;
  morph__conn_close(&c);
  return 1;
}

/* A running job the journal holds without a pid: morphd stopped between
 * journaling its start and journaling its morph run's pid. */
static int unstarted(const morph__daemon *d, const morph__job *job)
{
  return job->state == MORPH__J_RUNNING && job->pid <= 0 && morph__backend_starts_jobs(d->be);
}

static int load_one(void *ctx, morph__job *job)
{
  morph__daemon *d = ctx;
  morph__job *j = malloc(sizeof *j);
  if (!j) {
    morph__job_clear(job);
    return MORPH_ENOMEM;
  }
  *j = *job;
  /* After a restart no relay is connected yet. A job that may never
   * have started is new until its start marker says otherwise. */
  j->adopted = j->state == MORPH__J_RUNNING && !unstarted(d, j);
  j->conn = -1;
  j->ready = j->adopted;
  return morph__job_add(d, j);
}

/* Starts that waited for a shrink which is over (morphd stopped after
 * journaling its release, before starting them) go back to the queue. */
static void requeue_orphans(morph__daemon *d)
{
  for (int i = 0; i < d->njobs; i++) {
    int id = d->jobs[i]->state == MORPH__J_STARTING ? d->jobs[i]->rz_id : 0, live = 0;
    for (int k = 0; id && k < d->njobs; k++)
      live |= d->jobs[k]->state == MORPH__J_RUNNING && d->jobs[k]->rz_id == id;
    if (id && !live)
      morph__jobs_requeue(d, id, "was over when morphd restarted");
  }
}

/* The backend books again what the journal's live jobs hold, and the
 * resizes they had in flight go on. A running job without a pid is
 * started (again): its start marker tells the backend whether it got as
 * far as its morph run, which is then taken on, not started twice. */
static int adopt(morph__daemon *d)
{
  char err[256];
  for (int i = 0; i < d->njobs; i++) {
    morph__job *job = d->jobs[i];
    if ((job->state != MORPH__J_RUNNING && job->state != MORPH__J_STARTING) || unstarted(d, job))
      continue;
    int rc = morph__backend_adopt(d->be, job, err, sizeof err);
    if (rc != MORPH_OK)
      return fail(d, rc, "%s", err);
  }
  morph__journal_begin(d->journal);
  requeue_orphans(d);
  for (int i = 0; i < d->njobs; i++)
    if (unstarted(d, d->jobs[i]))
      morph__start_act(d, d->jobs[i], 0, "restart");
  morph__journal_commit(d->journal);
  for (int i = 0; i < d->njobs; i++)
    morph__resize_resume(d, d->jobs[i]);
  return MORPH_OK;
}

static int load(morph__daemon *d)
{
  int64_t max_job;
  int max_resize;
  int rc = morph__journal_jobs_load(d->journal, load_one, d);
  if (rc == MORPH_OK)
    rc = morph__journal_max_ids(d->journal, &max_job, &max_resize);
  if (rc != MORPH_OK)
    return fail(d, rc, "cannot read the journal %.200s: %.280s", d->jpath,
                morph__journal_errmsg(d->journal));
  d->next_job = max_job + 1 > d->next_job ? max_job + 1 : d->next_job;
  d->next_resize = max_resize + 1;
  return MORPH_OK;
}

/* A journal whose live jobs belong to another backend cannot be taken
 * over: their resources are not this backend's. */
static int same_backend(morph__daemon *d)
{
  char was[64];
  morph__journal_meta_get(d->journal, "backend", was, sizeof was);
  const char *now = morph__backend_name(d->be);
  for (int i = 0; was[0] && strcmp(was, now) && i < d->njobs; i++)
    if (!morph__jstate_final(d->jobs[i]->state))
      return fail(d, MORPH_ESTATE, "%s holds jobs of the %s backend that have not ended; start"
                  " morphd with --backend %s", d->jpath, was, was);
  return morph__journal_meta_set(d->journal, "backend", now);
}

static int journal(morph__daemon *d)
{
  char err[512];
  int rc = morph__journal_open(d->jpath, 0, &d->journal, err, sizeof err);
  if (rc != MORPH_OK)
    return fail(d, rc, "%s", err);
  morph__journal_set_log(d->journal, &d->log);
  morph__backend_view v;
  rc = morph__backend_read(d->be, &v);
  if (rc != MORPH_OK)
    return fail(d, rc, "cannot read the %s backend: %s", morph__backend_name(d->be),
                morph_strerror(rc));
  char units[64];
  snprintf(units, sizeof units, "%d", morph__backend_view_units(&v));
  morph__journal_meta_set(d->journal, "slots", units);
  morph__journal_meta_set(d->journal, "policy", morph_policy_name(d->policy));
  rc = load(d);
  if (rc == MORPH_OK)
    rc = same_backend(d);
  return rc == MORPH_OK ? adopt(d) : rc;
}

/* Every local user may connect (0666): what each may do is decided per
 * request from the kernel's word on who it is (access.c), as slurmctld's
 * port is open to every user and each RPC carries its credential. */
static int listen_on(morph__daemon *d)
{
  int rc = morph__listener_open(&d->listener, d->sock, 1);
  if (rc != MORPH_OK)
    return fail(d, rc, "cannot listen on %s: %s", d->sock, morph_strerror(rc));
  if (!morph__addr_is_tcp(d->sock) && chmod(d->sock, 0666) != 0)
    return fail(d, MORPH_EIO, "cannot open %s to every user: %s", d->sock, strerror(errno));
  return MORPH_OK;
}

int morph__daemon_init(morph__daemon *d, const morph__daemon_opts *opt)
{
  memset(d, 0, sizeof *d);
  d->opt = *opt;
  d->log = (morph__sayer){.prog = "morphd", .verbose = opt->verbose, .stamp = 1};
  d->listener.fd = d->listener.reserve = -1;
  d->next_job = 1;
  int rc = paths(d);
  if (rc == MORPH_OK)
    rc = admin_group(d);
  if (rc == MORPH_OK)
    rc = backend_and_policy(d);
  if (rc == MORPH_OK)
    rc = topology_matches(d);
  if (rc == MORPH_OK && another_daemon(d->sock))
    rc = fail(d, MORPH_EBUSY, "morphd is already running at %s", d->sock);
  if (rc == MORPH_OK)
    rc = journal(d);
  if (rc == MORPH_OK && (rc = morph__health_init(d)) != MORPH_OK)
    fail(d, rc, "heartbeats: %s", morph_strerror(rc));
  if (rc == MORPH_OK)
    rc = listen_on(d);
  if (rc != MORPH_OK)
    return rc;
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++)
    d->clients[i].fd = -1;
  morph__backend_view v;
  morph__backend_read(d->be, &v);
  morph__journal_event(d->journal, morph__wall(), 0, "daemon",
                       "started, pid %ld, %s backend, %d %s, policy %s", (long)getpid(),
                       morph__backend_name(d->be), morph__backend_view_units(&v),
                       v.unit == MORPH_POLICY_UNIT_NODE ? "nodes" : "slots",
                       morph_policy_name(d->policy));
  return MORPH_OK;
}
