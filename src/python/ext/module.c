/*
 * The module morph._morph, which the package morph (src/python/morph)
 * re-exports: Context, Block, Error, morph's error codes as constants
 * (from morph/error.h's table), strerror and err_name.
 */
#include "pymorph.h"

/* The text of an error code from one of morph/error.h's two tables. */
static PyObject *code_text(PyObject *args, const char *(*text)(int))
{
  int code;
  if (!PyArg_ParseTuple(args, "i", &code))
    return NULL;
  return PyUnicode_FromString(text(code));
}

static PyObject *strerror_(PyObject *self, PyObject *args)
{
  (void)self;
  return code_text(args, morph_strerror);
}

static PyObject *err_name(PyObject *self, PyObject *args)
{
  (void)self;
  return code_text(args, morph_err_name);
}

/* Called once by the package with its Status and Mechanism enumerations,
 * so that the point returns their members without building them. */
static PyObject *set_enums(PyObject *self, PyObject *args)
{
  (void)self;
  PyObject *status, *mechanism;
  if (!PyArg_ParseTuple(args, "OO", &status, &mechanism) || pym_set_enums(status, mechanism) < 0)
    return NULL;
  Py_RETURN_NONE;
}

static PyMethodDef functions[] = {
    {"strerror", strerror_, METH_VARARGS, "strerror(code) -> the generic text of an error code"},
    {"err_name", err_name, METH_VARARGS, "err_name(code) -> 'MORPH_EINVAL', ..."},
    {"_set_enums", set_enums, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT, "morph._morph",
                                        "morph.h for mpi4py programs (see the package morph).",
                                        -1, functions, NULL, NULL, NULL, NULL};

/* MORPH_OK and every code of the table, as OK, EINVAL, ... */
static int add_codes(PyObject *m)
{
  if (PyModule_AddIntConstant(m, "OK", MORPH_OK) < 0)
    return -1;
#define MORPH__PY_CODE(name, value, msg) \
  if (PyModule_AddIntConstant(m, #name, value) < 0) \
    return -1;
  MORPH_ERRNO_MAP(MORPH__PY_CODE)
#undef MORPH__PY_CODE
  return 0;
}

PyMODINIT_FUNC PyInit__morph(void)
{
  PyObject *m = PyModule_Create(&module_def);
  if (!m)
    return NULL;
  if (pym_state_init(m) < 0 || pym_data_ready() < 0 || PyType_Ready(&pym_block_type) < 0 ||
      PyModule_AddObjectRef(m, "Block", (PyObject *)&pym_block_type) < 0 ||
      pym_context_ready(m) < 0 || add_codes(m) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  return m;
}
