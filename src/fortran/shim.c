/*
 * The C side of the Fortran modules (src/fortran/morph.f90): only what
 * BIND(C) cannot do alone. The Fortran modules call every other function
 * of morph.h and morph/dmr.h directly through ISO_C_BINDING interfaces.
 * What needs C here is MPI's handles: a Fortran communicator is an
 * integer (MPI_Fint, also inside mpi_f08's type(MPI_Comm)), a C one is a
 * pointer under Open MPI and an int under MPICH, and MPICH's
 * MPI_Comm_f2c is a macro, so the conversion must be compiled against
 * each MPI. Datatypes are made here for the same reason: Fortran arrays
 * are registered as contiguous runs of bytes, which is all morph needs to
 * move them.
 *
 * Built into libmorph-<flavour>-f08 for each MPI flavour; the names are
 * exported (morph_f_*) but belong to the modules, not to the public API.
 */
#include <stdlib.h>
#include <string.h>

#include "morph.h"
#include "morph/dmr.h"

/* morph_window_info with Fortran communicators (the modules' mirror). */
typedef struct morph_f_window_info {
  int status, staying, leaving, joining, old_size, new_size;
  MPI_Fint comm, intercomm, newcomm;
  int old_rank, new_rank, moving;
} morph_f_window_info;

static MPI_Fint to_f(MPI_Comm c) { return MPI_Comm_c2f(c); }

int morph_f_open(MPI_Fint comm, const morph_options *opts, morph_ctx **ctx)
{
  return morph_open(MPI_Comm_f2c(comm), opts, ctx);
}

MPI_Fint morph_f_comm(const morph_ctx *ctx) { return to_f(morph_comm(ctx)); }

MPI_Fint morph_f_comm_null(void) { return MPI_Comm_c2f(MPI_COMM_NULL); }

/* A contiguous datatype of `bytes` bytes, committed; MPI_DATATYPE_NULL if
 * MPI refuses. morph copies the datatype it is given, so the caller frees
 * it after registering. */
static MPI_Datatype bytes_type(int64_t bytes)
{
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (bytes < 1 || bytes > INT32_MAX || MPI_Type_contiguous((int)bytes, MPI_BYTE, &t) != MPI_SUCCESS)
    return MPI_DATATYPE_NULL;
  if (MPI_Type_commit(&t) != MPI_SUCCESS) {
    MPI_Type_free(&t);
    return MPI_DATATYPE_NULL;
  }
  return t;
}

/* Replicated data of `bytes` bytes (any Fortran variable). */
int morph_f_data_bytes(morph_ctx *ctx, const char *name, void *buf, int64_t bytes)
{
  if (bytes < 0 || bytes > INT32_MAX)
    return morph_data_replicated(ctx, name, buf, -1, MPI_BYTE);
  return morph_data_replicated(ctx, name, buf, (int)bytes, MPI_BYTE);
}

/* Block (block 0) or block-cyclic data whose element is `elem_bytes`
 * bytes: a Fortran array element times the leading extent. */
int morph_f_data_block(morph_ctx *ctx, const char *name, void **cell, int64_t global, int64_t block,
                       int64_t elem_bytes)
{
  MPI_Datatype t = bytes_type(elem_bytes);
  if (t == MPI_DATATYPE_NULL)
    return morph_data_block(ctx, name, cell, global, MPI_DATATYPE_NULL);
  int rc = block > 0 ? morph_data_block_cyclic(ctx, name, cell, global, block, t)
                     : morph_data_block(ctx, name, cell, global, t);
  MPI_Type_free(&t);
  return rc;
}

static void window_to_f(const morph_window_info *w, morph_f_window_info *f)
{
  *f = (morph_f_window_info){(int)w->status, w->staying, w->leaving, w->joining, w->old_size,
                             w->new_size, to_f(w->comm), to_f(w->intercomm), to_f(w->newcomm),
                             w->old_rank, w->new_rank, w->moving};
}

/* morph_begin (overlap 0) or morph_begin_overlap (1). */
int morph_f_begin(morph_ctx *ctx, int overlap, morph_f_window_info *info)
{
  morph_window_info w;
  memset(&w, 0, sizeof w);
  w.comm = w.intercomm = w.newcomm = MPI_COMM_NULL;
  int rc = overlap ? morph_begin_overlap(ctx, &w) : morph_begin(ctx, &w);
  window_to_f(&w, info);
  return rc;
}

/* What an error without `ierr` does, as MPI_ERRORS_ARE_FATAL would. */
void morph_f_abort(const morph_ctx *ctx, int code)
{
  MPI_Abort(ctx ? morph_comm(ctx) : MPI_COMM_WORLD, code);
}

MPI_Fint morph_f_dmr_comm(void) { return to_f(DMR_Comm()); }
MPI_Fint morph_f_dmr_intercomm(void) { return to_f(DMR_Intercomm()); }

/* A committed datatype of `bytes` bytes for DMRlib's Table 1, as a
 * Fortran handle: a Send function only notes its array and datatype, which
 * the window uses later, so the handle keeps the datatype for its life. */
MPI_Fint morph_f_bytes_type(int64_t bytes) { return MPI_Type_c2f(bytes_type(bytes)); }

void morph_f_type_free(MPI_Fint type)
{
  MPI_Datatype t = MPI_Type_f2c(type);
  if (t != MPI_DATATYPE_NULL)
    MPI_Type_free(&t);
}

/* DMRlib's Table 1 on a Fortran array handle: `data` is the address of
 * the C pointer the handle keeps (malloc'ed memory, as Table 1 wants).
 * send 1: a Send function, 0: a Recv function; n blocks of `size`
 * elements for block-cyclic data (cyclic 1), `size` elements otherwise.
 * The expand and shrink forms of each are the same function in the
 * front-end. */
void morph_f_dmr_table1(void **data, MPI_Fint type, int send, int cyclic, int *n, int *size)
{
  MPI_Datatype t = MPI_Type_f2c(type);
  if (send && cyclic)
    DMR_Send_expand_blockcyclic(*data, t, *n, *size);
  else if (send)
    DMR_Send_expand_default(*data, t, *size);
  else if (cyclic)
    DMR_Recv_expand_blockcyclic(data, t, n, size);
  else
    DMR_Recv_expand_default(data, t, size);
}

void *morph_f_malloc(int64_t bytes) { return bytes > 0 ? malloc((size_t)bytes) : NULL; }
void morph_f_free(void *p) { free(p); }
