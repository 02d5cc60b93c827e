#!/usr/bin/python3
"""The reference: fit the same eq. 4.4 problem as `perfmodel fit` with
scipy.optimize.differential_evolution (Debian's python3-scipy), in the same
space (--scale auto: numeric columns / geometric mean, target / median; or
none), the same bounds, the same DE settings (scipy's defaults), and print
the final cost and time of each seed as JSON lines ("points": the points
costed, perfmodel's "evaluations"; scipy's nfev counts vectorized calls).

usage: scipy_fit.py DATA.csv SPEC.json [--scale auto|none] [--seeds K]
                    [--updating immediate|deferred] [--vectorized] [--maxiter N]
                    [--first-seed S] [--no-polish]
"""
import argparse
import csv
import json
import sys
import time

import numpy as np
from scipy.optimize import differential_evolution


def load(data, spec_path, scale):
    spec = json.load(open(spec_path))
    rows = list(csv.DictReader(open(data, newline="", encoding="utf-8-sig")))
    b = spec.get("bounds", {})
    cb, pb, kb = b.get("coefficient", [0, 1000]), b.get("power", [-5, 5]), b.get("constant", [0, 1000])
    t = np.array([float(r[spec["target"]]) for r in rows])
    T = float(np.median(t)) if scale == "auto" else 1.0
    cols, bounds, kinds = [], [], []
    for name in spec.get("intrinsic", []):
        x = np.array([float(r[name]) for r in rows])
        u = np.log(x) - (np.mean(np.log(x)) if scale == "auto" else 0.0)
        cols.append(("i", u))
        bounds += [cb, pb]
        kinds += ["coef", "pow"]
    for name in spec.get("categorical", []):
        levels = sorted(set(r[name] for r in rows))
        codes = np.array([levels.index(r[name]) for r in rows])
        cols.append(("c", (codes, len(levels))))
        bounds += [cb] * len(levels)
        kinds += ["coef"] * len(levels)
    ext = []
    for name in spec.get("extrinsic", []):
        x = np.array([float(r[name]) for r in rows])
        ext.append(np.log(x) - (np.mean(np.log(x)) if scale == "auto" else 0.0))
        bounds.append(pb)
        kinds.append("pow")
    bounds.append(kb)
    kinds.append("const")
    return t / T, cols, ext, bounds, kinds


def make_cost(tt, cols, ext, points):
    """Eq. 4.9 (MAE) of eq. 4.4; x has shape (M,) or (M, S) for vectorized.
    points[0] counts the points costed: with vectorized=True scipy's nfev
    counts calls, not points."""
    def cost(x):
        x = np.asarray(x)
        vec = x.ndim == 2
        X = x if vec else x[:, None]
        points[0] += X.shape[1]
        k, s = 0, 0.0
        for kind, data in cols:
            if kind == "i":
                s = s + X[k] * np.exp(X[k + 1] * data[:, None])
                k += 2
            else:
                codes, n = data
                s = s + X[k:k + n][codes]
                k += n
        f = 1.0
        for u in ext:
            f = f * np.exp(X[k] * u[:, None])
            k += 1
        pred = s * f + X[k]
        c = np.mean(np.abs(tt[:, None] - pred), axis=0)
        c = np.where(np.isnan(c), np.inf, c)
        return c if vec else float(c[0])
    return cost


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("spec")
    ap.add_argument("--scale", default="auto", choices=["auto", "none"])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--updating", default="immediate", choices=["immediate", "deferred"])
    ap.add_argument("--vectorized", action="store_true")
    ap.add_argument("--maxiter", type=int, default=1000)
    ap.add_argument("--no-polish", action="store_true")
    a = ap.parse_args()
    tt, cols, ext, bounds, _ = load(a.data, a.spec, a.scale)
    points = [0]
    cost = make_cost(tt, cols, ext, points)
    for seed in range(a.first_seed, a.first_seed + a.seeds):
        points[0] = 0
        t0 = time.perf_counter()
        with np.errstate(over="ignore", invalid="ignore"):
            r = differential_evolution(cost, bounds, seed=seed, maxiter=a.maxiter,
                                       updating="deferred" if a.vectorized else a.updating,
                                       vectorized=a.vectorized, polish=not a.no_polish)
        print(json.dumps({"seed": seed, "cost": float(r.fun), "nfev": int(r.nfev), "points": points[0],
                          "nit": int(r.nit), "seconds": time.perf_counter() - t0,
                          "message": r.message}))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
