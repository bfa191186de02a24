/*
 * The PCM front-end's single process-wide state: PCM's calls take no
 * handle, so the context they drive lives here, reached only through
 * pcm__get(). The native API keeps no global.
 */
#include <stdarg.h>
#include <stdio.h>

#include "pcm/internal.h"

static pcm__state state;

pcm__state *pcm__get(void) { return &state; }

int pcm__fail(int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(state.errmsg, sizeof state.errmsg, fmt, ap);
  va_end(ap);
  return err;
}

int pcm__morph_fail(int rc, const char *what)
{
  return pcm__fail(rc, "%s: %s", what, state.ctx ? morph_errmsg(state.ctx) : morph_strerror(rc));
}

int pcm__ready(const char *what)
{
  return state.ctx ? MORPH_OK
                   : pcm__fail(MORPH_ESTATE, "%s before MPI_PCM_Init (or after PCM_Finalize)",
                               what);
}

morph_ctx *MORPH_PCM_ctx(void) { return state.ctx; }

const char *MORPH_PCM_errmsg(void) { return state.errmsg; }
