#!/usr/bin/python3
"""The black-box reference for model selection (issue 10): a random forest
(Debian's python3-sklearn; bench/setup-rf.sh installs it) fitted to the
training rows of a data set and measured on its held-out rows.

The split is made here, once, and written to files, so that perfmodel and
the forest see exactly the same rows: a seeded permutation of the data rows
(numpy's PCG64 generator), the first round(F * n) to test, both sides kept in
file order, lines copied byte for byte. With --extrapolate COL the split is by
scale instead, as perfmodel's --validate extrapolate:COL makes it: the rows
whose COL is among the smallest round(k / 2) of its k distinct values (at least
one, all but one at most) train, the rows of the larger values test.

usage: rf_reference.py DATA.csv SPEC.json --split-dir DIR [--test-fraction F]
                       [--extrapolate COL] [--seed N] [--trees N]

Writes DIR/train.csv and DIR/test.csv and prints one JSON line: the data
set, row counts, and the held-out MAPE (%) of two forests: on the measured
time (scikit-learn's defaults: the plain reference) and on log(time)
(predictions exp'd back: the stronger one on times spanning decades).
Roles come from the spec: numeric intrinsic and extrinsic columns as they
are, categorical ones as integer codes (trees split on them either way).
It also prints the held-out MAPE of a log-linear fit (issue 21's second
reference): ordinary least squares of log(time) on an intercept, the log of
every numeric input (all must be > 0) and one-hot levels of every categorical
input (the first level seen is the baseline; a level only the test rows have
gets the baseline's), predictions exp'd back: a power law per level.
"""
import argparse
import csv
import json
import os

import numpy as np
from sklearn.ensemble import RandomForestRegressor


def random_test_rows(rows, fraction, seed):
    ntest = int(np.floor(fraction * len(rows) + 0.5))
    return set(np.random.default_rng(seed).permutation(len(rows))[:ntest].tolist())


def extrapolation_test_rows(header, rows, column):
    names = next(csv.reader([header]))
    if column not in names:
        raise SystemExit("rf_reference: no column '%s' to extrapolate along" % column)
    values = [float(r[names.index(column)]) for r in csv.reader(rows)]
    distinct = sorted(set(values))
    if len(distinct) < 2:
        raise SystemExit("rf_reference: '%s' has one value: nothing to extrapolate to" % column)
    keep = min(max(int(np.floor(len(distinct) / 2.0 + 0.5)), 1), len(distinct) - 1)
    return {r for r, v in enumerate(values) if v > distinct[keep - 1]}


def split(data, fraction, extrapolate, seed, out_dir):
    with open(data, newline="", encoding="utf-8-sig") as f:
        lines = f.read().splitlines(keepends=True)
    header, rows = lines[0], [line for line in lines[1:] if line.strip()]
    n = len(rows)
    if extrapolate:
        test = extrapolation_test_rows(header, rows, extrapolate)
    else:
        test = random_test_rows(rows, fraction, seed)
    ntest = len(test)
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


def loglinear(path, spec, levels):
    """The log-linear design matrix of a file's rows and their log times;
    levels (per categorical column, its levels in order of first sight) grows
    on the training rows, and a test level not in it gets no column."""
    rows = list(csv.DictReader(open(path, newline="", encoding="utf-8-sig")))
    cols = [np.ones(len(rows))]
    for c in spec.get("intrinsic", []) + spec.get("extrinsic", []):
        x = np.array([float(r[c]) for r in rows])
        if np.any(x <= 0):
            raise SystemExit("rf_reference: log-linear fit needs '%s' > 0" % c)
        cols.append(np.log(x))
    for c in spec.get("categorical", []):
        if levels.get(c) is None:
            levels[c] = list(dict.fromkeys(r[c] for r in rows))
        cols.extend(np.array([float(r[c] == v) for r in rows]) for v in levels[c][1:])
    return np.array(cols).T, np.log([float(r[spec["target"]]) for r in rows])


def mape(t, pred):
    return float(100.0 * np.mean(np.abs(t - pred) / t))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("spec")
    ap.add_argument("--split-dir", required=True)
    ap.add_argument("--test-fraction", type=float, default=1.0 / 3.0)
    ap.add_argument("--extrapolate", metavar="COL",
                    help="split by scale: train the smallest half of COL's values")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--trees", type=int, default=100)
    a = ap.parse_args()

    spec = json.load(open(a.spec))
    paths, ntrain, ntest = split(a.data, a.test_fraction, a.extrapolate, a.seed, a.split_dir)
    levels = {c: {} for c in spec.get("categorical", [])}
    x, t = features(paths["train"], spec, levels)
    xt, tt = features(paths["test"], spec, levels)
    out = {"data": a.data, "train_rows": ntrain, "test_rows": ntest, "seed": a.seed,
           "trees": a.trees}
    for name, target, back in (("rf", t, lambda p: p), ("rf_log", np.log(t), np.exp)):
        rf = RandomForestRegressor(n_estimators=a.trees, random_state=a.seed, n_jobs=1)
        rf.fit(x, target)
        out[name + "_mape"] = mape(tt, back(rf.predict(xt)))
    if a.extrapolate:
        out["extrapolate"] = a.extrapolate
    ll_levels = {}
    a_ll, y_ll = loglinear(paths["train"], spec, ll_levels)
    at_ll, _ = loglinear(paths["test"], spec, ll_levels)
    coef = np.linalg.lstsq(a_ll, y_ll, rcond=None)[0]
    out["loglinear_mape"] = mape(tt, np.exp(at_ll @ coef))
    print(json.dumps(out))


if __name__ == "__main__":
    main()
