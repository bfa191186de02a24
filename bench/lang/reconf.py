"""bench/lang reconf.py: bench/runtime/bench-reconf.c in Python (mpi4py,
NumPy, morph): one block-distributed array of doubles, the job's whole
registered data, and a loop that only paces itself, so that what
`morph run --report` measures is the reconfiguration alone.

    reconf.py --bytes B [--iters N] [--sleep-ms S]

Element g holds g wherever it lives; after every reconfiguration and at
the end each process checks every 4093rd element and its last. Rank 0 ends
with "CHECK PASSED size=.. errors=0" (or FAILED)."""
import argparse
import sys
import time

import numpy as np
from mpi4py import MPI

import morph


def verify(a):
    local = a.local
    idx = np.r_[np.arange(0, a.count, 4093), [a.count - 1] if a.count else []].astype(np.int64)
    return int(np.count_nonzero(local[idx] != (a.offset + idx).astype(np.float64)))


p = argparse.ArgumentParser()
p.add_argument("--bytes", type=int, default=1 << 20)
p.add_argument("--iters", type=int, default=40)
p.add_argument("--sleep-ms", type=float, default=10.0)
args = p.parse_args()
with morph.Context(MPI.COMM_WORLD) as ctx:
    it = ctx.replicated("iter", np.zeros(1, np.int64))
    a = ctx.block("a", args.bytes // 8, np.float64)
    if ctx.status == morph.Status.NEW:
        a.local[:] = np.arange(a.offset, a.offset + a.count, dtype=np.float64)
    errors, seen, st = 0, 0, morph.Status.STAYING
    while it[0] < args.iters:
        st = ctx.point()
        if st == morph.Status.LEAVING:
            break
        seq = ctx.last_report().seq
        if seq != seen or st == morph.Status.JOINING:
            seen = seq
            errors += verify(a)
        time.sleep(args.sleep_ms / 1000)
        ctx.comm.Barrier()  # iterations end together (bench-reconf.c says why)
        it[0] += 1
    if st != morph.Status.LEAVING:
        errors = ctx.comm.allreduce(errors + verify(a), op=MPI.SUM)
        if ctx.rank == 0:
            print(f"CHECK {'FAILED' if errors else 'PASSED'} size={ctx.size} errors={errors}",
                  flush=True)
    sys.exit(ctx.finalize(1 if errors else 0))
