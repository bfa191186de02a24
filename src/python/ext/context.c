/*
 * morph.Context: a malleable context (morph_ctx) for an mpi4py program.
 * Opened by the constructor, closed by finalize() or by leaving a `with`
 * block; every method is the morph.h call of the same name, raising
 * morph.Error where the C call returns an error. The split point's and
 * the report's structs come back as named tuples (PyStructSequence).
 */
#include <string.h>

#include "pymorph.h"

static PyStructSequence_Field change_fields[] = {
    {"pending", "True: a reconfiguration must begin now"},
    {"status", "what this process will be (Status)"},
    {"old_size", NULL}, {"new_size", NULL},
    {"mechanism", "how it will be carried out (Mechanism)"},
    {"moving", "a move of this many processes; 0: a resize"},
    {NULL, NULL}};
static PyStructSequence_Desc change_desc = {"morph.Change", "What Context.probe() found.",
                                            change_fields, 6};

static PyStructSequence_Field window_fields[] = {
    {"status", NULL}, {"staying", NULL}, {"leaving", NULL}, {"joining", NULL},
    {"old_size", NULL}, {"new_size", NULL},
    {"comm", "every process of the window (mpi4py Comm or None)"},
    {"intercomm", "live expansion: old processes and joiners (or None)"},
    {"newcomm", "the processes after the change (or None)"},
    {"old_rank", NULL}, {"new_rank", NULL}, {"moving", NULL},
    {NULL, NULL}};
static PyStructSequence_Desc window_desc = {"morph.Window", "The window Context.begin() opened.",
                                            window_fields, 12};

static PyStructSequence_Field report_fields[] = {
    {"seq", NULL}, {"old_size", NULL}, {"new_size", NULL}, {"requested_size", NULL},
    {"mechanism", NULL}, {"outcome", "0 or the error that rolled it back"},
    {"iteration", NULL}, {"t_decision", NULL}, {"t_spawn", NULL}, {"t_redist", NULL},
    {"t_commit", NULL}, {"bytes_moved", NULL}, {"message", NULL},
    {NULL, NULL}};
static PyStructSequence_Desc report_desc = {
    "morph.Report", "The last reconfiguration attempt (morph_last_report).", report_fields, 13};

static PyTypeObject *change_type, *window_type, *report_type;

/* One option from its keyword (absent or None: morph's default, which
 * morph_options_init took from the MORPH_* variables). */
static int set_option(morph_options *o, int i, PyObject *v)
{
  if (!v || v == Py_None)
    return 0;
  switch (i) {
  case 0: o->min_procs = (int)PyLong_AsLong(v); break;
  case 1: o->max_procs = (int)PyLong_AsLong(v); break;
  case 2: o->pref_procs = (int)PyLong_AsLong(v); break;
  case 3: o->sched_period = PyFloat_AsDouble(v); break;
  case 4: o->sched_iterations = (int)PyLong_AsLong(v); break;
  case 5: o->mechanism = (morph_mechanism)PyLong_AsLong(v); break;
  case 6: o->step_timeout = PyFloat_AsDouble(v); break;
  case 7: o->spawn_pause = PyFloat_AsDouble(v); break;
  case 8: o->socket_path = PyUnicode_AsUTF8(v); break;
  default: o->checkpoint_dir = PyUnicode_AsUTF8(v); break;
  }
  return PyErr_Occurred() ? -1 : 0;
}

/* Context(comm, **options): morph_open. The option strings are borrowed
 * from the arguments for the call (morph copies them). */
