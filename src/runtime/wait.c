#include "runtime/wait.h"

#include <stdlib.h>

#include "common/clock.h"
#include "morph/error.h"

int morph__wait_all(int n, MPI_Request *reqs, double deadline)
{
  /* Real statuses: MPICH's header makes gcc reject MPI_STATUSES_IGNORE. */
  MPI_Status local[4], *st = n <= 4 ? local : malloc((size_t)n * sizeof *st);
  if (!st)
    return MORPH_ENOMEM;
  int rc = MORPH_ETIMEDOUT;
  /* Spin with MPI_Testall (it drives progress), backing off to short sleeps
   * after a while so that a long wait does not burn a core the application
   * shares with others. */
  for (long spins = 0; deadline <= 0 || morph__now() <= deadline; spins++) {
    int done = 0;
    if (MPI_Testall(n, reqs, &done, st) != MPI_SUCCESS) {
      rc = MORPH_EMPI;
      break;
    }
    if (done) {
      rc = MORPH_OK;
      break;
    }
    if (spins > 10000)
      morph__sleep(0.0002);
  }
  if (st != local)
    free(st);
  return rc;
}

int morph__agree(morph_ctx *ctx, MPI_Comm comm, int rc, double deadline)
{
  MPI_Request req;
  ctx->agree_in = ctx->agree_out = rc;
  if (MPI_Iallreduce(&ctx->agree_in, &ctx->agree_out, 1, MPI_INT, MPI_MIN, comm, &req) !=
      MPI_SUCCESS)
    return MORPH_EMPI;
  int w = morph__wait_all(1, &req, deadline);
  return w != MORPH_OK ? w : ctx->agree_out;
}
