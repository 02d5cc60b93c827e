#!/usr/bin/env python3
"""A set of CUBE profiles of many call paths, for bench/cube_batch.sh: run
folders app.x{X}.r{R} (X = 1..POINTS, R = 1..REPS), each a profile of a
flat call tree (main and CALLPATHS - 1 callees) on LOCATIONS locations with
three EXCLUSIVE metrics (time DOUBLE, visits and bytes UINT64), written by
tests/cube_gen.py's writer. Values grow with x and differ per call path
and location; they are not meant to be realistic, only many.

usage: bench/cube_set.py OUTDIR [CALLPATHS] [LOCATIONS] [POINTS] [REPS]"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import cube_gen  # noqa: E402


def main():
    out = sys.argv[1]
    n, nloc, points, reps = (int(a) for a in (sys.argv[2:] + ["500", "128", "8", "3"][len(sys.argv) - 2:]))
    regions = [("main", "app.c", "user")] + [(f"f{i}", "app.c", "user") for i in range(1, n)]
    cnodes = [(0, None)] + [(i, 0) for i in range(1, n)]
    for x in range(1, points + 1):
        for r in range(1, reps + 1):
            rows = {
                "time": [(c, [x * (c + 1) * (1 + 0.01 * l) * (1 + 0.001 * r) for l in range(nloc)])
                         for c in range(n)],
                "visits": [(c, [(c + 1) * 10 + l for l in range(nloc)]) for c in range(n)],
                "bytes": [(c, [x * (c + 1) * 1000 + l for l in range(nloc)]) for c in range(n)],
            }
            metrics = [{"name": k, "type": "EXCLUSIVE", "dtype": d, "uom": "x", "rows": rows[k]}
                       for k, d in (("time", "DOUBLE"), ("visits", "UINT64"), ("bytes", "UINT64"))]
            folder = os.path.join(out, f"app.x{x}.r{r}")
            os.makedirs(folder, exist_ok=True)
            cube_gen.write_profile(os.path.join(folder, "profile.cubex"), regions, cnodes, metrics,
                                   nloc, "perfmodel bench/cube_set.py")


if __name__ == "__main__":
    main()