static int context_init(pym_context *c, PyObject *args, PyObject *kw)
{
  static char *kws[] = {"comm", "min_procs", "max_procs", "pref_procs", "sched_period",
                        "sched_iterations", "mechanism", "step_timeout", "spawn_pause",
                        "socket_path", "checkpoint_dir", NULL};
  PyObject *comm_obj, *v[10] = {NULL};
  MPI_Comm comm;
  morph_options o;
  if (c->m) {
    pym_raise(MORPH_ESTATE, "Context", "already open");
    return -1;
  }
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$OOOOOOOOOO:Context", kws, &comm_obj, &v[0],
                                   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) ||
      pym_comm_get(comm_obj, &comm) < 0)
    return -1;
  morph_options_init(&o);
  for (int i = 0; i < 10; i++)
    if (set_option(&o, i, v[i]) < 0)
      return -1;
  c->outcome = -1;
  Py_CLEAR(c->comm);
  c->comm_of = MPI_COMM_NULL;
  if (!c->keep && !(c->keep = PyList_New(0)))
    return -1;
  int rc = morph_open(comm, &o, &c->m);
  if (rc != MORPH_OK) {
    c->m = NULL;
    pym_raise(rc, "Context", "morph_open failed (rank 0 printed why)");
    return -1;
  }
  return 0;
}

static void context_dealloc(pym_context *c)
{
  Py_XDECREF(c->keep);
  Py_XDECREF(c->comm);
  Py_TYPE(c)->tp_free((PyObject *)c);
}

/* Python's buffered output would be lost when a leaver ends inside morph
 * (_exit), so it is flushed before every call that may end the process. */
static void flush_python(void)
{
  const char *names[] = {"stdout", "stderr"};
  for (int i = 0; i < 2; i++) {
    PyObject *f = PySys_GetObject(names[i]);
    PyObject *r = f && f != Py_None ? PyObject_CallMethod(f, "flush", NULL) : NULL;
    if (!r)
      PyErr_Clear();
    Py_XDECREF(r);
  }
}

static PyObject *finalize(pym_context *c, PyObject *args)
{
  int status = 0;
  if (!PyArg_ParseTuple(args, "|i:finalize", &status) || pym_open_check(c, "finalize") < 0)
    return NULL;
  flush_python();
  Py_CLEAR(c->comm);
  c->outcome = morph_finalize(c->m, status);
  c->m = NULL;
  PyList_SetSlice(c->keep, 0, PyList_GET_SIZE(c->keep), NULL);
  return PyLong_FromLong(c->outcome);
}

static PyObject *enter(pym_context *c, PyObject *unused)
{
  (void)unused;
  return Py_NewRef((PyObject *)c);
}

/* Leaving the `with` block finalizes a context still open: status 1 if
 * an exception is leaving it too (which then goes on), else 0. */
static PyObject *leave(pym_context *c, PyObject *args)
{
  PyObject *type = Py_None, *value, *tb;
  if (!PyArg_ParseTuple(args, "|OOO", &type, &value, &tb))
    return NULL;
  if (c->m) {
    PyObject *st = Py_BuildValue("(i)", type != Py_None);
    PyObject *r = st ? finalize(c, st) : NULL;
    Py_XDECREF(st);
    if (!r)
      return NULL;
    Py_DECREF(r);
  }
  Py_RETURN_FALSE;
}

static PyObject *point(pym_context *c, PyObject *unused)
{
  (void)unused;
  morph_status st;
  if (pym_open_check(c, "point") < 0)
    return NULL;
  int rc = morph_point(c->m, &st);
  if (rc != MORPH_OK)
    return pym_raise_ctx(c, rc, "point");
  return pym_status(st);
}

static PyObject *probe(pym_context *c, PyObject *unused)
{
  (void)unused;
  morph_change ch;
  if (pym_open_check(c, "probe") < 0)
    return NULL;
  int rc = morph_probe(c->m, &ch);
  if (rc != MORPH_OK)
    return pym_raise_ctx(c, rc, "probe");
  PyObject *t = PyStructSequence_New(change_type);
  if (!t)
    return NULL;
  PyStructSequence_SET_ITEM(t, 0, PyBool_FromLong(ch.pending));
  PyStructSequence_SET_ITEM(t, 1, pym_status(ch.status));
  PyStructSequence_SET_ITEM(t, 2, PyLong_FromLong(ch.old_size));
  PyStructSequence_SET_ITEM(t, 3, PyLong_FromLong(ch.new_size));
  PyStructSequence_SET_ITEM(t, 4, pym_mechanism(ch.mechanism));
  PyStructSequence_SET_ITEM(t, 5, PyLong_FromLong(ch.moving));
  return t;
}

