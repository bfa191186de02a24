/*
 * rms/embedded: morphd as its own resource manager. The nodes are this
 * machine or the hosts of a hostfile (pool.c), a job runs as a `morph run`
 * child of morphd (launch.c), and its end is learnt by reaping that child
 * or, for a job adopted after a restart, by seeing its morph run vanish.
 *
 * Everything here completes at once: a grow books its pieces when asked,
 * and both GROWN and RELEASED are reported by the next call to next().
 * Pieces being released stay booked until then, so morphd's books and the
 * pool agree at every moment its scheduler can look.
 *
 * Across hosts (a hostfile), a host goes back to the pool only once the
 * job's processes are seen gone on it (rms/gone): after a release, and
 * also after the job ended (its pieces are then `settling`, booked for
 * nobody). A host that cannot be asked is probed, and marked down if it
 * does not answer (rms/hostwatch): nothing is placed on it until it
 * answers again, and morphd stops the jobs that run there.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "morph/error.h"
#include "rms/backend.h"
#include "rms/gone.h"
#include "rms/hostwatch.h"
#include "rms/launch.h"
#include "rms/pool.h"

#define ORPHAN_CHECK_S 2.0

/* What one job holds and its morph run. */
typedef struct held {
  int64_t job;
  pid_t pid;   /* 0: no process known */
  int child;   /* we forked it, so waitpid tells its end */
  int ran;     /* processes were started on its pieces */
  morph__alloc pieces;
} held;

/* A completion not reported yet. */
typedef struct queued {
  morph__backend_event ev;
  morph__alloc pieces; /* RELEASED: given back when reported */
  morph__gone gone;    /* RELEASED: reported once the hosts it empties
                          are seen empty, on those hosts */
  int settle;          /* not reported: the pieces of a job that ended,
                          given back once its hosts are seen empty */
} queued;

typedef struct embedded {
  morph__backend base;
  morph__pool pool;
  morph__launcher launcher;
  held *held;
  int nheld, capheld;
  queued *q;
  int nq, capq;
  double next_check; /* of adopted jobs' morph runs */
  morph__hostwatch watch; /* empty on this machine alone */
  const morph__sayer *log;
} embedded;

static embedded *self(morph__backend *b)
{
  return (embedded *)b;
}

static held *find_held(embedded *e, int64_t job)
{
  for (int i = 0; i < e->nheld; i++)
    if (e->held[i].job == job)
      return &e->held[i];
  return NULL;
}

/* v with room for one more element (n used of *cap); NULL: out of
 * memory, v unchanged. */
static void *room(void *v, int n, int *cap, size_t size)
{
  if (n < *cap)
    return v;
  int c = *cap ? 2 * *cap : 16;
  void *w = realloc(v, (size_t)c * size);
  if (w)
    *cap = c;
  return w;
}

/* The job's record, created empty if missing; NULL: out of memory. */
static held *held_of(embedded *e, int64_t job)
{
  held *h = find_held(e, job);
  if (h)
    return h;
  held *v = room(e->held, e->nheld, &e->capheld, sizeof *v);
  if (!v)
    return NULL;
  e->held = v;
  h = &e->held[e->nheld++];
  memset(h, 0, sizeof *h);
  h->job = job;
  morph__alloc_init(&h->pieces);
  return h;
}

static void forget_held(embedded *e, held *h)
{
  morph__alloc_free(&h->pieces);
  *h = e->held[--e->nheld];
}

/* Books pieces for a job: in the pool and in its record, or neither (a
 * record that would stay empty is not kept). */
static int book(embedded *e, int64_t job, const morph__alloc *pieces, held **out)
{
  held *h = held_of(e, job);
  if (!h)
    return MORPH_ENOMEM;
  int rc = morph__pool_book(&e->pool, pieces);
  if (rc == MORPH_OK && (rc = morph__alloc_add_all(&h->pieces, pieces)) != MORPH_OK)
    morph__pool_release(&e->pool, pieces);
  if (rc != MORPH_OK && h->pieces.n == 0 && h->pid == 0) {
    forget_held(e, h);
    h = NULL;
  }
  if (out)
    *out = h;
  return rc;
}

