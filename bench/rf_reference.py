#!/usr/bin/python3
"""The black-box reference for model selection (issue 10): a random forest
(Debian's python3-sklearn; bench/setup-rf.sh installs it) fitted to the
training rows of a data set and measured on its held-out rows.

The split is made here, once, and written to files, so that perfmodel and
the forest see exactly the same rows: a seeded permutation of the data rows
(numpy's PCG64 generator), the first round(F * n) to test, both sides kept in
file order, lines copied byte for byte.

usage: rf_reference.py DATA.csv SPEC.json --split-dir DIR [--test-fraction F]
                       [--seed N] [--trees N]

Writes DIR/train.csv and DIR/test.csv and prints one JSON line: the data
set, row counts, and the held-out MAPE (%) of two forests: on the measured
time (scikit-learn's defaults: the plain reference) and on log(time)
(predictions exp'd back: the stronger one on times spanning decades).
Roles come from the spec: numeric intrinsic and extrinsic columns as they
are, categorical ones as integer codes (trees split on them either way).
"""
import argparse
import csv
import json
import os

import numpy as np
from sklearn.ensemble import RandomForestRegressor


def split(data, fraction, seed, out_dir):
    with open(data, newline="", encoding="utf-8-sig") as f:
        lines = f.read().splitlines(keepends=True)
    header, rows = lines[0], [line for line in lines[1:] if line.strip()]
    n = len(rows)
    ntest = int(np.floor(fraction * n + 0.5))
    perm = np.random.default_rng(seed).permutation(n)
    test = set(perm[:ntest].tolist())
    os.makedirs(out_dir, exist_ok=True)
    paths = {}
    for name, keep in (("train", lambda r: r not in test), ("test", lambda r: r in test)):
        paths[name] = os.path.join(out_dir, name + ".csv")
        with open(paths[name], "w", newline="") as f:
            f.write(header)
            f.writelines(rows[r] for r in range(n) if keep(r))
    return paths, n - ntest, ntest


def features(path, spec, levels):
    rows = list(csv.DictReader(open(path, newline="", encoding="utf-8-sig")))
    numeric = spec.get("intrinsic", []) + spec.get("extrinsic", [])
    cols = [[float(r[c]) for r in rows] for c in numeric]
    for c in spec.get("categorical", []):
        cols.append([levels[c].setdefault(r[c], len(levels[c])) for r in rows])
    t = np.array([float(r[spec["target"]]) for r in rows])
    return np.array(cols).T, t


def mape(t, pred):
    return float(100.0 * np.mean(np.abs(t - pred) / t))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("spec")
    ap.add_argument("--split-dir", required=True)
    ap.add_argument("--test-fraction", type=float, default=1.0 / 3.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trees", type=int, default=100)
    a = ap.parse_args()

    spec = json.load(open(a.spec))
    paths, ntrain, ntest = split(a.data, a.test_fraction, a.seed, a.split_dir)
    levels = {c: {} for c in spec.get("categorical", [])}
    x, t = features(paths["train"], spec, levels)
    xt, tt = features(paths["test"], spec, levels)
    out = {"data": a.data, "train_rows": ntrain, "test_rows": ntest, "seed": a.seed,
           "trees": a.trees}
    for name, target, back in (("rf", t, lambda p: p), ("rf_log", np.log(t), np.exp)):
        rf = RandomForestRegressor(n_estimators=a.trees, random_state=a.seed, n_jobs=1)
        rf.fit(x, target)
        out[name + "_mape"] = mape(tt, back(rf.predict(xt)))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
