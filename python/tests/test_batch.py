"""perfmodel.batch: jobs as dicts or a DataFrame's rows, each the bits of
fit() (select, discover) for any number of threads, in job order; failures
kept as Errors naming their job; warnings prefixed with it; what is no job
refused before any job runs."""
import warnings

import numpy as np
import pytest

import perfmodel
from perfmodel import _jobs

pd = pytest.importorskip("pandas")

OPTS = dict(intervals=False, seed=1)


def params_hex(m):
    return {k: float(v).hex() for k, v in m.params.items()}


@pytest.fixture()
def jobs(gemm):
    data, spec = gemm
    return [{"id": "s1", "data": data, "spec": spec, "form": "additive", **OPTS},
            {"id": 7, "data": data, "spec": spec, "form": "multiplicative", **OPTS},
            {"id": "sel", "command": "select", "data": data, "spec": spec,
             "forms": "additive,multiplicative", "cv": 3, **OPTS}]


def test_each_job_as_its_command_for_any_threads(jobs, gemm):
    data, spec = gemm
    one = perfmodel.batch(jobs, threads=1)
    three = perfmodel.batch(jobs, threads=3)
    assert list(one.index) == ["s1", 7, "sel"] and one.index.name == "id"
    assert one.name == "model"
    want = [perfmodel.fit(data, spec, form="additive", **OPTS),
            perfmodel.fit(data, spec, form="multiplicative", **OPTS),
            perfmodel.select(data, spec, forms="additive,multiplicative", cv=3, **OPTS)]
    for got1, got3, w in zip(one, three, want):
        assert params_hex(got1) == params_hex(w) == params_hex(got3)
        assert got1.form == w.form


def test_options_by_python_or_command_line_names(gemm):
    data, spec = gemm
    a, b = perfmodel.batch([{"data": data, "spec": spec, "seed": 1, "polish": False,
                             "test_fraction": 0.3},
                            {"data": data, "spec": spec, "seed": 1, "no-polish": True,
                             "test-fraction": 0.3}])
    assert params_hex(a) == params_hex(b)
    assert params_hex(a) == params_hex(perfmodel.fit(data, spec, seed=1, polish=False,
                                                     test_fraction=0.3))


def test_ids_missing_index_by_position(jobs):
    del jobs[1]["id"]
    s = perfmodel.batch(jobs[:2], threads=2)
    assert isinstance(s.index, pd.RangeIndex) and list(s.index) == [0, 1]


def test_a_dataframe_one_job_a_row_nan_not_given(gemm):
    data, spec = gemm
    frame = pd.DataFrame({"data": [data, data], "spec": [spec, spec],
                          "seed": [1, np.nan], "form": ["additive", None],
                          "intervals": [False, False]}, index=["a", "b"])
    s = perfmodel.batch(frame, threads=2)
    assert list(s.index) == ["a", "b"]
    # seed 1.0 (a float column: NaN) goes as 1
    assert params_hex(s["a"]) == params_hex(perfmodel.fit(data, spec, **OPTS,
                                                          form="additive"))
    assert params_hex(s["b"]) == params_hex(perfmodel.fit(data, spec, intervals=False))
    with pytest.raises(perfmodel.Error, match="set_index"):
        perfmodel.batch(frame.reset_index(names="id"))


def test_data_in_memory_and_a_spec_dict(gemm):
    data, spec = gemm
    df = pd.read_csv(data)
    inline = {"target": "time_s", "intrinsic": ["n"], "extrinsic": ["threads"]}
    s = perfmodel.batch([{"id": "frame", "data": df, "spec": inline, **OPTS},
                         {"id": "dict", "data": df.to_dict("list"), "spec": inline,
                          "test": df.tail(5), **OPTS}])
    assert params_hex(s["frame"]) == params_hex(perfmodel.fit(data, inline, **OPTS))
    assert params_hex(s["dict"]) == params_hex(perfmodel.fit(data, inline, test=df.tail(5),
                                                             **OPTS))


