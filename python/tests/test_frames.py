"""The package as a pandas user meets it (issue 39): a fit's warnings as
perfmodel.FitWarning with the command's text, an error about a cell of a
DataFrame named by the frame's own row label and column name."""
import json
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import perfmodel

pd = pytest.importorskip("pandas")

WARNING = "perfmodel: warning: "


def ddp(source):
    return (str(source / "data" / "ddp_mlp.csv"), str(source / "models" / "ddp_mlp.json"),
            dict(form="additive", seed=2, threads=1, intervals=False, reg="l2", lam=0.01))


def gap_frame():
    """12 rows whose x is NaN in the row labelled 'r3'."""
    n = list(range(1, 13))
    x = [1.0 + k % 3 for k in n]
    x[3] = float("nan")
    t = [0.01 * k ** 1.5 * (1 + k % 3) for k in n]
    return pd.DataFrame({"n": n, "x": x, "time_s": t}, index=[f"r{k}" for k in range(12)])


# ---- warnings: the command's, as Python warnings ---------------------------

def test_fit_warnings_are_the_commands(cli, source, tmp_path):
    data, spec, options = ddp(source)
    out = subprocess.run([cli, "fit", data, "--spec", spec, "--form", "additive", "--seed", "2",
                          "--threads", "1", "--no-intervals", "--reg", "l2", "--lambda", "0.01",
                          "-q", "-o", str(tmp_path / "m.json")],
                         check=True, capture_output=True, text=True)
    want = [line[len(WARNING):] for line in out.stderr.splitlines() if line.startswith(WARNING)]
    assert want, "the case must warn"
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        m = perfmodel.fit(data, spec, **options)
    assert [str(w.message) for w in got] == want == m.warnings
    assert all(w.category is perfmodel.FitWarning for w in got)
    assert issubclass(perfmodel.FitWarning, UserWarning)
    # the warning points at the caller's line, not into the package
    assert all(w.filename == __file__ for w in got)


def test_fit_warnings_can_be_errors(source):
    data, spec, options = ddp(source)
    with warnings.catch_warnings():
        warnings.simplefilter("error", perfmodel.FitWarning)
        with pytest.raises(perfmodel.FitWarning, match="activation"):
            perfmodel.fit(data, spec, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfmodel.FitWarning)
        with warnings.catch_warnings(record=True) as got:
            m = perfmodel.fit(data, spec, **options)
    assert got == [] and m.warnings       # filtered out, still on the model
    script = textwrap.dedent(f"""
        import perfmodel
        perfmodel.fit({data!r}, {spec!r}, **{options!r})
    """)
    child = subprocess.run([sys.executable, "-W", "error", "-c", script], capture_output=True,
                           text=True, timeout=120)
    assert child.returncode == 1 and "perfmodel.FitWarning: column 'activation'" in child.stderr


def test_select_and_discover_warn():
    options = dict(target="time_s", threads=1, drop_incomplete=True, maxiter=20)
    with pytest.warns(perfmodel.FitWarning, match=r"dropped 1 incomplete row"):
        perfmodel.select(gap_frame(), forms="additive", **options)
    with pytest.warns(perfmodel.FitWarning, match=r"dropped 1 incomplete row"):
        perfmodel.discover(gap_frame(), max_terms=1, **options)


def test_a_loaded_model_does_not_warn(source, tmp_path):
    data, spec, options = ddp(source)
    with pytest.warns(perfmodel.FitWarning):
        m = perfmodel.fit(data, spec, **options)
    m.save(tmp_path / "m.json")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        back = perfmodel.load(tmp_path / "m.json")
    assert back.warnings == m.warnings


# ---- errors: a cell of a DataFrame by its row label and column name --------

