#include "state.h"

#include "common/clock.h"

double morph__launch_clock(const struct morph__launch *r)
{
  return morph__now() - r->t0;
}

void morph__launch_phase_set(struct morph__launch *r, enum morph__launch_phase ph, double limit)
{
  r->phase = ph;
  r->phase_deadline = morph__launch_clock(r) + limit;
}