static int enqueue(embedded *e, const morph__backend_event *ev, const morph__alloc *pieces)
{
  queued *v = room(e->q, e->nq, &e->capq, sizeof *v);
  if (!v)
    return MORPH_ENOMEM;
  e->q = v;
  queued *x = &e->q[e->nq];
  x->ev = *ev;
  x->settle = 0;
  morph__gone_begin(&x->gone, NULL, 0);
  morph__alloc_init(&x->pieces);
  int rc = pieces ? morph__alloc_copy(&x->pieces, pieces) : MORPH_OK;
  if (rc != MORPH_OK) {
    morph__alloc_free(&x->pieces);
    return rc;
  }
  e->nq++;
  return MORPH_OK;
}

static morph__backend_event event_of(morph__backend_event_kind kind, int64_t job, int req)
{
  morph__backend_event ev;
  memset(&ev, 0, sizeof ev);
  ev.kind = kind, ev.job = job, ev.req = req, ev.status = -1;
  return ev;
}

/* "host1,host1,host2": one host per slot, for the joiners of a RESIZE;
 * "" on this machine alone, where morph run's default is right. */
static void joiner_hosts(const embedded *e, const morph__alloc *a, char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; !e->pool.local && i < a->n; i++)
    for (int k = 0; k < a->v[i].slots && len < size; k++) {
      int w = snprintf(buf + len, size - len, "%s%s", len ? "," : "",
                       e->pool.nodes[a->v[i].node].host);
      len += w > 0 ? (size_t)w : size;
    }
}

static int emb_open(const morph__backend_conf *conf, morph__backend **out, char *err,
                    size_t errsize)
{
  *out = NULL;
  embedded *e = calloc(1, sizeof *e);
  if (!e)
    return MORPH_ENOMEM;
  e->base.ops = &morph__embedded_ops;
  err[0] = '\0';
  int rc = conf->hostfile ? morph__pool_hostfile(&e->pool, conf->hostfile, err, errsize)
                          : morph__pool_local(&e->pool, conf->slots);
  if (rc != MORPH_OK && !err[0])
    snprintf(err, errsize, "pool: %s", morph_strerror(rc));
  if (rc == MORPH_OK)
    rc = morph__launcher_init(&e->launcher, conf->launcher, conf->socket, conf->outdir,
                              conf->checkpoint_dir, err,
                              errsize);
  if (rc == MORPH_OK && !e->pool.local)
    rc = morph__hostwatch_init(&e->watch, e->pool.n, morph__now());
  if (rc != MORPH_OK) {
    morph__pool_free(&e->pool);
    free(e);
    return rc;
  }
  e->log = conf->log;
  *out = &e->base;
  return MORPH_OK;
}

static void emb_close(morph__backend *b)
{
  embedded *e = self(b);
  for (int i = 0; i < e->nheld; i++)
    morph__alloc_free(&e->held[i].pieces);
  for (int i = 0; i < e->nq; i++)
    morph__alloc_free(&e->q[i].pieces);
  free(e->held);
  free(e->q);
  morph__hostwatch_free(&e->watch);
  morph__pool_free(&e->pool);
  free(e);
}

static int emb_read(morph__backend *b, morph__backend_view *v)
{
  embedded *e = self(b);
  memset(v, 0, sizeof *v);
  v->unit = MORPH_POLICY_UNIT_SLOT;
  v->nodes = e->pool.nodes;
  v->nnodes = e->pool.n;
  return MORPH_OK;
}

static int emb_start(morph__backend *b, morph__job *job)
{
  embedded *e = self(b);
  held *h;
  int rc = book(e, job->id, &job->alloc, &h);
  if (rc != MORPH_OK)
    return rc;
  pid_t pid;
  int taken;
  rc = morph__launcher_run(&e->launcher, job, e->pool.local ? NULL : e->pool.nodes, e->pool.n,
                           &pid, &taken);
  if (rc != MORPH_OK) {
    morph__pool_release(&e->pool, &job->alloc);
    morph__alloc_sub(&h->pieces, &job->alloc);
    return rc;
  }
  /* Taken on: a morph run forked before morphd restarted, watched like
   * an adopted job's. */
  h->pid = job->pid = pid;
  h->child = !taken;
  h->ran = 1;
  job->adopted = taken;
  return MORPH_OK;
}