def test_a_model_to_start_from(gemm):
    data, spec = gemm
    start = perfmodel.fit(data, spec, **OPTS)
    s = perfmodel.batch([{"data": data, "spec": spec, "warm_start": start, **OPTS}])
    assert params_hex(s[0]) == params_hex(perfmodel.fit(data, spec, warm_start=start, **OPTS))


def test_a_failing_job_is_its_error_the_others_run(gemm):
    data, spec = gemm
    bad = pd.read_csv(data).astype(object)
    bad.loc[3, "time_s"] = "x"
    s = perfmodel.batch([{"id": "gone", "data": "data/nothere.csv"},
                         {"id": "cell", "data": bad, "spec": spec, "form": "additive"},
                         {"id": "value", "data": data, "spec": spec, "seed": -1},
                         {"id": "ok", "data": data, "spec": spec, **OPTS}])
    assert isinstance(s["ok"], perfmodel.Model)
    for key in ("gone", "cell", "value"):
        assert isinstance(s[key], perfmodel.Error) and str(s[key]).startswith(f"job {key!r}: ")
    assert "cannot open" in str(s["gone"])
    # the frame's temporary file named as the frame
    assert "<data>:5:" in str(s["cell"]) and "perfmodel-" not in str(s["cell"])
    assert "--seed" in str(s["value"])


def test_warnings_name_their_job(gemm):
    data, _ = gemm
    one_thread = pd.read_csv(data).query("threads == 1")    # threads constant: it warns
    job = {"data": one_thread, "target": "time_s", "intrinsic": "n", "extrinsic": "threads",
           "form": "additive", **OPTS}
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        s = perfmodel.batch([{**job, "id": "a"}, {**job, "id": "b"}])
    texts = [str(w.message) for w in got if issubclass(w.category, perfmodel.FitWarning)]
    want = [f"job {k!r}: {t}" for k in s.index for t in s[k].warnings]
    assert texts == want and texts
    assert all(w.filename == __file__ for w in got)


def test_refusals_name_the_job(gemm):
    data, spec = gemm
    job = {"data": data, "spec": spec}
    with pytest.raises(TypeError, match="list of dicts or a pandas DataFrame"):
        perfmodel.batch(job)
    with pytest.raises(TypeError, match="job 1: expected a dict"):
        perfmodel.batch([job, "data/gemm_cpu.csv"])
    with pytest.raises(perfmodel.Error, match=r"job 'a': command='predict': expected"):
        perfmodel.batch([{**job, "id": "a", "command": "predict"}])
    with pytest.raises(perfmodel.Error, match="job 0: unknown option 'frob'"):
        perfmodel.batch([{**job, "frob": 1}])
    with pytest.raises(TypeError, match="job 'a': seed="):
        perfmodel.batch([{**job, "id": "a", "seed": [1]}])
    with pytest.raises(perfmodel.Error, match="job 'a': no \"data\""):
        perfmodel.batch([{"id": "a", "spec": spec}])
    with pytest.raises(perfmodel.Error, match="job 2: id 'a' is also job 0's"):
        perfmodel.batch([{**job, "id": "a"}, {**job, "id": "b"}, {**job, "id": "a"}])
    with pytest.raises(TypeError, match=r"job 0: id=1.5: expected a string or a whole"):
        perfmodel.batch([{**job, "id": 1.5}])
    with pytest.raises(perfmodel.Error, match="job 'a': spec: not JSON"):
        perfmodel.batch([{**job, "id": "a", "spec": {"target": float("nan")}}])
    with pytest.raises(perfmodel.Error, match="threads"):
        perfmodel.batch([job], threads=0)


def test_what_the_batch_refuses_raises_naming_the_job(gemm):
    """A member the library's batch takes for no job (here an output
    option, which batch() itself never writes): Error naming the job, not
    the batch's line."""
    data, spec = gemm
    jobs = [{"command": "fit", "data": data, "spec": spec},
            {"command": "fit", "data": data, "output": "m.json"}]
    with pytest.raises(perfmodel.Error,
                       match="^job 'b': \"output\" is not an option of a batch job"):
        _jobs.run_jobs(jobs, ["job 'a'", "job 'b'"], 1, {})


def test_an_empty_list_an_empty_series():
    s = perfmodel.batch([])
    assert len(s) == 0 and s.name == "model"
