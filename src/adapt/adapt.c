/*
 * The thesis's four operations over morph.h's split point: MPI_Probe_adapt
 * is morph_probe, MPI_Comm_adapt_begin is morph_begin and
 * MPI_Comm_adapt_commit is morph_commit, each between morph_frontend_enter
 * and _leave on the context the front-end claimed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "adapt/internal.h"
#include "prof/intercept.h"

#pragma weak morph__prof_on_finalize

static int status_of(morph_status st)
{
  switch (st) {
  case MORPH_NEW: return MPI_ADAPT_STATUS_NEW;
  case MORPH_JOINING: return MPI_ADAPT_STATUS_JOINING;
  case MORPH_LEAVING: return MPI_ADAPT_STATUS_LEAVING;
  default: return MPI_ADAPT_STATUS_STAYING;
  }
}

/* Decisions are carried out live only: the programs move their own data
 * inside the window, which a relaunch could not carry. */
static int open_context(adapt__state *s)
{
  morph_options o;
  morph_options_init(&o);
  o.mechanism = MORPH_MECH_LIVE;
  int rc = morph_open(MPI_COMM_WORLD, &o, &s->ctx);
  if (rc != MORPH_OK)
    return adapt__fail(rc, "MPI_Init_adapt: morph_open: %s", morph_strerror(rc));
  rc = morph_frontend_claim(s->ctx, "Elastic MPI (morph/adapt.h)");
  if (rc != MORPH_OK)
    return adapt__morph_fail(rc, "MPI_Init_adapt");
  /* Weak: a program linked without libmorph-prof must learn why its
   * MPI_Finalize would skip the context, not hang its launcher. */
  if (!morph__prof_on_finalize)
    return adapt__fail(MORPH_ENOSYS, "MPI_Init_adapt: MPI_Finalize is not intercepted "
                                     "(link libmorph-prof, as morph's CMake and pkg-config do)");
  morph__prof_on_finalize(adapt__finalize);
  return MORPH_OK;
}

int MPI_Init_adapt(int *argc, char ***argv, int *local_status)
{
  adapt__state *s = adapt__get();
  if (!local_status)
    return adapt__fail(MORPH_EINVAL, "MPI_Init_adapt: local_status is NULL");
  if (s->ctx)
    return adapt__fail(MORPH_ESTATE, "MPI_Init_adapt called twice");
  int initialised = 0, provided;
  MPI_Initialized(&initialised);
  if (!initialised && MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    return adapt__fail(MORPH_EMPI, "MPI_Init_adapt: MPI_Init_thread failed");
  int rc = open_context(s);
  if (rc != MORPH_OK)
    return rc;
  *local_status = status_of(morph_get_status(s->ctx));
  return MPI_SUCCESS;
}

static int probe_info(const morph_change *ch, MPI_Info *info)
{
  char v[32];
  *info = MPI_INFO_NULL;
  if (!ch->pending)
    return MORPH_OK;
  if (MPI_Info_create(info) != MPI_SUCCESS)
    return adapt__fail(MORPH_EMPI, "MPI_Probe_adapt: MPI_Info_create failed");
  snprintf(v, sizeof v, "%d", ch->old_size);
  MPI_Info_set(*info, "morph_old_size", v);
  snprintf(v, sizeof v, "%d", ch->new_size);
  MPI_Info_set(*info, "morph_new_size", v);
  MPI_Info_set(*info, "morph_mechanism", morph_mechanism_name(ch->mechanism));
  return MORPH_OK;
}

int MPI_Probe_adapt(int *current_operation, int *local_status, MPI_Info *info)
{
  adapt__state *s = adapt__get();
  if (!current_operation || !local_status)
    return adapt__fail(MORPH_EINVAL, "MPI_Probe_adapt: NULL flag or status");
  if (!s->ctx)
    return adapt__fail(MORPH_ESTATE, "MPI_Probe_adapt before MPI_Init_adapt");
  if (s->in_window)
    return adapt__fail(MORPH_ESTATE, "MPI_Probe_adapt inside the adaptation window "
                       "(between MPI_Comm_adapt_begin and MPI_Comm_adapt_commit)");
  morph_change ch;
  morph_frontend_enter(s->ctx);
  int rc = morph_probe(s->ctx, &ch);
  morph_frontend_leave(s->ctx);
  if (rc != MORPH_OK)
    return adapt__morph_fail(rc, "MPI_Probe_adapt");
  *current_operation = ch.pending ? MPI_ADAPT_TRUE : MPI_ADAPT_FALSE;
  *local_status = status_of(ch.status);
  return info ? probe_info(&ch, info) : MPI_SUCCESS;
}

int MPI_Comm_adapt_begin(MPI_Comm *intercomm, MPI_Comm *new_comm_world, int *staying_count,
                         int *leaving_count, int *joining_count)
{
  adapt__state *s = adapt__get();
  if (!intercomm || !new_comm_world || !staying_count || !leaving_count || !joining_count)
    return adapt__fail(MORPH_EINVAL, "MPI_Comm_adapt_begin: NULL argument");
  if (!s->ctx)
    return adapt__fail(MORPH_ESTATE, "MPI_Comm_adapt_begin before MPI_Init_adapt");
  morph_frontend_enter(s->ctx);
  int rc = morph_begin(s->ctx, &s->win);
  morph_frontend_leave(s->ctx);
  if (rc != MORPH_OK)
    return adapt__morph_fail(rc, "MPI_Comm_adapt_begin");
  s->in_window = 1;
  *intercomm = s->win.intercomm;
  *new_comm_world = s->win.newcomm;
  *staying_count = s->win.staying;
  *leaving_count = s->win.leaving;
  *joining_count = s->win.joining;
  return MPI_SUCCESS;
}

/* A leaver is released, as Elastic MPI releases it: morph_finalize ends
 * it (live) or finalizes MPI (relaunch); either way it must not return to
 * a loop whose world it has left. */
static void release(adapt__state *s)
{
  morph_ctx *ctx = s->ctx;
  s->ctx = NULL;
  exit(morph_finalize(ctx, 0));
}

int MPI_Comm_adapt_commit(void)
{
  adapt__state *s = adapt__get();
  if (!s->ctx || !s->in_window)
    return adapt__fail(MORPH_ESTATE, "MPI_Comm_adapt_commit without MPI_Comm_adapt_begin");
  morph_status st;
  morph_frontend_enter(s->ctx);
  int rc = morph_commit(s->ctx, MORPH_OK, &st);
  morph_frontend_leave(s->ctx);
  s->in_window = 0;
  if (st == MORPH_LEAVING)
    release(s);
  return rc == MORPH_OK ? MPI_SUCCESS : adapt__morph_fail(rc, "MPI_Comm_adapt_commit");
}
