/*
 * Executes a plan in the background: the transfers are posted at once
 * (morph__redist_post, exec.c) and the caller goes back to its own work.
 *
 * Why no progress thread: MPI moves non-blocking messages only inside MPI
 * calls unless it was initialised with MPI_THREAD_MULTIPLE, and a thread
 * polling MPI would take a core from the computation it is meant to
 * overlap (two cores per host here). The caller's own MPI calls (its halo
 * exchanges, its reductions) progress these messages too, because MPI's
 * progress engine serves every communicator of the process; a test call
 * per iteration is enough for the rest.
 */
#include <stdlib.h>

#include "common/clock.h"
#include "morph/error.h"
#include "redist/redist.h"

int morph__redist_start(MPI_Comm comm, const morph__plan *plan, const void *old_buf,
                        void *new_buf, size_t elem_size, MPI_Datatype type, int tag,
                        morph__redist_xfer **out)
{
  *out = NULL;
  morph__redist_xfer *x = malloc(sizeof *x);
  if (!x)
    return MORPH_ENOMEM;
  int err = morph__redist_post(comm, plan, old_buf, new_buf, elem_size, type, tag, x);
  if (err) {
    morph__redist_xfer_free(x);
    free(x);
    return err;
  }
  /* The segment scratch only serves the posting. */
  free(x->seg_len);
  free(x->seg_disp);
  x->seg_len = NULL, x->seg_disp = NULL;
  *out = x;
  return MORPH_OK;
}

int morph__redist_test(morph__redist_xfer *x, int *done)
{
  *done = 0;
  if (MPI_Testall(x->nreqs, x->reqs, done, x->stats) != MPI_SUCCESS)
    return MORPH_EMPI;
  return MORPH_OK;
}

int morph__redist_finish(morph__redist_xfer *x, double deadline, int64_t *bytes_sent)
{
  if (bytes_sent)
    *bytes_sent = 0;
  int done = 0, err = MORPH_OK;
  /* Polled like exec.c's wait, so that the deadline holds when a peer
   * never answers; but a joiner may wait here while the old processes
   * compute for several iterations, so a long wait backs off to short
   * sleeps instead of taking a core from them. */
  for (long spins = 0; !err && !done; spins++) {
    err = morph__redist_test(x, &done);
    if (!err && !done && deadline > 0 && morph__now() > deadline)
      err = MORPH_ETIMEDOUT;
    if (!err && !done && spins > 10000)
      morph__sleep(0.0002);
  }
  if (!err && bytes_sent)
    *bytes_sent = x->remote_bytes;
  morph__redist_xfer_free(x);
  free(x);
  return err;
}