def test_a_bad_cell_of_a_frame_names_its_row_and_column(tmp_path):
    with pytest.raises(perfmodel.Error, match=r"^data: row 'r3', column 'x': column 'x': 'nan' "
                       r"is not a finite number") as e:
        perfmodel.fit(gap_frame(), target="time_s", form="additive", threads=1)
    assert (e.value.row, e.value.column, e.value.file, e.value.line) == ("r3", "x", None, None)
    assert e.value.message.startswith("column 'x': 'nan'")
    # a column named by a number: the frame's own name, not its text
    frame = gap_frame().rename(columns={"x": 5})
    with pytest.raises(perfmodel.Error) as e:
        perfmodel.fit(frame, target="time_s", form="additive", threads=1)
    assert (e.value.row, e.value.column) == ("r3", 5)
    # inspect's reading too
    with pytest.raises(perfmodel.Error, match=r"^data: row 'r3', column 'x': column 'x'") as e:
        perfmodel.inspect(gap_frame(), target="x", key="n")
    assert (e.value.row, e.value.column) == ("r3", "x")
    # the same cell in a file: its line and column, no row
    gap_frame().to_csv(tmp_path / "gap.csv", index=False)
    with pytest.raises(perfmodel.Error, match=r"^column 'x': empty cell") as e:
        perfmodel.fit(str(tmp_path / "gap.csv"), target="time_s", form="additive", threads=1)
    assert (e.value.row, e.value.file, e.value.line, e.value.column) == \
        (None, str(tmp_path / "gap.csv"), 5, 3)


def test_a_bad_cell_of_test_rows_names_them(gemm):
    data, spec = gemm
    frame = pd.read_csv(data)
    test = frame.head(5).set_index(pd.Index([10, 20, 30, 40, 50]))
    test.loc[40, "time_s"] = -1.0
    with pytest.raises(perfmodel.Error, match=r"^test: row 40, column 'time_s': target") as e:
        perfmodel.fit(frame, spec, test=test, threads=1, maxiter=3)
    assert (e.value.row, e.value.column) == (40, "time_s")


def test_a_bad_point_names_its_row_and_column(gemm):
    data, spec = gemm
    m = perfmodel.fit(data, spec, seed=3, threads=1, maxiter=5)
    # cells with newlines, commas and quotes before it: the CSV's lines are
    # not the frame's rows
    points = pd.DataFrame({"note": ["a\nb", 'c, "d"\n\ne', "é"], "n": [1, 2, -3],
                           "threads": [1, 2, 4]}, index=[7, 8, 9])
    with pytest.raises(perfmodel.Error, match=r"^points: row 9, column 'n': input 'n'") as e:
        m.predict(points)
    assert (e.value.row, e.value.column) == (9, "n")
    with pytest.raises(perfmodel.Error) as e:
        m.interval(points)
    assert (e.value.row, e.value.column) == (9, "n")
    # rows of an array: their position, the input's name
    with pytest.raises(perfmodel.Error) as e:
        m.predict([[1, 1], [2, -3]])
    assert (e.value.row, e.value.column) == (1, "threads")


# ---- predict: shaped as its input --------------------------------------------

@pytest.fixture(scope="module")
def gemm_model(gemm):
    data, spec = gemm
    return perfmodel.fit(data, spec, seed=3, threads=1)


def hexes(values):
    return [float(v).hex() for v in values]


def test_predict_a_frame_keeps_its_index(gemm_model):
    m = gemm_model
    points = pd.DataFrame({"threads": [2, 2, 8], "n": [2048, 4096, 512], "other": ["x"] * 3},
                          index=pd.Index(["b", "a", "c"], name="run"))
    want = m.predict(points[["n", "threads"]].to_numpy())
    got = m.predict(points)
    assert isinstance(got, pd.Series) and got.name == "predicted"
    assert got.index.equals(points.index) and hexes(got) == hexes(want)
    lower, upper = m.interval(points, 0.8)
    table = m.predict(points, interval=0.8)
    assert list(table.columns) == ["predicted", "lower", "upper"]
    assert table.index.equals(points.index)
    assert hexes(table["predicted"]) == hexes(want)
    assert hexes(table["lower"]) == hexes(lower) and hexes(table["upper"]) == hexes(upper)
    assert lower.index.equals(points.index) and upper.name == "upper"
    # a filtered frame: its labels, not positions
    some = points[points.n > 1000]
    assert list(m.predict(some).index) == ["b", "a"]


def test_predict_a_series_is_one_configuration(gemm_model):
    m = gemm_model
    points = pd.DataFrame({"n": [2048, 4096], "threads": [2, 4]}, index=[10, 20])
    row = points.loc[20]
    got = m.predict(row)
    assert isinstance(got, float) and got.hex() == float(m.predict(points)[20]).hex()
    # so that a frame's rows can be mapped one by one
    assert hexes(points.apply(m.predict, axis=1)) == hexes(m.predict(points))
    three = m.predict(row, interval=0.9)
    assert list(three.index) == ["predicted", "lower", "upper"] and three.name == 20
    assert hexes(three) == hexes(m.predict(points, interval=0.9).loc[20])
    assert m.interval(row, 0.9) == (three["lower"], three["upper"])
    with pytest.raises(perfmodel.Error, match=r"^points: row 20, column 'n': input 'n'") as e:
        m.predict(pd.Series({"n": -1, "threads": 2}, name=20))
    assert (e.value.row, e.value.column) == (20, "n")


