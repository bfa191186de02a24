/*
 * From the job's ACK to a complete reconfiguration. A resize is complete
 * when its slots are really free or really used: after a live shrink, once
 * the leavers' processes have gone; after a relaunch, once the restarted
 * job has connected (relaunch.c). Only then is it logged, written to the
 * report and forwarded to morphd, so the daemon never hands out a slot a
 * leaver still holds.
 */
#include <string.h>

#include "morph/error.h"
#include "launch.h"
#include "procs.h"

#include <unistd.h>

void morph__launch_resize_ack(struct morph__launch *r, const morph__msg *ack)
{
  struct morph__launch_decision *d = &r->dec;
  d->ack = *ack;
  d->acked = morph__launch_clock(r);
  if (ack->outcome != MORPH_OK) {
    morph__launch_resize_done(r, ack->outcome, ack->old_size, NULL);
    return;
  }
  if (ack->mechanism == MORPH__LAUNCH_MECH_RELAUNCH) {
    morph__launch_relaunch_begin(r);
    return;
  }
  if (ack->new_size < ack->old_size && r->app_exe[0]) {
    r->settling = 1;
    morph__launch_resize_settle_tick(r);
    return;
  }
  morph__launch_resize_done(r, MORPH_OK, ack->new_size, NULL);
}

void morph__launch_resize_settle_tick(struct morph__launch *r)
{
  if (!r->settling)
    return;
  struct morph__launch_decision *d = &r->dec;
  int n = morph__launch_procs_count(getpid(), r->app_exe);
  if (n <= d->ack.new_size) {
    r->settling = 0;
    morph__launch_resize_done(r, MORPH_OK, d->ack.new_size,
                              n < 0 ? "cannot read /proc: leavers not verified" : NULL);
    return;
  }
  if (morph__launch_clock(r) - d->acked < r->opt->leave_timeout)
    return;
  char note[128];
  snprintf(note, sizeof note, "%d processes still running %g s after the shrink to %d", n,
           r->opt->leave_timeout, d->ack.new_size);
  r->settling = 0;
  morph__launch_resize_done(r, MORPH_EBUSY, d->ack.new_size, note);
}

/* Appends "; note" to the ACK's text. */
static void add_note(morph__msg *m, const char *note)
{
  size_t n = strlen(m->text);
  if (note && n + 3 < sizeof m->text)
    snprintf(m->text + n, sizeof m->text - n, "%s%s", n ? "; " : "", note);
}

void morph__launch_resize_done(struct morph__launch *r, int outcome, int new_size, const char *note)
{
  struct morph__launch_decision *d = &r->dec;
  morph__msg m = d->ack;
  double t_settle = d->acked > 0 ? morph__launch_clock(r) - d->acked : 0;
  m.outcome = outcome;
  m.new_size = new_size;
  add_note(&m, note);
  /* EBUSY: the job did shrink, only the slots are not known to be free. */
  if (outcome == MORPH_OK || outcome == MORPH_EBUSY)
    r->size = new_size;
  r->seq++;
  if (outcome == MORPH_OK)
    r->n_ok++;
  else
    r->n_failed++;
  morph__launch_report_resize(r, &m, t_settle);
  m.id = d->upstream_id;
  morph__launch_relay_send(r, &m, 1);
  d->active = 0;
}

void morph__launch_resize_abandon(struct morph__launch *r, const char *why)
{
  struct morph__launch_decision *d = &r->dec;
  if (!d->active)
    return;
  if (d->acked <= 0) {
    morph__launch_dispatch_lost(r, why);
    return;
  }
  /* Acknowledged: a live shrink whose leavers were still being watched is
   * complete now that the whole job is gone; a relaunch is not. */
  char note[160];
  snprintf(note, sizeof note, "%s before the resize was complete", why);
  r->settling = 0;
  if (d->ack.mechanism == MORPH__LAUNCH_MECH_RELAUNCH)
    morph__launch_resize_done(r, MORPH_EABORTED, d->ack.old_size, note);
  else
    morph__launch_resize_done(r, MORPH_OK, d->ack.new_size, NULL);
}
