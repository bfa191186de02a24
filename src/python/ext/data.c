/*
 * Registered data for Python: Block (a block or block-cyclic array whose
 * local part morph allocates and moves; `.local` is a NumPy view on it),
 * replicated NumPy arrays, and pack / unpack callables.
 *
 * Blocks are registered as contiguous runs of bytes (one element: the
 * dtype's item size times the product of the element shape): morph moves
 * bytes, so any NumPy dtype works, and a relaunch checkpoint holds the
 * same bytes. The address of the local part lives inside the Block
 * object, which morph updates at every reconfiguration; the context keeps
 * the Block alive while it is open.
 */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>
#include <stdlib.h>
#include <string.h>

#include "pymorph.h"

typedef struct pym_block {
  PyObject_HEAD
  pym_context *ctx;     /* strong reference */
  char name[64];
  void *buf;            /* morph keeps the local part's address here */
  PyArray_Descr *dtype;
  PyObject *shape;      /* tuple: the shape of one element */
  PyObject *view;       /* the last .local, made for view_buf and view_count */
  void *view_buf;
  int64_t view_count;
  int64_t block;        /* block-cyclic: the block length; 0: block */
} pym_block;

int pym_data_ready(void)
{
  import_array1(-1);
  return 0;
}

static void block_dealloc(pym_block *b)
{
  Py_XDECREF(b->ctx);
  Py_XDECREF(b->dtype);
  Py_XDECREF(b->shape);
  Py_XDECREF(b->view);
  Py_TYPE(b)->tp_free((PyObject *)b);
}

/* The local part as an array of shape (count,) + element shape, sharing
 * morph's memory. Made again only when the part moved or changed size. */
static PyObject *block_local(pym_block *b, void *closure)
{
  (void)closure;
  if (pym_open_check(b->ctx, "Block.local") < 0)
    return NULL;
  int64_t count = morph_local_count(b->ctx->m, b->name);
  if (b->view && b->view_buf == b->buf && b->view_count == count)
    return Py_NewRef(b->view);
  Py_ssize_t nd = 1 + PyTuple_GET_SIZE(b->shape);
  npy_intp dims[NPY_MAXDIMS];
  dims[0] = (npy_intp)count;
  for (Py_ssize_t i = 1; i < nd; i++)
    dims[i] = (npy_intp)PyLong_AsSsize_t(PyTuple_GET_ITEM(b->shape, i - 1));
  Py_INCREF(b->dtype);
  PyObject *a = PyArray_NewFromDescr(&PyArray_Type, b->dtype, (int)nd, dims, NULL,
                                     count > 0 ? b->buf : NULL, NPY_ARRAY_CARRAY, NULL);
  if (!a)
    return NULL;
  if (count > 0 && PyArray_SetBaseObject((PyArrayObject *)a, Py_NewRef((PyObject *)b)) < 0) {
    Py_DECREF(a);
    return NULL;
  }
  Py_XSETREF(b->view, Py_NewRef(a));
  b->view_buf = b->buf;
  b->view_count = count;
  return a;
}

static PyObject *block_count(pym_block *b, void *closure)
{
  (void)closure;
  if (pym_open_check(b->ctx, "Block.count") < 0)
    return NULL;
  return PyLong_FromLongLong(morph_local_count(b->ctx->m, b->name));
}

static PyObject *block_offset(pym_block *b, void *closure)
{
  (void)closure;
  if (pym_open_check(b->ctx, "Block.offset") < 0)
    return NULL;
  return PyLong_FromLongLong(morph_local_offset(b->ctx->m, b->name));
}

static PyObject *block_name(pym_block *b, void *closure)
{
  (void)closure;
  return PyUnicode_FromString(b->name);
}

