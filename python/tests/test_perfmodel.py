"""The Python package against the command: the same fits bit for bit, the
same predictions, the library's errors as perfmodel.Error, the GIL released
during fits, Ctrl-C (docs/python.md)."""
import csv
import io
import json
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import perfmodel


def run_cli(cli, *args):
    return subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout


def cli_model(cli, tmp_path, command, data, *args):
    """model.json of perfmodel COMMAND DATA ARGS, as a dict."""
    out = tmp_path / (command + ".json")
    run_cli(cli, command, data, *args, "-o", str(out), "-q")
    return json.loads(out.read_text())


def hexes(values):
    return [float(v).hex() for v in values]


def assert_same_model(py, doc):
    """py (a Model) is the model of doc (the command's model.json) bit for bit:
    every parameter, its scaled value, the intervals' residuals, the
    training metrics."""
    mine = json.loads(py.to_json())
    assert [p["name"] for p in doc["parameters"]] == list(py.params)
    assert hexes(p["value"] for p in doc["parameters"]) == hexes(py.params.values())
    assert hexes(p["scaled"] for p in mine["parameters"]) == \
        hexes(p["scaled"] for p in doc["parameters"])
    assert mine.get("intervals") == doc.get("intervals")
    assert mine["fit"]["training"] == doc["fit"]["training"]
    assert mine.get("seeds") == doc.get("seeds")


# ---- the same fits as the command -------------------------------------------

CASES = [
    ("gemm_cpu", "gemm", {"seed": 3, "threads": 1}, ["--seed", "3", "--threads", "1"]),
    ("gemm_cpu", "gemm", {"seed": 5, "form": "multiplicative", "loss": "log", "engine": "de",
                          "maxiter": 50, "no_intervals": True},
     ["--seed", "5", "--form", "multiplicative", "--loss", "log", "--engine", "de",
      "--maxiter", "50", "--no-intervals"]),
    ("ddp_mlp", "ddp_mlp", {"seed": 2, "threads": 2, "reg": "l2", "lam": 0.01,
                            "lambda_power": 0.001, "test_fraction": 0.25},
     ["--seed", "2", "--threads", "2", "--reg", "l2", "--lambda", "0.01",
      "--lambda-power", "0.001", "--test-fraction", "0.25"]),
    ("gemm_cpu", "gemm", {"form": "additive", "seeds": 3, "seed": 7, "validate": "kfold:3",
                          "mutation": (0.4, 0.9), "recombination": 0.8, "popsize": 8,
                          "tol": 0.01},
     ["--form", "additive", "--seeds", "3", "--seed", "7", "--validate", "kfold:3",
      "--mutation", "0.4,0.9", "--recombination", "0.8", "--popsize", "8", "--tol", "0.01"]),
    ("lenet5_cpu", "lenet5", {"form": "additive", "seed": 3, "maxiter": 20,
                              "ignore": ["dropout"], "scale": "none", "no_polish": True,
                              "intervals": False},
     ["--form", "additive", "--seed", "3", "--maxiter", "20", "--ignore", "dropout",
      "--scale", "none", "--no-polish", "--no-intervals"]),
]


