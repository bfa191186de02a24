/*
 * PCM_Status and the split and merge calls over the window (window.c):
 * check the call against the announced change, agree on the arguments,
 * cut the array into pieces for the new owners, carry them, hand the new
 * part to the caller.
 */
#include <stdlib.h>
#include <string.h>

#include "pcm/internal.h"

/* The announced kind of change, from what morph_probe found. */
static int kind_of(const morph_change *ch)
{
  if (!ch->pending)
    return MORPH_PCM_NONE;
  if (ch->moving > 0)
    return ch->status == MORPH_LEAVING ? PCM_MIGRATE : PCM_RECONFIGURE;
  return ch->new_size > ch->old_size ? PCM_SPLIT : PCM_MERGE;
}

static const char *name_of(int kind)
{
  return kind == PCM_SPLIT ? "PCM_SPLIT" : kind == PCM_MERGE ? "PCM_MERGE"
         : kind == PCM_MIGRATE ? "PCM_MIGRATE" : "PCM_RECONFIGURE";
}

static const char *call_of(int kind)
{
  return kind == PCM_SPLIT ? "split" : kind == PCM_MERGE ? "merge" : "PCM_Reconfigure";
}

int PCM_Status(MPI_Comm comm)
{
  (void)comm; /* the world is the context's; PCM passes it for its own use */
  pcm__state *s = pcm__get();
  int rc = pcm__ready("PCM_Status");
  if (rc != MORPH_OK)
    return rc;
  if (s->announced)
    return pcm__fail(MORPH_ESTATE, "PCM_Status: the %s it returned before was not carried out "
                     "(call the %s first)", name_of(s->announced), call_of(s->announced));
  if (!s->stashed) {
    morph_frontend_enter(s->ctx);
    rc = morph_probe(s->ctx, &s->change);
    morph_frontend_leave(s->ctx);
    if (rc != MORPH_OK)
      return pcm__morph_fail(rc, "PCM_Status");
  }
  s->stashed = 0;
  s->announced = kind_of(&s->change);
  return s->announced;
}

/* A split or merge needs an announced change: MORPH_ESTATE otherwise
 * (nothing to refuse). A change of the other kind is refused later, with
 * the form check (MORPH_ESIZE), so that the job does not wait for it. */
static int announced(pcm__state *s, int kind, const char *what)
{
  int rc = pcm__ready(what);
  if (rc == MORPH_OK && !s->announced)
    rc = pcm__fail(MORPH_ESTATE, "%s without PCM_Status returning %s (nothing announced)", what,
                   name_of(kind));
  return rc;
}

