#!/usr/bin/python3
"""Prediction intervals beyond the data, where the truth is known (issue 22;
docs/benchmarks.md, "Prediction intervals"). Reported, never asserted.

The bundled data extrapolate at most 1.3 range widths, so they cannot say
whether the widening beyond the data, sqrt(1 + (k d)^2) at d range widths
out with the rate k the fit measured for the input (docs/maths.md), is
calibrated further out. Here the truth is
known: each case draws TRAIN rows with n log-uniform in [64, 512] (one range
width is a factor 8), times multiplied by exp(SIGMA * N(0, 1)); perfmodel fit
(intervals on, as by default) with the additive form c * n^a + C; then
perfmodel predict --quantiles 0.05,0.5,0.95 at TEST new rows per band of d:
inside the range (d = 0), (0, 1], (1, 2], (2, 3] range widths above it.
REPS data sets (numpy seeds 1..REPS) per case.

  power-0.1     t = 2e-9 n^2.5, SIGMA 0.1: the form is the truth (C = 0)
  power-0.3     the same, SIGMA 0.3
  offset-0.1    t = 1e-3 + 2e-9 n^2.5, SIGMA 0.1: the form is the truth, but
                the constant hides the power at small n (the exponent is
                poorly determined by the rows: 2.18 for 2.5 on seed 1)
  misfit-log    t = 1e-9 n^2 log2(n), SIGMA 0.1: a power law bends a little
  misfit-cubic  t = 1e-7 n^2 + 1e-10 n^3, SIGMA 0.1: the cubic term takes over
                at n = 1000, past the data (a cliff no rule can see)

Per case and band: the 90 % interval's coverage k/N pooled over the REPS data
sets with a 95 % Clopper-Pearson interval (rows of one data set share its
fit, so the spread over data sets is printed too: min-max of their
coverages), and the widening that would have covered 90 % there (the 0.9
quantile of |z|, z a row's log residual over the unwidened half-width on its
side); "k=0.5": what a fixed rate of 0.5 (the rule before the fit measured
rates, and their floor) widens by at the band's middle.

usage: intervals_synth.py PERFMODEL [REPS] [TRAIN] [TEST]
(defaults 20 60 40; about a minute). Needs /usr/bin/python3 with numpy and scipy
(Debian's python3-numpy, python3-scipy), as bench/best_known.py.
"""
import csv
import math
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.stats import beta

LO, HI = 64.0, 512.0
BANDS = [(0.0, 0.0), (0.0, 1.0), (1.0, 2.0), (2.0, 3.0)]
LEVEL = 0.9
CASES = [
    ("power-0.1", 0.1, lambda n: 2e-9 * n**2.5),
    ("power-0.3", 0.3, lambda n: 2e-9 * n**2.5),
    ("offset-0.1", 0.1, lambda n: 1e-3 + 2e-9 * n**2.5),
    ("misfit-log", 0.1, lambda n: 1e-9 * n**2 * np.log2(n)),
    ("misfit-cubic", 0.1, lambda n: 1e-7 * n**2 + 1e-10 * n**3),
]


def widen(d):
    return math.sqrt(1.0 + (d / 2.0) ** 2)


def clopper_pearson(k, n, conf=0.95):
    a = (1.0 - conf) / 2.0
    lo = 0.0 if k == 0 else beta.ppf(a, k, n - k + 1)
    hi = 1.0 if k == n else beta.ppf(1.0 - a, k + 1, n - k)
    return lo, hi


def write_csv(path, ns, ts=None):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["n", "t"] if ts is not None else ["n"])
        for i, n in enumerate(ns):
            w.writerow([repr(float(n)), repr(float(ts[i]))] if ts is not None else [repr(float(n))])


def one(pm, work, truth, sigma, rng, ntrain, ntest):
    """Per band: the held-out rows' covered flags and |z|."""
    ntr = np.exp(rng.uniform(math.log(LO), math.log(HI), ntrain))
    ttr = truth(ntr) * np.exp(sigma * rng.standard_normal(ntrain))
    data, spec, model, pts = (os.path.join(work, f) for f in ("d.csv", "s.json", "m.json", "p.csv"))
    write_csv(data, ntr, ttr)
    with open(spec, "w") as f:
        f.write('{"target": "t", "intrinsic": ["n"]}\n')
    subprocess.run([pm, "fit", data, "--spec", spec, "--form", "additive", "-q", "-o", model],
                   check=True,
                   stderr=subprocess.DEVNULL)
    lo, hi = ntr.min(), ntr.max()
    width = math.log(hi / lo)
    out = []
    for a, b in BANDS:
        if b == 0.0:
            nt = np.exp(rng.uniform(math.log(lo), math.log(hi), ntest))
        else:
            nt = hi * np.exp(width * rng.uniform(a, b, ntest))
        yt = truth(nt) * np.exp(sigma * rng.standard_normal(ntest))
        write_csv(pts, nt)
        res = subprocess.run([pm, "predict", "-m", model, pts, "--quantiles", "0.05,0.5,0.95"],
                             check=True, capture_output=True, text=True)
        rows = list(csv.DictReader(res.stdout.splitlines()))
        cov, z = [], []
        for k, r in enumerate(rows):
            q05, q50, q95 = (float(r[c]) for c in ("q0.05", "q0.5", "q0.95"))
            d = max(0.0, math.log(nt[k] / hi) / width)
            cov.append(q05 <= yt[k] <= q95)
            lr = math.log(yt[k] / q50)
            half = (math.log(q95 / q50) if lr > 0 else math.log(q50 / q05)) / widen(d)
            z.append(abs(lr) / half)
        out.append((cov, z))
    return out


def main():
    pm = os.path.realpath(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    ntrain = int(sys.argv[3]) if len(sys.argv) > 3 else 60
    ntest = int(sys.argv[4]) if len(sys.argv) > 4 else 40
    print(f"# synthetic: {reps} data sets x {ntrain} rows per case, {ntest} new rows per band "
          f"and data set; the {LEVEL:.0%} interval")
    print(f"{'case':<13} {'band (d)':<9} {'covered':>9} {'%':>6}  {'95% CI':<13} "
          f"{'data sets':<11} {'needed':>6} {'k=0.5':>5}")
    with tempfile.TemporaryDirectory() as work:
        for name, sigma, truth in CASES:
            per = [[] for _ in BANDS]
            for seed in range(1, reps + 1):
                rng = np.random.default_rng(seed)
                for b, r in enumerate(one(pm, work, truth, sigma, rng, ntrain, ntest)):
                    per[b].append(r)
            for b, (a, e) in enumerate(BANDS):
                cov = [c for r in per[b] for c in r[0]]
                z = [v for r in per[b] for v in r[1]]
                k, n = sum(cov), len(cov)
                lo, hi = clopper_pearson(k, n)
                sets = [100.0 * sum(r[0]) / len(r[0]) for r in per[b]]
                label = "inside" if e == 0.0 else f"{a:g}-{e:g}"
                print(f"{name:<13} {label:<9} {k:>4}/{n:<4} {100.0 * k / n:6.1f}  "
                      f"{100 * lo:5.1f}-{100 * hi:5.1f}  {min(sets):3.0f}-{max(sets):3.0f} %    "
                      f"{np.quantile(z, LEVEL):6.2f} {widen((a + e) / 2):5.2f}")


if __name__ == "__main__":
    main()
