"""What the package is given, checked before it reaches the library
(issue 34): column names that would collide once written as text, NULs that
C would cut a string at, arguments of the wrong type or shape, each a
perfmodel.Error naming the thing, never an AttributeError, IndexError or a
string silently cut short."""
import numpy as np
import pytest

import perfmodel
from perfmodel import _perfmodel


@pytest.fixture(scope="module")
def model(gemm):
    data, spec = gemm
    return perfmodel.fit(data, spec, form="additive", seed=3, threads=1, maxiter=5)


# ---- column names: as the CSV reader checks a header, after str() ----------

def frame(columns):
    pd = pytest.importorskip("pandas")
    return pd.DataFrame([[1, 2, 3], [2, 3, 5], [3, 4, 7]], columns=columns)


@pytest.mark.parametrize("columns,message", [
    ([1, "1", "t"], r"data: duplicate column name '1' \(columns 1 and '1'\)"),
    (["n", "n", "t"], r"data: duplicate column name 'n' \(columns 'n' and 'n'\)"),
    ([None, "n", "t"], r"data: column name None: expected a string"),
    ([1.5, "n", "t"], r"data: column name 1.5: expected a string"),
    ([True, "n", "t"], r"data: column name True: expected a string"),
    (["", "n", "t"], r"data: empty column name"),
    (["n\0x", "n", "t"], r"data: column name 'n\\x00x': contains a NUL character \(at 1\)"),
])
def test_dataframe_names(columns, message):
    with pytest.raises(perfmodel.Error, match=message):
        perfmodel.fit(frame(columns), target="t", maxiter=3)
    with pytest.raises(perfmodel.Error, match=message):
        perfmodel.inspect(frame(columns), target="t")


def test_multiindex_names():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame([[1, 2], [2, 3]], columns=pd.MultiIndex.from_tuples([("a", "n"),
                                                                           ("a", "t")]))
    with pytest.raises(perfmodel.Error, match=r"column name \('a', 'n'\): expected a string"):
        perfmodel.inspect(df)


def test_dict_names():
    with pytest.raises(perfmodel.Error, match=r"duplicate column name '1' \(columns 1 and '1'\)"):
        perfmodel.fit({1: [1, 2, 3], "1": [1, 2, 3], "t": [1, 2, 3]}, target="t")
    # whole numbers are names, written as text: the column is '2'
    got = perfmodel.inspect({2: [1, 2, 2], "t": [1.0, 2.0, 3.0]}, target="t")
    assert [c["name"] for c in got["columns"]] == ["2", "t"]


def test_points_names(model):
    with pytest.raises(perfmodel.Error, match=r"points: duplicate column name '1' \(columns 1 "
                       r"and '1'\)"):
        model.predict({"n": [1], "threads": [1], 1: [1], "1": [2]})


# ---- NUL: an Error naming the option, never a string cut there --------------

def nul_cases(gemm, model, tmp_path):
    data, spec = gemm
    return {
        "target": lambda: perfmodel.fit(data, target="time_s\0x"),
        "formula": lambda: perfmodel.fit(data, target="time_s", formula="a * n^p + C\0x"),
        "extrinsic": lambda: perfmodel.fit(data, spec, extrinsic=["threads\0x"]),
        "loss": lambda: perfmodel.fit(data, spec, form="additive", loss="mae\0x"),
        "forms": lambda: perfmodel.select(data, spec, forms="additive\0x"),
        "validate": lambda: perfmodel.fit(data, spec, form="additive", validate="kfold:3\0x"),
        "region": lambda: perfmodel.inspect(data, region="main\0x"),
        "key": lambda: perfmodel.inspect(data, key=["n\0x"]),
        "data": lambda: perfmodel.fit(data + "\0x", spec),
        "spec": lambda: perfmodel.fit(data, spec + "\0x"),
        "test": lambda: perfmodel.fit(data, spec, form="additive", test=data + "\0x"),
        "warm_start": lambda: perfmodel.fit(data, spec, warm_start=str(tmp_path) + "\0x"),
        "path": lambda: perfmodel.load(str(tmp_path / "m.json") + "\0x"),
        "points": lambda: model.predict(data + "\0x"),
        "column 'n'": lambda: model.predict({"n": ["1\0x"], "threads": [1]}),
        "column 'c'": lambda: perfmodel.fit({"c": ["a\0b", "a"], "t": [1, 2]}, target="t"),
        "name": lambda: perfmodel.loads(model.to_json(), "m\0x"),
        "loads": lambda: perfmodel.loads(model.to_json() + "\0x"),
    }


