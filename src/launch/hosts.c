#include "hosts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "monitor.h"
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
}

/* "host slots=N" for each host of the placement (its processes there),
 * then the hostfile's other hosts as the user gave them. */
static int write_file(struct morph__launch *r, const morph__hostlist *l)
{
  int n = snprintf(r->relaunch_hostfile, sizeof r->relaunch_hostfile, "%.4000s/hostfile", r->dir);
  if (n < 0 || (size_t)n >= sizeof r->relaunch_hostfile)
    return MORPH_EIO;
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
    if (!morph__hostlist_on(l, r->file_hosts.v[i].host))
      fprintf(f, "%s slots=%d\n", r->file_hosts.v[i].host, r->file_hosts.v[i].count);
  return fclose(f) == 0 ? MORPH_OK : MORPH_EIO;
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
  int rc = write_file(r, &l);
  if (rc == MORPH_OK) {
    char text[512];
    r->opt->cmd.hostfile = r->relaunch_hostfile;
    morph__hostlist_free(&r->placed);
    r->placed = l;
    if (morph__hostlist_format(&l, text, sizeof text) == MORPH_OK)
      morph__say(&r->log, 1, "relaunch at %d on %s", np, text);
    for (int i = 0; i < l.n; i++)
      morph__launch_monitor_watch(r, l.v[i].host);
    return MORPH_OK;
  }
  morph__hostlist_free(&l);
  return rc;
}

void morph__launch_hosts_free(struct morph__launch *r)
{
  morph__hostlist_free(&r->placed);
  morph__hostlist_free(&r->file_hosts);
}
