"""perfmodel.inspect(frame=True): the points of inspect's document as a
DataFrame, a row each in its order, the document kept in .attrs."""
import math

import pytest

import perfmodel

pd = pytest.importorskip("pandas")


def test_the_points_as_rows(gemm):
    doc = perfmodel.inspect(gemm[0], target="time_s", key=["n", "threads"])
    points = perfmodel.inspect(gemm[0], target="time_s", key=["n", "threads"], frame=True)
    assert list(points.columns) == ["n", "threads", "runs", "value", "cv"]
    assert len(points) == doc["points"]["count"] == len(doc["points"]["list"])
    for (_, row), p in zip(points.iterrows(), doc["points"]["list"]):
        assert (row["n"], row["threads"], row["runs"]) == (p["point"]["n"],
                                                         p["point"]["threads"], p["runs"])
        assert row["value"] == p["value"]
        assert math.isnan(row["cv"]) if p["cv"] is None else row["cv"] == p["cv"]
    assert points.attrs["inspect"] == doc


def test_a_point_of_one_run_has_no_cv():
    points = perfmodel.inspect(pd.DataFrame({"n": [1, 2, 2], "t": [1.0, 2.0, 3.0]}),
                               target="t", frame=True)
    assert points["runs"].tolist() == [1, 2]
    assert math.isnan(points["cv"][0]) and points["cv"][1] > 0


def test_frame_is_true_or_false(gemm):
    with pytest.raises(TypeError, match="frame='yes': expected True or False"):
        perfmodel.inspect(gemm[0], target="time_s", frame="yes")