def test_nul_is_an_error_naming_it(gemm, model, tmp_path):
    for name, call in nul_cases(gemm, model, tmp_path).items():
        with pytest.raises(perfmodel.Error, match=r"contains a NUL character") as e:
            call()
        assert name in str(e.value), (name, str(e.value))
    with pytest.raises(perfmodel.Error, match="contains a NUL"):
        model.save(str(tmp_path / "m.json") + "\0x")


def test_nul_reaching_c_is_an_error(gemm, model):
    """The extension checks too, for a caller that skips perfmodel/__init__.py."""
    data, spec = gemm
    for words in (["--target=time_s\0x"], ["--spec=" + spec + "\0x"], ["--region=main\0x"]):
        with pytest.raises(perfmodel.Error, match=r"^\w+: contains a NUL character"):
            _perfmodel._fit(0, words + ["--", data], None, None)
    with pytest.raises(perfmodel.Error, match=r"forms: contains a NUL"):
        _perfmodel._fit(1, ["--forms=additive\0x", "--spec=" + spec, "--", data], None, None)
    with pytest.raises(perfmodel.Error, match=r"spec: contains a NUL"):
        _perfmodel._fit(0, ["--", data], '{"target": "time_s"}\0x', None)
    with pytest.raises(perfmodel.Error, match=r"metric: contains a NUL"):
        _perfmodel._inspect(["--metric=time\0x", "--", data], None)
    with pytest.raises(perfmodel.Error, match=r"key: contains a NUL"):
        _perfmodel._inspect(["--", data], ["n\0x"])
    with pytest.raises(perfmodel.Error, match=r"x.json: contains a NUL"):
        _perfmodel._loads(model.to_json() + "\0", "x.json")
    with pytest.raises(perfmodel.Error, match=r"points: contains a NUL"):
        model._c._predict(data + "\0x", True, ())


# ---- wrong types and shapes: perfmodel.Error (a TypeError too for a type) ---

