/*
 * The Elastic MPI front-end's single process-wide state: the thesis's calls
 * take no handle, so the context they drive lives here, reached only
 * through adapt__get(). The native API keeps no global.
 */
#include <stdarg.h>
#include <stdio.h>

#include "adapt/internal.h"

static adapt__state state;

adapt__state *adapt__get(void) { return &state; }

int adapt__fail(int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(state.errmsg, sizeof state.errmsg, fmt, ap);
  va_end(ap);
  return err;
}

int adapt__morph_fail(int rc, const char *what)
{
  return adapt__fail(rc, "%s: %s", what, state.ctx ? morph_errmsg(state.ctx) : morph_strerror(rc));
}

MPI_Comm MORPH_Adapt_comm_world(void)
{
  if (!state.ctx)
    return MPI_COMM_NULL;
  /* Inside the window a joiner's world is its own group, as in Elastic
   * MPI; everyone else keeps the old world until the commit. */
  if (state.in_window && state.win.status == MORPH_JOINING)
    return MPI_COMM_WORLD;
  return morph_comm(state.ctx);
}

morph_ctx *MORPH_Adapt_ctx(void) { return state.ctx; }

const char *MORPH_Adapt_errmsg(void) { return state.errmsg; }