@pytest.mark.parametrize("data,spec,options,args", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_fit_is_the_commands(cli, source, tmp_path, data, spec, options, args):
    path = str(source / "data" / (data + ".csv"))
    spec_path = str(source / "models" / (spec + ".json"))
    doc = cli_model(cli, tmp_path, "fit", path, "--spec", spec_path, *args)
    m = perfmodel.fit(path, spec_path, **options)
    assert_same_model(m, doc)
    # and a model the command saved reads back to the same numbers
    loaded = perfmodel.load(tmp_path / "fit.json")
    assert hexes(loaded.params.values()) == hexes(m.params.values())


def test_roles_as_options_are_the_commands(cli, gemm, tmp_path):
    data, _ = gemm
    doc = cli_model(cli, tmp_path, "fit", data, "--target", "time_s", "--intrinsic", "n",
                    "--extrinsic", "threads", "--formula", "a * n^p / threads^q + C",
                    "--seed", "4", "--threads", "1")
    m = perfmodel.fit(data, target="time_s", intrinsic=["n"], extrinsic="threads",
                      formula="a * n^p / threads^q + C", seed=4, threads=1)
    assert_same_model(m, doc)
    assert m.formula == "a * n^p / threads^q + C" and m.form == "formula"


def test_select_and_discover_are_the_commands(cli, gemm, tmp_path):
    data, spec = gemm
    doc = cli_model(cli, tmp_path, "select", data, "--spec", spec, "--threads", "1",
                    "--forms", "additive,multiplicative", "--loss", "mae,mape", "--cv", "3")
    m = perfmodel.select(data, spec, threads=1, forms=["additive", "multiplicative"],
                         loss=["mae", "mape"], cv=3)
    assert_same_model(m, doc)
    assert len(m.selection) == 4 and sum(c["chosen"] for c in m.selection) == 1
    assert {c["form"] for c in m.selection} == {"additive", "multiplicative"}

    doc = cli_model(cli, tmp_path, "discover", data, "--spec", spec, "--threads", "1",
                    "--max-terms", "2", "--beam", "4")
    m = perfmodel.discover(data, spec, threads=1, max_terms=2, beam=4)
    assert_same_model(m, doc)
    chosen = [c for c in m.discovery["candidates"] if c["chosen"]]
    assert len(chosen) == 1 and chosen[0]["formula"] == m.formula


def test_form_auto_is_select(gemm):
    data, spec = gemm
    a = perfmodel.fit(data, spec, form="auto", forms="additive,multiplicative", loss="mae",
                      threads=1)
    b = perfmodel.select(data, spec, forms="additive,multiplicative", loss="mae", threads=1)
    assert hexes(a.params.values()) == hexes(b.params.values())
    assert [(c["form"], c["loss"], c["chosen"], c["mape"].hex()) for c in a.selection] == \
        [(c["form"], c["loss"], c["chosen"], c["mape"].hex()) for c in b.selection]


def test_no_form_chooses_it(gemm):
    # issue 33: with no form given (none in the spec either) fit chooses as
    # select does, eq. 4.4 first; form="additive" is the thesis's fit
    data, spec = gemm
    a = perfmodel.fit(data, spec, threads=1)
    b = perfmodel.select(data, spec, threads=1)
    assert hexes(a.params.values()) == hexes(b.params.values())
    assert [c["form"] for c in a.selection] == ["additive"] * 2 + ["multiplicative"] * 2 + \
        ["discover"] * 2
    assert a.form == "additive" and sum(c["chosen"] for c in a.selection) == 1
    c = perfmodel.fit(data, {"target": "time_s", "intrinsic": ["n"], "extrinsic": ["threads"],
                             "form": "multiplicative"}, threads=1)
    assert c.selection is None and c.form == "multiplicative"


def test_warm_start_is_the_commands(cli, gemm, tmp_path):
    data, spec = gemm
    first = tmp_path / "first.json"
    run_cli(cli, "fit", data, "--spec", spec, "--seed", "2", "--threads", "1", "-o", str(first),
            "-q")
    doc = cli_model(cli, tmp_path, "fit", data, "--spec", spec, "--seed", "3", "--threads", "1",
                    "--warm-start", str(first))
    assert_same_model(perfmodel.fit(data, spec, seed=3, threads=1, warm_start=first), doc)
    assert_same_model(perfmodel.fit(data, spec, seed=3, threads=1,
                                    warm_start=perfmodel.load(first)), doc)


# ---- data and specs in memory -------------------------------------------------

def read_columns(path, kind=float):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return {name: [kind(r[i]) for r in rows[1:]] for i, name in enumerate(rows[0])}


def test_dict_and_spec_dict_fit_as_the_file(gemm):
    data, spec = gemm
    by_path = perfmodel.fit(data, spec, seed=3, threads=1)
    cols = read_columns(data)
    by_dict = perfmodel.fit(cols, json.loads(open(spec).read()), seed=3, threads=1)
    assert hexes(by_dict.params.values()) == hexes(by_path.params.values())
    numpy_cols = {k: np.array(v) for k, v in cols.items()}
    by_numpy = perfmodel.fit(numpy_cols, spec, seed=3, threads=1)
    assert hexes(by_numpy.params.values()) == hexes(by_path.params.values())
    # the same cells, so the same fingerprint; the data's name is a temporary file
    by_text = perfmodel.fit(read_columns(data, str), spec, seed=3, threads=1)
    assert by_text.info["fingerprint"] == by_path.info["fingerprint"]
    assert by_text.info["data"] != by_path.info["data"]
    assert hexes(by_text.params.values()) == hexes(by_path.params.values())


def test_dataframe_fits_as_the_file(gemm, source):
    pd = pytest.importorskip("pandas")
    data, spec = gemm
    by_path = perfmodel.fit(data, spec, seed=3, threads=1)
    by_frame = perfmodel.fit(pd.read_csv(data), spec, seed=3, threads=1)
    assert hexes(by_frame.params.values()) == hexes(by_path.params.values())
    # text columns too: categorical inputs
    lenet = str(source / "data" / "lenet5_cpu.csv")
    lspec = str(source / "models" / "lenet5.json")
    a = perfmodel.fit(lenet, lspec, seed=1, maxiter=5, intervals=False, threads=1)
    b = perfmodel.fit(pd.read_csv(lenet, dtype=str), lspec, seed=1, maxiter=5, intervals=False,
                      threads=1)
    assert hexes(a.params.values()) == hexes(b.params.values())
    assert a.levels == b.levels and set(a.levels) == {"activation", "optimizer", "dataset",
                                                      "padding"}
    assert sorted(a.levels["padding"]) == sorted(pd.read_csv(lenet)["padding"].unique())
    assert hexes(a.predict(pd.read_csv(lenet).head(5))) == \
        hexes(b.predict(pd.read_csv(lenet, dtype=str).head(5)))
    frame = pd.DataFrame({"n": [512, 1024], "threads": [4, 8]})
    assert hexes(by_path.predict(frame)) == hexes(by_path.predict({"n": [512, 1024],
                                                                   "threads": [4, 8]}))


# ---- the model: predictions, intervals, save and load ----------------------

def cli_predictions(cli, model_path, points_path, *args):
    out = run_cli(cli, "predict", "-m", str(model_path), str(points_path), *args)
    return list(csv.DictReader(io.StringIO(out)))


def test_predict_and_interval_are_the_commands(cli, gemm, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data, spec, seed=3, threads=1)
    m.save(tmp_path / "m.json")
    points = tmp_path / "points.csv"
    points.write_text("threads,n\n1,256\n4,512\n8,1024\n16,3000\n")
    rows = cli_predictions(cli, tmp_path / "m.json", points, "--interval", "0.8")
    want = [float(r["predicted"]) for r in rows]
    for p in (points, {"n": [256, 512, 1024, 3000], "threads": [1, 4, 8, 16]},
              [[256, 1], [512, 4], [1024, 8], [3000, 16]],
              np.array([[256.0, 1.0], [512.0, 4.0], [1024.0, 8.0], [3000.0, 16.0]])):
        got = m.predict(p)
        assert isinstance(got, np.ndarray) and got.dtype == np.float64
        assert hexes(got) == hexes(want)
    lower, upper = m.interval(points, 0.8)
    assert hexes(lower) == hexes(float(r["lower"]) for r in rows)
    assert hexes(upper) == hexes(float(r["upper"]) for r in rows)
    assert (lower < want).all() and (np.array(want) < upper).all()
    assert m.inputs == ["n", "threads"] and m.has_intervals


def test_save_load_round_trip(gemm, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data, spec, form="additive", seed=3, threads=1)
    m.save(str(tmp_path / "m.json"))
    back = perfmodel.load(str(tmp_path / "m.json"))
    assert hexes(back.params.values()) == hexes(m.params.values())
    assert back.metrics == m.metrics and back.warnings == m.warnings
    assert back.to_json() == m.to_json()
    assert perfmodel.loads(m.to_json()).params == m.params
    with pytest.raises(perfmodel.Error, match="invalid JSON") as e:
        perfmodel.loads('{"format": 1,\n]', "x.json")
    assert (e.value.status, e.value.file, e.value.line, e.value.column) == \
        ("parse error", "x.json", 2, 1)
    pts = {"n": [100, 200], "threads": [2, 2]}
    assert hexes(back.predict(pts)) == hexes(m.predict(pts))


def test_model_attributes(gemm):
    data, spec = gemm
    m = perfmodel.fit(data, spec, form="additive", seed=3, threads=1, test_fraction=0.3)
    assert list(m.params) == ["a_n", "p_n", "q_threads", "C"]
    assert all(np.isnan(v) for v in m.params_std.values())
    assert m.formula is None and m.form == "additive" and m.target == "time_s"
    assert m.metrics["training"]["rows"] == 70 and m.metrics["test"]["rows"] == 30
    assert 0 < m.metrics["test"]["mape"] < 100
    assert m.info["seed"] == 3 and m.info["stop"] in ("converged", "maxiter")
    assert m.warnings == [] and "time_s" in repr(m)


def test_warnings(source):
    with pytest.warns(perfmodel.FitWarning, match="activation"):
        m = perfmodel.fit(str(source / "data" / "ddp_mlp.csv"),
                          str(source / "models" / "ddp_mlp.json"), form="additive", seed=2,
                          threads=1, intervals=False, reg="l2", lam=0.01)
    assert any("activation" in w for w in m.warnings)


# ---- errors: perfmodel.Error with the library's message and place ------------

def test_error_is_a_value_error():
    assert issubclass(perfmodel.Error, ValueError)


def test_missing_file(gemm, tmp_path):
    _, spec = gemm
    with pytest.raises(perfmodel.Error, match="cannot open") as e:
        perfmodel.fit(str(tmp_path / "none.csv"), spec)
    assert e.value.file == str(tmp_path / "none.csv") and e.value.line is None
    with pytest.raises(perfmodel.Error, match="cannot open"):
        perfmodel.load(tmp_path / "none.json")


def test_bad_data_names_the_cell(gemm, tmp_path):
    _, spec = gemm
    bad = tmp_path / "bad.csv"
    bad.write_text("n,threads,time_s\n100,1,0.5\n200,x,0.7\n300,2,0.9\n")
    with pytest.raises(perfmodel.Error) as e:
        perfmodel.fit(str(bad), spec, threads=1)
    assert (e.value.file, e.value.line, e.value.column) == (str(bad), 3, 5)
    assert "threads" in str(e.value)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("n,threads,time_s\n100,1,0.5\n200,2\n")
    with pytest.raises(perfmodel.Error) as e:
        perfmodel.fit(str(ragged), spec)
    assert e.value.line == 3
    with pytest.raises(perfmodel.Error, match="different lengths"):
        perfmodel.fit({"n": [1, 2], "threads": [1], "time_s": [1, 2]}, spec)
    with pytest.raises(TypeError):
        perfmodel.fit(42, spec)


def test_a_gap_among_numbers_is_an_error_or_a_dropped_row(tmp_path):
    # 'nan' in a column of numbers keeps it numeric (never a categorical):
    # the fit names the cell, or drop_incomplete drops and counts its row
    lines = ["n,x,time_s"] + [f"{n},{1 + n % 3},{0.01 * n ** 1.5 * (1 + n % 3):.6g}"
                              for n in range(1, 13)]
    lines[4] = "4,nan,0.16"
    gap = tmp_path / "gap.csv"
    gap.write_text("\n".join(lines) + "\n")
    with pytest.raises(perfmodel.Error, match=r"column 'x': 'nan' is not a finite number.*"
                       r"--drop-incomplete") as e:
        perfmodel.fit(str(gap), target="time_s", form="additive", threads=1)
    assert (e.value.file, e.value.line, e.value.column) == (str(gap), 5, 3)
    with pytest.warns(perfmodel.FitWarning, match="dropped 1 incomplete row"):
        m = perfmodel.fit(str(gap), target="time_s", form="additive", threads=1,
                          drop_incomplete=True)
    assert any("dropped 1 incomplete row" in w and "(empty or nan in x)" in w
               for w in m.warnings)
    assert m.metrics["training"]["rows"] == 11


def test_a_copy_of_the_target_is_not_an_inferred_input(source):
    with pytest.warns(perfmodel.FitWarning, match="left out of the inputs inferred"):
        m = perfmodel.fit(str(source / "data" / "ddp_mlp.csv"), target="time_per_iter_s",
                          form="additive", threads=1, maxiter=30)
    assert not any(i.startswith("t_worker") for i in m.inputs)
    assert sum("left out of the inputs inferred" in w for w in m.warnings) == 2


def test_zeros_fit_under_mae_and_are_refused_under_mape():
    # a count 3·n^1.5 that is 0 at n = 1: a value under mae (the default)
    n = [1, 2, 4, 8, 16, 32]
    data = {"n": n, "calls": [0.0 if x == 1 else 3 * x ** 1.5 for x in n]}
    spec = {"target": "calls", "intrinsic": ["n"]}
    m = perfmodel.fit(data, spec, threads=1)
    assert abs(m.params["p_n"] - 1.5) < 1e-6 and abs(m.params["a_n"] - 3) < 1e-5
    assert m.metrics["training"]["mape"] < 1e-3     # over the rows that are not 0
    assert m.metrics["training"]["mape_rows"] == 5 and m.metrics["training"]["rows"] == 6
    with pytest.raises(perfmodel.Error, match=r"target 'calls': 0 is not a time > 0 "
                       r"\(loss mape divides by the values; use --loss mae or mse") as e:
        perfmodel.fit(data, spec, loss="mape")
    # a dict's row by its position, the column by its key
    assert (e.value.row, e.value.column, e.value.line) == (0, "calls", None)
    with pytest.raises(perfmodel.Error, match="every value of target 'calls' is 0"):
        perfmodel.fit({"n": n, "calls": [0.0] * len(n)}, spec)


def test_bad_spec(gemm, tmp_path):
    data, _ = gemm
    spec = tmp_path / "spec.json"
    spec.write_text('{"target": "time_s",\n "intrinsic": [1,]}\n')
    with pytest.raises(perfmodel.Error) as e:
        perfmodel.fit(data, str(spec))
    assert e.value.file == str(spec) and e.value.line == 2 and e.value.column > 1
    with pytest.raises(perfmodel.Error, match="'intrinsic' must be an array of column names"):
        perfmodel.fit(data, {"target": "time_s", "intrinsic": [1]})
    with pytest.raises(perfmodel.Error, match="no column 'nope'"):
        perfmodel.fit(data, {"target": "time_s", "intrinsic": ["nope"]})
    with pytest.raises(perfmodel.Error) as e:
        perfmodel.fit(data, target="time_s", formula="a * n^ + C")
    assert e.value.file == "formula" and e.value.column is not None


@pytest.mark.parametrize("options,message", [
    ({"sed": 3}, "unknown option 'sed'"),
    ({"output": "m.json"}, "unknown option 'output'"),
    ({"seed": -1}, r"--seed '-1': expected a whole number >= 0"),
    ({"seed": "x"}, r"--seed 'x': expected a whole number >= 0"),
    ({"seed": 1.5}, r"--seed '1.5': expected a whole number"),
    ({"threads": 0}, "--threads '0': expected a whole number from 1 to 1024"),
    ({"form": "cubic"}, "--form 'cubic': expected additive, multiplicative or auto"),
    ({"loss": "l3"}, "unknown loss 'l3'|loss"),
    ({"reg": "l3"}, "--reg 'l3': expected none, l1 or l2"),
    ({"lam": 0.1}, "--lambda needs --reg l1 or l2"),
    ({"lam": -1, "reg": "l2"}, "--lambda '-1': expected a number >= 0"),
    ({"tol": float("nan")}, "--tol 'nan': expected a number >= 0"),
    ({"mutation": (1, 0.5)}, "mutation"),
    ({"test_fraction": 1.5}, "--test-fraction '1.5': expected a number between 0 and 1"),
    ({"test_fraction": 0.3, "validate": "loo"}, "exclude each other"),
    ({"split_seed": 4}, "--split-seed needs --test-fraction"),
    ({"validate": "kfold:1"}, "kfold"),
    ({"intervals": "no"}, "intervals='no': expected True or False"),
    ({"form": "additive", "cv": 3}, "not with a form given"),
    ({"seeds": 3}, "--seeds K repeats the fit of one form: name it"),
    ({"beam": 3}, "discover's"),
    ({"form": "additive", "formula": "a * n + C"}, "one of --form and --formula"),
    ({"format": "xml"}, "xml"),
    ({"target_kind": "speed"}, "speed"),
])
def test_bad_options(gemm, options, message):
    data, spec = gemm
    with pytest.raises(perfmodel.Error, match=message):
        perfmodel.fit(data, spec, **options)


def test_predict_errors(gemm, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data, spec, seed=3, threads=1)
    with pytest.raises(perfmodel.Error, match="no column 'threads' in <points>"):
        m.predict({"n": [1, 2], "cores": [1, 2]})
    with pytest.raises(perfmodel.Error, match="2 columns"):
        m.predict([[1, 2, 3]])
    with pytest.raises(perfmodel.Error) as e:
        m.predict({"n": [100, -1], "threads": [1, 1]})
    assert (e.value.row, e.value.column, e.value.line) == (1, "n", None)
    with pytest.raises(perfmodel.Error, match="interval|level|probab|between"):
        m.interval({"n": [100], "threads": [1]}, 1.5)
    bare = perfmodel.fit(data, spec, seed=3, threads=1, intervals=False)
    assert not bare.has_intervals
    with pytest.raises(perfmodel.Error, match="without --no-intervals|no intervals|intervals"):
        bare.interval({"n": [100], "threads": [1]}, 0.9)
    with pytest.raises(perfmodel.Error, match="cannot"):
        m.save(tmp_path / "no" / "such" / "m.json")


# ---- threads and signals: in child processes, as a failure may hang --------

def run_child(script, timeout=120, **popen):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True,
                          text=True, timeout=timeout, **popen)