static PyObject *window_tuple(const morph_window_info *w)
{
  PyObject *t = PyStructSequence_New(window_type);
  if (!t)
    return NULL;
  int ints[] = {w->staying, w->leaving, w->joining, w->old_size, w->new_size};
  PyStructSequence_SET_ITEM(t, 0, pym_status(w->status));
  for (int i = 0; i < 5; i++)
    PyStructSequence_SET_ITEM(t, 1 + i, PyLong_FromLong(ints[i]));
  PyStructSequence_SET_ITEM(t, 6, pym_comm_new(w->comm));
  PyStructSequence_SET_ITEM(t, 7, pym_comm_new(w->intercomm));
  PyStructSequence_SET_ITEM(t, 8, pym_comm_new(w->newcomm));
  PyStructSequence_SET_ITEM(t, 9, PyLong_FromLong(w->old_rank));
  PyStructSequence_SET_ITEM(t, 10, PyLong_FromLong(w->new_rank));
  PyStructSequence_SET_ITEM(t, 11, PyLong_FromLong(w->moving));
  return t;
}

static PyObject *open_window(pym_context *c, int overlap, const char *what)
{
  morph_window_info w;
  if (pym_open_check(c, what) < 0)
    return NULL;
  int rc = overlap ? morph_begin_overlap(c->m, &w) : morph_begin(c->m, &w);
  if (rc != MORPH_OK)
    return pym_raise_ctx(c, rc, what);
  return window_tuple(&w);
}

static PyObject *begin(pym_context *c, PyObject *unused)
{
  (void)unused;
  return open_window(c, 0, "begin");
}

static PyObject *begin_overlap(pym_context *c, PyObject *unused)
{
  (void)unused;
  return open_window(c, 1, "begin_overlap");
}

static PyObject *progress(pym_context *c, PyObject *unused)
{
  (void)unused;
  int done = 0;
  if (pym_open_check(c, "progress") < 0)
    return NULL;
  int rc = morph_progress(c->m, &done);
  if (rc != MORPH_OK)
    return pym_raise_ctx(c, rc, "progress");
  return PyBool_FromLong(done);
}

static PyObject *commit(pym_context *c, PyObject *args)
{
  int outcome = MORPH_OK;
  morph_status st;
  if (!PyArg_ParseTuple(args, "|i:commit", &outcome) || pym_open_check(c, "commit") < 0)
    return NULL;
  int rc = morph_commit(c->m, outcome, &st);
  if (rc != MORPH_OK)
    return pym_raise_ctx(c, rc, "commit");
  return pym_status(st);
}

static PyObject *last_report(pym_context *c, PyObject *unused)
{
  (void)unused;
  morph_reconf_report r;
  if (pym_open_check(c, "last_report") < 0)
    return NULL;
  morph_last_report(c->m, &r);
  PyObject *t = PyStructSequence_New(report_type);
  if (!t)
    return NULL;
  int ints[] = {r.seq, r.old_size, r.new_size, r.requested_size};
  double times[] = {r.t_decision, r.t_spawn, r.t_redist, r.t_commit};
  for (int i = 0; i < 4; i++) {
    PyStructSequence_SET_ITEM(t, i, PyLong_FromLong(ints[i]));
    PyStructSequence_SET_ITEM(t, 7 + i, PyFloat_FromDouble(times[i]));
  }
  PyStructSequence_SET_ITEM(t, 4, pym_mechanism(r.mechanism));
  PyStructSequence_SET_ITEM(t, 5, PyLong_FromLong(r.outcome));
  PyStructSequence_SET_ITEM(t, 6, PyLong_FromLongLong(r.iteration));
  PyStructSequence_SET_ITEM(t, 11, PyLong_FromLongLong(r.bytes_moved));
  PyStructSequence_SET_ITEM(t, 12, PyUnicode_FromString(r.message));
  return t;
}

static PyObject *set_limits(pym_context *c, PyObject *args)
{
  int mn, mx, pref = 0;
  if (!PyArg_ParseTuple(args, "ii|i:set_limits", &mn, &mx, &pref) ||
      pym_open_check(c, "set_limits") < 0)
    return NULL;
  int rc = morph_set_limits(c->m, mn, mx, pref);
  return rc == MORPH_OK ? Py_NewRef(Py_None) : pym_raise_ctx(c, rc, "set_limits");
}

