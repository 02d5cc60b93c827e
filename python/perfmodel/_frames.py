"""Results shaped as their input (docs/python.md): pandas in, pandas out,
indexed like the input; anything else, numpy. pandas is imported only when
the input is already one of its objects, so perfmodel never needs it."""

import sys

import numpy as np


def pandas_of(x):
    """pandas, when x is a DataFrame or Series (pandas is then imported
    already); else None."""
    pd = sys.modules.get("pandas")
    return pd if pd is not None and isinstance(x, (pd.DataFrame, pd.Series)) else None


def is_series(x):
    pd = pandas_of(x)
    return pd is not None and isinstance(x, pd.Series)


def one_row(series):
    """A Series of one configuration (its index the inputs' names) as a
    frame of one row labelled by the Series' name."""
    return series.to_frame().T


def predictions(points, label, pred, bounds):
    """Model.predict's result for points: pred the predictions, bounds None
    or the lower and upper bounds, a row each.
    DataFrame: a Series named label (a DataFrame of label, lower, upper with
    bounds), indexed as points. Series (one configuration): a float (a
    Series of label, lower, upper named as points). Else: an array (a tuple
    of the three arrays)."""
    pd = pandas_of(points)
    if pd is None:
        return pred if bounds is None else (pred, bounds[:, 0].copy(), bounds[:, 1].copy())
    if isinstance(points, pd.Series):
        if bounds is None:
            return float(pred[0])
        return pd.Series([pred[0], bounds[0, 0], bounds[0, 1]], index=[label, "lower", "upper"],
                         name=points.name)
    if bounds is None:
        return pd.Series(pred, index=points.index, name=label)
    return pd.DataFrame({label: pred, "lower": bounds[:, 0], "upper": bounds[:, 1]},
                        index=points.index)


def bounds_of(points, bounds):
    """Model.interval's (lower, upper): Series indexed as a DataFrame's
    points (floats for a Series'), else arrays."""
    lower, upper = bounds[:, 0].copy(), bounds[:, 1].copy()
    pd = pandas_of(points)
    if pd is None:
        return lower, upper
    if isinstance(points, pd.Series):
        return float(lower[0]), float(upper[0])
    return (pd.Series(lower, index=points.index, name="lower"),
            pd.Series(upper, index=points.index, name="upper"))


def as_array(values):
    return np.frombuffer(values, dtype=np.float64).copy()


def need_pandas(what):
    """pandas for what returns pandas objects whatever its input (imported
    here, not with perfmodel); ImportError naming what when it is missing."""
    try:
        import pandas
    except ImportError:
        raise ImportError(f"{what} returns pandas objects: install pandas "
                          "(Debian: python3-pandas)") from None
    return pandas


def metrics_series(metrics, name):
    """A metrics dict (Model.metrics' keys) as a Series of floats (the row
    counts too: exact as floats) named name."""
    return need_pandas("Model.eval").Series(metrics, name=name, dtype=np.float64)


def selection_table(selection):
    """select's candidates, a row each in select's order: form, loss,
    params, mape, mape_std, r2, folds, constant_folds, chosen, then the
    held-out metrics' mean and std over the folds as mean_X and std_X."""
    pd = need_pandas("Model.selection_table")
    rows = [{**{k: v for k, v in c.items() if k not in ("mean", "std")},
             **{f"mean_{k}": v for k, v in c["mean"].items()},
             **{f"std_{k}": v for k, v in c["std"].items()}} for c in selection]
    return pd.DataFrame(rows)


def discovery_table(discovery):
    """discover's candidates, a row each in its order: formula, terms, mape,
    mape_se, chosen."""
    return need_pandas("Model.discovery_table").DataFrame(discovery["candidates"])
