#include "dispatch.h"

#include <string.h>

#include "decision.h"
#include "morph/error.h"
#include "relay.h"
#include "server.h"
#include "state.h"

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
    morph__launch_decision_lost(r, "cannot send the decision");
}
