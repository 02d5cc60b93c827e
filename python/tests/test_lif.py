"""perfmodel.lif: perfmodel lif --json's numbers, a DataFrame's rows with
its index (pandas' NaN a worker the row lacks), the document otherwise."""
import json
import subprocess

import pytest

import perfmodel

pd = pytest.importorskip("pandas")


@pytest.fixture()
def ddp(source):
    return str(source / "data" / "ddp_mlp.csv")


def test_as_the_command(ddp, cli):
    df = pd.read_csv(ddp)
    df.index = ["run%d" % i for i in range(len(df))]
    got = perfmodel.lif(df, "t_worker_*", extrinsic=["world_size", "batch_size"],
                        target="time_per_iter_s")
    want = json.loads(subprocess.run(
        [cli, "lif", ddp, "--workers", "t_worker_*", "--extrinsic", "world_size,batch_size",
         "--target", "time_per_iter_s", "--json"], capture_output=True, text=True,
        check=True).stdout)
    assert list(got.index) == list(df.index)
    for col in ("n", "lif", "t"):
        assert [float(v).hex() for v in got[col]] == [float(r[col]).hex() for r in want["rows"]]
    assert got.attrs["regression"] == want["regression"]
    assert len(got.attrs["groups"]) == len(want["groups"])
    assert list(got.attrs["groups"].columns) == ["world_size", "batch_size", "count", "mean",
                                                 "std"]
    assert perfmodel.lif(ddp, ["t_worker_1", "t_worker_2"], extrinsic="world_size,batch_size",
                         target="time_per_iter_s")["regression"] == want["regression"]


def test_a_failed_regression_keeps_the_tables():
    df = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "b": [1.0, 1.0, 1.0, 1.0]})
    r = perfmodel.lif(df, "a,b")
    assert r.attrs["regression"] is None and "N" in r.attrs["regression_error"]
    assert list(r["lif"]) == [1.0, 4 / 3, 1.5, 1.6]


def test_errors_named_in_the_frame():
    df = pd.DataFrame({"a": [1.0, -2.0, 3.0, 4.0], "b": [1.0, 2.0, 1.0, 1.0]},
                      index=list("wxyz"))
    with pytest.raises(perfmodel.Error) as e:
        perfmodel.lif(df, "a,b")
    assert (e.value.row, e.value.column) == ("x", "a")
    with pytest.raises(perfmodel.Error):
        perfmodel.lif(df, "nothere_*")
    with pytest.raises(TypeError):
        perfmodel.lif(df, 3)
