#!/usr/bin/env python3
"""Extra-P's authors' synthetic noise protocol, from its published description
(Ritter et al., "Cost-effective empirical performance modeling"; issue 35):
functions c0 + sum or product of c_k * x^i * log2(x)^j over 1 to 3 parameters,
i among Extra-P's 20 default exponents, j in {0, 1, 2}, coefficients U[0, 1000],
each term at least 1 % of the function at the grid's corners; 5 values per
parameter, the full grid, 4 repetitions with multiplicative noise of +-N %
(uniform); the score is the relative error of the prediction at the next value
of every parameter. Our own generator, seeded: no file or code of Extra-P.

usage: extrap_protocol.py PERFMODEL [--params 1,2,3] [--noise 1,2,5,10]
                          [--functions 200] [--seed 1] [-- DISCOVER OPTIONS]
Prints, per cell, the share of functions predicted within 5 %, the median
relative error, and the share whose lead-order term is right for every
parameter (Extra-P's second score: the exponents i and j of the term that
grows fastest in the parameter, the model's against the function's; see
lead_order.py), and the seconds the cell's discover commands took (wall
time, one thread, the process's start included); with --detail FILE, one line per function (truth, formula,
error, lead right) for reading the failures.
"""
import argparse
import csv
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

import lead_order

EXPONENTS = [0, 1 / 4, 1 / 3, 1 / 2, 2 / 3, 3 / 4, 4 / 5, 1, 5 / 4, 4 / 3, 3 / 2, 5 / 3,
             7 / 4, 2, 9 / 4, 7 / 3, 5 / 2, 8 / 3, 11 / 4, 3]
# the values of each parameter, and the next one predicted
GRIDS = [([4, 8, 16, 32, 64], 128), ([10, 20, 30, 40, 50], 60),
         ([1000, 2000, 3000, 4000, 5000], 6000)]
NAMES = ["p", "q", "r"]


def term_value(x, i, j):
    return x ** i * math.log2(x) ** j


def draw(rng, nparams):
    """A function: (c0, combine, [(c, i, j)] one per parameter), or None
    when a term falls under 1 % at a corner of the grid."""
    terms = []
    for _ in range(nparams):
        i = rng.choice(EXPONENTS)
        j = rng.choice([0, 1, 2])
        if i == 0 and j == 0:
            j = 1	# x^0 * log^0 is the constant, already there
        terms.append((rng.uniform(0, 1000), i, j))
    combine = "sum" if nparams == 1 or rng.random() < 0.5 else "product"
    return rng.uniform(0, 1000), combine, terms


def value(f, xs):
    c0, combine, terms = f
    if combine == "sum":
        return c0 + sum(c * term_value(x, i, j) for (c, i, j), x in zip(terms, xs))
    prod = 1.0
    for (_, i, j), x in zip(terms, xs):
        prod *= term_value(x, i, j)
    return c0 + terms[0][0] * prod


def corners(nparams):
    out = [[]]
    for k in range(nparams):
        g = GRIDS[k][0]
        out = [c + [v] for c in out for v in (g[0], g[-1])]
    return out


def significant(f, nparams):
    """Every term is >= 1 % of the function at each corner of the grid."""
    c0, combine, terms = f
    for xs in corners(nparams):
        total = value(f, xs)
        if combine == "sum":
            parts = [c * term_value(x, i, j) for (c, i, j), x in zip(terms, xs)]
        else:
            parts = [total - c0]
        if any(p < 0.01 * total for p in parts):
            return False
    return True


def grid(nparams):
    rows = [[]]
    for k in range(nparams):
        rows = [r + [v] for r in rows for v in GRIDS[k][0]]
    return rows


def text(f, nparams):
    c0, combine, terms = f
    parts = ["%.4g * %s^%.4g * log2(%s)^%d" % (c, NAMES[k], i, NAMES[k], j)
             for k, (c, i, j) in enumerate(terms)]
    if combine == "sum":
        return "%.4g + %s" % (c0, " + ".join(parts))
    return "%.4g + %.4g * %s" % (c0, terms[0][0],
                                 " * ".join(p.split(" * ", 1)[1] for p in parts))


def lead_right(f, nparams, formula):
    """Every parameter's lead-order term in formula is the function's."""
    try:
        found = lead_order.parse(formula)
    except ValueError:
        return False
    return all(lead_order.lead(found, NAMES[k]) ==
               (Fraction(i).limit_denominator(12), j)
               for k, (_, i, j) in enumerate(f[2][:nparams]))


def run_one(perfmodel, workdir, f, nparams, noise, rng, extra):
    data = os.path.join(workdir, "data.csv")
    with open(data, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(NAMES[:nparams] + ["t"])
        for xs in grid(nparams):
            for _ in range(4):
                t = value(f, xs) * (1 + rng.uniform(-noise, noise) / 100)
                w.writerow(xs + ["%.17g" % t])
    model = os.path.join(workdir, "model.json")
    start = time.monotonic()
    r = subprocess.run([perfmodel, "discover", data, "--target", "t", "-o", model,
                        "--threads", "1"] + extra,
                       capture_output=True, text=True)
    took = time.monotonic() - start
    if r.returncode != 0:
        return math.inf, "error: " + r.stderr.strip().splitlines()[-1], took
    formula = ""
    for line in r.stdout.splitlines():
        if line.strip().startswith("t = "):
            formula = line.strip()[4:]
    points = os.path.join(workdir, "points.csv")
    nxt = [GRIDS[k][1] for k in range(nparams)]
    with open(points, "w") as out:
        out.write(",".join(NAMES[:nparams]) + "\n" + ",".join(map(str, nxt)) + "\n")
    r = subprocess.run([perfmodel, "predict", "-m", model, points],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return math.inf, "predict error: " + r.stderr.strip(), took
    pred = float(list(csv.DictReader(r.stdout.splitlines()))[0]["predicted"])
    truth = value(f, nxt)
    return abs(pred - truth) / truth, formula, took


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("perfmodel")
    ap.add_argument("--params", default="1,2,3")
    ap.add_argument("--noise", default="1,2,5,10")
    ap.add_argument("--functions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--detail")
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    detail = open(a.detail, "w") if a.detail else None
    print("parameters  noise %  functions  within 5 %  median error %  lead right  modeling s")
    with tempfile.TemporaryDirectory() as workdir:
        for nparams in map(int, a.params.split(",")):
            for noise in map(float, a.noise.split(",")):
                # the same functions in every noise cell of a row
                frng = random.Random(a.seed * 1000 + nparams)
                nrng = random.Random(a.seed * 1000 + nparams * 100 + int(noise * 10))
                errs = []
                leads = 0
                spent = 0.0
                while len(errs) < a.functions:
                    f = draw(frng, nparams)
                    if not significant(f, nparams):
                        continue
                    e, formula, took = run_one(a.perfmodel, workdir, f, nparams, noise, nrng,
                                               a.extra)
                    errs.append(e)
                    spent += took
                    right = lead_right(f, nparams, formula)
                    leads += right
                    if detail:
                        detail.write("%d\t%g\t%.4f\t%s\t%s\t%s\n" % (
                            nparams, noise, e, text(f, nparams), formula,
                            "lead right" if right else "lead wrong"))
                within = sum(e <= 0.05 for e in errs) / len(errs)
                errs.sort()
                print("%10d  %7g  %9d  %9.1f %%  %15.2f  %8.1f %%  %10.2f" % (
                    nparams, noise, len(errs), 100 * within, 100 * errs[len(errs) // 2],
                    100 * leads / len(errs), spent))
                sys.stdout.flush()


if __name__ == "__main__":
    main()