def test_gil_released_two_threads(gemm):
    """A fit that would run for hours on one thread while the main thread
    fits too: the main thread's fit ends, and equals a fit on its own, only
    if the first released the GIL; then SIGINT stops the long one, handed to
    Python's handler afterwards (here one that does not raise)."""
    data, spec = gemm
    child = run_child(f"""
        import os, signal, threading, time
        import perfmodel
        got = []
        signal.signal(signal.SIGINT, lambda *a: got.append("handler"))
        long = {{}}
        def forever():
            long["m"] = perfmodel.fit({data!r}, {spec!r}, form="additive", threads=1,
                                      maxiter=100000000, tol=0, atol=0, intervals=False,
                                      seed=9)
        t = threading.Thread(target=forever)
        t.start()
        time.sleep(0.5)
        alone = perfmodel.fit({data!r}, {spec!r}, seed=3, threads=1)
        assert t.is_alive(), "the long fit ended by itself"
        print("concurrent", [v.hex() for v in alone.params.values()])
        while t.is_alive():
            os.kill(os.getpid(), signal.SIGINT)
            t.join(0.5)
        print("interrupted", long["m"].info["interrupted"], long["m"].info["stop"], got[:1])
    """)
    assert child.returncode == 0, child.stderr
    alone = perfmodel.fit(data, spec, seed=3, threads=1)
    lines = child.stdout.splitlines()
    assert lines[0] == "concurrent " + str(hexes(alone.params.values()))
    assert lines[1] == "interrupted True interrupted ['handler']"


