#!/usr/bin/python3
"""Replay of `perfmodel plan` (issue 37, docs/plan.md): on a grid measured in
full, start from a few of its cheapest configurations, let a strategy choose
what to "measure" next (looked up in the grid), refit, and report the error of
the predictions at the targets (the largest configurations, never measurable)
against the cost spent, for four strategies:

  plan      perfmodel plan picks a batch (--count B, cost: predicted time times
            the set's resource column) within what is left of each budget
            (--budget), repeatedly until nothing more fits (--plan-seeds
            seeds of its resamples on the real sets; seed 1 on each
            synthetic draw)
  random    configurations in a random order (--seeds orders)
  cheapest  configurations in order of their measured cost
  all       every configuration of the grid but the targets

Measuring a configuration is one run: its first row in the file (GEMM's grid
holds up to 11 runs of one); its cost, that run's time x resource
(node-seconds). Error: MAPE (%) of `perfmodel predict` at the targets' rows
against their measured times, the model fitted to the rows measured so far by
`perfmodel fit` with the set's roles and (--fit auto, the default) no form: the
automatic choice a user gets, as plan makes it too; or (--fit form) the set's
eq. 4.4 form (additive: synth, GEMM; multiplicative: product, DDP, LeNet-5), given
to fit and plan alike. A strategy's error at cost C is that of its last state whose
cost is <= C (its start when none is). Each strategy's curves (plan's seeds,
random's orders, over the synthetic draws too) are summed up by their mean
and by their median: one fit that goes wild on a few points (a MAPE of
thousands of %) decides a mean, not a median. With the automatic choice the
whole grid is fitted once for each of --dealings dealings of the choice's
folds (--cv-seed 1, 2, ...): the same rows, and yet the choice, and so the
error at the targets, moves with the dealing alone; "all" sums up every one.

Sets: synth (eq. 4.4's law on an 8 x 8 grid, 5 % noise; --draws draws of the
noise, seeds 1, 2, ...; synthK: draw K alone), product (a product law, where the
forms disagree far out, the same way; productK), gemm, ddp, lenet5 (data/;
data/README.md). Needs python3 and numpy only.

usage: plan_replay.py PERFMODEL SOURCE_ROOT [--sets synth,product,gemm,ddp,lenet5]
                      [--seeds 5] [--draws 8] [--plan-seeds 3] [--members 16]
                      [--fit auto|form] [--dealings 4]
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

FRACTIONS = (0.05, 0.1, 0.2, 1 / 3, 0.5)


def synth_rows(seed):
    """t = 2e-6 n^2 nodes^-0.85 + 0.02, n in 16..2048, nodes in 1..128 (x2),
    each time times exp(0.05 N(0, 1)), numpy's PCG64 seeded by seed."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in (16, 32, 64, 128, 256, 512, 1024, 2048):
        for nodes in (1, 2, 4, 8, 16, 32, 64, 128):
            t = (2e-6 * n ** 2 * nodes ** -0.85 + 0.02) * np.exp(0.05 * rng.standard_normal())
            rows.append({"n": str(n), "nodes": str(nodes), "t": "%.9g" % t})
    return ["n", "nodes", "t"], rows


def product_rows(seed):
    """t = 3e-8 n^2 b + 0.02, n in 16..2048, b in 1..128 (x2), each time
    times exp(0.05 N(0, 1)), numpy's PCG64 seeded by 1000 + seed: a product
    of two inputs, which the power law follows and eq. 4.4 (a sum of powers)
    cannot, hidden under the constant at small sizes."""
    rng = np.random.default_rng(1000 + seed)
    rows = []
    for n in (16, 32, 64, 128, 256, 512, 1024, 2048):
        for b in (1, 2, 4, 8, 16, 32, 64, 128):
            t = (3e-8 * n ** 2 * b + 0.02) * np.exp(0.05 * rng.standard_normal())
            rows.append({"n": str(n), "b": str(b), "t": "%.9g" % t})
    return ["n", "b", "t"], rows


def read_csv(path):
    with open(path, newline="") as f:
        r = csv.DictReader(f)
        return r.fieldnames, list(r)


