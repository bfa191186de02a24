/*
 * morphd's node monitoring: heartbeats to the pool's nodes (beat.h), the
 * outage probability estimated from them journaled per host (table
 * `nodes`) and handed to the placement stage (morph_place_outage_set), so
 * that a node whose probability reaches the placement's threshold is
 * drained in the next snapshot (sched.c) and malleable jobs shrink off it.
 *
 * On with --heartbeat S (seconds between rounds). A restarted morphd goes
 * on from each host's journaled window. A faults file (--faults) overrides
 * the estimates for experiments: they are still journaled.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "morph/error.h"
#include "rms/morphd.h"

/* The placement follows node i's estimate; tells once when it cannot. */
static void feed(morph__daemon *d, int i)
{
  double p = morph__beat_window_p(&d->beat.nodes[i].win);
  int rc = morph_place_outage_set(d->place, i, p);
  if (rc != MORPH_OK && !d->beat_unused) {
    d->beat_unused = 1;
    morph__say(&d->log, 0, "heartbeats are journaled but placement %s does not use them (%s):"
               " choose tofa, greedy or random with --topology",
               morph_place_name(d->place), morph_strerror(rc));
  }
}

/* Journals and logs a node that starts or stops failing for the placement. */
static void note_failing(morph__daemon *d, int i)
{
  morph__beat_node *x = &d->beat.nodes[i];
  int now = morph_place_failing(d->place, i);
  if (now == d->beat_failing[i])
    return;
  d->beat_failing[i] = (unsigned char)now;
  d->dirty = 1;
  char text[256];
  snprintf(text, sizeof text, "%s: outage probability %.2f (%d of the last %d heartbeats missed):"
           " %s", x->host, morph__beat_window_p(&x->win), morph__beat_window_misses(&x->win),
           x->win.size, now ? "failing, draining it" : "no longer failing");
  morph__say(&d->log, 0, "%s", text);
  morph__journal_event(d->journal, morph__wall(), 0, "node", "%s", text);
}

static void save(morph__daemon *d, int i, double t)
{
  morph__beat_node *x = &d->beat.nodes[i];
  char beats[MORPH__BEAT_WINDOW_MAX + 1];
  morph__beat_window_format(&x->win, beats, sizeof beats);
  if (morph__journal_node_save(d->journal, x->host, t, beats, morph__beat_window_p(&x->win)) !=
      MORPH_OK)
    morph__say(&d->log, 0, "%s", morph__journal_errmsg(d->journal));
}

/* The window journaled for node i, if any. */
static void resume(morph__daemon *d, int i)
{
  morph__beat_node *x = &d->beat.nodes[i];
  char beats[1024];
  if (morph__journal_node_load(d->journal, x->host, beats, sizeof beats) != MORPH_OK)
    return;
  if (morph__beat_window_parse(&x->win, beats) != MORPH_OK)
    morph__say(&d->log, 0, "journal: heartbeats of %s unreadable ('%.40s'): starting afresh",
               x->host, beats);
}

static int faults_file(const morph__daemon *d)
{
  for (int i = 0; i < d->opt.nplace_params; i++)
    if (d->opt.place_params[i].key && !strcmp(d->opt.place_params[i].key, "faults"))
      return 1;
  return 0;
}

int morph__health_init(morph__daemon *d)
{
  if (d->opt.heartbeat <= 0)
    return MORPH_OK;
  morph__backend_view v;
  int rc = morph__backend_read(d->be, &v);
  const char **hosts = calloc((size_t)v.nnodes + 1, sizeof *hosts);
  d->beat_failing = calloc((size_t)v.nnodes + 1, 1);
  if (rc != MORPH_OK || !hosts || !d->beat_failing) {
    free(hosts);
    return rc != MORPH_OK ? rc : MORPH_ENOMEM;
  }
  for (int i = 0; i < v.nnodes; i++)
    hosts[i] = v.nodes[i].host;
  rc = morph__beat_init(&d->beat, hosts, v.nnodes, d->opt.heartbeat,
                        d->opt.heartbeat_port ? d->opt.heartbeat_port : 22,
                        d->opt.heartbeat_window, morph__wall());
  free(hosts);
  if (rc != MORPH_OK)
    return rc;
  for (int i = 0; i < d->beat.nnodes; i++) {
    resume(d, i);
    feed(d, i);
    note_failing(d, i);
  }
  morph__say(&d->log, 0, "heartbeats to %d node(s) every %g s on port %d, window %d%s",
             d->beat.nnodes, d->beat.period, d->beat.port,
             d->beat.nnodes ? d->beat.nodes[0].win.size : 0,
             faults_file(d) ? " (journaled only: the faults file sets the probabilities)" : "");
  return MORPH_OK;
}

void morph__health_tick(morph__daemon *d)
{
  double now = morph__wall();
  if (d->beat.nnodes == 0 || morph__beat_tick(&d->beat, now) == 0)
    return;
  morph__journal_begin(d->journal);
  for (int i = 0; i < d->beat.nnodes; i++) {
    morph__beat_node *x = &d->beat.nodes[i];
    if (!x->changed)
      continue;
    x->changed = 0;
    if (x->win.missed & 1)
      morph__say(&d->log, 1, "%s missed a heartbeat (%d of the last %d)", x->host,
                 morph__beat_window_misses(&x->win), x->win.size);
    save(d, i, now);
    feed(d, i);
    note_failing(d, i);
  }
  morph__journal_commit(d->journal);
}

void morph__health_fini(morph__daemon *d)
{
  morph__beat_fini(&d->beat);
  free(d->beat_failing);
  d->beat_failing = NULL;
}
