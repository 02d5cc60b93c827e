"""Model.scaling: perfmodel fit --json's scaling report as a DataFrame,
of the rows the model was fitted to or of rows given."""
import json
import subprocess

import pytest

import perfmodel

pd = pytest.importorskip("pandas")


def test_as_the_command(gemm, cli, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data, spec, form="additive", seed=1, threads=1)
    s = m.scaling()
    r = subprocess.run([cli, "fit", data, "--spec", spec, "--form", "additive", "--seed", "1",
                        "--threads", "1", "--json", "-o", str(tmp_path / "m.json")],
                       capture_output=True, text=True, check=True)
    want = json.loads(r.stdout)
    assert list(s.index.names) == ["input", "value"]
    assert [(i, float(v)) for i, v in s.index] == \
        [(x["input"], float(p["value"])) for x in want["scaling"] for p in x["points"]]
    for col in ("time", "speedup", "efficiency"):
        assert [float(v).hex() for v in s[col]] == \
            [float(p[col]).hex() for x in want["scaling"] for p in x["points"]]
    assert s.attrs["baseline"] == want["baseline"]
    assert s.attrs["inputs"]["threads"]["effective_exponent"] == \
        want["scaling"][0]["effective_exponent"]


def test_rows_given(gemm, tmp_path):
    data, spec = gemm
    m = perfmodel.fit(data, spec, form="additive", seed=1, threads=1)
    frame = pd.read_csv(data)
    assert m.scaling(frame).equals(m.scaling())
    m.save(str(tmp_path / "m.json"))
    loaded = perfmodel.load(str(tmp_path / "m.json"))
    with pytest.raises(perfmodel.Error, match="give the rows"):
        loaded.scaling()
    assert loaded.scaling(data).equals(m.scaling())
    bad = frame.astype({"n": object})
    bad.loc[5, "n"] = "x"
    with pytest.raises(perfmodel.Error) as e:
        m.scaling(bad)
    assert (e.value.row, e.value.column) == (5, "n")
