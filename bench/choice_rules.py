#!/usr/bin/python3
"""The automatic choice's rule (docs/model-selection.md) against variants of it,
emulated from outside with a stock perfmodel, measured where the choice matters
most: predictions beyond the data.

Cases: the synthetic grids of bench/plan_replay.py (`synth`, eq. 4.4's law, and
`product`, a product law; DRAWS draws of their 5 % noise each) fitted on n <= 1024
and on n <= 512, predicted at n = 2048; the bundled sets fitted on all but their
largest configurations (GEMM n = 1536, DDP hidden = 1024, LeNet-5 filters x batch
>= 4096) and predicted there; and two random thirds of each bundled set held out.

For each case and each dealing of 5 folds of configurations (seeded by --dealings),
every candidate of the default choice (eq. 4.4, the power law, discover's formula;
losses mae and log) is fitted on 4 folds and measured on the fifth (MAPE), and the
one-standard-error rule (the first listed within one standard error of the lowest
held-out MAPE, or of the noise floor) picks one in four ways:

  flat       as perfmodel does: discover's formula found once on every training row,
             then measured on the folds like the other forms (the search saw the
             held-out rows: its score is flattered)
  flat+low   the same, then the loss of the chosen form that held out best (the
             rule's "first listed" prefers the simpler form; mae and log are one form)
  nest       discover searched anew on each fold's training rows (nested: the
             search never sees the rows it is measured on)
  nest+low   both

The pick is fitted to every training row and its MAPE at the held-out rows printed:
per group of cases the mean and median, then each variant against `flat` (cases
better, worse, and the geometric mean of the ratio). Deterministic; with --dealings
7,8,9 about 20 min on 2 cores.

usage: choice_rules.py PERFMODEL SOURCE_ROOT [--draws 8] [--dealings 7,8,9]
"""
import argparse
import collections
import csv
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plan_replay  # noqa: E402  (the synthetic grids)

CANDS = [("additive", "mae"), ("additive", "log"), ("multiplicative", "mae"),
         ("multiplicative", "log"), ("discover", "mae"), ("discover", "log")]
VARIANTS = ("flat", "flat+low", "nest", "nest+low")


def write(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, header)
        w.writeheader()
        w.writerows(rows)


class Tool:
    def __init__(self, pm, work):
        self.pm, self.work = pm, work

    def fit(self, train, roles, extra):
        out = os.path.join(self.work, "m.json")
        r = subprocess.run([self.pm, "fit", train, *roles, "--no-intervals", *extra, "-q", "-o", out],
                           capture_output=True, text=True)
        return out if r.returncode == 0 else None

    def discover(self, train, roles):
        r = subprocess.run([self.pm, "discover", train, *roles, "-q", "--json"],
                           capture_output=True, text=True)
        if r.returncode:
            return None
        return json.loads(r.stdout)["formula"]

    def floor(self, train, roles):
        """The noise floor the choice itself uses (model.json's choice)."""
        r = subprocess.run([self.pm, "fit", train, *roles, "--no-intervals", "--form", "auto",
                            "-q", "-o", os.path.join(self.work, "f.json")], capture_output=True, text=True)
        if r.returncode:
            return None
        return json.load(open(os.path.join(self.work, "f.json")))["fit"]["choice"]["noise_floor"]

    def mape(self, model, test, target):
        if not model:
            return float("nan")
        r = subprocess.run([self.pm, "predict", "-m", model, test], capture_output=True, text=True)
        if r.returncode:
            return float("nan")
        rows = list(csv.DictReader(r.stdout.splitlines()))
        return 100 * statistics.mean(abs(float(x["predicted"]) / float(x[target]) - 1) for x in rows)


def cases(root, work, draws):
    """(name, roles, target, inputs, train path, test path)"""
    out = []
    syn = ["--target", "t", "--intrinsic", "n", "--extrinsic", "nodes"]
    pro = ["--target", "t", "--intrinsic", "n,b"]
    for d in range(1, draws + 1):
        for kind, make, roles, inputs in (("synth", plan_replay.synth_rows, syn, ["n", "nodes"]),
                                          ("product", plan_replay.product_rows, pro, ["n", "b"])):
            header, rows = make(d)
            for lim in (1024, 512):
                name = "%s%d_n%d" % (kind, d, lim)
                tr, te = os.path.join(work, name + "_tr.csv"), os.path.join(work, name + "_te.csv")
                write(tr, header, [r for r in rows if int(r["n"]) <= lim])
                write(te, header, [r for r in rows if r["n"] == "2048"])
                out.append((name, roles, "t", inputs, tr, te))
    spec = lambda f: ["--spec", os.path.join(root, "models", f)]
    lenet_in = ["kernel_size", "pool_size", "activation", "optimizer", "dataset", "filters",
                "learning_rate", "padding", "stride", "dropout", "threads", "batch_size"]
    real = [("gemm", "gemm_cpu.csv", spec("gemm.json"), "time_s", ["n", "threads"],
             lambda r: r["n"] == "1536"),
            ("ddp", "ddp_mlp.csv", spec("ddp_mlp.json"), "time_per_iter_s",
             ["hidden", "layers", "activation", "input_dim", "world_size", "batch_size"],
             lambda r: r["hidden"] == "1024"),
            ("lenet5", "lenet5_cpu.csv", spec("lenet5.json"), "time_per_iter_s", lenet_in,
             lambda r: int(r["filters"]) * int(r["batch_size"]) >= 4096)]
    for name, f, roles, target, inputs, beyond in real:
        header, rows = plan_replay.read_csv(os.path.join(root, "data", f))
        splits = [("x", [r for r in rows if not beyond(r)], [r for r in rows if beyond(r)])]
        for s in (1, 2):
            shuffled = rows[:]
            random.Random(s).shuffle(shuffled)
            k = len(shuffled) // 3
            splits.append(("r%d" % s, shuffled[k:], shuffled[:k]))
        for tag, train, test in splits:
            tr = os.path.join(work, "%s_%s_tr.csv" % (name, tag))
            te = os.path.join(work, "%s_%s_te.csv" % (name, tag))
            write(tr, header, train)
            write(te, header, test)
            out.append(("%s_%s" % (name, tag), roles, target, inputs, tr, te))
    return out


