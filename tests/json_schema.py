#!/usr/bin/env python3
"""Every command's --json output on the bundled data validates against its
schema in docs/schema/ (docs/json.md), and so does every model file written.

usage: json_schema.py PERFMODEL SOURCE_ROOT

Strict: a document must be one JSON value with no NaN or Infinity (Python's
json module would accept those); every schema must itself be valid draft
2020-12; every command that 'perfmodel help' lists must have a case here; and
each schema must reject a document with an unknown or a missing member (so a
schema that accepts anything fails the test). Needs python3-jsonschema
(scripts/setup installs it).
"""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

try:
    import jsonschema
    from jsonschema import Draft202012Validator
except ImportError:
    sys.exit("json_schema.py: python3-jsonschema is missing: run scripts/setup")

pm, root = os.path.realpath(sys.argv[1]), os.path.realpath(sys.argv[2])
data, models = os.path.join(root, "data"), os.path.join(root, "models")
failures = []


def load_schemas():
    schemas = {}
    for path in sorted(glob.glob(os.path.join(root, "docs", "schema", "*.json"))):
        with open(path) as f:
            s = json.load(f)
        Draft202012Validator.check_schema(s)
        schemas[os.path.basename(path)[:-5]] = s
    return schemas


def validators(schemas):
    """One validator per schema, resolving refs between the files by $id,
    with the API of Debian 12's jsonschema (4.10) or a newer one."""
    try:
        from referencing import Registry, Resource
        reg = Registry().with_resources(
            (s["$id"], Resource.from_contents(s)) for s in schemas.values())
        return {k: Draft202012Validator(s, registry=reg) for k, s in schemas.items()}
    except ImportError:
        store = {s["$id"]: s for s in schemas.values()}
        return {k: Draft202012Validator(s, resolver=jsonschema.RefResolver.from_schema(s, store=store))
                for k, s in schemas.items()}


def strict_parse(text):
    def reject(name):
        raise ValueError("%s is not JSON" % name)
    return json.loads(text, parse_constant=reject)


def broken_copies(doc):
    """Documents the schema must reject: an unknown member, a missing one."""
    if isinstance(doc, list):
        if doc:
            d = copy.deepcopy(doc)
            key = next(k for k in d[0] if k.startswith("predicted"))
            del d[0][key]
            yield "without '%s' in the first item" % key, d
        return
    d = copy.deepcopy(doc)
    d["zz_not_in_the_schema"] = 1
    yield "with an unknown member", d
    d = copy.deepcopy(doc)
    del d[next(iter(d))]
    yield "without its first member", d


