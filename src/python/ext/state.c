/*
 * What the files of the extension share: morph.Error and the raising of
 * morph's errors, the Status and Mechanism enumerations (defined in
 * Python, handed over at import), and mpi4py communicators. mpi4py's C
 * API is a table of function pointers that each file including its
 * header must import, so only this file uses it.
 *
 * The exception class and the two enumerations are the module's state,
 * set once at import; nothing about a job lives here (each Context holds
 * its own).
 */
#include <mpi4py/mpi4py.h>

#include "pymorph.h"

static PyObject *error_type;
static PyObject *statuses;   /* tuple: Status members by value */
static PyObject *mechanisms; /* tuple: Mechanism members by value */

int pym_state_init(PyObject *module)
{
  if (import_mpi4py() < 0)
    return -1;
  error_type = PyErr_NewExceptionWithDoc(
      "morph.Error",
      "A morph call failed. code: morph's error code (negative, morph.EINVAL ...); name: its "
      "symbolic name ('MORPH_EINVAL'); reason: morph's message saying what failed and why.",
      NULL, NULL);
  if (!error_type)
    return -1;
  Py_INCREF(error_type);
  return PyModule_AddObject(module, "Error", error_type);
}

PyObject *pym_error_type(void) { return error_type; }

/* Sets exc.name = value and drops the reference to value. */
static int set_attr(PyObject *exc, const char *name, PyObject *value)
{
  int rc = value ? PyObject_SetAttrString(exc, name, value) : -1;
  Py_XDECREF(value);
  return rc;
}

/* Raises morph.Error "what: why (MORPH_E...)" carrying the code, its name
 * and the reason. Returns NULL, for `return pym_raise(...)`. */
PyObject *pym_raise(int code, const char *what, const char *why)
{
  if (!why || !*why)
    why = morph_strerror(code);
  PyObject *exc = PyObject_CallFunction(error_type, "N",
                                        PyUnicode_FromFormat("%s: %s (%s)", what, why,
                                                             morph_err_name(code)));
  if (!exc)
    return NULL;
  if (set_attr(exc, "code", PyLong_FromLong(code)) == 0 &&
      set_attr(exc, "name", PyUnicode_FromString(morph_err_name(code))) == 0 &&
      set_attr(exc, "reason", PyUnicode_FromString(why)) == 0)
    PyErr_SetObject(error_type, exc);
  Py_DECREF(exc);
  return NULL;
}

/* The same with the context's message (morph_errmsg). */
PyObject *pym_raise_ctx(pym_context *c, int code, const char *what)
{
  return pym_raise(code, what, c->m ? morph_errmsg(c->m) : "");
}

/* 0 if the context is open; otherwise raises MORPH_ESTATE and returns -1:
 * the C context of a finalized one no longer exists, so the extension
 * answers for it. */
int pym_open_check(pym_context *c, const char *what)
{
  if (c->m)
    return 0;
  pym_raise(MORPH_ESTATE, what,
            c->outcome >= 0 ? "the context was finalized" : "the context is not open");
  return -1;
}

int pym_set_enums(PyObject *status, PyObject *mechanism)
{
  if (!PyTuple_Check(status) || PyTuple_GET_SIZE(status) != 4 || !PyTuple_Check(mechanism) ||
      PyTuple_GET_SIZE(mechanism) != 3) {
    PyErr_SetString(PyExc_TypeError, "expected the 4 statuses and the 3 mechanisms");
    return -1;
  }
  Py_XSETREF(statuses, Py_NewRef(status));
  Py_XSETREF(mechanisms, Py_NewRef(mechanism));
  return 0;
}

/* The enumeration member of a value (a plain int before the enumerations
 * are set, which only the package's __init__ does). */
static PyObject *member(PyObject *tuple, int v)
{
  if (tuple && v >= 0 && v < PyTuple_GET_SIZE(tuple))
    return Py_NewRef(PyTuple_GET_ITEM(tuple, v));
  return PyLong_FromLong(v);
}

PyObject *pym_status(int st) { return member(statuses, st); }
PyObject *pym_mechanism(int mech) { return member(mechanisms, mech); }

/* An mpi4py communicator wrapping comm, which stays morph's: mpi4py does
 * not free a handle it did not create. None for MPI_COMM_NULL. */
PyObject *pym_comm_new(MPI_Comm comm)
{
  if (comm == MPI_COMM_NULL)
    Py_RETURN_NONE;
  return PyMPIComm_New(comm);
}

/* The handle of an mpi4py communicator; -1 (TypeError) for anything else. */
int pym_comm_get(PyObject *obj, MPI_Comm *out)
{
  MPI_Comm *p = PyMPIComm_Get(obj);
  if (!p)
    return -1;
  *out = *p;
  return 0;
}
