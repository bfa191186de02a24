/*
 * What every layer of the runtime uses and that uses nothing of it: the
 * failure message kept in the context, the switch to a new communicator,
 * the immediate end of a process (no finalize, no atexit handlers),
 * and the names of statuses and mechanisms. Its home is below the files
 * that call it, so that control flows one way (docs/runtime.md, "Files").
 */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "runtime/ctx.h"

int morph__fail(morph_ctx *ctx, int err, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ctx->errmsg, sizeof ctx->errmsg, fmt, ap);
  va_end(ap);
  return err;
}

void morph__set_comm(morph_ctx *ctx, MPI_Comm comm)
{
  ctx->comm = comm;
  MPI_Comm_rank(comm, &ctx->rank);
  MPI_Comm_size(comm, &ctx->size);
  /* morph handles MPI errors itself: a failing spawn or peer must come back
   * as a code, not abort the job. */
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
}

const char *morph_status_name(morph_status st)
{
  static const char *const names[] = {"NEW", "JOINING", "STAYING", "LEAVING"};
  return (unsigned)st < 4 ? names[st] : "UNKNOWN";
}

const char *morph_mechanism_name(morph_mechanism m)
{
  static const char *const names[] = {"auto", "live", "relaunch"};
  return (unsigned)m < 3 ? names[m] : "unknown";
}

void morph__end_process(int code)
{
  fflush(stdout);
  fflush(stderr);
  _exit(code);
}
