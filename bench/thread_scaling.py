#!/usr/bin/python3
"""Thread scaling of perfmodel's commands (issue 38, docs/benchmarks.md,
"Thread scaling"): for each thread count, the whole command's wall time and
the fit's own (the model's run.wall_time_s) and, for the eq. 4.4 command,
the prediction intervals' calibration (by difference: the same command
with --no-intervals takes that much less; "–" where the difference is lost
in the noise; the automatic choice's calibration is a few per cent of its
time, lost in the noise, and is not measured so), the
median over seeds, the speed-up over one thread, and whether every seed's
model is bit-identical to its one-thread model (every member of the saved model but "run", which
holds the times and thread counts). On one thread it also splits the
whole command's time into its phases: the fit's own time, the
calibration and the rest (reading, choosing the form, checks, writing).

Commands, on data/lenet5_cpu.csv with models/lenet5.json:
  fit eq4.4   perfmodel fit --form multiplicative
  fit         perfmodel fit (the automatic choice: select's forms, discover)
  discover    perfmodel discover

Written to run unattended on a larger machine in a few minutes: the
perfmodel binary and the repository's data/ and models/, Python's standard
library only.

usage: thread_scaling.py [PERFMODEL] [--threads 1,2,4,8,16] [--seeds 3]
                         [--commands eq44,fit,discover] [--root DIR]
Thread counts above the machine's CPUs are left out.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "eq44": ("fit eq4.4", ["fit", "--form", "multiplicative"]),
    "fit": ("fit", ["fit"]),
    "discover": ("discover", ["discover"]),
}


def run(pm, root, args, threads, seed, out):
    """Wall time of one command, and the model it saved."""
    cmd = [pm, *args, os.path.join(root, "data", "lenet5_cpu.csv"),
           "--spec", os.path.join(root, "models", "lenet5.json"),
           "--threads", str(threads), "--seed", str(seed), "-q", "-o", out]
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode:
        sys.exit("thread_scaling: %s failed:\n%s" % (" ".join(cmd), p.stderr))
    with open(out) as f:
        return wall, json.load(f)


def same_bits(a, b):
    """Whether two saved models agree in everything but their "run" member:
    their JSON numbers are printed shortest round-trip, so equal text is
    equal bits."""
    strip = lambda m: json.dumps({k: v for k, v in m.items() if k != "run"}, sort_keys=True)
    return "parameters" in a and strip(a) == strip(b)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("pm", nargs="?", default="build/cli/perfmodel")
    ap.add_argument("--threads", default="1,2,4,8,16")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--commands", default="eq44,fit,discover")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    a = ap.parse_args()
    cpus = os.cpu_count() or 1
    counts = [t for t in (int(x) for x in a.threads.split(",")) if t <= cpus]
    if 1 not in counts:
        counts.insert(0, 1)
    pm = os.path.realpath(a.pm)
    work = tempfile.mkdtemp(prefix="thread_scaling_")
    print("perfmodel thread scaling on data/lenet5_cpu.csv (%d CPUs; seeds 1..%d; "
          "times: median over the seeds, s)\n" % (cpus, a.seeds))
    start = time.perf_counter()
    for key in a.commands.split(","):
        name, args = COMMANDS[key]
        base = {}
        rows = []
        for t in counts:
            whole, own, plain, same = [], [], [], True
            for seed in range(1, a.seeds + 1):
                wall, model = run(pm, a.root, args, t, seed, os.path.join(work, "m.json"))
                whole.append(wall)
                own.append(model.get("run", {}).get("wall_time_s") or float("nan"))
                if key == "eq44":
                    plain.append(run(pm, a.root, args + ["--no-intervals"], t, seed,
                                     os.path.join(work, "n.json"))[0])
                if t == counts[0]:
                    base[seed] = model
                else:
                    same &= same_bits(base[seed], model)
            w = statistics.median(whole)
            # a difference lost in the noise (or no intervals: discover) is none
            calib = w - statistics.median(plain) if plain else float("nan")
            calib = calib if calib > 0 else float("nan")
            rows.append((t, w, statistics.median(own), calib, same))
        print("%s (perfmodel %s)" % (name, " ".join(args)))
        print("| threads | whole command | speed-up | the fit's own | speed-up | calibration "
              "| speed-up | bits as on 1 thread |")
        print("|---|---|---|---|---|---|---|---|")
        num = lambda v, f: "–" if v != v else f % v
        for t, whole, own, calib, same in rows:
            print("| %d | %.2f | %.2f× | %s | %s | %s | %s | %s |" % (
                t, whole, rows[0][1] / whole, num(own, "%.2f"), num(rows[0][2] / own, "%.2f×"),
                num(calib, "%.2f"), num(rows[0][3] / calib, "%.2f×"), "yes" if same else "NO"))
        if key == "eq44":
            whole, own, calib = rows[0][1], rows[0][2], rows[0][3]
            calib = calib if calib == calib else 0.0
            print("\nphases on one thread (by difference): the fit's own %.0f %%, the intervals' "
                  "calibration %.0f %%, the rest (reading, choosing the form, checks, writing) "
                  "%.0f %%" % (100 * own / whole, 100 * calib / whole,
                               100 * max(whole - own - calib, 0) / whole))
        elif key == "fit":
            whole, own = rows[0][1], rows[0][2]
            print("\nphases on one thread: the final fit's own %.0f %%, the rest (reading, "
                  "choosing the form: discover and every candidate's folds, the calibration, "
                  "checks, writing) %.0f %%" % (100 * own / whole, 100 * (whole - own) / whole))
        print(flush=True)
    print("thread_scaling: %.0f s in all" % (time.perf_counter() - start))


if __name__ == "__main__":
    main()
