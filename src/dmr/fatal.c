/*
 * The front-end's one way to fail where DMRlib gives no way to report an
 * error: the Table 1 functions return void, and once the job has changed
 * size the data cannot be put back (docs/dmr-compat.md, difference 8).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "internal.h"

_Noreturn void dmr__fatal(dmr__ctx *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "DMR: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  MPI_Abort(c && c->m ? morph_comm(c->m) : MPI_COMM_WORLD, 3);
  abort(); /* MPI_Abort does not return; this tells the compiler so */
}
