"""bad_calls: morph's documented errors reach a Python program as
morph.Error: a data name registered twice raises code EEXIST (name
'MORPH_EEXIST', morph's message naming the data), a point after finalize
raises ESTATE ('the context was finalized'), and a bad argument type is
Python's TypeError."""
import sys

import numpy as np
from mpi4py import MPI

import morph

failures = 0


def expect(ok, what):
    global failures
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    failures += not ok


def raises(call):
    try:
        call()
    except morph.Error as e:
        return e
    return None


ctx = morph.Context(MPI.COMM_WORLD)
x = ctx.block("x", 10, np.float64)
expect(x.local.shape == (x.count,), "x registered")
e = raises(lambda: ctx.block("x", 10, np.float64))
expect(e is not None and e.code == morph.EEXIST and e.name == "MORPH_EEXIST",
       f"x registered twice: {e!r}")
expect(e is not None and "'x'" in e.reason and "'x'" in str(e), f"the message names x: {e}")
expect(morph.strerror(morph.EEXIST) == "object already exists", "morph.strerror(EEXIST)")
try:
    ctx.replicated("r", [1, 2])
    expect(False, "a list as replicated data is refused")
except TypeError as t:
    expect(True, f"a list as replicated data: TypeError: {t}")
ctx.finalize(0)
e = raises(ctx.point)
expect(e is not None and e.code == morph.ESTATE and e.reason == "the context was finalized",
       f"point after finalize: {e!r}")
e = raises(lambda: x.local)
expect(e is not None and e.code == morph.ESTATE, f"a Block after finalize: {e!r}")
expect(not ctx.is_open and ctx.outcome == 0, "closed, outcome 0")
if failures:
    sys.exit(1)
print("bad_calls: all expected errors")