def test_predict_without_pandas_stays_numpy(gemm_model):
    m = gemm_model
    rows = np.array([[2048.0, 2.0], [4096.0, 4.0]])
    assert isinstance(m.predict(rows), np.ndarray)
    pred, lower, upper = m.predict({"n": [2048, 4096], "threads": [2, 4]}, interval=0.9)
    assert hexes(pred) == hexes(m.predict(rows))
    assert (hexes(lower), hexes(upper)) == tuple(map(hexes, m.interval(rows, 0.9)))
    with pytest.raises(perfmodel.Error, match=r"^interval=1.0: expected a probability"):
        m.predict(rows, interval=1.0)


# ---- the model in a notebook: repr, HTML, report -----------------------------

def test_repr_says_what_the_model_is(gemm):
    data, spec = gemm
    m = perfmodel.fit(data, spec, form="multiplicative", seed=3, threads=1)
    text = repr(m)
    assert text.startswith("<perfmodel.Model time_s ~ a * n^p_n * threads^q_threads + C: "
                           "4 parameters, training MAPE ") and "object at" not in text
    assert f"{m.metrics['training']['mape']:.3g} %" in text


def test_repr_html_shows_the_reports_plots(cli, gemm, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data, spec, seed=3, threads=1)
    page = m._repr_html_()
    assert "additive (eq. 4.4)" in page and "Warnings" not in page
    for name, value in m.params.items():
        assert f"<th>{name}</th><td title=\"{value!r}\">" in page
    assert f"<td>{m.metrics['training']['rows']}</td>" in page
    # the plots perfmodel report draws of the same rows, byte for byte
    m.save(tmp_path / "m.json")
    subprocess.run([cli, "report", "-m", str(tmp_path / "m.json"), data, "--plot-dir",
                    str(tmp_path / "plots")], check=True, capture_output=True)
    shown = sorted(p.name for p in (tmp_path / "plots").iterdir()
                   if not p.name.startswith("residuals_"))
    assert shown == ["efficiency_threads.svg", "predicted_vs_measured.svg",
                     "speedup_threads.svg", "time_threads.svg"]
    for name in shown:
        assert (tmp_path / "plots" / name).read_text() in page
    assert page.count("<svg") == len(shown)


def test_repr_html_of_many_rows_or_a_loaded_model_draws_nothing(gemm, tmp_path, monkeypatch):
    data, spec = gemm
    m = perfmodel.fit(data, spec, seed=3, threads=1, maxiter=5)
    monkeypatch.setattr("perfmodel._display.INLINE_PLOT_ROWS", 99)
    assert "<svg" not in m._repr_html_() and "100 rows: too many" in m._repr_html_()
    m.save(tmp_path / "m.json")
    back = perfmodel.load(tmp_path / "m.json")
    assert "<svg" not in back._repr_html_() and "a loaded model" in back._repr_html_()


def test_html_escapes_the_formula_and_lists_warnings(source):
    data, spec, options = ddp(source)
    with pytest.warns(perfmodel.FitWarning):
        m = perfmodel.fit(data, spec, **options)
    assert "<li>column 'activation' has no effect" in m._repr_html_()
    frame = pd.DataFrame({"x": [1, 2, 3, 4, 5, 6, 7, 8], "t": [1.0, 1, 1, 1, 2, 2, 2, 2]})
    step = perfmodel.fit(frame, target="t", formula="a * [x <= 4] + b * [x > 4]", threads=1,
                         intervals=False)
    assert "<code>a * [x &lt;= 4] + b * [x &gt; 4]</code>" in step._repr_html_()


