"""bench/lang point.py: point.c from Python (mpi4py and morph): the same
block registration, the same batches, the same medians.
    POINT lang=python check_ns=.. uninhibited_ns=.."""
import statistics
import sys

import numpy as np
from mpi4py import MPI

import morph


def per_point(ctx, calls):
    ns = []
    for _ in range(21):
        ctx.comm.Barrier()
        t0 = MPI.Wtime()
        for _ in range(calls):
            ctx.point()
        ns.append((MPI.Wtime() - t0) * 1e9 / calls)
    return statistics.median(ns)


calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
with morph.Context(MPI.COMM_WORLD) as ctx:
    ctx.block("rows", 1000, np.float64)
    unin = per_point(ctx, calls)
    ctx.set_inhibitors(0.0, 1000000000)
    ctx.point()
    inh = per_point(ctx, 10 * calls)
    if ctx.rank == 0:
        print(f"POINT lang=python check_ns={inh:.2f} uninhibited_ns={unin:.1f}", flush=True)
