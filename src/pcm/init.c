/*
 * Initialisation and finalization of the PCM front-end: MPI, the
 * process-wide context it claims, the callbacks registration that carries
 * the per-rank database, a new process's arrival, and an MPI_Finalize
 * that comes after PCM_Finalize (Figure 6) made harmless through the one
 * interception layer (libmorph-prof owns MPI_Finalize).
 */
#include <stdlib.h>

#include "pcm/internal.h"
#include "prof/intercept.h"

#pragma weak morph__prof_on_finalize

/* MPI_Finalize without PCM_Finalize: close the context first. */
static int finalize_open(void)
{
  pcm__state *s = pcm__get();
  morph_ctx *ctx = s->ctx;
  if (!ctx)
    return MPI_Finalize();
  s->ctx = NULL;
  pcm__store_clear(&s->store);
  return morph_finalize(ctx, 0) == 0 ? MPI_SUCCESS : MPI_ERR_OTHER;
}

/* MPI_Finalize after PCM_Finalize: MPI is gone already. */
static int finalize_closed(void) { return MPI_SUCCESS; }

static int open_context(pcm__state *s)
{
  int rc = morph_open(MPI_COMM_WORLD, NULL, &s->ctx);
  if (rc != MORPH_OK)
    return pcm__fail(rc, "MPI_PCM_Init: morph_open: %s", morph_strerror(rc));
  morph_callbacks cb = {pcm__pack, pcm__unpack, &s->store};
  rc = morph_frontend_claim(s->ctx, "PCM (morph/pcm.h)");
  if (rc == MORPH_OK)
    rc = morph_data_callbacks(s->ctx, "pcm.store", &cb);
  if (rc == MORPH_OK && !morph__prof_on_finalize)
    rc = pcm__fail(MORPH_ENOSYS, "MPI_PCM_Init: MPI_Finalize is not intercepted (link "
                                 "libmorph-prof, as morph's CMake and pkg-config do)");
  else if (rc != MORPH_OK)
    rc = pcm__morph_fail(rc, "MPI_PCM_Init");
  if (rc == MORPH_OK) {
    morph__prof_on_finalize(finalize_open);
    return MORPH_OK;
  }
  morph_ctx *ctx = s->ctx; /* a context that cannot be used: close it */
  s->ctx = NULL;
  morph_finalize(ctx, 1);
  return rc;
}

int MPI_PCM_Init(int *argc, char ***argv)
{
  pcm__state *s = pcm__get();
  if (s->ctx)
    return pcm__fail(MORPH_ESTATE, "MPI_PCM_Init called twice");
  int initialised = 0, provided;
  MPI_Initialized(&initialised);
  if (!initialised && MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    return pcm__fail(MORPH_EMPI, "MPI_PCM_Init: MPI_Init_thread failed");
  int rc = open_context(s);
  if (rc != MORPH_OK)
    return rc;
  s->started = morph_get_status(s->ctx) == MORPH_NEW ? PCM_STARTED : PCM_SPLITTED;
  return s->started == PCM_STARTED ? MORPH_OK : pcm__arrive(s);
}

int PCM_Init(MPI_Comm *pcm_comm_world)
{
  int rc = pcm__ready("PCM_Init");
  if (rc != MORPH_OK)
    return rc;
  if (!pcm_comm_world)
    return pcm__fail(MORPH_EINVAL, "PCM_Init: NULL communicator pointer");
  *pcm_comm_world = morph_comm(pcm__get()->ctx);
  return MORPH_OK;
}

int PCM_Process_Status(void)
{
  int rc = pcm__ready("PCM_Process_Status");
  return rc != MORPH_OK ? rc : pcm__get()->started;
}

int PCM_Comm_rank(MPI_Comm comm, int *rank)
{
  int rc = pcm__ready("PCM_Comm_rank");
  if (rc != MORPH_OK)
    return rc;
  if (!rank)
    return pcm__fail(MORPH_EINVAL, "PCM_Comm_rank: rank NULL");
  return MPI_Comm_rank(comm, rank) == MPI_SUCCESS
             ? MORPH_OK : pcm__fail(MORPH_EMPI, "PCM_Comm_rank: MPI_Comm_rank failed");
}

int MORPH_PCM_Finalize(int status)
{
  pcm__state *s = pcm__get();
  int rc = pcm__ready("PCM_Finalize");
  if (rc != MORPH_OK)
    return rc;
  morph_ctx *ctx = s->ctx;
  s->ctx = NULL;
  pcm__store_clear(&s->store);
  morph__prof_on_finalize(NULL); /* morph_finalize's own MPI_Finalize does the default work */
  int outcome = morph_finalize(ctx, status);
  morph__prof_on_finalize(finalize_closed);
  return outcome;
}

int PCM_Finalize(MPI_Comm comm)
{
  (void)comm;
  return MORPH_PCM_Finalize(0);
}

_Noreturn void PCM_Exit(int status)
{
  int outcome = MORPH_PCM_Finalize(status);
  exit(outcome < 0 ? 1 : outcome);
}
