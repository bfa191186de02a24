/*
 * MPI_Finalize through the profiling interface: the thesis's programs end
 * with it, and the front-end's context must be closed first (it tells the
 * launcher how the job ended, and morph_finalize is what finalizes MPI).
 * Without an open Elastic MPI context it is plain PMPI_Finalize, so this
 * wrapper changes nothing for other programs linking libmorph.
 */
#include "adapt/internal.h"

int MPI_Finalize(void)
{
  adapt__state *s = adapt__get();
  morph_ctx *ctx = s->ctx;
  if (!ctx)
    return PMPI_Finalize();
  s->ctx = NULL; /* morph_finalize's own MPI_Finalize comes back here */
  return morph_finalize(ctx, 0) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}
