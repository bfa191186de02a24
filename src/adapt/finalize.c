/*
 * MPI_Finalize of an Elastic MPI program: the thesis's programs end with
 * it, and the front-end's context must be closed first (it tells the
 * launcher how the job ended, and morph_finalize is what finalizes MPI).
 * libmorph-prof owns the MPI_Finalize symbol (one interception layer for
 * the whole of morph); MPI_Init_adapt hooks this function into it.
 */
#include "adapt/internal.h"

int adapt__finalize(void)
{
  adapt__state *s = adapt__get();
  morph_ctx *ctx = s->ctx;
  if (!ctx) /* released already: the layer's default work (the hook is gone) */
    return MPI_Finalize();
  s->ctx = NULL; /* morph_finalize's own MPI_Finalize does the default work */
  return morph_finalize(ctx, 0) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}