# name: (rows, inputs, target, resource (None: a run costs its time), roles, eq. 4.4
# form, is_target(row), start, batch); the fit is the default's choice of form (--fit
# auto) or the set's eq. 4.4 form (--fit form)
def sets(root):
    data = lambda f: read_csv(os.path.join(root, "data", f))
    spec = lambda f: ["--spec", os.path.join(root, "models", f)]
    lenet_in = ["kernel_size", "pool_size", "activation", "optimizer", "dataset", "filters",
                "learning_rate", "padding", "stride", "dropout", "threads", "batch_size"]
    synth = lambda seed: (lambda: synth_rows(seed), ["n", "nodes"], "t", "nodes",
                          ["--target", "t", "--intrinsic", "n", "--extrinsic", "nodes"], "additive",
                          lambda r: r["n"] == "2048", 4, 2)
    product = lambda seed: (lambda: product_rows(seed), ["n", "b"], "t", None,
                            ["--target", "t", "--intrinsic", "n,b"], "multiplicative",
                            lambda r: r["n"] == "2048", 4, 2)
    return {
        **{"synth%d" % d: synth(d) for d in range(1, 101)},
        **{"product%d" % d: product(d) for d in range(1, 101)},
        "gemm": (lambda: data("gemm_cpu.csv"), ["n", "threads"], "time_s", "threads",
                 spec("gemm.json"), "additive", lambda r: r["n"] == "1536", 4, 1),
        "ddp": (lambda: data("ddp_mlp.csv"),
                ["hidden", "layers", "activation", "input_dim", "world_size", "batch_size"],
                "time_per_iter_s", "world_size", spec("ddp_mlp.json"), "multiplicative",
                lambda r: r["hidden"] == "1024", 16, 8),
        "lenet5": (lambda: data("lenet5_cpu.csv"), lenet_in, "time_per_iter_s", "threads",
                   spec("lenet5.json"), "multiplicative",
                   lambda r: int(r["filters"]) * int(r["batch_size"]) >= 64 * 64, 40, 16),
    }