static PyObject *set_inhibitors(pym_context *c, PyObject *args)
{
  double period;
  int iterations;
  if (!PyArg_ParseTuple(args, "di:set_inhibitors", &period, &iterations) ||
      pym_open_check(c, "set_inhibitors") < 0)
    return NULL;
  int rc = morph_set_inhibitors(c->m, period, iterations);
  return rc == MORPH_OK ? Py_NewRef(Py_None) : pym_raise_ctx(c, rc, "set_inhibitors");
}

static PyObject *set_constant(pym_context *c, PyObject *args)
{
  const char *name;
  int constant = 1;
  if (!PyArg_ParseTuple(args, "s|p:set_constant", &name, &constant) ||
      pym_open_check(c, "set_constant") < 0)
    return NULL;
  int rc = morph_data_set_constant(c->m, name, constant);
  return rc == MORPH_OK ? Py_NewRef(Py_None) : pym_raise_ctx(c, rc, "set_constant");
}

static PyObject *local_count(pym_context *c, PyObject *args)
{
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name) || pym_open_check(c, "local_count") < 0)
    return NULL;
  return PyLong_FromLongLong(morph_local_count(c->m, name));
}

static PyObject *local_offset(pym_context *c, PyObject *args)
{
  const char *name;
  if (!PyArg_ParseTuple(args, "s", &name) || pym_open_check(c, "local_offset") < 0)
    return NULL;
  return PyLong_FromLongLong(morph_local_offset(c->m, name));
}

static PyObject *block(pym_context *c, PyObject *args, PyObject *kw)
{
  return pym_data_block(c, args, kw);
}

static PyObject *block_cyclic(pym_context *c, PyObject *args, PyObject *kw)
{
  return pym_data_block_cyclic(c, args, kw);
}

static PyObject *replicated(pym_context *c, PyObject *args)
{
  return pym_data_replicated(c, args);
}

static PyObject *callbacks(pym_context *c, PyObject *args, PyObject *kw)
{
  return pym_data_callbacks(c, args, kw);
}

