/* The Elastic MPI front-end's state, shared by its files. */
#ifndef MORPH_ADAPT_INTERNAL_H
#define MORPH_ADAPT_INTERNAL_H

#include "morph/adapt.h"

/* The one process-wide state the thesis's handle-less API needs. */
typedef struct adapt__state {
  morph_ctx *ctx;          /* NULL before MPI_Init_adapt, after finalize */
  int in_window;           /* between begin and commit */
  morph_window_info win;   /* the open window */
  char errmsg[512];
} adapt__state;

/* The state; lives in context.c and nowhere else. Never NULL. */
adapt__state *adapt__get(void);

/* Records a message and returns err. */
int adapt__fail(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Records the context's message for a failed morph call and returns rc. */
int adapt__morph_fail(int rc, const char *what);

/* MPI_Finalize's work while a context is open (finalize.c): closes it. */
int adapt__finalize(void);

#endif