def check(v, schema, what, doc):
    errors = sorted(v[schema].iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        failures.append("%s: %s.json: at %s: %s" % (what, schema, "/".join(map(str, e.absolute_path)),
                                                   e.message[:300]))
        return
    for how, bad in broken_copies(doc):
        if v[schema].is_valid(bad):
            failures.append("%s: %s.json accepts the document %s" % (what, schema, how))


def run(v, schema, args, want_exit=0, models_written=()):
    what = "perfmodel " + " ".join(os.path.relpath(a, root) if a.startswith(root) else a for a in args)
    p = subprocess.run([pm] + args, capture_output=True, text=True)
    if p.returncode != want_exit:
        failures.append("%s: exit %d, wanted %d: %s" % (what, p.returncode, want_exit, p.stderr.strip()))
        return None
    try:
        doc = strict_parse(p.stdout)
    except ValueError as e:
        failures.append("%s: stdout is not one JSON document: %s" % (what, e))
        return None
    check(v, schema, what, doc)
    for path in models_written:
        with open(path) as f:
            check(v, "model", path, strict_parse(f.read()))
    print("ok - %s (%s.json)" % (what, schema))
    return doc


def commands():
    out = subprocess.run([pm, "help"], capture_output=True, text=True, check=True).stdout
    listed = out.split("commands:\n", 1)[1].split("\n\n", 1)[0]
    return {line.split()[0] for line in listed.splitlines() if line.strip()}


def main():
    v = validators(load_schemas())
    w = tempfile.mkdtemp()
    os.chdir(w)
    gemm, ddp = os.path.join(data, "gemm_cpu.csv"), os.path.join(data, "ddp_mlp.csv")
    covered = {"help"}	# prints text for people: no JSON to give

    # fit: plain; --seeds with held-out rows; a formula; a derived target
    run(v, "fit", ["fit", gemm, "--spec", os.path.join(models, "gemm.json"), "-o", "gemm.json", "--json"],
        models_written=["gemm.json"])
    run(v, "fit", ["fit", ddp, "--spec", os.path.join(models, "ddp_mlp.json"), "--form", "additive", "--seeds", "2",
                   "--maxiter", "20", "--test-fraction", "0.3", "-o", "ddp.json", "--json"],
        models_written=["ddp.json"])
    run(v, "fit", ["fit", ddp, "--spec", os.path.join(models, "ddp_mlp.json"), "--form", "multiplicative",
                   "--maxiter", "20", "-o", "mult.json", "--json"], models_written=["mult.json"])
    run(v, "fit", ["fit", ddp, "--spec", os.path.join(models, "ddp_mlp.json"), "--target", "lif",
                   "--maxiter", "20", "-o", "lif_model.json", "--json"], models_written=["lif_model.json"])
    run(v, "fit", ["fit", os.path.join(root, "tests", "data", "ingest", "hyperfine.json"), "--intrinsic", "n",
                   "--extrinsic", "threads", "--maxiter", "20", "-o", "runs.json", "--json"],
        models_written=["runs.json"])
    # no input at all: a constant fit, with its warning and flag
    doc = run(v, "fit", ["fit", gemm, "--target", "time_s", "--intrinsic", "", "--categorical", "",
                         "--maxiter", "20", "-o", "const.json", "--json"], models_written=["const.json"])
    if doc is not None and not (doc.get("warnings") and doc["fit"].get("constant") is True):
        failures.append("a constant fit's document has no warning or no constant flag")
    # a warm start from gemm.json: model.json says what it started from (issue 22)
    doc = run(v, "fit", ["fit", gemm, "--spec", os.path.join(models, "gemm.json"), "--warm-start", "gemm.json",
                         "-o", "warm.json", "--json"], models_written=["warm.json"])
    if doc is not None and "warm_start" not in doc["fit"]:
        failures.append("a warm-started fit's document has no fit.warm_start")
    # validation schemes: the folds' means; an extrapolation (issue 20)
    run(v, "fit", ["fit", gemm, "--spec", os.path.join(models, "gemm.json"), "--maxiter", "20",
                   "--validate", "kfold:3", "-o", "kfold.json", "--json"], models_written=["kfold.json"])
    run(v, "fit", ["fit", gemm, "--spec", os.path.join(models, "gemm.json"), "--maxiter", "20",
                   "--validate", "extrapolate:n", "-o", "extra.json", "--json"],
        models_written=["extra.json"])
    covered.add("fit")
    run(v, "select", ["select", gemm, "--spec", os.path.join(models, "gemm.json"), "--maxiter", "20",
                      "--validate", "extrapolate:threads", "-o", "selx.json", "--json"],
        models_written=["selx.json"])
    run(v, "select", ["select", gemm, "--spec", os.path.join(models, "gemm.json"), "--maxiter", "20",
                      "--cv", "2", "-o", "sel.json", "--json"], models_written=["sel.json"])
    run(v, "select", ["fit", gemm, "--spec", os.path.join(models, "gemm.json"), "--maxiter", "20",
                      "--form", "auto", "--forms", "additive", "--cv", "2", "-o", "auto.json", "--json"],
        models_written=["auto.json"])
    covered.add("select")
    run(v, "discover", ["discover", gemm, "--spec", os.path.join(models, "gemm.json"), "--maxiter", "20",
                        "-o", "disc.json", "--json"], models_written=["disc.json"])
    covered.add("discover")
    run(v, "sweep", ["sweep", gemm, "--spec", os.path.join(models, "gemm.json"), "--lambda", "1e-3:1:3",
                     "--cv", "2", "--maxiter", "10", "--json"])
    run(v, "sweep", ["sweep", gemm, "--spec", os.path.join(models, "gemm.json"), "--lambda", "1e-3:1:2",
                     "--validate", "extrapolate:n:0.6", "--maxiter", "10", "--json"])
    sweep = run(v, "sweep", ["sweep", gemm, "--spec", os.path.join(models, "gemm.json"), "--lambda",
                             "1e-2:1:2", "--test-fraction", "0.3", "--maxiter", "10", "--json"])
    covered.add("sweep")
    run(v, "eval", ["eval", "-m", "gemm.json", gemm, "--json"])
    run(v, "eval", ["eval", "-m", "lif_model.json", ddp, "--json"])
    covered.add("eval")
    with open("points.csv", "w") as f:
        f.write("n,threads,host\n512,1,a\n1024,2,b\n")
    run(v, "predict", ["predict", "-m", "gemm.json", "points.csv", "--json"])
    with open("config.json", "w") as f:
        json.dump({"model": "gemm.json", "points": [{"n": 512, "threads": 4}]}, f)
    run(v, "predict", ["predict", "config.json", "--json"])
    run(v, "predict", ["predict", "config.json", "--json", "--interval", "0.9", "--quantiles",
                       "0.5,0.95"])
    covered.add("predict")
    with open("job.json", "w") as f:
        json.dump({"n": 512}, f)
    run(v, "advise", ["advise", "-m", "gemm.json", "job.json", "--vary", "threads=1..8:x2", "--json"])
    run(v, "advise", ["advise", "-m", "gemm.json", "job.json", "--vary", "threads=1..8:x2",
                      "--quantile", "0.95", "--json"])
    run(v, "advise", ["advise", "-m", "gemm.json", "job.json", "--vary", "threads=1,2",
                      "--iterations", "2000", "--setup-time", "30", "--slurm", "--json"])
    # --slurm --json: a mapped input, one with no option (null), another pick
    run(v, "advise", ["advise", "-m", "gemm.json", "job.json", "--vary", "threads=1..8:x2",
                      "--vary", "n=256,512", "--slurm", "--json"])
    run(v, "advise", ["advise", "-m", "gemm.json", "job.json", "--vary", "threads=1..8:x2",
                      "--slurm", "--pick", "cheapest", "--slurm-map", "threads=--ntasks",
                      "--json"])
    # limits beyond the longest Slurm reads: UNLIMITED, minutes 0
    run(v, "advise", ["advise", "-m", "gemm.json", "job.json", "--vary", "threads=1..8:x2",
                      "--vary", "n=10000000", "--slurm", "--json", "--max-extrapolation", "none"])
    covered.add("advise")
    # plan (issue 37): the larger sizes as candidates and targets of gemm
    with open("plan_cand.csv", "w") as f:
        f.write("n,threads\n1792,1\n1792,2\n2048,1\n2048,2\n")
    with open("plan_targets.csv", "w") as f:
        f.write("n,threads\n4096,2\n")
    run(v, "plan", ["plan", gemm, "--spec", os.path.join(models, "gemm.json"), "--form", "multiplicative",
                    "--candidates", "plan_cand.csv", "--at", "plan_targets.csv", "--count", "2",
                    "--members", "4", "--threads", "1", "--json"])
    covered.add("plan")
    run(v, "lif", ["lif", ddp, "--spec", os.path.join(models, "ddp_mlp.json"), "--json"])
    run(v, "lif", ["lif", ddp, "--workers", "t_worker_1", "--json"], want_exit=1)
    covered.add("lif")
    run(v, "ssgd", ["ssgd", os.path.join(data, "ssgd_phases.csv"), "--json"])
    covered.add("ssgd")
    if sweep is not None:
        with open("sweep.json", "w") as f:
            json.dump(sweep, f)
    run(v, "report", ["report", "-m", "gemm.json", gemm, "--test", gemm, "--sweep", "sweep.json",
                      "-o", "r.html", "--plot-dir", "plots", "--json"])
    run(v, "report", ["report", "-m", "ddp.json", ddp, "-o", "r.html", "--json"])
    covered.add("report")
    run(v, "version", ["--version", "--json"])
    # inspect: a CSV file without and with a target, Extra-P, a CUBE set
    run(v, "inspect", ["inspect", ddp, "--json"])
    run(v, "inspect", ["inspect", gemm, "--target", "time_s", "--key", "n,threads", "--json"])
    run(v, "inspect", ["inspect", os.path.join(root, "tests", "data", "ingest", "extrap.txt"), "--json"])
    cube = os.path.join(root, "tests", "data", "cube", "profile.cubex")
    if os.path.exists(cube) and subprocess.run([pm, "inspect", cube], capture_output=True).returncode == 0:
        for x in (1, 2):
            os.makedirs("set/mm.x%d.r1" % x)
            with open(cube, "rb") as src, open("set/mm.x%d.r1/profile.cubex" % x, "wb") as dst:
                dst.write(src.read())
        run(v, "inspect", ["inspect", "set", "--scaling", "each", "--json"])
    covered.add("inspect")
    # a target kind (issue 20): its members in model.json, fit, eval,
    # predict and advise
    with open("amdahl.csv", "w") as f:
        f.write("nodes,speedup\n" + "".join("%d,%.17g\n" % (n, 1 / (0.1 + 0.9 / n))
                                             for n in (1, 2, 4, 8, 16, 32, 64)))
    run(v, "fit", ["fit", "amdahl.csv", "--target", "speedup", "--target-kind", "speedup",
                   "--extrinsic", "nodes", "--maxiter", "20", "-o", "kind.json", "--json"],
        models_written=["kind.json"])
    run(v, "eval", ["eval", "-m", "kind.json", "amdahl.csv", "--json"])
    run(v, "predict", ["predict", "-m", "kind.json", "amdahl.csv", "--json"])
    with open("kind_job.json", "w") as f:
        json.dump({"nodes": 1}, f)
    run(v, "advise", ["advise", "-m", "kind.json", "kind_job.json", "--vary", "nodes=1..64:x2",
                      "--json"])

    # batch (docs/batch.md): JSON lines, each validated; a model, an error,
    # and the marker of a run cut short (a job file whose second line is bad)
    with open("jobs.jsonl", "w") as f:
        f.write(json.dumps({"id": "g", "data": gemm, "spec": os.path.join(models, "gemm.json"),
                            "maxiter": 20}) + "\n")
        f.write(json.dumps({"id": 2, "data": "nothere.csv"}) + "\n")
    what = "perfmodel batch jobs.jsonl"
    p = subprocess.run([pm, "batch", "jobs.jsonl"], capture_output=True, text=True)
    lines = p.stdout.splitlines()
    lines.append(json.dumps({"incomplete": True, "done": 2, "jobs": 3}))
    if p.returncode != 1 or len(lines) != 3:
        failures.append("%s: exit %d, %d lines: %s" % (what, p.returncode, len(lines), p.stderr))
    for i, line in enumerate(lines):
        try:
            check(v, "batch", "%s, line %d" % (what, i + 1), strict_parse(line))
        except ValueError as e:
            failures.append("%s: line %d is not JSON: %s" % (what, i + 1, e))
    print("ok - %s (batch.json)" % what)
    covered.add("batch")

    for c in sorted(commands() - covered):
        failures.append("command '%s' has no --json case in tests/json_schema.py" % c)
    for f in failures:
        print("not ok - " + f)
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
