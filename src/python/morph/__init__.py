"""morph: malleable MPI programs in Python (mpi4py).

A morph context sits on top of an mpi4py communicator. The program keeps
using mpi4py on ``ctx.comm``, registers the data that must follow the
processes, and calls ``ctx.point()`` once per iteration; when the launcher
(``morph run``) or morphd decides a new size, processes join or leave
inside the point and the registered data moves with them::

    from mpi4py import MPI
    import numpy as np
    import morph

    with morph.Context(MPI.COMM_WORLD) as ctx:
        it = ctx.replicated("it", np.zeros(1, np.int64))
        x = ctx.block("x", 1000, np.float64)
        if ctx.status == morph.Status.NEW:
            x.local[:] = 1.0
        while it[0] < 100:
            if ctx.point() == morph.Status.LEAVING:
                break
            x.local[:] *= 0.5        # read .local again after each point
            it[0] += 1

Errors raise ``morph.Error`` with ``code`` (morph's negative code, e.g.
``morph.EEXIST``), ``name`` ('MORPH_EEXIST') and ``reason`` (morph's
message). docs/python.md is the reference; morph.h says what each call
does.
"""
import enum

from mpi4py import MPI  # noqa: F401  (initialises MPI before morph is used)

from ._morph import (Block, Change, Context, Error, Report, Window,  # noqa: F401
                     err_name, strerror)
from . import _morph

__all__ = ["Context", "Block", "Change", "Window", "Report", "Error", "Status", "Mechanism",
           "strerror", "err_name", "open"]


class Status(enum.IntEnum):
    """Where a process stands (morph_status)."""
    NEW = 0
    JOINING = 1
    STAYING = 2
    LEAVING = 3


class Mechanism(enum.IntEnum):
    """How a reconfiguration is carried out (morph_mechanism)."""
    AUTO = 0
    LIVE = 1
    RELAUNCH = 2


_morph._set_enums(tuple(Status), tuple(Mechanism))

# morph's error codes: OK, EINVAL, ENOMEM, ... (morph/error.h).
for _name in dir(_morph):
    if _name == "OK" or (_name.startswith("E") and _name.isupper()):
        globals()[_name] = getattr(_morph, _name)
        __all__.append(_name)
del _name


def open(comm=None, **options):  # noqa: A001  (morph.open mirrors morph_open)
    """Opens a Context on comm (default MPI.COMM_WORLD); see Context."""
    return Context(MPI.COMM_WORLD if comm is None else comm, **options)
