#!/usr/bin/env python3
"""Write the Score-P-like profile set of docs/profiles.md: an MPI stencil code.

An Extra-P experiment folder, OUTDIR/stencil.p{P}n{N}.r{R}/profile.cubex, one
CUBE4 profile per run at p processes (one location each) and an n x n grid,
written by tests/cube_gen.py's writer. The call tree and each call path's
exclusive time per rank, in seconds (100 time steps, periodic boundaries, a
sqrt(p) x sqrt(p) decomposition):

    main                       0.01
      init                     0.35
      iterate                  0.001
        compute                4e-8 n p^-0.5       (boundary cells)
          stencil_kernel       2.5e-8 n^2 p^-1     (the sweep; the last rank 25 % slower)
        halo_exchange          2e-7 n p^-0.5       (packing the halos)
          MPI_Sendrecv         3.2e-6 n p^-0.5 + 1e-3
        MPI_Allreduce          2e-3 p^0.3
      write_output             4e-9 n^2 on rank 0, 0 elsewhere

each times two noise factors exp(N(0, --noise)): one per run and call path (the
machine's state that run), one per run, location and call path.
Metrics as Score-P stores them: time (INCLUSIVE, DOUBLE: the inclusive sums of
the above), visits (EXCLUSIVE, UINT64: 1 for main, init and iterate, 100 for
the call paths in the time step loop, 400 for MPI_Sendrecv; write_output 0
off rank 0) and bytes_sent (EXCLUSIVE, UINT64, stored only for the MPI call
paths: 4 halos of 8 round(n/sqrt(p)) bytes a step, 8 bytes an MPI_Allreduce).
The same --seed writes the same bytes.
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tests"))
from cube_gen import deep_order, inclusive, wide_order, write_profile  # noqa: E402

STEPS = 100
# (region, module, Score-P's region kind)
REGIONS = [("main", "stencil.c", "user"), ("init", "stencil.c", "user"),
           ("iterate", "stencil.c", "user"), ("compute", "stencil.c", "user"),
           ("stencil_kernel", "stencil.c", "user"), ("halo_exchange", "stencil.c", "user"),
           ("MPI_Sendrecv", "MPI", "mpi"), ("MPI_Allreduce", "MPI", "mpi"),
           ("write_output", "stencil.c", "user")]
# cnode id -> (region id, parent cnode id), in preorder
CNODES = [(0, None), (1, 0), (2, 0), (3, 2), (4, 3), (5, 2), (6, 5), (7, 2), (8, 0)]
MPI = {6, 7}
SLOW_RANK_FACTOR = 1.25


def law(c, p, n, rank):
    """Exclusive time of call node c at one rank, without noise."""
    return [
        0.01,
        0.35,
        0.001,
        4e-8 * n * p ** -0.5,
        2.5e-8 * n * n / p * (SLOW_RANK_FACTOR if rank == p - 1 else 1.0),
        2e-7 * n * p ** -0.5,
        3.2e-6 * n * p ** -0.5 + 1e-3,
        2e-3 * p ** 0.3,
        4e-9 * n * n if rank == 0 else 0.0,
    ][c]


def visits(c, rank):
    return [1, 1, 1, STEPS, STEPS, STEPS, 4 * STEPS, STEPS, 1 if rank == 0 else 0][c]


def bytes_sent(c, p, n):
    halo = 8 * round(n / math.sqrt(p))
    return {6: 4 * STEPS * halo, 7: 8 * STEPS}[c]


def run(out, p, n, rng, noise):
    excl = []
    for c in range(len(CNODES)):
        shared = rng.gauss(0.0, noise)
        excl.append([law(c, p, n, r) * math.exp(shared + rng.gauss(0.0, noise)) for r in range(p)])
    incl = inclusive(CNODES, excl)
    metrics = [
        {"name": "time", "type": "INCLUSIVE", "dtype": "DOUBLE", "uom": "sec",
         "rows": [(c, incl[c]) for c in wide_order(CNODES)]},
        {"name": "visits", "type": "EXCLUSIVE", "dtype": "UINT64", "uom": "occ",
         "rows": [(c, [visits(c, r) for r in range(p)]) for c in deep_order(CNODES)]},
        {"name": "bytes_sent", "type": "EXCLUSIVE", "dtype": "UINT64", "uom": "bytes",
         "rows": [(c, [bytes_sent(c, p, n)] * p) for c in deep_order(CNODES) if c in MPI]},
    ]
    write_profile(out, REGIONS, CNODES, metrics, p, "perfmodel docs/examples/profile_set.py")


def numbers(text):
    return [int(v) for v in text.split(",")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--procs", type=numbers, default=[4, 8, 16, 32, 64])
    ap.add_argument("--sizes", type=numbers, default=[1024, 2048, 4096, 8192, 16384])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--noise", type=float, default=0.03,
                    help="sd of the log noise (0.03: about 3 %%)")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    for p in a.procs:
        for n in a.sizes:
            for r in range(1, a.reps + 1):
                folder = os.path.join(a.outdir, f"stencil.p{p}n{n}.r{r}")
                os.makedirs(folder, exist_ok=True)
                run(os.path.join(folder, "profile.cubex"), p, n, rng, a.noise)


if __name__ == "__main__":
    main()