def probes(gemm, model, tmp_path):
    data, spec = gemm
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    pts = {"n": [100], "threads": [1]}
    return [
        # (call, message, a wrong type)
        (lambda: perfmodel.fit(None), "data: expected a file path, a dict", True),
        (lambda: perfmodel.fit([[1, 2]]), "data: expected .* not list", True),
        (lambda: perfmodel.inspect(3), "data: expected .* not int", True),
        (lambda: perfmodel.fit(data, spec, test=None, form="additive"), "test: expected", True),
        (lambda: perfmodel.fit(data, 42), "spec=42: expected a file path", True),
        (lambda: perfmodel.fit(data, ""), "spec='': expected a file path", False),
        (lambda: perfmodel.fit(data, {"target": object()}), "spec: not JSON", False),
        (lambda: perfmodel.fit(data, {"target": float("nan")}), "spec: not JSON", False),
        (lambda: perfmodel.fit(data, target=["t"]), r"target=\['t'\]: expected a string", True),
        (lambda: perfmodel.fit(data, spec, seed="\u0663"), "--seed '.*': expected a whole", False),
        (lambda: perfmodel.fit(data, spec, form="additive", loss=""), "--loss '': expected",
         False),
        (lambda: perfmodel.select(data, spec, loss=","), "--loss ',': expected", False),
        (lambda: perfmodel.select(data, spec, forms=","), "--forms ',': expected a form", False),
        (lambda: perfmodel.fit(data, spec, extrinsic=["a,b"]), "'a,b' would not come through "
         "whole", False),
        (lambda: perfmodel.fit(data, spec, extrinsic=[" threads"]), "would not come through",
         False),
        (lambda: perfmodel.fit(data, spec, extrinsic=[""]), "would not come through whole", False),
        (lambda: perfmodel.fit(data, spec, warm_start=3), "warm_start=3: expected a file path",
         True),
        (lambda: perfmodel.fit(data, spec, polish=None), "polish=None: expected True or False",
         True),
        (lambda: perfmodel.fit({"n": np.ones((3, 2)), "t": [1, 2, 3]}, target="t"),
         r"column 'n': expected one value per row, not an array of shape \(3, 2\)", False),
        (lambda: perfmodel.fit({"n": (x for x in [1, 2]), "t": [1, 2]}, target="t"),
         "column 'n': expected a list, a numpy array or a pandas Series, not generator", True),
        (lambda: perfmodel.inspect(data, key=""), "key='': expected a column name", False),
        (lambda: perfmodel.load(None), "path=None: expected a file path", True),
        (lambda: perfmodel.load(str(bad)), "invalid JSON", False),
        (lambda: perfmodel.loads(None), r"text: expected model.json's text", True),
        (lambda: perfmodel.loads({}), r"text: expected model.json's text", True),
        (lambda: perfmodel.loads(b"\xff"), "not UTF-8", False),
        (lambda: perfmodel.loads("{}", None), "name=None: expected a string", True),
        (lambda: perfmodel.Model(None), r"Model: made by fit\(\)", True),
        (lambda: model.predict(None), "points: expected a DataFrame.* not NoneType", True),
        (lambda: model.predict(3), "points: expected .* not int", True),
        (lambda: model.predict([1, 2]), r"not shape \(2,\)", False),
        (lambda: model.interval(pts, None), r"level=None: expected a probability", False),
        (lambda: model.interval(pts, "x"), r"level='x': expected a probability", False),
        (lambda: model.interval(pts, 0), r"level=0: expected a probability", False),
        (lambda: model.interval(pts, 1), r"level=1: expected a probability", False),
        (lambda: model.interval(pts, [0.5]), r"level=\[0.5\]: expected a probability", False),
        (lambda: model.save(None), "path=None: expected a file path", True),
        (lambda: model.save(""), "path='': expected a file path", False),
    ]


def test_probes_raise_perfmodel_error(gemm, model, tmp_path):
    for call, message, wrong_type in probes(gemm, model, tmp_path):
        with pytest.raises(perfmodel.Error, match=message) as e:
            call()
        assert isinstance(e.value, TypeError) == wrong_type, (message, e.value)
        assert e.value.status and e.value.message == str(e.value)


def test_none_is_an_empty_cell():
    """None in a column of numbers is a gap, as pandas' NaN: an error naming
    its cell, or a row drop_incomplete drops; never the text 'None', which
    would make the column categorical."""
    n = [1, 2, 4, 8, 16, 32, 64]
    cols = {"n": n[:3] + [None] + n[4:], "t": [0.5 * x ** 1.5 for x in n]}
    with pytest.raises(perfmodel.Error, match="column 'n': empty cell") as e:
        perfmodel.fit(cols, target="t", form="additive", threads=1)
    assert (e.value.row, e.value.column) == (3, "n")
    m = perfmodel.fit(cols, target="t", form="additive", threads=1, drop_incomplete=True)
    assert m.metrics["training"]["rows"] == 6 and m.levels == {}


def test_paths_as_bytes(gemm, model, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data.encode(), spec.encode(), form="additive", seed=3, threads=1,
                      maxiter=5)
    assert m.params == model.params
    model.save(str(tmp_path / "m.json").encode())
    assert perfmodel.load(str(tmp_path / "m.json").encode()).params == model.params
    assert perfmodel.loads(model.to_json().encode()).params == model.params