static PyGetSetDef block_getset[] = {
    {"local", (getter)block_local, NULL,
     "This process's part: a NumPy array on morph's memory, of shape (count,) + the element "
     "shape. Valid until the next reconfiguration: read it again after each point.",
     NULL},
    {"count", (getter)block_count, NULL, "Local element count.", NULL},
    {"offset", (getter)block_offset, NULL,
     "Global index of the first local element (of the first local block if block-cyclic).",
     NULL},
    {"name", (getter)block_name, NULL, "The registration's name.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject pym_block_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "morph.Block",
    .tp_basicsize = sizeof(pym_block),
    .tp_dealloc = (destructor)block_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A block or block-cyclic array registered with Context.block or "
              "Context.block_cyclic; morph owns and moves its memory.",
    .tp_getset = block_getset,
};

/* Bytes of one element: the item size times the element shape's product;
 * -1 (ValueError set) for a negative extent or a shape that is too big. */
static int64_t element_bytes(PyArray_Descr *dtype, PyObject *shape)
{
  int64_t bytes = dtype->elsize;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape); i++) {
    long long d = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, i));
    if (d < 1 || bytes > INT32_MAX / d) {
      PyErr_SetString(PyExc_ValueError, "shape: extents must be >= 1, an element < 2 GiB");
      return -1;
    }
    bytes *= d;
  }
  return bytes;
}

/* Registers b (block length `block`, 0: plain block) with morph; 0 or a
 * morph code. An element of zero bytes is morph's MORPH_EINVAL. */
static int register_block(pym_block *b, int64_t global, int64_t bytes)
{
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (bytes > 0 && MPI_Type_contiguous((int)bytes, MPI_BYTE, &t) == MPI_SUCCESS)
    MPI_Type_commit(&t);
  morph_ctx *m = b->ctx->m;
  int rc = b->block > 0 ? morph_data_block_cyclic(m, b->name, &b->buf, global, b->block, t)
                        : morph_data_block(m, b->name, &b->buf, global, t);
  if (t != MPI_DATATYPE_NULL)
    MPI_Type_free(&t);
  return rc;
}

/* A tuple of ints from an int or a sequence of ints (the element shape). */
static PyObject *shape_tuple(PyObject *shape)
{
  if (!shape)
    return PyTuple_New(0);
  if (PyLong_Check(shape))
    return PyTuple_Pack(1, shape);
  return PySequence_Tuple(shape);
}

static PyObject *new_block(pym_context *c, const char *name, int64_t global, int64_t block,
                           PyObject *dtype, PyObject *shape)
{
  pym_block *b = PyObject_New(pym_block, &pym_block_type);
  if (!b)
    return NULL;
  b->ctx = (pym_context *)Py_NewRef((PyObject *)c);
  snprintf(b->name, sizeof b->name, "%s", name);
  b->buf = b->view_buf = NULL;
  b->view = NULL;
  b->view_count = -1;
  b->block = block;
  b->dtype = NULL;
  b->shape = shape_tuple(shape);
  int64_t bytes = -1;
  if (!dtype) /* float64, as NumPy's own default */
    b->dtype = PyArray_DescrFromType(NPY_DOUBLE);
  else
    PyArray_DescrConverter2(dtype, &b->dtype);
  if (b->shape && b->dtype)
    bytes = element_bytes(b->dtype, b->shape);
  if (bytes < 0 || PyErr_Occurred()) {
    Py_DECREF(b);
    return NULL;
  }
  int rc = register_block(b, global, bytes);
  if (rc != MORPH_OK || PyList_Append(c->keep, (PyObject *)b) < 0) {
    Py_DECREF(b);
    return rc != MORPH_OK ? pym_raise_ctx(c, rc, block ? "block_cyclic" : "block") : NULL;
  }
  return (PyObject *)b;
}

PyObject *pym_data_block(pym_context *c, PyObject *args, PyObject *kw)
{
  static char *kws[] = {"name", "count", "dtype", "shape", NULL};
  const char *name;
  long long global;
  PyObject *dtype = NULL, *shape = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "sL|OO", kws, &name, &global, &dtype, &shape) ||
      pym_open_check(c, "block") < 0)
    return NULL;
  return new_block(c, name, global, 0, dtype, shape);
}

PyObject *pym_data_block_cyclic(pym_context *c, PyObject *args, PyObject *kw)
{
  static char *kws[] = {"name", "count", "block", "dtype", "shape", NULL};
  const char *name;
  long long global, block;
  PyObject *dtype = NULL, *shape = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "sLL|OO", kws, &name, &global, &block, &dtype,
                                   &shape) ||
      pym_open_check(c, "block_cyclic") < 0)
    return NULL;
  /* A block length below 1 goes to morph as -1, which it refuses. */
  return new_block(c, name, global, block < 1 ? -1 : block, dtype, shape);
}

