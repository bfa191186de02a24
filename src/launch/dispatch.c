#include "dispatch.h"

#include <string.h>

#include "decision.h"
#include "morph/error.h"
#include "relay.h"
#include "resize.h"
#include "server.h"
#include "state.h"

/* Fills *m with the next schedule entry if it is due. Iteration entries are
 * due at once (the job applies them at the iteration); time entries when
 * their time has come. With only_iteration, only live iteration entries are. */
static int next_from_schedule(struct morph__launch *r, morph__msg *m, int only_iteration)
{
  const struct morph__launch_sched *s = &r->opt->sched;
  if (r->next_sched >= s->n)
    return 0;
  const struct morph__launch_sched_entry *e = &s->e[r->next_sched];
  if (e->by_time && (only_iteration || morph__launch_clock(r) < e->at))
    return 0;
  int mech = e->mechanism >= 0 ? e->mechanism : r->opt->mechanism;
  if (only_iteration && mech == MORPH__LAUNCH_MECH_RELAUNCH)
    return 0; /* a relaunch would stop the processes that settling counts */
  /* The size the entry meets: an early entry goes out while the shrink
   * before it settles, so the job will be at that shrink's new size. */
  int size = only_iteration ? r->dec.ack.new_size : r->size;
  morph__msg_init(m, MORPH__MSG_RESIZE);
  m->size = e->move ? size : e->size;
  if (morph__launch_sched_wire(e, size, m->hosts, m->from, sizeof m->hosts) != MORPH_OK)
    morph__say(&r->log, 0, "schedule entry %d: its hosts do not name every process of the "
               "change at %d processes; sent as named", r->next_sched + 1, size);
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

/* While the leavers of a live shrink exit (a second or more under load),
 * the job runs on: an iteration entry waiting for them would reach the job
 * after its iteration, or after its end. So the next iteration entry goes
 * out at once as the early decision; decisions from morphd never do, as
 * morphd sends the next one only after the ACK that settling delays. */
static int early_ready(const struct morph__launch *r)
{
  return r->phase == MORPH__LAUNCH_PH_RUNNING && r->job.fd >= 0 && r->job_hello && r->settling &&
         !r->early.active;
}

/* The early decision becomes the current one once the one before it is
 * done, with its ACK if the job already sent it. */
static void promote_early(struct morph__launch *r)
{
  if (!r->early.active || r->dec.active)
    return;
  r->dec = r->early;
  r->early.active = 0;
  if (r->early_acked) {
    r->early_acked = 0;
    morph__launch_resize_ack(r, &r->early_ack);
  }
}

void morph__launch_dispatch_tick(struct morph__launch *r)
{
  morph__msg m;
  promote_early(r);
  struct morph__launch_decision *d = &r->dec;
  if (early_ready(r) && next_from_schedule(r, &m, 1))
    d = &r->early, r->early_acked = 0;
  else if (!ready(r) || (!morph__launch_relay_pop(r, &m) && !next_from_schedule(r, &m, 0)))
    return;
  memset(d, 0, sizeof *d);
  d->active = 1;
  d->id = ++r->next_id;
  d->upstream_id = m.id;
  d->size = m.size;
  d->mechanism = m.mechanism;
  d->iteration = m.iteration;
  d->move = m.from[0] != '\0';
  snprintf(d->hosts, sizeof d->hosts, "%s", m.hosts);
  d->sent = morph__launch_clock(r);
  m.id = d->id;
  if (d->move)
    morph__say(&r->log, 1, "decision %d: move off %s onto %s at iteration %lld", d->id, m.from,
               m.hosts, (long long)m.iteration);
  else if (m.iteration >= 0)
    morph__say(&r->log, 1, "decision %d: %d processes at iteration %lld (%s)", d->id, m.size,
               (long long)m.iteration, morph__launch_mech_name(m.mechanism));
  else
    morph__say(&r->log, 1, "decision %d: %d processes now (%s)", d->id, m.size,
               morph__launch_mech_name(m.mechanism));
  if (morph__launch_job_send(r, &m) == MORPH_OK)
    return;
  if (d == &r->early)
    d->active = 0, r->next_sched--; /* the connection is gone: counted as not applied */
  else
    morph__launch_decision_lost(r, "cannot send the decision");
}
