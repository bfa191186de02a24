#include "decision.h"

#include <stdio.h>
#include <string.h>

#include "hosts.h"
#include "morph/error.h"
#include "relay.h"
#include "report.h"
#include "state.h"

/* Appends "; note" to the ACK's text. */
static void add_note(morph__msg *m, const char *note)
{
  size_t n = strlen(m->text);
  if (note && n + 3 < sizeof m->text)
    snprintf(m->text + n, sizeof m->text - n, "%s%s", n ? "; " : "", note);
}

void morph__launch_decision_done(struct morph__launch *r, int outcome, int new_size,
                                 const char *note)
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
  /* A relaunch placed its processes itself (hosts.h); a move keeps the count. */
  if ((outcome == MORPH_OK || outcome == MORPH_EBUSY) && !d->move &&
      m.mechanism != MORPH__LAUNCH_MECH_RELAUNCH)
    morph__launch_hosts_resized(r, &m);
  /* A live grow that failed leaves mpirun unable to end by itself
   * (monitor.c). */
  if (outcome != MORPH_OK && m.mechanism == MORPH__LAUNCH_MECH_LIVE && d->size > m.old_size)
    r->spawn_failed = 1;
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

void morph__launch_decision_lost(struct morph__launch *r, const char *why)
{
  struct morph__launch_decision *d = &r->dec;
  morph__msg_init(&d->ack, MORPH__MSG_ACK);
  d->ack.id = d->id;
  d->ack.old_size = d->ack.new_size = r->size;
  d->ack.mechanism = d->mechanism;
  snprintf(d->ack.text, sizeof d->ack.text, "the job ended before acknowledging (%s)", why);
  morph__launch_decision_done(r, MORPH_ECONN, r->size, NULL);
}

void morph__launch_decision_abandon(struct morph__launch *r, const char *why)
{
  struct morph__launch_decision *d = &r->dec;
  if (!d->active)
    return;
  if (d->acked <= 0) {
    morph__launch_decision_lost(r, why);
    return;
  }
  /* Acknowledged: a live shrink whose leavers were still being watched is
   * complete now that the whole job is gone; a relaunch is not. */
  char note[160];
  snprintf(note, sizeof note, "%s before the resize was complete", why);
  r->settling = 0;
  if (d->ack.mechanism == MORPH__LAUNCH_MECH_RELAUNCH)
    morph__launch_decision_done(r, MORPH_EABORTED, d->ack.old_size, note);
  else
    morph__launch_decision_done(r, MORPH_OK, d->ack.new_size, NULL);
}