/* A C-contiguous, writeable NumPy array, registered as bytes; returned. */
PyObject *pym_data_replicated(pym_context *c, PyObject *args)
{
  const char *name;
  PyObject *obj;
  if (!PyArg_ParseTuple(args, "sO", &name, &obj) || pym_open_check(c, "replicated") < 0)
    return NULL;
  if (!PyArray_Check(obj) || !PyArray_IS_C_CONTIGUOUS((PyArrayObject *)obj) ||
      !PyArray_ISWRITEABLE((PyArrayObject *)obj) || PyArray_NBYTES((PyArrayObject *)obj) > INT32_MAX) {
    PyErr_SetString(PyExc_TypeError,
                    "replicated: a C-contiguous, writeable NumPy array below 2 GiB is needed");
    return NULL;
  }
  PyArrayObject *a = (PyArrayObject *)obj;
  int rc = morph_data_replicated(c->m, name, PyArray_DATA(a), (int)PyArray_NBYTES(a), MPI_BYTE);
  if (rc != MORPH_OK)
    return pym_raise_ctx(c, rc, "replicated");
  if (PyList_Append(c->keep, obj) < 0)
    return NULL;
  return Py_NewRef(obj);
}

/* A Python exception inside a callback cannot cross morph's C code: it is
 * printed, and the callback fails, which rolls the window back. */
static int callback_failed(const char *what)
{
  fprintf(stderr, "morph: the %s callback raised:\n", what);
  PyErr_Print();
  return MORPH_EINVAL;
}

/* pack(): bytes-like -> a malloc'ed copy for morph. */
static int call_pack(void *arg, void **blob, size_t *len)
{
  PyObject *r = PyObject_CallNoArgs(PyTuple_GET_ITEM((PyObject *)arg, 0));
  Py_buffer view;
  if (!r || PyObject_GetBuffer(r, &view, PyBUF_SIMPLE) < 0) {
    Py_XDECREF(r);
    return callback_failed("pack");
  }
  *len = (size_t)view.len;
  *blob = malloc(*len ? *len : 1);
  if (*blob)
    memcpy(*blob, view.buf, *len);
  PyBuffer_Release(&view);
  Py_DECREF(r);
  return *blob ? MORPH_OK : MORPH_ENOMEM;
}

/* unpack(list of bytes), in old-rank order. */
static int call_unpack(void *arg, int nblobs, void *const *blobs, const size_t *lens)
{
  PyObject *list = PyList_New(nblobs);
  for (int i = 0; list && i < nblobs; i++) {
    PyObject *one = PyBytes_FromStringAndSize(blobs[i], (Py_ssize_t)lens[i]);
    if (!one)
      Py_CLEAR(list);
    else
      PyList_SET_ITEM(list, i, one);
  }
  PyObject *r = list ? PyObject_CallOneArg(PyTuple_GET_ITEM((PyObject *)arg, 1), list) : NULL;
  Py_XDECREF(list);
  if (!r)
    return callback_failed("unpack");
  Py_DECREF(r);
  return MORPH_OK;
}

PyObject *pym_data_callbacks(pym_context *c, PyObject *args, PyObject *kw)
{
  static char *kws[] = {"name", "pack", "unpack", NULL};
  const char *name;
  PyObject *pack, *unpack;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "sOO", kws, &name, &pack, &unpack) ||
      pym_open_check(c, "callbacks") < 0)
    return NULL;
  if (!PyCallable_Check(pack) || !PyCallable_Check(unpack)) {
    PyErr_SetString(PyExc_TypeError, "callbacks: pack and unpack must be callable");
    return NULL;
  }
  PyObject *pair = PyTuple_Pack(2, pack, unpack);
  if (!pair || PyList_Append(c->keep, pair) < 0) {
    Py_XDECREF(pair);
    return NULL;
  }
  Py_DECREF(pair); /* the context's list holds it */
  morph_callbacks cb = {call_pack, call_unpack, pair};
  int rc = morph_data_callbacks(c->m, name, &cb);
  if (rc != MORPH_OK)
    return pym_raise_ctx(c, rc, "callbacks");
  Py_RETURN_NONE;
}
