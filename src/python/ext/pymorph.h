/*
 * The C extension behind the Python package morph (src/python/morph):
 * morph.h as Python objects for mpi4py programs. Files, each using only
 * those below it:
 *   module.c   the module morph._morph: types, constants, functions
 *   context.c  Context: open / finalize, queries, the point, the window
 *   data.c     registrations: Block (NumPy views on morph's memory),
 *              replicated arrays, callbacks
 *   state.c    what the others share: the exception class, the statuses,
 *              raising morph's errors, mpi4py communicators
 */
#ifndef MORPH_PY_H
#define MORPH_PY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "morph.h"

/* A context: morph_ctx plus what Python must keep alive while it is open
 * (registered arrays and blocks, whose buffers morph writes into). */
typedef struct pym_context {
  PyObject_HEAD
  morph_ctx *m;
  PyObject *keep;    /* list of registered objects */
  PyObject *comm;    /* cached mpi4py communicator of morph_comm() */
  MPI_Comm comm_of;  /* the handle it wraps */
  int outcome;       /* the job's outcome after finalize (-1 before) */
} pym_context;

/* state.c */
int pym_state_init(PyObject *module);
PyObject *pym_error_type(void);
PyObject *pym_raise(int code, const char *what, const char *why);
PyObject *pym_raise_ctx(pym_context *c, int code, const char *what);
int pym_open_check(pym_context *c, const char *what);
PyObject *pym_status(int st);
PyObject *pym_mechanism(int mech);
PyObject *pym_comm_new(MPI_Comm comm);
int pym_comm_get(PyObject *obj, MPI_Comm *out);
int pym_set_enums(PyObject *status, PyObject *mechanism);

/* data.c */
extern PyTypeObject pym_block_type;
PyObject *pym_data_block(pym_context *c, PyObject *args, PyObject *kw);
PyObject *pym_data_block_cyclic(pym_context *c, PyObject *args, PyObject *kw);
PyObject *pym_data_replicated(pym_context *c, PyObject *args);
PyObject *pym_data_callbacks(pym_context *c, PyObject *args, PyObject *kw);
int pym_data_ready(void);

/* context.c */
extern PyTypeObject pym_context_type;
int pym_context_ready(PyObject *module);

#endif
