/* The simulator's message of its last failure, set by every part of it. */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

int morph__sim_fail(morph_sim *sim, int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sim->errmsg, sizeof sim->errmsg, fmt, ap);
  va_end(ap);
  return err;
}

const char *morph_sim_errmsg(const morph_sim *sim)
{
  return sim ? sim->errmsg : "no simulator";
}
