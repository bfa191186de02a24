#include "hosts.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor.h"
#include "watch.h"
#include "morph/error.h"
#include "mpicmd.h"

/* Adds up to `want` processes from the hostfile's free slots (slots of
 * a host minus what *l already has there), in the file's order; returns
 * how many could not be placed. */
static int fill(const struct morph__launch *r, morph__hostlist *l, int want)
{
  for (int i = 0; i < r->file_hosts.n && want > 0; i++) {
    const morph__host_run *f = &r->file_hosts.v[i];
    int free_slots = f->count - morph__hostlist_on(l, f->host);
    int k = free_slots < want ? free_slots : want;
    if (k > 0 && morph__hostlist_add(l, f->host, k) == MORPH_OK)
      want -= k;
  }
  return want;
}

int morph__launch_hosts_init(struct morph__launch *r, int np)
{
  morph__hostlist_init(&r->placed);
  morph__hostlist_init(&r->file_hosts);
  morph__hostlist_init(&r->left);
  const char *path = r->opt->cmd.hostfile;
  if (!path)
    return MORPH_OK;
  char *list;
  int rc = morph__launch_hostfile_list(path, &list);
  if (rc == MORPH_OK) {
    rc = morph__hostlist_parse(&r->file_hosts, list) == MORPH_OK ? MORPH_OK : MORPH_EINVAL;
    free(list);
  }
  if (rc != MORPH_OK)
    morph__say(&r->log, 0, "--hostfile %s: %s", path,
               rc == MORPH_EIO ? "cannot be read" : rc == MORPH_ENOMEM ? "out of memory"
                                                   : "a bad line, or no host");
  else
    fill(r, &r->placed, np); /* past the slots, mpirun says what it does */
  return rc;
}

/* l without `count` processes on `host` (its last ones). */
static void take(morph__hostlist *l, const char *host, int count)
{
  for (int i = l->n - 1; i >= 0 && count > 0; i--) {
    if (!morph__host_same(l->v[i].host, host))
      continue;
    int k = l->v[i].count < count ? l->v[i].count : count;
    l->v[i].count -= k, count -= k;
  }
  morph__hostlist out;
  morph__hostlist_init(&out);
  for (int i = 0; i < l->n; i++)
    if (morph__hostlist_add(&out, l->v[i].host, l->v[i].count) != MORPH_OK)
      break;
  morph__hostlist_free(l);
  *l = out;
}

/* Drops the last processes of *l until it has np. */
static void trim(morph__hostlist *l, int np)
{
  int extra = morph__hostlist_total(l) - np;
  while (extra > 0 && l->n > 0) {
    morph__host_run *last = &l->v[l->n - 1];
    int k = last->count < extra ? last->count : extra;
    take(l, last->host, k);
    extra -= k;
  }
}

/* Applies a change to *l: the hosts of `text` join (grow) or leave. */
static void apply(morph__hostlist *l, const char *text, int grow)
{
  morph__hostlist h;
  morph__hostlist_init(&h);
  if (morph__hostlist_parse(&h, text) == MORPH_OK) {
    for (int i = 0; i < h.n; i++) {
      if (grow)
        morph__hostlist_add(l, h.v[i].host, h.v[i].count);
      else
        take(l, h.v[i].host, h.v[i].count);
    }
  }
  morph__hostlist_free(&h);
}

/* 1 if `host` is in the names of l. */
static int has(const morph__hostlist *l, const char *host)
{
  return morph__hostlist_on(l, host) > 0;
}

static void name_add(char *buf, size_t size, const char *host)
{
  size_t n = strlen(buf);
  snprintf(buf + n, size - n, "%s%s", n ? ", " : "", host);
}

/* A shrink by relaunch whose RESIZE named the hosts its processes leave
 * (`named`, shrink 1) leaves those it empties for good: morphd chose
 * them (a failing node, a Slurm node given back), and mpirun will not be
 * told of them again (write_file); their names go to `gone`. Hosts of
 * `after` that were left come back (to `back`). Either buffer may be
 * NULL. A live shrink or one without names leaves nothing for good: the
 * hosts stay in mpirun's hostfile for later live grows. */
static void note_left(struct morph__launch *r, const char *named, int shrink,
                      const morph__hostlist *after, char *gone, size_t gonesize, char *back,
                      size_t backsize)
{
  morph__hostlist h;
  morph__hostlist_init(&h);
  if (shrink && named && morph__hostlist_parse(&h, named) == MORPH_OK)
    for (int i = 0; i < h.n; i++)
      if (!has(after, h.v[i].host) && !has(&r->left, h.v[i].host)) {
        morph__hostlist_add(&r->left, h.v[i].host, 1);
        if (gone)
          name_add(gone, gonesize, h.v[i].host);
      }
  morph__hostlist_free(&h);
  for (int i = 0; i < after->n; i++)
    if (has(&r->left, after->v[i].host)) {
      take(&r->left, after->v[i].host, 1);
      if (back)
        name_add(back, backsize, after->v[i].host);
    }
}

