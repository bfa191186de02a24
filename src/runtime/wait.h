/*
 * Time-limited completion of MPI requests. Every wait inside an adaptation
 * window goes through here, because a peer that died or hangs must turn
 * into MORPH_ETIMEDOUT, never into a hung job.
 */
#ifndef MORPH_RUNTIME_WAIT_H
#define MORPH_RUNTIME_WAIT_H

#include <mpi.h>

#include "runtime/ctx.h"

/* Waits for all n requests until `deadline` (morph__now() time; 0: none).
 * MORPH_OK, MORPH_ETIMEDOUT (requests abandoned, still active) or
 * MORPH_EMPI (a request completed with an error). */
int morph__wait_all(int n, MPI_Request *reqs, double deadline);

/* Agreement over comm: returns MORPH_OK on every process if every process
 * passed MORPH_OK, otherwise the smallest (most negative) code. Time-limited
 * by deadline: MORPH_ETIMEDOUT if the others do not answer. Its buffers are
 * in ctx, because a timed-out reduction stays active (wait.c). */
int morph__agree(morph_ctx *ctx, MPI_Comm comm, int rc, double deadline);

#endif