def test_ctrl_c_raises_keyboard_interrupt(gemm):
    data, spec = gemm
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import perfmodel
        print("fitting", flush=True)
        try:
            perfmodel.fit({data!r}, {spec!r}, threads=1, maxiter=100000000, tol=0, atol=0,
                          intervals=False)
        except KeyboardInterrupt:
            print("KeyboardInterrupt", flush=True)
    """)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "fitting\n"
        import time
        time.sleep(1)       # the fit has begun: it would run for hours
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert out == "KeyboardInterrupt\n"
    # and Python's own SIGINT handling is back: no handler of perfmodel's left
    child = run_child(f"""
        import signal, perfmodel
        before = signal.getsignal(signal.SIGINT)
        perfmodel.fit({data!r}, {spec!r}, threads=1, seed=3)
        assert signal.getsignal(signal.SIGINT) is before
        try:
            signal.raise_signal(signal.SIGINT)
        except KeyboardInterrupt:
            print("ok")
    """)
    assert child.stdout == "ok\n", child.stderr


def test_ignored_sigint_stays_ignored(gemm):
    """A process that ignores SIGINT: the fit runs on, to the end."""
    data, spec = gemm
    child = run_child(f"""
        import os, signal, threading, perfmodel
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()
        m = perfmodel.fit({data!r}, {spec!r}, threads=1, maxiter=5000, tol=0, atol=0,
                          intervals=False)
        print(m.info["interrupted"], m.info["stop"], m.info["generations"])
    """)
    assert child.returncode == 0, child.stderr
    assert child.stdout == "False maxiter 5000\n"


def test_import_alone():
    """import perfmodel needs numpy only, not pandas."""
    child = run_child("""
        import sys
        sys.modules["pandas"] = None    # import pandas now fails
        import perfmodel
        print(perfmodel.__version__, "pandas" in sys.modules and sys.modules["pandas"] is not None)
    """)
    assert child.returncode == 0, child.stderr
    assert child.stdout.split() == [perfmodel.__version__, "False"]


def test_cube_set_is_the_commands(cli, source, tmp_path):
    """A folder of CUBE runs (tests/cube_gen.py) read with the CUBE options
    (callpath, scaling, inclusive) fits as the command fits it."""
    for x in (1, 2, 4, 8):
        run = tmp_path / "cubes" / f"mm.x{x}.r1"
        run.mkdir(parents=True)
        subprocess.run([sys.executable, str(source / "tests" / "cube_gen.py"),
                        str(run / "profile.cubex"), "--scale", str(x)], check=True)
    data = str(tmp_path / "cubes")
    for scaling, inclusive, path in (("strong", False, "main->compute->kernel"),
                                     ("weak", True, "main")):
        args = ["--callpath", path, "--scaling", scaling, "--intrinsic", "x",
                "--maxiter", "50", "--threads", "1"] + (["--inclusive"] if inclusive else [])
        doc = cli_model(cli, tmp_path, "fit", data, *args)
        m = perfmodel.fit(data, callpath=path, scaling=scaling, inclusive=inclusive,
                          intrinsic=["x"], maxiter=50, threads=1)
        assert_same_model(m, doc)
    with pytest.raises(perfmodel.Error, match="scaling"):
        perfmodel.fit(data, callpath="main", scaling="linear", intrinsic=["x"])


def test_inspect_is_the_commands(cli, gemm, source, tmp_path):
    """inspect() is perfmodel inspect --json, parsed: a CSV file with a
    target and key, an Extra-P file with a metric, a CUBE set with scaling."""
    data = gemm[0]
    extrap = str(source / "tests" / "data" / "ingest" / "extrap.txt")
    for run in range(1, 3):
        folder = tmp_path / "cubes" / f"mm.x{run}.r1"
        folder.mkdir(parents=True)
        subprocess.run([sys.executable, str(source / "tests" / "cube_gen.py"),
                        str(folder / "profile.cubex"), "--scale", str(run)], check=True)
    cubes = str(tmp_path / "cubes")
    for path, kw, args in ((data, {"target": "time_s", "key": ["n", "threads"]},
                            ["--target", "time_s", "--key", "n,threads"]),
                           (extrap, {"metric": "visits"}, ["--metric", "visits"]),
                           (cubes, {"callpath": "main->compute", "scaling": "each"},
                            ["--callpath", "main->compute", "--scaling", "each"])):
        out = subprocess.run([cli, "inspect", path, "--json"] + args, capture_output=True,
                             text=True, check=True).stdout
        assert perfmodel.inspect(path, **kw) == json.loads(out)
    got = perfmodel.inspect(data, target="time_s", key="n,threads")
    assert got["points"]["count"] == 16
    assert [c["role"] for c in got["columns"]] == ["parameter", "parameter", "target", "other"]
    # columns as for fit: a dict
    cols = perfmodel.inspect({"n": [1, 2, 2], "t": [1.0, 2.0, 3.0]}, target="t")
    assert cols["points"]["list"][1] == {"point": {"n": 2}, "runs": 2, "value": 2.5,
                                         "cv": pytest.approx(0.5 ** 0.5 / 2.5)}


def test_inspect_errors(gemm):
    with pytest.raises(perfmodel.Error, match="'seed' is an option of the fit"):
        perfmodel.inspect(gemm[0], seed=3)
    with pytest.raises(perfmodel.Error, match="no column 'm'"):
        perfmodel.inspect(gemm[0], target="time_s", key=["n", "m"])
    with pytest.raises(perfmodel.Error, match="unknown option 'bogus'"):
        perfmodel.inspect(gemm[0], bogus=1)


@pytest.mark.parametrize("options,message", [
    ({"help": True}, "unknown option 'help'"),
    ({"quiet": True}, "unknown option 'quiet'"),
    ({"thre": 2}, "unknown option 'thre'"),
    ({"lam": 0.1, "lambda_": 0.2}, "option 'lambda_' given twice"),
    ({"polish": False, "no_polish": True}, "given twice"),
    ({"target": None}, "target=None: expected a string or a number"),
])
def test_option_names_are_the_tables(gemm, options, message):
    data, spec = gemm
    with pytest.raises(perfmodel.Error, match=message):
        perfmodel.fit(data, spec, **options)


def test_command_line_options_are_refused_by_the_extension(gemm):
    from perfmodel import _perfmodel
    data, spec = gemm
    for words in (["--help"], ["--json"], ["-o", "m.json"], ["-q"], ["--plot-dir=x"]):
        with pytest.raises(perfmodel.Error, match="the command line's"):
            _perfmodel._fit(0, words + ["--spec=" + spec, "--", data], None, None)
    with pytest.raises(perfmodel.Error, match="unknown option '--bogus'"):
        _perfmodel._fit(0, ["--bogus", "--", data], None, None)
