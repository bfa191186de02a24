#!/usr/bin/python3
"""jacobi-py - apps/jacobi in Python (mpi4py, NumPy and the morph package).

Jacobi iteration for the same dense, diagonally dominant system A x = b of
order n, malleable with morph's native API. Rows of A, b and x are
block-distributed Blocks; every iteration gathers x and updates the local
rows, and when the job changes size morph moves the rows (A.local, b.local
and x.local are read again after each point). Rank 0 checks the result
bitwise against the same iterations run serially at the end.

    jacobi.py [--size N] [--iters N] [--delay-ms X] [--no-check]

Lines that exist only for malleability end with a morph comment.
"""
import argparse
import sys
import time

import numpy as np
from mpi4py import MPI

import morph


def rows(n, first, count):
    """Rows [first, first + count) of A and b, as apps/jacobi makes them."""
    i = np.arange(first, first + count, dtype=np.int64)[:, None]
    j = np.arange(n, dtype=np.int64)[None, :]
    a = np.where(i == j, float(n), 1.0 / (1 + (i * 7 + j * 3) % 11))
    return a, (i[:, 0] % 13).astype(np.float64) - 6.0


def sweep(a, b, x, first):
    """New x of the local rows from the whole x; each row reduces alike
    wherever it lives, so the result does not depend on the distribution."""
    r = np.arange(len(b))
    prod = a * x[None, :]
    prod[r, first + r] = 0.0
    return (b - prod.sum(axis=1)) / a[r, first + r]


def blocks(n, p):
    displs = [r * n // p for r in range(p)]
    return [(r + 1) * n // p - displs[r] for r in range(p)], displs


def step(comm, a, b, x, n, first):
    """One parallel iteration: gather x, update the local rows in place."""
    counts, displs = blocks(n, comm.Get_size())
    xall = np.empty(n)
    comm.Allgatherv(x, [xall, counts, displs, MPI.DOUBLE])
    x[:] = sweep(a, b, xall, first)


def progress(ctx, seen):
    """Rank 0 prints one line per reconfiguration (as apps/common does)."""
    restarted = ctx.status == morph.Status.JOINING
    r = ctx.last_report()
    if r.seq == seen[0] and not restarted:
        return
    seen[0] = r.seq
    if ctx.rank != 0:
        return
    if restarted:
        print(f"it {ctx.iteration}: restarted at {ctx.size} procs (relaunch)", flush=True)
    elif r.outcome != morph.OK:
        print(f"it {r.iteration}: {r.old_size} -> {r.requested_size} procs failed, kept "
              f"{r.old_size}: {r.message}", flush=True)
    else:
        t = r.t_decision + r.t_spawn + r.t_redist + r.t_commit
        print(f"it {r.iteration}: {r.old_size} -> {r.new_size} procs "
              f"({r.mechanism.name.lower()}, {t:.3f} s)", flush=True)


def check(comm, x, n, iters):
    """Rank 0 gathers x and repeats the iterations serially; True if equal."""
    counts, displs = blocks(n, comm.Get_size())
    got = np.empty(n) if comm.Get_rank() == 0 else None
    comm.Gatherv(x, [got, counts, displs, MPI.DOUBLE], root=0)
    bad = -1
    if comm.Get_rank() == 0:
        a, b = rows(n, 0, n)
        xs = np.zeros(n)
        for _ in range(iters):
            xs = sweep(a, b, xs, 0)
        diff = np.flatnonzero(got.view(np.int64) != xs.view(np.int64))
        bad = int(diff[0]) if diff.size else -1
        what = (f"x[{bad}] differs from the serial run" if bad >= 0
                else "bitwise equal to the serial run")
        print(f"CHECK {'FAILED' if bad >= 0 else 'PASSED'} jacobi-py n={n} iters={iters} "
              f"procs={comm.Get_size()}: {what}", flush=True)
    return comm.bcast(bad, root=0) < 0


def parse():
    p = argparse.ArgumentParser(description="Jacobi iteration (Python, native morph API).")
    p.add_argument("--size", type=int, default=400)
    p.add_argument("--iters", type=int, default=100)
    p.add_argument("--delay-ms", type=float, default=0.0)
    p.add_argument("--no-check", dest="check", action="store_false")
    return p.parse_args()


def main():
    args = parse()
    n = args.size
    with morph.Context(MPI.COMM_WORLD) as ctx:                        # morph
        it = ctx.replicated("it", np.zeros(1, np.int64))              # morph
        a = ctx.block("A", n, np.float64, shape=(n,))                 # morph
        b = ctx.block("b", n, np.float64)                             # morph
        x = ctx.block("x", n, np.float64)                             # morph
        if ctx.status == morph.Status.NEW:                            # morph
            a.local[:], b.local[:] = rows(n, b.offset, b.count)
        seen, st = [0], morph.Status.STAYING
        while it[0] < args.iters:
            st = ctx.point()                                          # morph
            if st == morph.Status.LEAVING:                            # morph
                break                                                 # morph
            progress(ctx, seen)                                       # morph
            step(ctx.comm, a.local, b.local, x.local, n, x.offset)
            time.sleep(args.delay_ms / 1000)
            it[0] += 1
        ok = st == morph.Status.LEAVING or not args.check or check(ctx.comm, x.local, n,
                                                                    args.iters)
        outcome = ctx.finalize(0 if ok else 1)                        # morph
    sys.exit(outcome)


if __name__ == "__main__":
    main()
