"""Model.advise: perfmodel advise --json's picks, as a DataFrame with a row
per pick, the same numbers bit for bit; its refusals."""
import json
import subprocess

import pytest

import perfmodel

pd = pytest.importorskip("pandas")


@pytest.fixture(scope="module")
def fitted(gemm, cli, tmp_path_factory):
    data, spec = gemm
    path = str(tmp_path_factory.mktemp("advise") / "m.json")
    subprocess.run([cli, "fit", data, "--spec", spec, "--form", "additive", "--seed", "1",
                    "--threads", "1", "-q", "-o", path], check=True)
    return path


def command(cli, model, tmp_path, *args):
    at = tmp_path / "at.json"
    at.write_text('{"n": 1024}')
    r = subprocess.run([cli, "advise", "-m", model, str(at), "--json", *args],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


@pytest.mark.parametrize("options,args", [
    ({}, []),
    (dict(quantile=0.9, max_extrapolation=None, min_efficiency=0.8, iterations=100,
          setup_time=2), ["--quantile", "0.9", "--max-extrapolation", "none",
                          "--min-efficiency", "0.8", "--iterations", "100",
                          "--setup-time", "2"]),
])
def test_as_the_command(fitted, cli, tmp_path, options, args):
    m = perfmodel.load(fitted)
    got = m.advise({"n": 1024}, {"threads": [1, 2, 4, 8]}, **options)
    want = command(cli, fitted, tmp_path, "--vary", "threads=1,2,4,8", *args)
    assert list(got.index) == ["fastest", "cheapest", "largest"]
    for pick in got.index:
        for key in ("time", "cost", "speedup", "efficiency"):
            assert float(got.loc[pick, key]).hex() == float(want[pick][key]).hex()
        assert got.loc[pick, "threads"] == want[pick]["values"]["threads"]
    doc = dict(got.attrs["advice"], model=want["model"])
    assert doc == want


def test_refusals(fitted):
    m = perfmodel.load(fitted)
    with pytest.raises(perfmodel.Error, match="'nothere' is not an input"):
        m.advise({"n": 1024}, {"nothere": [1]})
    with pytest.raises(perfmodel.Error, match="not one of the varied"):
        m.advise({"n": 1024}, {"threads": [1, 2]}, resource="n")
    with pytest.raises(perfmodel.Error):
        m.advise({}, {"threads": [1, 2]})           # n missing
    with pytest.raises(perfmodel.Error):
        m.advise({"n": 1024}, {"threads": [1, -2]})
    with pytest.raises(perfmodel.Error):
        m.advise({"n": 1024}, {"threads": [1, 2]}, min_efficiency=1.5)
    with pytest.raises(TypeError):
        m.advise({"n": 1024}, {})
    with pytest.raises(TypeError):
        m.advise([1024], {"threads": [1, 2]})


def test_a_series_as_the_point(fitted):
    m = perfmodel.load(fitted)
    a = m.advise(pd.Series({"n": 1024}), {"threads": (1, 2, 4)})
    assert a.equals(m.advise({"n": 1024}, {"threads": [1, 2, 4]}))