static int emb_hold(morph__backend *b, const morph__job *job, const morph__alloc *pieces)
{
  return book(self(b), job->id, pieces, NULL);
}

static int emb_grow(morph__backend *b, const morph__job *job, int req, const morph__alloc *pieces)
{
  embedded *e = self(b);
  int rc = book(e, job->id, pieces, NULL);
  if (rc != MORPH_OK)
    return rc;
  morph__backend_event ev = event_of(MORPH__BE_GROWN, job->id, req);
  joiner_hosts(e, pieces, ev.hosts, sizeof ev.hosts);
  rc = enqueue(e, &ev, NULL);
  if (rc != MORPH_OK) {
    morph__pool_release(&e->pool, pieces);
    morph__alloc_sub(&find_held(e, job->id)->pieces, pieces);
  }
  return rc;
}

/* "node3,node4": the hosts where the job holds nothing once `rest` is
 * all it keeps; "" on this machine alone. */
static void emptied_hosts(const embedded *e, const morph__alloc *pieces, const morph__alloc *rest,
                          char *buf, size_t size)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; !e->pool.local && i < pieces->n && len < size; i++) {
    int node = pieces->v[i].node;
    if (morph__alloc_on(rest, node) > 0)
      continue;
    int w = snprintf(buf + len, size - len, "%s%s", len ? "," : "", e->pool.nodes[node].host);
    len += w > 0 ? (size_t)w : size;
  }
  if (len >= size)
    buf[0] = '\0';
}

static int emb_release(morph__backend *b, const morph__job *job, int req,
                       const morph__alloc *pieces)
{
  embedded *e = self(b);
  held *h = find_held(e, job->id);
  morph__alloc rest;
  morph__alloc_init(&rest);
  char hosts[512] = "";
  int rc = h ? morph__alloc_copy(&rest, &h->pieces) : MORPH_EINVAL;
  if (rc == MORPH_OK)
    rc = morph__alloc_sub(&rest, pieces);
  if (rc == MORPH_OK)
    emptied_hosts(e, pieces, &rest, hosts, sizeof hosts);
  morph__alloc_free(&rest);
  morph__backend_event ev = event_of(MORPH__BE_RELEASED, job->id, req);
  if (rc == MORPH_OK)
    rc = enqueue(e, &ev, pieces);
  if (rc == MORPH_OK)
    morph__gone_begin(&e->q[e->nq - 1].gone, hosts, morph__now());
  return rc;
}

static void forget_queued(embedded *e, int64_t job)
{
  int w = 0;
  for (int i = 0; i < e->nq; i++) {
    if (e->q[i].ev.job == job && e->q[i].ev.kind != MORPH__BE_NODE && !e->q[i].settle)
      morph__alloc_free(&e->q[i].pieces);
    else
      e->q[w++] = e->q[i];
  }
  e->nq = w;
}

static void count_settling(embedded *e, const morph__alloc *pieces, int sign)
{
  for (int i = 0; i < pieces->n; i++)
    e->pool.nodes[pieces->v[i].node].settling += sign * pieces->v[i].slots;
}

/* The pieces of a job that ran across hosts stay booked until its
 * processes are seen gone from them (finish_settle). */
static int settle(embedded *e, const held *h)
{
  morph__alloc none;
  morph__alloc_init(&none);
  char hosts[512];
  emptied_hosts(e, &h->pieces, &none, hosts, sizeof hosts);
  morph__backend_event ev = event_of(MORPH__BE_RELEASED, h->job, 0);
  int rc = hosts[0] ? enqueue(e, &ev, &h->pieces) : MORPH_EINVAL;
  if (rc != MORPH_OK)
    return rc;
  queued *x = &e->q[e->nq - 1];
  x->settle = 1;
  morph__gone_begin(&x->gone, hosts, morph__now());
  count_settling(e, &x->pieces, +1);
  return MORPH_OK;
}

