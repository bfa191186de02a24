/*
 * Decisions to the job: morphd's RESIZEs first (they reflect the cluster),
 * then the schedule, in the order given. At most one decision is
 * outstanding; the next goes out only once the previous is complete
 * (acknowledged and, for a shrink, its leavers gone).
 */
#include <string.h>

#include "morph/error.h"
#include "launch.h"

/* Fills *m with the next schedule entry if it is due. Iteration entries are
 * due at once (the job applies them at the iteration); time entries when
 * their time has come. */
static int next_from_schedule(struct morph__launch *r, morph__msg *m)
{
  const struct morph__launch_sched *s = &r->opt->sched;
  if (r->next_sched >= s->n)
    return 0;
  const struct morph__launch_sched_entry *e = &s->e[r->next_sched];
  if (e->by_time && morph__launch_clock(r) < e->at)
    return 0;
  morph__msg_init(m, MORPH__MSG_RESIZE);
  m->size = e->size;
  m->iteration = e->by_time ? -1 : e->iteration;
  m->mechanism = e->mechanism >= 0 ? e->mechanism : r->opt->mechanism;
  if (m->mechanism < 0)
    m->mechanism = MORPH__LAUNCH_MECH_AUTO;
  m->id = 0;
  r->next_sched++;
  return 1;
}

/* Not while a process may have died (monitor.c): a decision sent now would
 * make the loss look like part of a reconfiguration. */
static int ready(const struct morph__launch *r)
{
  return r->phase == MORPH__LAUNCH_PH_RUNNING && r->job.fd >= 0 && r->job_hello && !r->dec.active &&
         !r->mon.short_since;
}

void morph__launch_dispatch_tick(struct morph__launch *r)
{
  morph__msg m;
  if (!ready(r) || (!morph__launch_relay_pop(r, &m) && !next_from_schedule(r, &m)))
    return;
  struct morph__launch_decision *d = &r->dec;
  memset(d, 0, sizeof *d);
  d->active = 1;
  d->id = ++r->next_id;
  d->upstream_id = m.id;
  d->size = m.size;
  d->mechanism = m.mechanism;
  d->iteration = m.iteration;
  d->sent = morph__launch_clock(r);
  m.id = d->id;
  if (m.iteration >= 0)
    morph__say(&r->log, 1, "decision %d: %d processes at iteration %lld (%s)", d->id, m.size,
               (long long)m.iteration, morph__launch_mech_name(m.mechanism));
  else
    morph__say(&r->log, 1, "decision %d: %d processes now (%s)", d->id, m.size,
               morph__launch_mech_name(m.mechanism));
  if (morph__launch_job_send(r, &m) != MORPH_OK)
    morph__launch_dispatch_lost(r, "cannot send the decision");
}

void morph__launch_dispatch_lost(struct morph__launch *r, const char *why)
{
  struct morph__launch_decision *d = &r->dec;
  morph__msg_init(&d->ack, MORPH__MSG_ACK);
  d->ack.id = d->id;
  d->ack.old_size = d->ack.new_size = r->size;
  d->ack.mechanism = d->mechanism;
  snprintf(d->ack.text, sizeof d->ack.text, "the job ended before acknowledging (%s)", why);
  morph__launch_resize_done(r, MORPH_ECONN, r->size, NULL);
}
