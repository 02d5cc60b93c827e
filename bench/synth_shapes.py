#!/usr/bin/python3
"""Synthetic data sets with the shapes issue 21 names, for bench/discover_vs_rf.sh:
shapes a single power law cannot follow, with known formulas, fixed seeds and
about 2 % noise (each time multiplied by exp(0.02 * N(0, 1)), numpy's PCG64).

usage: synth_shapes.py DIR

Writes DIR/NAME.csv and DIR/NAME.json (the spec) for each NAME:

  u_threads  a U-shaped thread grid: inter_op in {1,2,3,4,6,8} x intra_op in
             {1,2,3,4,6,8,12,16}, 3 repetitions (144 rows); with T = inter_op
             * intra_op, t = 1/T + T/256 + 0.05 (fastest at T = 16).
  switch_on  a data-parallel job whose communication exists only with more than
             one worker: workers in {1,2,3,4,6,8} x batch in {32,64,128,256} x
             hidden in {128,256,512,1024}, 2 repetitions (192 rows);
             t = 2e-9 * batch * hidden^2 / workers
                 + [workers > 1] * (2e-3 * log2(workers) + 5e-8 * hidden^2) + 1e-3.
  device     curves that differ per level: device in {cpu, gpu_a, gpu_b} x n in
             {64,96,128,192,256,384,512,768,1024} x batch in {1,4,16},
             2 repetitions (162 rows); t = o[device] + f[device] * batch * n^2,
             f = 1e-8, 5e-10, 2e-10 and o = 1e-5, 2e-4, 5e-4 (a GPU's launch
             overhead flattens its curve at small n).
"""
import csv
import json
import os
import sys

import numpy as np

NOISE = 0.02


def u_threads():
    rows = []
    for _ in range(3):
        for inter in (1, 2, 3, 4, 6, 8):
            for intra in (1, 2, 3, 4, 6, 8, 12, 16):
                t = inter * intra
                rows.append({"inter_op": inter, "intra_op": intra,
                             "time_s": 1.0 / t + t / 256.0 + 0.05})
    return rows, {"target": "time_s", "intrinsic": [], "extrinsic": ["inter_op", "intra_op"]}


def switch_on():
    rows = []
    for _ in range(2):
        for w in (1, 2, 3, 4, 6, 8):
            for batch in (32, 64, 128, 256):
                for hidden in (128, 256, 512, 1024):
                    comm = (2e-3 * np.log2(w) + 5e-8 * hidden ** 2) if w > 1 else 0.0
                    rows.append({"hidden": hidden, "batch_size": batch, "workers": w,
                                 "time_s": 2e-9 * batch * hidden ** 2 / w + comm + 1e-3})
    return rows, {"target": "time_s", "intrinsic": ["hidden"],
                  "extrinsic": ["workers", "batch_size"]}


def device():
    f = {"cpu": 1e-8, "gpu_a": 5e-10, "gpu_b": 2e-10}
    o = {"cpu": 1e-5, "gpu_a": 2e-4, "gpu_b": 5e-4}
    rows = []
    for _ in range(2):
        for dev in ("cpu", "gpu_a", "gpu_b"):
            for n in (64, 96, 128, 192, 256, 384, 512, 768, 1024):
                for batch in (1, 4, 16):
                    rows.append({"device": dev, "n": n, "batch_size": batch,
                                 "time_s": o[dev] + f[dev] * batch * n * n})
    return rows, {"target": "time_s", "intrinsic": ["n"], "categorical": ["device"],
                  "extrinsic": ["batch_size"]}


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for seed, make in enumerate((u_threads, switch_on, device), start=1):
        rng = np.random.default_rng(seed)
        rows, spec = make()
        for r in rows:
            r["time_s"] = "%.9g" % (r["time_s"] * np.exp(NOISE * rng.standard_normal()))
        with open(os.path.join(out, make.__name__ + ".csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()), lineterminator="\n")
            w.writeheader()
            w.writerows(rows)
        with open(os.path.join(out, make.__name__ + ".json"), "w") as f:
            json.dump(spec, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
