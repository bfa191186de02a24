#include "resize.h"


#include "decision.h"
#include "monitor.h"
#include "morph/error.h"
#include "relaunch.h"
#include "state.h"

void morph__launch_resize_ack(struct morph__launch *r, const morph__msg *ack)
{
  struct morph__launch_decision *d = &r->dec;
  d->ack = *ack;
  d->acked = morph__launch_clock(r);
  if (ack->outcome != MORPH_OK) {
    morph__launch_decision_done(r, ack->outcome, ack->old_size, NULL);
    return;
  }
  if (ack->mechanism == MORPH__LAUNCH_MECH_RELAUNCH) {
    morph__launch_relaunch_begin(r);
    return;
  }
  /* A move's movers leave as a shrink's leavers do. */
  if ((ack->new_size < ack->old_size || d->move) && r->app_exe[0]) {
    r->settling = 1;
    morph__launch_resize_settle_tick(r);
    return;
  }
  morph__launch_decision_done(r, MORPH_OK, ack->new_size, NULL);
}

void morph__launch_resize_settle_tick(struct morph__launch *r)
{
  if (!r->settling)
    return;
  struct morph__launch_decision *d = &r->dec;
  int n = morph__launch_monitor_count(r);
  /* An early decision that grows the job may have spawned its joiners:
   * they are not leavers. */
  int expect = d->ack.new_size;
  if (r->early.active && r->early.size > expect)
    expect = r->early.size;
  if (n <= expect) {
    r->settling = 0;
    morph__launch_decision_done(r, MORPH_OK, d->ack.new_size,
                              n < 0 ? "cannot count the processes: leavers not verified" : NULL);
    return;
  }
  if (morph__launch_clock(r) - d->acked < r->opt->leave_timeout)
    return;
  char note[128];
  snprintf(note, sizeof note, "%d processes still running %g s after the shrink to %d", n,
           r->opt->leave_timeout, d->ack.new_size);
  r->settling = 0;
  morph__launch_decision_done(r, MORPH_EBUSY, d->ack.new_size, note);
}