#define NOARGS(f, doc) {#f, (PyCFunction)f, METH_NOARGS, doc}
#define VARARGS(f, doc) {#f, (PyCFunction)f, METH_VARARGS, doc}
#define KWARGS(f, doc) {#f, (PyCFunction)(void (*)(void))f, METH_VARARGS | METH_KEYWORDS, doc}
static PyMethodDef context_methods[] = {
    VARARGS(finalize, "finalize(status=0) -> the job's outcome. Closes the context and "
                      "finalizes MPI; a live leaver does not return."),
    NOARGS(point, "point() -> Status. The reconfiguration point, once per iteration."),
    NOARGS(probe, "probe() -> Change. Is a reconfiguration pending? (split point)"),
    NOARGS(begin, "begin() -> Window. Opens the pending change's window."),
    NOARGS(begin_overlap, "begin_overlap() -> Window. begin(), constant data moving in the "
                          "background."),
    NOARGS(progress, "progress() -> bool: the background transfers are complete everywhere."),
    VARARGS(commit, "commit(outcome=0) -> Status. Closes the window (Error EABORTED: rolled "
                    "back)."),
    NOARGS(last_report, "last_report() -> Report of the last reconfiguration attempt."),
    VARARGS(set_limits, "set_limits(min, max, pref=0)"),
    VARARGS(set_inhibitors, "set_inhibitors(period, iterations)"),
    VARARGS(set_constant, "set_constant(name, constant=True)"),
    VARARGS(local_count, "local_count(name) -> int (-1: no such registration)"),
    VARARGS(local_offset, "local_offset(name) -> int (-1: no such registration)"),
    KWARGS(block, "block(name, count, dtype=float, shape=()) -> Block. A block-distributed "
                  "array of count elements, each of the given shape."),
    KWARGS(block_cyclic, "block_cyclic(name, count, block, dtype=float, shape=()) -> Block."),
    VARARGS(replicated, "replicated(name, array) -> array. Rank 0's copy reaches the joiners."),
    KWARGS(callbacks, "callbacks(name, pack, unpack): pack() -> bytes on every old process; "
                      "unpack(list of bytes) on every new one."),
    {"__enter__", (PyCFunction)enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)leave, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

/* morph_comm() as an mpi4py communicator, made again only when it changed. */
static PyObject *get_comm(pym_context *c, void *closure)
{
  (void)closure;
  if (pym_open_check(c, "comm") < 0)
    return NULL;
  MPI_Comm now = morph_comm(c->m);
  if (!c->comm || c->comm_of != now) {
    Py_CLEAR(c->comm);
    if (!(c->comm = pym_comm_new(now)))
      return NULL;
    c->comm_of = now;
  }
  return Py_NewRef(c->comm);
}

static PyObject *get_int(pym_context *c, void *closure)
{
  const char *what = closure;
  if (pym_open_check(c, what) < 0)
    return NULL;
  if (!strcmp(what, "rank"))
    return PyLong_FromLong(morph_rank(c->m));
  if (!strcmp(what, "size"))
    return PyLong_FromLong(morph_size(c->m));
  if (!strcmp(what, "iteration"))
    return PyLong_FromLongLong(morph_iteration(c->m));
  return pym_status(morph_get_status(c->m));
}

static PyObject *get_errmsg(pym_context *c, void *closure)
{
  (void)closure;
  return PyUnicode_FromString(c->m ? morph_errmsg(c->m) : "");
}

static PyObject *get_open(pym_context *c, void *closure)
{
  (void)closure;
  return PyBool_FromLong(c->m != NULL);
}

static PyObject *get_outcome(pym_context *c, void *closure)
{
  (void)closure;
  if (c->outcome < 0)
    Py_RETURN_NONE;
  return PyLong_FromLong(c->outcome);
}

static PyGetSetDef context_getset[] = {
    {"comm", (getter)get_comm, NULL, "The current processes' communicator (mpi4py); read it "
                                     "again after each point.", NULL},
    {"rank", (getter)get_int, NULL, "This process's rank in comm.", "rank"},
    {"size", (getter)get_int, NULL, "The number of processes in comm.", "size"},
    {"iteration", (getter)get_int, NULL, "The job's count of points.", "iteration"},
    {"status", (getter)get_int, NULL, "This process's Status.", "status"},
    {"errmsg", (getter)get_errmsg, NULL, "The message of the last failure ('' if none).", NULL},
    {"is_open", (getter)get_open, NULL, "True between opening and finalize().", NULL},
    {"outcome", (getter)get_outcome, NULL, "The job's outcome after finalize() (else None).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

PyTypeObject pym_context_type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "morph.Context",
    .tp_basicsize = sizeof(pym_context),
    .tp_dealloc = (destructor)context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "Context(comm, *, min_procs, max_procs, pref_procs, sched_period, "
              "sched_iterations, mechanism, step_timeout, spawn_pause, socket_path, "
              "checkpoint_dir): opens a malleable context on an mpi4py communicator "
              "(morph_open); options not given keep morph's defaults. Use it in a with block, "
              "or call finalize().",
    .tp_methods = context_methods,
    .tp_getset = context_getset,
    .tp_init = (initproc)context_init,
    .tp_new = PyType_GenericNew,
};

/* Makes the struct types and adds them and Context to the module. */
int pym_context_ready(PyObject *module)
{
  change_type = PyStructSequence_NewType(&change_desc);
  window_type = PyStructSequence_NewType(&window_desc);
  report_type = PyStructSequence_NewType(&report_desc);
  if (!change_type || !window_type || !report_type || PyType_Ready(&pym_context_type) < 0)
    return -1;
  PyObject *types[] = {(PyObject *)change_type, (PyObject *)window_type,
                       (PyObject *)report_type, (PyObject *)&pym_context_type};
  const char *names[] = {"Change", "Window", "Report", "Context"};
  for (int i = 0; i < 4; i++)
    if (PyModule_AddObjectRef(module, names[i], types[i]) < 0)
      return -1;
  return 0;
}