def test_report_is_the_commands_page(cli, gemm, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data, spec, seed=3, threads=1)
    page = m.report(tmp_path / "r.html")
    assert (tmp_path / "r.html").read_text() == page and page.startswith("<!DOCTYPE html>")
    m.save(tmp_path / "m.json")
    back = perfmodel.load(tmp_path / "m.json")
    with pytest.raises(perfmodel.Error, match="loaded.*give the rows"):
        back.report()
    # the fit's own rows are the file's: the same page from the file, the
    # fitted model and the loaded one, and from a frame but for the name of
    # the file it was written to
    assert back.report(data=data) == page
    assert re.sub(r"[^<>]*perfmodel-[^<>/]+/data\.csv", data,
                  m.report(data=pd.read_csv(data))) == page
    subprocess.run([cli, "report", "-m", str(tmp_path / "m.json"), data, "-o",
                    str(tmp_path / "cli.html")], check=True, capture_output=True)
    cli_page = (tmp_path / "cli.html").read_text()
    assert cli_page.count("<svg") == page.count("<svg") > 0
    bad = pd.read_csv(data).set_index(pd.Index([f"r{i}" for i in range(100)]))
    bad.loc["r9", "time_s"] = "slow"
    with pytest.raises(perfmodel.Error, match=r"^data: row 'r9', column 'time_s'") as e:
        m.report(data=bad)
    assert (e.value.row, e.value.column) == ("r9", "time_s")
    with pytest.raises(perfmodel.Error, match="cannot write"):
        m.report(tmp_path / "no" / "such" / "r.html")


# ---- eval, select's and discover's tables as pandas objects ---------------------

def test_eval_is_the_commands(cli, gemm, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data, spec, seed=3, threads=1, maxiter=20)
    m.save(tmp_path / "m.json")
    want = json.loads(subprocess.run([cli, "eval", "-m", str(tmp_path / "m.json"), data,
                                      "--json"], check=True, capture_output=True,
                                     text=True).stdout)
    loaded = perfmodel.load(tmp_path / "m.json")
    for got in (m.eval(data), loaded.eval(pd.read_csv(data)), m.eval(dict(pd.read_csv(data)))):
        assert isinstance(got, pd.Series) and got.name == "time_s"
        assert list(got.index) == list(m.metrics["training"])
        assert {k: float(v).hex() for k, v in got.items() if k in want} == \
            {k: float(want[k]).hex() for k in got.index if k in want}
    bad = pd.read_csv(data).iloc[:10].set_index(pd.Index(list("abcdefghij")))
    bad.loc["e", "n"] = -5
    with pytest.raises(perfmodel.Error, match=r"^data: row 'e', column 'n'") as e:
        m.eval(bad)
    assert (e.value.row, e.value.column) == ("e", "n")


def test_selection_and_discovery_tables(gemm):
    data, spec = gemm
    s = perfmodel.select(data, spec, forms="additive,multiplicative", loss="mae", threads=1,
                         maxiter=20)
    table = s.selection_table
    assert isinstance(table, pd.DataFrame) and len(table) == len(s.selection) == 2
    assert list(table.columns[:9]) == ["form", "loss", "params", "mape", "mape_std", "r2",
                                       "folds", "constant_folds", "chosen"]
    for row, c in zip(table.itertuples(index=False), s.selection):
        assert (row.form, row.loss, row.mape, row.chosen) == (c["form"], c["loss"], c["mape"],
                                                              c["chosen"])
        assert (row.mean_rmse, row.std_mape) == (c["mean"]["rmse"], c["std"]["mape"])
    assert table.loc[table.chosen, "form"].item() == s.form
    assert s.discovery_table is None
    d = perfmodel.discover(data, spec, threads=1, max_terms=1, maxiter=20)
    table = d.discovery_table
    assert list(table.columns) == ["formula", "terms", "mape", "mape_se", "chosen"]
    assert table.to_dict("records") == d.discovery["candidates"]
    assert table.chosen.sum() == 1 and d.selection_table is None


def test_pandas_stays_optional():
    """Without pandas: arrays in and out; what returns pandas whatever its
    input says so."""
    script = textwrap.dedent(f"""
        import sys
        sys.modules["pandas"] = None     # import pandas now fails
        import perfmodel
        m = perfmodel.fit({{"n": [1, 2, 4, 8, 16], "t": [1.0, 2.1, 3.9, 8.2, 15.8]}},
                          target="t", intervals=False, threads=1)
        print(type(m.predict({{"n": [3]}})).__name__, "<svg" in m._repr_html_())
        try:
            m.eval({{"n": [3], "t": [3.0]}})
        except ImportError as e:
            print(e)
    """)
    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                           timeout=120)
    assert child.stdout.splitlines() == [
        "ndarray True", "Model.eval returns pandas objects: install pandas (Debian: "
        "python3-pandas)"], child.stderr
