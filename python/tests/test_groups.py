"""perfmodel.fit_groups: a model per group, each the bits of fit() on the
group's rows, for any number of threads; failures kept as Errors; the
groups' keys as the index."""
import warnings

import pytest

import perfmodel

pd = pytest.importorskip("pandas")

OPTS = dict(target="time_s", intrinsic="n", extrinsic="threads", form="additive",
            intervals=False, seed=1)


@pytest.fixture()
def gemm_frame(gemm):
    df = pd.read_csv(gemm[0])
    df["kernel"] = ["k%d" % (i % 3) for i in range(len(df))]
    return df


def params_hex(m):
    return {k: float(v).hex() for k, v in m.params.items()}


def test_each_group_as_fit_for_any_threads(gemm_frame):
    one = perfmodel.fit_groups(gemm_frame, "kernel", threads=1, **OPTS)
    two = perfmodel.fit_groups(gemm_frame, "kernel", threads=2, **OPTS)
    assert list(one.index) == ["k0", "k1", "k2"] and one.index.name == "kernel"
    for key, rows in gemm_frame.groupby("kernel"):
        want = perfmodel.fit(rows.drop(columns=["kernel"]), **OPTS)
        assert params_hex(one[key]) == params_hex(want) == params_hex(two[key])


def test_several_keys_a_multiindex(gemm_frame):
    opts = {k: v for k, v in OPTS.items() if k != "extrinsic"}
    s = perfmodel.fit_groups(gemm_frame, ["kernel", "threads"], threads=2, **opts)
    assert s.index.names == ["kernel", "threads"]
    assert list(s.index) == list(gemm_frame.groupby(["kernel", "threads"]).groups)
    assert all(isinstance(m, perfmodel.Model) for m in s)


def test_a_failing_group_is_its_error(gemm_frame):
    df = pd.concat([gemm_frame, gemm_frame.iloc[:1].assign(kernel="lone")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", perfmodel.FitWarning)
        s = perfmodel.fit_groups(df, "kernel", **OPTS)
    assert isinstance(s["lone"], perfmodel.Error) and "group 'lone'" in str(s["lone"])
    assert all(isinstance(s[k], perfmodel.Model) for k in ("k0", "k1", "k2"))


def test_warnings_name_their_group(gemm_frame):
    df = gemm_frame[gemm_frame["threads"] == 1]     # threads constant: each fit warns
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        s = perfmodel.fit_groups(df, "kernel", **OPTS)
    texts = [str(w.message) for w in got if issubclass(w.category, perfmodel.FitWarning)]
    want = [f"group {k!r}: {t}" for k in s.index for t in s[k].warnings]
    assert texts == want and texts


def test_refusals(gemm_frame):
    with pytest.raises(perfmodel.Error, match="no column 'nothere'"):
        perfmodel.fit_groups(gemm_frame, "nothere", **OPTS)
    with pytest.raises(TypeError):
        perfmodel.fit_groups(gemm_frame.to_dict("list"), "kernel", **OPTS)
    with pytest.raises(TypeError):
        perfmodel.fit_groups(gemm_frame, 3, **OPTS)
    for bad in (dict(threads=0), dict(command="predict"), dict(warm_start=None)):
        with pytest.raises(perfmodel.Error):
            perfmodel.fit_groups(gemm_frame, "kernel", **bad, **OPTS)
    with pytest.raises(perfmodel.Error, match="--loss 'l3'"):
        perfmodel.fit_groups(gemm_frame, "kernel", **{**OPTS, "loss": "l3"})