class Replay:
    def __init__(self, pm, work, name, cfg, members, fit):
        load, self.inputs, self.target, self.resource, roles, form, is_target, self.start, self.batch = cfg
        self.fit = roles + (["--form", form] if fit == "form" else [])
        self.header, rows = load()
        self.pm, self.work, self.name, self.members = pm, work, name, members
        self.calibration = []   # plan's: the fit's rms log error at the targets / expected
        key = lambda r: tuple(r[i] for i in self.inputs)
        self.targets = [r for r in rows if is_target(r)]
        # measuring a configuration is one run: its first row in the file
        # (plan costs a candidate as one run; GEMM's grid has up to 11)
        self.configs = {}
        for r in rows:
            if not is_target(r):
                self.configs.setdefault(key(r), [r])
        self.keys = sorted(self.configs, key=lambda k: (self.cost(k), k))
        self.total = sum(self.cost(k) for k in self.keys)
        self.write("targets.csv", self.targets, self.header)

    def cost(self, k):
        return sum(float(r[self.target]) * (float(r[self.resource]) if self.resource else 1)
                   for r in self.configs[k])

    def path(self, f):
        return os.path.join(self.work, self.name + "_" + f)

    def write(self, f, rows, fields):
        with open(self.path(f), "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=fields, extrasaction="ignore")
            w.writeheader()
            w.writerows(rows)

    def run(self, *args):
        p = subprocess.run([self.pm, *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr

    def error(self, measured, cv_seed=None):
        """MAPE (%) at the targets of a fit to the configurations measured
        (cv_seed: the automatic choice's fold seed, --cv-seed; None: --seed's)."""
        self.write("data.csv", [r for k in measured for r in self.configs[k]], self.header)
        self.rms_log = float("nan")
        cv = ["--cv-seed", str(cv_seed)] if cv_seed else []
        rc, _, err = self.run("fit", self.path("data.csv"), *self.fit, *cv, "--no-intervals", "--threads", "1",
                              "-q", "-o", self.path("model.json"))
        if rc:
            return float("nan")
        rc, out, err = self.run("predict", "-m", self.path("model.json"), self.path("targets.csv"))
        if rc:
            return float("nan")
        pred = [float(r["predicted"]) for r in csv.DictReader(out.splitlines())]
        meas = [float(r[self.target]) for r in self.targets]
        # the log error too, for the calibration of plan's spread
        self.rms_log = float(np.sqrt(np.mean([np.log(p / t) ** 2 if p > 0 else np.inf
                                              for p, t in zip(pred, meas)])))
        return 100 * float(np.mean([abs(p - t) / t for p, t in zip(pred, meas)]))

    def curve_at(self, states):
        """states: (cost, error) in order of cost -> the error at each fraction."""
        out = []
        for f in FRACTIONS:
            fit = [e for c, e in states if c <= f * self.total + 1e-12]
            out.append(fit[-1] if fit else states[0][1])
        return out

    def prefix_states(self, order, start):
        """Errors at each fraction for configurations taken in this order: the
        longest prefix whose cost is within the fraction's budget."""
        states, spent, taken = [(sum(self.cost(k) for k in start), self.error(start))], 0.0, list(start)
        spent = states[0][0]
        rest = [k for k in order if k not in set(start)]
        i = 0
        for f in FRACTIONS:
            while i < len(rest) and spent + self.cost(rest[i]) <= f * self.total:
                spent += self.cost(rest[i])
                taken.append(rest[i])
                i += 1
            states.append((spent, self.error(taken)))
        return self.curve_at(states)

    def plan_states(self, seed):
        """Errors at each fraction for plan's batches: up to --count runs at a
        time within what is left of the fraction's budget (--budget), refit
        and plan again until nothing more is affordable, then the next
        fraction."""
        measured = list(self.keys[: self.start])
        spent = sum(self.cost(k) for k in measured)
        states = [(spent, self.error(measured))]
        for f in FRACTIONS:
            while True:
                cand = [k for k in self.keys if k not in set(measured)]
                left = f * self.total - spent
                if not cand or left <= 0:
                    break
                self.write("measured.csv", [r for k in measured for r in self.configs[k]], self.header)
                self.write("cand.csv", [dict(zip(self.inputs, k)) for k in cand], self.inputs)
                rc, out, err = self.run("plan", self.path("measured.csv"), *self.fit,
                                        "--candidates", self.path("cand.csv"), "--at", self.path("targets.csv"),
                                        "--count", str(self.batch), "--budget", "%.17g" % left,
                                        *(["--cost-scale", self.resource] if self.resource else []),
                                        "--members", str(self.members),
                                        "--seed", str(seed), "--threads", "1", "-o", self.path("next.csv"), "-q",
                                        "--json")
                if rc and "no budget left" in err:
                    break
                if rc:
                    sys.exit("plan_replay: %s: perfmodel plan failed: %s" % (self.name, err.strip()))
                # plan's fit is the one error() just made of the same rows:
                # its log error at the targets against the spread plan expects
                # of a new measurement there (refits' spread and noise)
                doc = json.loads(out)
                self.calibration.append(self.rms_log / np.hypot(doc["spread_before"], doc["noise"]))
                nxt = [tuple(r[i] for i in self.inputs) for r in csv.DictReader(open(self.path("next.csv")))]
                if not nxt:
                    break
                # the plan costs by predicted time, the replay by measured
                # time: a pick the measurement makes too dear is not run
                took = 0
                for k in nxt:
                    if spent + self.cost(k) <= f * self.total:
                        measured.append(k)
                        spent += self.cost(k)
                        took += 1
                if not took:
                    break
                states.append((spent, self.error(measured)))
        return self.curve_at(states)


def fmt(v):
    return "   n/a" if v != v else " >1000" if v > 1000 else "%6.1f" % v


def curves(pm, work, name, cfg, seeds, plan_seeds, members, fit, dealings):
    """(replay, plan, random, cheapest, all) of one set: plan's and random's
    curves one per seed (plan) or order (random); the whole grid's error one
    per dealing of the automatic choice's folds (--cv-seed 1..dealings: the
    same rows, the choice's own spread), one with a form given."""
    r = Replay(pm, work, name, cfg, members, fit)
    plan = [r.plan_states(seed) for seed in range(1, plan_seeds + 1)]
    start = r.keys[: r.start]
    rand = []
    for seed in range(seeds):
        order = list(r.keys)
        np.random.default_rng(seed).shuffle(order)
        rand.append(r.prefix_states(order, start))
    # --cv-seed deals the choice's folds: with a form given there is no choice
    wholes = ([r.error(r.keys, s) for s in range(1, dealings + 1)] if fit == "auto"
              else [r.error(r.keys)])
    return r, plan, rand, r.prefix_states(r.keys, start), wholes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pm")
    ap.add_argument("root")
    ap.add_argument("--sets", default="synth,product,gemm,ddp,lenet5")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--draws", type=int, default=8)
    ap.add_argument("--plan-seeds", type=int, default=3)
    ap.add_argument("--members", type=int, default=16)
    ap.add_argument("--fit", choices=("auto", "form"), default="auto")
    ap.add_argument("--dealings", type=int, default=4)
    a = ap.parse_args()
    all_sets = sets(a.root)
    work = tempfile.mkdtemp(prefix="plan_replay_")
    print("error at the targets, MAPE %, against the cost spent as a fraction of the whole grid's")
    print("(plan: %d seeds of its resamples on the real sets, 1 on each synthetic draw;"
          % a.plan_seeds)
    print(" random: %d orders; all: every configuration, cost 1; the mean of the curves, and"
          % a.seeds)
    print(" their median, which one wild fit (a MAPE of thousands of %) does not decide;")
    print(" fit: %s)\n" % ("the default's choice of form" if a.fit == "auto" else
                           "each set's eq. 4.4 form (--form)"))
    for name in a.sets.split(","):
        draws = ([name + str(d) for d in range(1, a.draws + 1)] if name in ("synth", "product")
                 else [name])
        runs = [curves(os.path.realpath(a.pm), work, d, all_sets[d], a.seeds,
                       1 if len(draws) > 1 else a.plan_seeds, a.members, a.fit, a.dealings)
                for d in draws]
        r = runs[0][0]
        # every curve of the set: plan's seeds and random's orders of each
        # draw, cheapest's one per draw, the whole grid's one per draw and dealing
        plans = [c for x in runs for c in x[1]]
        rands = [c for x in runs for c in x[2]]
        cheaps = [x[3] for x in runs]
        wholes = [w for x in runs for w in x[4]]
        print("%s: %d configurations (%d targets' rows held out), start: the %d cheapest, "
              "plan's batch %d, whole grid's cost %.4g%s" % (
                  name, len(r.keys), len(r.targets), r.start, r.batch, r.total,
                  "; %d noise draws" % len(runs) if len(runs) > 1 else ""))
        print("  %-9s" % "cost" + "".join("%8s" % ("%.3g" % f) for f in FRACTIONS) + "%8s" % "1")
        for stat, f in (("mean", np.mean), ("median", np.median)):
            print("  %s of %d plan, %d random, %d cheapest and %d whole-grid curves" % (
                stat, len(plans), len(rands), len(cheaps), len(wholes)))
            print("  %-9s" % "plan" + "".join("  " + fmt(v) for v in f(plans, axis=0)))
            print("  %-9s" % "random" + "".join("  " + fmt(v) for v in f(rands, axis=0)))
            print("  %-9s" % "cheapest" + "".join("  " + fmt(v) for v in f(cheaps, axis=0)))
            print("  %-9s" % "all" + "".join("        " for _ in FRACTIONS) + "  " +
                  fmt(float(f(wholes))))
        if len(runs[0][4]) > 1:
            # the same rows, the choice's folds dealt anew: how far the
            # whole grid's own error moves with the dealing alone
            by_dealing = np.median([x[4] for x in runs], axis=0)
            print("  all, by the dealing of the automatic choice's folds (--cv-seed 1..%d), median "
                  "over the draws: %s" % (len(by_dealing), " ".join(fmt(v).strip() for v in by_dealing)))
        calib = np.array([c for x in runs for c in x[0].calibration])
        calib = calib[np.isfinite(calib)]
        if len(calib):
            print("  plan's spread: the fit's rms log error at the targets over the spread plan "
                  "expects there (refits' and noise), %d plan calls: median %.2f, within 2x "
                  "of it in %.0f %% (1: as expected; above: overconfident)" % (
                      len(calib), float(np.median(calib)),
                      100 * float(np.mean((calib <= 2) & (calib >= 0.5)))))
        print(flush=True)


if __name__ == "__main__":
    main()