/* This process's columns in the global order, and the job's total. */
static int locate(pcm__state *s, int64_t xdim, int64_t *first, int64_t *total)
{
  MPI_Comm comm = morph_comm(s->ctx);
  *first = 0;
  if (MPI_Exscan(&xdim, first, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS ||
      MPI_Allreduce(&xdim, total, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
    return MORPH_EMPI;
  if (morph_rank(s->ctx) == 0)
    *first = 0; /* MPI_Exscan leaves rank 0's result undefined */
  return MORPH_OK;
}

/* Checks shared by splits and merges; agreed, and refused on error. */
static int prepare(pcm__state *s, pcm__form form, const char *what, int xdim, int ydim,
                   MPI_Datatype type, int local_rc, pcm__array *a)
{
  MPI_Aint lb, extent = 0;
  if (type != MPI_DATATYPE_NULL)
    MPI_Type_get_extent(type, &lb, &extent);
  int rc = local_rc;
  if (rc == MORPH_OK && (xdim < 0 || ydim < 0 || extent <= 0))
    rc = pcm__fail(MORPH_EINVAL, "%s: xDim %d, yDim %d, type extent %ld", what, xdim, ydim,
                   (long)extent);
  if (rc == MORPH_OK)
    rc = pcm__check_form(s, form, what);
  int range[2] = {rc == MORPH_OK ? -ydim : 0, rc == MORPH_OK ? ydim : 0};
  if (MPI_Allreduce(MPI_IN_PLACE, range, 2, MPI_INT, MPI_MAX, morph_comm(s->ctx)) != MPI_SUCCESS)
    return pcm__fail(MORPH_EMPI, "%s: MPI_Allreduce failed", what);
  if (rc == MORPH_OK && -range[0] != range[1])
    rc = pcm__fail(MORPH_EINVAL, "%s: yDim differs between processes (%d to %d)", what,
                   -range[0], range[1]);
  *a = (pcm__array){.xdim = xdim, .rows = ydim, .elem = extent};
  if (rc == MORPH_OK && locate(s, xdim, &a->first, &a->total) != MORPH_OK)
    rc = pcm__fail(MORPH_EMPI, "%s: MPI_Exscan failed", what);
  return pcm__agree_or_refuse(s, rc, what);
}

/* Cuts, carries and hands back this process's new part (as a malloc'ed
 * buffer in *part), the new width and the world. */
static int change(pcm__state *s, pcm__array *a, const char *what, char **part, int *xdim)
{
  int rc = pcm__cut(&s->store, a, morph_rank(s->ctx), s->change.new_size);
  rc = pcm__agree_or_refuse(s, rc == MORPH_OK ? rc : pcm__fail(rc, "%s: out of memory", what),
                            what);
  if (rc == MORPH_OK)
    rc = pcm__carry(s, what);
  if (rc != MORPH_OK)
    return rc;
  int me = morph_rank(s->ctx);
  pcm__entry *w = pcm__store_find(&s->store, me, MORPH_PCM_KEY_WIDTH);
  if (w)
    memcpy(xdim, w->bytes, sizeof *xdim);
  /* The caller's now: a stayer does not carry a second copy around. */
  *part = pcm__store_take(&s->store, me, MORPH_PCM_KEY_ARRAY);
  if (!w || !*part)
    return pcm__fail(MORPH_EPROTO, "%s: no width or array arrived for rank %d", what, me);
  return MORPH_OK;
}

static void world(pcm__state *s, int *rank, int *size, MPI_Comm *comm)
{
  *rank = morph_rank(s->ctx);
  *size = morph_size(s->ctx);
  *comm = morph_comm(s->ctx);
}

static int split(pcm__form form, const char *what, void **data, MPI_Datatype type,
                 int *iterations, int *xDim, int *yDim, int *rank, int *np, MPI_Comm *comm)
{
  pcm__state *s = pcm__get();
  int rc = announced(s, PCM_SPLIT, what);
  if (rc != MORPH_OK)
    return rc;
  int bad = !data || !iterations || !xDim || !yDim || !rank || !np || !comm ||
            (!*data && *xDim > 0);
  pcm__array a;
  rc = prepare(s, form, what, bad ? 0 : *xDim, bad ? 0 : *yDim, type,
               bad ? pcm__fail(MORPH_EINVAL, "%s: NULL argument", what) : MORPH_OK, &a);
  if (rc != MORPH_OK)
    return rc;
  a.data = *data, a.iteration = *iterations;
  char *part;
  if ((rc = change(s, &a, what, &part, xDim)) != MORPH_OK)
    return rc;
  free(*data);
  *data = part;
  world(s, rank, np, comm);
  return MORPH_OK;
}

int(PCM_Split)(void **data, MPI_Datatype type, int *iterations, int *xDim, int *yDim, int *rank,
               int *np, MPI_Comm *comm, const char *argv0)
{
  (void)argv0;
  return split(PCM__SPLIT_ONE, "PCM_Split", data, type, iterations, xDim, yDim, rank, np, comm);
}

int(PCM_Split_Collective)(void **data, MPI_Datatype type, int *iterations, int *xDim, int *yDim,
                          int *rank, int *np, MPI_Comm *comm, const char *argv0)
{
  (void)argv0;
  return split(PCM__SPLIT_ALL, "PCM_Split_Collective", data, type, iterations, xDim, yDim, rank,
               np, comm);
}

int PCM_Merge_datacnts(int xDim, int yDim, int *mergecnts, int *merge_rank, MPI_Comm comm)
{
  (void)comm;
  pcm__state *s = pcm__get();
  int rc = announced(s, PCM_MERGE, "PCM_Merge_datacnts");
  if (rc == MORPH_OK && s->announced != PCM_MERGE)
    rc = pcm__fail(MORPH_ESTATE, "PCM_Merge_datacnts: PCM_Status announced PCM_SPLIT");
  if (rc != MORPH_OK)
    return rc;
  if (!mergecnts || !merge_rank || xDim < 0 || yDim < 0)
    return pcm__fail(MORPH_EINVAL, "PCM_Merge_datacnts: NULL output or negative size");
  int64_t first, total, x = xDim;
  if (locate(s, x, &first, &total) != MORPH_OK)
    return pcm__fail(MORPH_EMPI, "PCM_Merge_datacnts: MPI_Exscan failed");
  int me = morph_rank(s->ctx), n = s->change.new_size;
  int stays = s->change.status != MORPH_LEAVING;
  int64_t w = pcm__block_first(total, n, me + 1) - pcm__block_first(total, n, me);
  *merge_rank = stays ? me : -1;
  *mergecnts = stays ? (int)((w + 2) * yDim) : 0;
  return MORPH_OK;
}

static int merge(pcm__form form, const char *what, void *data, MPI_Datatype type, int *xDim,
                 int *yDim, void *out, int outcnt, int *rank, int *np, MPI_Comm *comm)
{
  pcm__state *s = pcm__get();
  int rc = announced(s, PCM_MERGE, what);
  if (rc != MORPH_OK)
    return rc;
  int stays = s->change.status != MORPH_LEAVING;
  int bad = !xDim || !yDim || !rank || !np || !comm || (!data && *xDim > 0);
  int x = bad || *xDim < 0 ? 0 : *xDim, y = bad || *yDim < 0 ? 0 : *yDim, need = 0, mine;
  if (s->announced == PCM_MERGE) /* collective, on every process; a split is refused below */
    rc = PCM_Merge_datacnts(x, y, &need, &mine, MPI_COMM_NULL);
  if (rc != MORPH_OK)
    return rc;
  int local = bad ? pcm__fail(MORPH_EINVAL, "%s: NULL argument", what)
              : stays && (!out || outcnt < need)
                  ? pcm__fail(MORPH_EINVAL, "%s: new_buffer %s with %d elements, %d needed "
                              "(PCM_Merge_datacnts)", what, out ? "given" : "NULL", outcnt, need)
                  : MORPH_OK;
  pcm__array a;
  rc = prepare(s, form, what, bad ? 0 : *xDim, bad ? 0 : *yDim, type, local, &a);
  if (rc != MORPH_OK)
    return rc;
  /* PCM_Merge has no iteration argument: the loop index, when PCM_Status
   * is called once per iteration from 0 as in Figure 6 (documented). */
  a.data = data, a.iteration = (int)morph_iteration(s->ctx) - 1;
  char *part;
  if ((rc = change(s, &a, what, &part, xDim)) != MORPH_OK)
    return rc;
  memcpy(out, part, (size_t)((*xDim + 2) * a.rows * a.elem));
  free(part);
  world(s, rank, np, comm);
  return MORPH_OK;
}

int PCM_Merge(void *data, MPI_Datatype type, int *xDim, int *yDim, void *new_buffer,
              int mergecnts, int *rank, int *np, MPI_Comm *comm)
{
  return merge(PCM__MERGE_ONE, "PCM_Merge", data, type, xDim, yDim, new_buffer, mergecnts, rank,
               np, comm);
}

int PCM_Merge_Collective(void *data, MPI_Datatype type, int *xDim, int *yDim, void *new_buffer,
                         int mergecnts, int *rank, int *np, MPI_Comm *comm)
{
  return merge(PCM__MERGE_ALL, "PCM_Merge_Collective", data, type, xDim, yDim, new_buffer,
               mergecnts, rank, np, comm);
}

/* The arguments, on this process; a split or merge announced instead is
 * refused like a split called for a merge. */
static int reconfigure_args(const pcm__state *s, const MPI_Comm *comm)
{
  if (s->announced != PCM_MIGRATE && s->announced != PCM_RECONFIGURE)
    return pcm__fail(MORPH_ESTATE, "PCM_Reconfigure, but PCM_Status announced %s (call the %s)",
                     name_of(s->announced), call_of(s->announced));
  return comm ? MORPH_OK : pcm__fail(MORPH_EINVAL, "PCM_Reconfigure: NULL comm");
}

int PCM_Reconfigure(MPI_Comm *comm, const char *argv0)
{
  (void)argv0; /* the new process runs the job's program, as a joiner */
  pcm__state *s = pcm__get();
  int rc = pcm__ready("PCM_Reconfigure");
  if (rc == MORPH_OK && !s->announced)
    rc = pcm__fail(MORPH_ESTATE, "PCM_Reconfigure: no migration announced (PCM_Status did not "
                   "return PCM_MIGRATE or PCM_RECONFIGURE)");
  if (rc == MORPH_OK)
    rc = pcm__agree_or_refuse(s, reconfigure_args(s, comm), "PCM_Reconfigure");
  if (rc == MORPH_OK)
    rc = pcm__migrate(s, "PCM_Reconfigure"); /* a mover ends inside */
  if (rc == MORPH_OK)
    *comm = morph_comm(s->ctx);
  return rc;
}