def one(tool, case, dealing, floor):
    """Each variant's pick and its MAPE at the case's held-out rows (floor: the
    choice's noise floor of the case's training rows, None for none)."""
    name, roles, target, inputs, tr, te = case
    header, rows = plan_replay.read_csv(tr)
    key = lambda r: tuple(r[i] for i in inputs)
    keys = sorted({key(r) for r in rows})
    random.Random(dealing).shuffle(keys)
    fold = {k: j % 5 for j, k in enumerate(keys)}
    full = tool.discover(tr, roles)
    nest = {c: [] for c in CANDS}
    flat = {c: [] for c in CANDS if c[0] == "discover"}
    for f in range(5):
        ftr = os.path.join(tool.work, "fold_tr.csv")
        fte = os.path.join(tool.work, "fold_te.csv")
        write(ftr, header, [r for r in rows if fold[key(r)] != f])
        write(fte, header, [r for r in rows if fold[key(r)] == f])
        formula = tool.discover(ftr, roles)
        for form, loss in CANDS:
            if form == "discover":
                m = tool.fit(ftr, roles, ["--formula", formula, "--loss", loss]) if formula else None
                nest[(form, loss)].append(tool.mape(m, fte, target))
                m = tool.fit(ftr, roles, ["--formula", full, "--loss", loss]) if full else None
                flat[(form, loss)].append(tool.mape(m, fte, target))
            else:
                m = tool.fit(ftr, roles, ["--form", form, "--loss", loss])
                nest[(form, loss)].append(tool.mape(m, fte, target))

    def stats(v):
        v = [x for x in v if not math.isnan(x)]
        if len(v) < 5:
            return float("nan"), 0.0
        return statistics.mean(v), statistics.stdev(v) / math.sqrt(len(v))

    def choose(scores, low_loss):
        st = {c: stats(scores[c]) for c in CANDS}
        ok = [c for c in CANDS if not math.isnan(st[c][0])]
        low = min(ok, key=lambda c: st[c][0])
        bar = max(st[low][0], floor or 0.0) + st[low][1] + 1e-9
        pick = next(c for c in ok if st[c][0] <= bar)
        if low_loss:
            pick = min((c for c in ok if c[0] == pick[0]), key=lambda c: st[c][0])
        return pick

    res, done = {}, {}
    for v in VARIANTS:
        pick = choose({**nest, **flat} if v.startswith("flat") else nest, v.endswith("+low"))
        if pick not in done:
            extra = ["--formula", full] if pick[0] == "discover" else ["--form", pick[0]]
            done[pick] = tool.mape(tool.fit(tr, roles, extra + ["--loss", pick[1]]), te, target)
        res[v] = (pick, done[pick])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pm")
    ap.add_argument("root")
    ap.add_argument("--draws", type=int, default=8)
    ap.add_argument("--dealings", default="7,8,9")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="choice_rules_")
    tool = Tool(os.path.realpath(a.pm), work)
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    ratios = collections.defaultdict(list)
    for case in cases(a.root, work, a.draws):
        floor = tool.floor(case[4], case[1])
        for dealing in (int(x) for x in a.dealings.split(",")):
            res = one(tool, case, dealing, floor)
            print("%-16s dealing %d  " % (case[0], dealing) + "  ".join(
                "%s: %s/%s %.2f" % (v, res[v][0][0][:4], res[v][0][1], res[v][1]) for v in VARIANTS),
                flush=True)
            g = re.sub(r"_r\d$", "_r", re.sub(r"\d+_n", "_n", case[0]))
            for v in VARIANTS:
                groups[g][v].append(res[v][1])
                ratios[v].append(math.log(res[v][1] / res["flat"][1]))
    print("\nMAPE % at the held-out rows, mean / median over the group's cases and dealings")
    print("%-14s %4s " % ("group", "n") + " ".join("%15s" % v for v in VARIANTS))
    for g in sorted(groups):
        print("%-14s %4d " % (g, len(groups[g]["flat"])) + " ".join(
            "%7.2f/%-7.2f" % (statistics.mean(groups[g][v]), statistics.median(groups[g][v]))
            for v in VARIANTS))
    for v in VARIANTS[1:]:
        r = ratios[v]
        print("%-9s against flat: %d cases better, %d worse of %d; geometric mean of the ratio %.3f" % (
            v, sum(x < -1e-9 for x in r), sum(x > 1e-9 for x in r), len(r),
            math.exp(statistics.mean(r))))


if __name__ == "__main__":
    main()
