"""perfmodel.plan: the command's picks (perfmodel plan), DataFrames in and
out with their index, the document otherwise, errors named in the frames,
the same bits for any thread count."""
import json
import subprocess

import numpy as np
import pytest

import perfmodel

pd = pytest.importorskip("pandas")

FIT = dict(target="t", intrinsic="n", form="additive", seed=3)


@pytest.fixture()
def files(tmp_path):
    """t = 0.1 + 2e-3 n^1.5 with 2 % noise, measured at small n; candidates
    up to 256 at cost 1 (and n = 3 at cost 0.5); a target at 1024."""
    rng = np.random.default_rng(1)
    ns = [2, 4, 8, 16] * 2
    data = pd.DataFrame({"n": ns, "t": [(0.1 + 2e-3 * n ** 1.5) * (1 + 0.02 * rng.standard_normal())
                                        for n in ns]})
    cand = pd.DataFrame({"n": [3, 32, 64, 128, 256], "cost": [0.5, 1, 1, 1, 1]},
                        index=["a", "b", "c", "d", "e"])
    at = pd.DataFrame({"n": [1024]})
    paths = []
    for name, frame in (("data", data), ("cand", cand), ("at", at)):
        path = tmp_path / f"{name}.csv"
        frame.to_csv(path, index=False, float_format="%.17g")
        paths.append(str(path))
    return data, cand, at, paths


def test_frames_in_and_out_as_the_command(files, cli):
    data, cand, at, (dpath, cpath, apath) = files
    got = perfmodel.plan(data, cand, at, cost_column="cost", count=3, threads=1, **FIT)
    r = subprocess.run([cli, "plan", dpath, "--candidates", cpath, "--at", apath,
                        "--target", "t", "--intrinsic", "n", "--form", "additive", "--seed", "3",
                        "--threads", "1", "--cost-column", "cost", "--count", "3", "--json"],
                       capture_output=True, text=True, check=True)
    want = json.loads(r.stdout)
    assert list(got.index) == [cand.index[p["line"] - 2] for p in want["picks"]]
    assert list(got["n"]) == [p["config"]["n"] for p in want["picks"]]
    for key in ("cost", "gain", "predicted"):
        assert [float(x).hex() for x in got[key]] == [float(p[key]).hex() for p in want["picks"]]
    assert got.attrs["plan"]["spread_before"].hex() == want["spread_before"].hex()
    assert got.attrs["plan"]["picks"][0]["config"]["n"] == 256   # the largest first


def test_paths_and_dicts_give_the_document(files):
    data, cand, at, (dpath, cpath, apath) = files
    a = perfmodel.plan(dpath, cpath, apath, cost_column="cost", count=2, threads=1, **FIT)
    b = perfmodel.plan(data.to_dict("list"), cand.to_dict("list"), at.to_dict("list"),
                       cost_column="cost", count=2, threads=1, **FIT)
    assert isinstance(a, dict) and [p["config"] for p in a["picks"]] == \
        [p["config"] for p in b["picks"]]
    assert [p["gain"] for p in a["picks"]] == [p["gain"] for p in b["picks"]]


def test_same_bits_for_any_thread_count(files):
    data, cand, at, _ = files
    one = perfmodel.plan(data, cand, at, budget=2.5, threads=1, **FIT)
    two = perfmodel.plan(data, cand, at, budget=2.5, threads=2, **FIT)
    assert one.equals(two) and one.attrs["plan"] == two.attrs["plan"]
    assert one["cost"].sum() <= 2.5


def test_errors_named_in_the_frames(files):
    data, cand, at, _ = files
    bad = cand.copy()
    bad["cost"] = bad["cost"].astype(object)
    bad.loc["c", "cost"] = "x"
    with pytest.raises(perfmodel.Error) as e:
        perfmodel.plan(data, bad, at, cost_column="cost", threads=1, **FIT)
    assert (e.value.row, e.value.column) == ("c", "cost")
    with pytest.raises(perfmodel.Error, match=r"<candidates>\) have no column 'n'"):
        perfmodel.plan(data, cand.rename(columns={"n": "m"}), at, threads=1, **FIT)
    for bad_option in (dict(count=0), dict(budget=-1), dict(budget=float("inf")),
                       dict(members=1), dict(cost_column=3)):
        with pytest.raises(perfmodel.Error):
            perfmodel.plan(data, cand, at, threads=1, **bad_option, **FIT)
    with pytest.raises(perfmodel.Error, match="warm_start"):
        perfmodel.plan(data, cand, at, warm_start=None, **FIT)
