#!/usr/bin/python3
"""The smallest malleable Python program: examples/minimal.c with mpi4py and
the morph package. A block-distributed vector, incremented 200 times while
`morph run` or morphd grows and shrinks the job."""
import sys

import numpy as np
from mpi4py import MPI

import morph

n = 1000000
with morph.Context(MPI.COMM_WORLD) as ctx:
    it = ctx.replicated("iter", np.zeros(1, np.int64))  # the step counter
    x = ctx.block("x", n, np.float64)                    # follows the processes
    st = morph.Status.NEW
    while it[0] < 200:
        st = ctx.point()                                 # the job may resize here
        if st == morph.Status.LEAVING:
            break
        x.local[:] += 1.0                                # .local: this process's part
        it[0] += 1
    total = 0.0
    if st != morph.Status.LEAVING:
        total = ctx.comm.reduce(x.local.sum(), op=MPI.SUM, root=0)
        if ctx.rank == 0:
            print(f"sum {total:.0f}, expected {200.0 * n:.0f}, on {ctx.size} processes")
    ok = st == morph.Status.LEAVING or ctx.rank != 0 or total == 200.0 * n
    sys.exit(ctx.finalize(0 if ok else 1))
