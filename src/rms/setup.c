/*
 * morphd's setup: folders, paths, pool, policy, journal (and the jobs it
 * holds), then the socket, refusing to start next to a live morphd.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int paths(morph__daemon *d)
{
  const morph__daemon_opts *o = &d->opt;
  if (mkdir(o->dir, 0700) != 0 && errno != EEXIST)
    return fail(d, MORPH_EIO, "cannot create %s: %s", o->dir, strerror(errno));
  snprintf(d->outdir, sizeof d->outdir, "%s/jobs", o->dir);
  if (mkdir(d->outdir, 0755) != 0 && errno != EEXIST)
    return fail(d, MORPH_EIO, "cannot create %s: %s", d->outdir, strerror(errno));
  int n = o->socket ? snprintf(d->sock, sizeof d->sock, "%s", o->socket)
                    : snprintf(d->sock, sizeof d->sock, "%s/morphd.sock", o->dir);
  if (n < 0 || (size_t)n >= sizeof d->sock)
    return fail(d, MORPH_EINVAL, "socket path too long (at most 107 bytes): %s", o->dir);
  if (o->journal)
    snprintf(d->jpath, sizeof d->jpath, "%s", o->journal);
  else
    snprintf(d->jpath, sizeof d->jpath, "%s/journal.db", o->dir);
  if (o->launcher) {
    snprintf(d->launcher, sizeof d->launcher, "%s", o->launcher);
    return MORPH_OK;
  }
  ssize_t len = readlink("/proc/self/exe", d->launcher, sizeof d->launcher - 16);
  if (len < 0)
    return fail(d, MORPH_EIO, "cannot find my own folder: %s", strerror(errno));
  d->launcher[len] = '\0';
  char *slash = strrchr(d->launcher, '/');
  snprintf(slash ? slash + 1 : d->launcher, 16, "morph-run");
  return MORPH_OK;
}

static int pool_and_policy(morph__daemon *d)
{
  char err[512] = "";
  int rc = d->opt.hostfile ? morph__pool_hostfile(&d->pool, d->opt.hostfile, err, sizeof err)
                           : morph__pool_local(&d->pool, d->opt.slots);
  if (rc != MORPH_OK)
    return fail(d, rc, "pool: %s", err[0] ? err : morph_strerror(rc));
  rc = morph_policy_create(d->opt.policy, &d->opt.params, &d->policy);
  if (rc != MORPH_OK) {
    morph_policy_create_error(d->opt.policy, &d->opt.params, err, sizeof err);
    return fail(d, rc, "policy: %s", err);
  }
  rc = morph_place_create(d->opt.placement, NULL, 0, &d->place);
  if (rc != MORPH_OK) {
    morph_place_create_error(d->opt.placement, NULL, 0, err, sizeof err);
    return fail(d, rc, "placement: %s", err);
  }
  morph_policy_actions_init(&d->acts);
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

static int journal(morph__daemon *d)
{
  char err[512];
  int rc = morph__journal_open(d->jpath, 0, &d->journal, err, sizeof err);
  if (rc != MORPH_OK)
    return fail(d, rc, "%s", err);
  char pool[64];
  snprintf(pool, sizeof pool, "%d", d->pool.total);
  morph__journal_meta_set(d->journal, "slots", pool);
  morph__journal_meta_set(d->journal, "policy", morph_policy_name(d->policy));
  return morph__daemon_load(d);
}

int morph__daemon_init(morph__daemon *d, const morph__daemon_opts *opt)
{
  memset(d, 0, sizeof *d);
  d->opt = *opt;
  d->log = (morph__sayer){.prog = "morphd", .verbose = opt->verbose, .stamp = 1};
  d->listen_fd = -1;
  d->next_job = 1;
  int rc = paths(d);
  if (rc == MORPH_OK)
    rc = pool_and_policy(d);
  if (rc == MORPH_OK && another_daemon(d->sock))
    rc = fail(d, MORPH_EBUSY, "morphd is already running at %s", d->sock);
  if (rc == MORPH_OK)
    rc = journal(d);
  if (rc == MORPH_OK && (d->listen_fd = morph__listen(d->sock)) < 0)
    rc = fail(d, d->listen_fd, "cannot listen on %s: %s", d->sock, morph_strerror(d->listen_fd));
  if (rc != MORPH_OK)
    return rc;
  for (int i = 0; i < MORPH__MAX_CLIENTS; i++)
    d->clients[i].fd = -1;
  char text[256];
  snprintf(text, sizeof text, "started, pid %ld, %d slots, policy %s", (long)getpid(),
           d->pool.total, morph_policy_name(d->policy));
  morph__journal_event(d->journal, morph__wall(), 0, "daemon", "%s", text);
  return MORPH_OK;
}