static void emb_drop(morph__backend *b, const morph__job *job)
{
  embedded *e = self(b);
  forget_queued(e, job->id);
  held *h = find_held(e, job->id);
  if (!h)
    return;
  if (!h->ran || e->pool.local || settle(e, h) != MORPH_OK)
    morph__pool_release(&e->pool, &h->pieces);
  forget_held(e, h);
}

static int emb_stop(morph__backend *b, const morph__job *job)
{
  const held *h = find_held(self(b), job->id);
  pid_t pid = h ? h->pid : 0; /* 0 once reaped: the pid may be another's */
  if (pid <= 0)
    return MORPH_ESTATE;
  /* morph run stops mpirun (SIGTERM, then SIGKILL after its grace) and
   * says BYE. */
  return kill(pid, SIGTERM) == 0 ? MORPH_OK : MORPH_ESTATE;
}

static int emb_adopt(morph__backend *b, morph__job *job, char *err, size_t errsize)
{
  embedded *e = self(b);
  morph__alloc all;
  morph__alloc_init(&all);
  held *h = NULL;
  int rc = morph__alloc_copy(&all, &job->alloc);
  if (rc == MORPH_OK)
    rc = morph__alloc_add_all(&all, &job->extra);
  if (rc == MORPH_OK)
    rc = book(e, job->id, &all, &h);
  morph__alloc_free(&all);
  if (rc == MORPH_EBUSY || rc == MORPH_EINVAL) {
    snprintf(err, errsize,
             "job %lld holds slots this pool does not have (was morphd restarted with a"
             " smaller pool?)", (long long)job->id);
    return MORPH_EINVAL;
  }
  if (rc == MORPH_OK && job->state == MORPH__J_RUNNING)
    h->pid = job->pid, h->ran = 1;
  return rc;
}

static void exit_text(int ws, morph__backend_event *ev)
{
  if (WIFSIGNALED(ws)) {
    ev->status = 128 + WTERMSIG(ws);
    snprintf(ev->text, sizeof ev->text, "morph run killed by signal %d", WTERMSIG(ws));
  } else {
    ev->status = WEXITSTATUS(ws);
    snprintf(ev->text, sizeof ev->text, "morph run exited with status %d", ev->status);
  }
}

/* A probe of the host watch ended: a host that goes down or comes back
 * is reported, and only UP hosts receive new pieces. */
static void probe_reaped(embedded *e, pid_t pid, int ws)
{
  morph__backend_event ev = event_of(MORPH__BE_NODE, 0, 0);
  if (!morph__hostwatch_reaped(&e->watch, e->pool.nodes, pid, ws, morph__now(), &ev.node, &ev) ||
      ev.node < 0)
    return;
  e->pool.nodes[ev.node].state = ev.state;
  enqueue(e, &ev, NULL);
}

/* Our children that ended. Usually the job said BYE first. */
static void reap(embedded *e)
{
  int ws;
  pid_t pid;
  while ((pid = waitpid(-1, &ws, WNOHANG)) > 0) {
    probe_reaped(e, pid, ws);
    for (int i = 0; i < e->nq; i++)
      if (morph__gone_reaped(&e->q[i].gone, pid, ws, morph__now()))
        break;
    for (int i = 0; i < e->nheld; i++) {
      held *h = &e->held[i];
      if (h->pid != pid || !h->child)
        continue;
      morph__backend_event ev = event_of(MORPH__BE_ENDED, h->job, 0);
      ev.known = 1;
      exit_text(ws, &ev);
      h->pid = 0, h->child = 0;
      enqueue(e, &ev, NULL);
    }
  }
}

/* True if pid still is a morph run (not a recycled pid). */
static int is_morph_run(pid_t pid)
{
  if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH))
    return 0;
  char path[64], cmd[256] = "";
  snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  size_t n = fread(cmd, 1, sizeof cmd - 1, f);
  fclose(f);
  cmd[n] = '\0';
  return strstr(cmd, "morph-run") != NULL;
}

/* Adopted jobs are not our children: look at their morph run every
 * ORPHAN_CHECK_S, and say again each time that a vanished one is gone. */