void morph__launch_hosts_resized(struct morph__launch *r, const morph__msg *ack)
{
  if (!r->file_hosts.n || ack->new_size == ack->old_size)
    return;
  if (!ack->hosts[0]) { /* where they went is not known: keep the count right */
    if (ack->new_size > ack->old_size)
      fill(r, &r->placed, ack->new_size - morph__hostlist_total(&r->placed));
    else
      trim(&r->placed, ack->new_size);
    return;
  }
  apply(&r->placed, ack->hosts, ack->new_size > ack->old_size);
  note_left(r, NULL, 0, &r->placed, NULL, 0, NULL, 0);
}

/* The private folder of mpirun's hostfile (mode 0700; morph run may
 * listen on TCP and have no socket folder). */
static int host_dir(struct morph__launch *r)
{
  if (r->hostdir[0])
    return MORPH_OK;
  const char *tmp = getenv("TMPDIR");
  snprintf(r->hostdir, sizeof r->hostdir, "%.*s/morph-run-hosts-XXXXXX", PATH_MAX - 32,
           tmp && *tmp ? tmp : "/tmp");
  if (mkdtemp(r->hostdir))
    return MORPH_OK;
  morph__say(&r->log, 0, "cannot create a folder %s: %s", r->hostdir, strerror(errno));
  r->hostdir[0] = '\0';
  return MORPH_EIO;
}

/* "host slots=N" for each host of the placement (its processes there),
 * then the hostfile's other hosts as the user gave them, but for those
 * the job left: Open MPI 4.1's mpirun starts a daemon on every host of
 * its hostfile and ends the job when one dies, even an idle one
 * (docs/cluster.md), so the new mpirun must not know a host the job left
 * (a failing node it was moved off, a Slurm node given back). */
static int write_file(struct morph__launch *r, const morph__hostlist *l)
{
  if (host_dir(r) != MORPH_OK)
    return MORPH_EIO;
  snprintf(r->relaunch_hostfile, sizeof r->relaunch_hostfile, "%.*s/hostfile", PATH_MAX - 16,
           r->hostdir);
  FILE *f = fopen(r->relaunch_hostfile, "w");
  if (!f) {
    morph__say(&r->log, 0, "cannot write %s: %s", r->relaunch_hostfile, strerror(errno));
    return MORPH_EIO;
  }
  for (int i = 0; i < l->n; i++) {
    int first = 1; /* a host's processes are counted at its first run */
    for (int k = 0; k < i; k++)
      first &= !morph__host_same(l->v[k].host, l->v[i].host);
    if (first)
      fprintf(f, "%s slots=%d\n", l->v[i].host, morph__hostlist_on(l, l->v[i].host));
  }
  for (int i = 0; i < r->file_hosts.n; i++)
    if (!has(l, r->file_hosts.v[i].host) && !has(&r->left, r->file_hosts.v[i].host))
      fprintf(f, "%s slots=%d\n", r->file_hosts.v[i].host, r->file_hosts.v[i].count);
  return fclose(f) == 0 ? MORPH_OK : MORPH_EIO;
}

/* The watcher follows the hosts: those left whole are no business of the
 * job's any more, those it reached are. */
static void tell_watcher(struct morph__launch *r, const morph__hostlist *l, const char *named,
                         const char *gone, const char *back)
{
  if (gone[0])
    morph__say(&r->log, 0, "relaunching without %s (%s left it): %s", gone, named,
               r->relaunch_hostfile);
  if (back[0])
    morph__say(&r->log, 0, "relaunching with %s again (%s joins): %s", back, named,
               r->relaunch_hostfile);
  if (gone[0] && morph__launch_watch_drop(&r->mon.watch, gone) > 0)
    morph__say(&r->log, 1, "no longer watching %s", gone);
  for (int i = 0; i < l->n; i++)
    morph__launch_monitor_watch(r, l->v[i].host);
}

int morph__launch_hosts_relaunch(struct morph__launch *r, int np, const char *named)
{
  if (!r->file_hosts.n)
    return MORPH_OK;
  morph__hostlist l;
  morph__hostlist_init(&l);
  for (int i = 0; i < r->placed.n; i++)
    morph__hostlist_add(&l, r->placed.v[i].host, r->placed.v[i].count);
  int now = morph__hostlist_total(&l);
  if (np != now && named && named[0])
    apply(&l, named, np > now);
  now = morph__hostlist_total(&l);
  if (np > now)
    fill(r, &l, np - now);
  trim(&l, np);
  char gone[256] = "", back[256] = "", text[512];
  note_left(r, named, np < morph__hostlist_total(&r->placed), &l, gone, sizeof gone, back,
            sizeof back);
  int rc = write_file(r, &l);
  if (rc != MORPH_OK) {
    morph__hostlist_free(&l);
    return rc;
  }
  r->opt->cmd.hostfile = r->relaunch_hostfile;
  morph__hostlist_free(&r->placed);
  r->placed = l;
  if (morph__hostlist_format(&l, text, sizeof text) == MORPH_OK)
    morph__say(&r->log, 1, "relaunch at %d on %s", np, text);
  tell_watcher(r, &l, named ? named : "", gone, back);
  return MORPH_OK;
}

void morph__launch_hosts_free(struct morph__launch *r)
{
  morph__hostlist_free(&r->placed);
  morph__hostlist_free(&r->file_hosts);
  morph__hostlist_free(&r->left);
  if (r->relaunch_hostfile[0])
    unlink(r->relaunch_hostfile);
  if (r->hostdir[0])
    rmdir(r->hostdir);
  r->relaunch_hostfile[0] = r->hostdir[0] = '\0';
}