static void check_adopted(embedded *e)
{
  double now = morph__wall();
  if (now < e->next_check)
    return;
  e->next_check = now + ORPHAN_CHECK_S;
  for (int i = 0; i < e->nheld; i++) {
    held *h = &e->held[i];
    if (h->child || h->pid <= 0 || is_morph_run(h->pid))
      continue;
    morph__backend_event ev = event_of(MORPH__BE_ENDED, h->job, 0);
    snprintf(ev.text, sizeof ev.text, "ended while morphd could not hear from it (status unknown)");
    enqueue(e, &ev, NULL);
  }
}

/* The first completion that may be reported (a release waits for its
 * check), -1 if none; starts the checks that are due. */
static int first_ready(embedded *e)
{
  double now = morph__now();
  int first = -1;
  morph__hostwatch_tick(&e->watch, e->pool.nodes, now);
  for (int i = 0; i < e->nq; i++) {
    morph__gone_tick(&e->q[i].gone, e->q[i].ev.job, now);
    if (first < 0 && e->q[i].gone.answer != 1)
      first = i;
  }
  return first;
}

/* A host that a check could not ask is probed. */
static void suspect(embedded *e, const morph__gone *g)
{
  for (int i = 0; g->answer == MORPH_EIO && g->bad[0] && i < e->pool.n; i++)
    if (!strcmp(e->pool.nodes[i].host, g->bad))
      morph__hostwatch_suspect(&e->watch, i, g->why, morph__now());
}

/* A release whose hosts are not seen empty is not given back: the
 * pieces stay booked with the job until it ends. */
static void finish_release(embedded *e, held *h, queued *x, morph__backend_event *ev)
{
  ev->outcome = x->gone.answer;
  if (ev->outcome != MORPH_OK) {
    snprintf(ev->text, sizeof ev->text, "%s", x->gone.why);
    suspect(e, &x->gone);
    return;
  }
  ev->outcome = h ? morph__alloc_sub(&h->pieces, &x->pieces) : MORPH_EINVAL;
  if (ev->outcome == MORPH_OK)
    morph__pool_release(&e->pool, &x->pieces);
}

/* An ended job's pieces go back once its hosts were checked, whatever
 * the answer: a host that could not be asked is probed and, if down,
 * receives nothing until it answers; processes still there after the
 * check's limit are said in the log. */
static void finish_settle(embedded *e, const queued *x)
{
  count_settling(e, &x->pieces, -1);
  morph__pool_release(&e->pool, &x->pieces);
  suspect(e, &x->gone);
  if (x->gone.answer != MORPH_OK && e->log)
    morph__say(e->log, 0, "job %lld ended: %s; its slots are free again", (long long)x->ev.job,
               x->gone.why);
}

/* The next completion to report, taken off the queue; -1 if none. */
static int take_ready(embedded *e, queued *out)
{
  for (;;) {
    int i = first_ready(e);
    if (i < 0)
      return -1;
    *out = e->q[i];
    memmove(e->q + i, e->q + i + 1, (size_t)(--e->nq - i) * sizeof *e->q);
    if (!out->settle)
      return i;
    finish_settle(e, out);
    morph__alloc_free(&out->pieces);
  }
}

static int emb_next(morph__backend *b, morph__backend_event *ev)
{
  embedded *e = self(b);
  queued x;
  int i = take_ready(e, &x);
  if (i < 0) {
    reap(e);
    check_adopted(e);
    i = take_ready(e, &x);
  }
  if (i < 0)
    return 0;
  *ev = x.ev;
  if (ev->kind == MORPH__BE_RELEASED)
    finish_release(e, find_held(e, ev->job), &x, ev);
  morph__alloc_free(&x.pieces);
  return 1;
}

const morph__backend_ops morph__embedded_ops = {
  .name = "embedded",
  .open = emb_open,
  .close = emb_close,
  .read = emb_read,
  .start = emb_start,
  .hold = emb_hold,
  .grow = emb_grow,
  .release = emb_release,
  .drop = emb_drop,
  .stop = emb_stop,
  .adopt = emb_adopt,
  .next = emb_next,
};
