"""perfmodel: fit interpretable performance models to measured run times.

The Python face of libperfmodel (docs/python.md): the same fits as the
``perfmodel`` command, bit for bit, from a notebook or a pipeline::

    import perfmodel
    m = perfmodel.fit("data/gemm_cpu.csv", "models/gemm.json", seed=3)
    m.params, m.metrics["training"]["mape"]
    m.predict({"m": [512], "n": [512], "k": [512], "threads": [8]})

Options are the command's long options with ``_`` for ``-``
(``test_fraction=0.3``; ``lam`` for ``--lambda``). Errors raise
:class:`Error`, a :class:`ValueError` with the library's message and place
(an argument of the wrong type: a :class:`TypeError` too; a cell of a
DataFrame: its ``row`` label and ``column`` name). A fit's warnings are
:class:`FitWarning` warnings, as the command's ``perfmodel: warning:`` lines.
"""

import os
import tempfile

import numpy as np

from . import _perfmodel
from ._data import Written as _Written, data_path as _data_path, \
    is_dataframe as _is_dataframe, relocate as _relocate
from ._frames import as_array as _as_array, bounds_of as _bounds_of, \
    discovery_table as _discovery_table, is_series as _is_series, \
    metrics_series as _metrics_series, one_row as _one_row, predictions as _predictions, \
    selection_table as _selection_table
from ._display import model_html as _model_html, model_repr as _model_repr
from ._errors import FitWarning, error as _error, no_nul as _no_nul, path as _path, \
    warn_fit as _warn_fit, wrong_type as _wrong_type
from ._perfmodel import Error, cpu_count
from ._jobs import batch, fit_groups
from ._options import command_words as _command_words, flag as _flag, level as _level, \
    names as _names, normalise as _normalise, number as _number, spec_of as _spec_of, \
    text as _text, word as _word

__all__ = ["Error", "FitWarning", "Model", "fit", "select", "discover", "fit_groups", "batch", "plan",
           "lif", "inspect", "load",
           "loads", "cpu_count", "__version__"]
__version__ = _perfmodel.version

_FIT, _SELECT, _DISCOVER = 0, 1, 2


def _run(mode, data, spec, options):
    spec, spec_json = _spec_of(spec)
    written = {}
    with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
        words, warm = _command_words(options, spec, data, tmp, written)
        try:
            c, extra, mode = _perfmodel._fit(mode, words, spec_json, warm)
        except Error as e:
            _relocate(e, written)
            raise
    model = Model(c, selection=extra if mode == _SELECT else None,
                  discovery=extra if mode == _DISCOVER else None)
    # fit, select or discover, then the user's line
    _warn_fit(model.warnings, stacklevel=3)
    return model


def fit(data, spec=None, **options):
    """Fit a model to the measurements in data, as ``perfmodel fit``.

    data: a CSV file path (any format perfmodel reads, see format=), a dict
    of columns, or a pandas DataFrame. spec: a spec file path or a dict (the
    spec's JSON). options: perfmodel fit's long options, '-' as '_'
    (seed=3, threads=1, form="multiplicative", loss="mae", reg="l2",
    lam=0.1 for --lambda, intervals=False for --no-intervals,
    polish=False for --no-polish, test=path or data, validate="kfold:5").
    With no form or formula (and none in the spec) the form is chosen as
    select() chooses it: eq. 4.4 unless another is better by more than the
    folds disagree (docs/model-selection.md); form="additive" is the
    thesis's fit. Returns a Model; raises Error.
    The GIL is released while the fit runs; Ctrl-C stops it
    (KeyboardInterrupt).

    >>> m = perfmodel.fit("data/gemm_cpu.csv", "models/gemm.json", seed=1)
    >>> m
    <perfmodel.Model time_s ~ additive (eq. 4.4): 4 parameters, training MAPE 9.93 %>
    >>> m.inputs, round(m.params["p_n"], 2), round(m.metrics["training"]["r2"], 2)
    (['n', 'threads'], 3.01, 0.92)
    """
    return _run(_FIT, data, spec, options)


def select(data, spec=None, **options):
    """Choose the form by cross-validation, as ``perfmodel select``: forms=
    (default "additive,multiplicative,discover"), loss= a list (default
    mae,log), cv=K or validate=, cv_seed=; the Model's .selection lists how
    each candidate did."""
    return _run(_SELECT, data, spec, options)


def discover(data, spec=None, **options):
    """Search the model's terms, as ``perfmodel discover`` (max_terms=,
    beam=, top=, refine=True, validate=); the Model's .discovery holds the
    search and its formula is the one chosen."""
    return _run(_DISCOVER, data, spec, options)


def lif(data, workers, n_col=None, target=None, extrinsic=None):
    """The load-imbalance factor of thesis eq. 3.8, LIF = N max t_i / sum
    t_i, of every row from its per-worker times, per configuration, and
    eq. 3.9's regression t = b0 + b1 N + b2 LIF, as ``perfmodel lif``.

    data: a path, dict of columns or DataFrame; workers: the per-worker time
    columns, names or globs (a list or "a,b": "t_worker_*"); n_col: N's
    column (default: the row's non-empty worker times); target: t's column
    (default: the row's slowest worker); extrinsic: the columns that make a
    configuration (default: N). An empty cell (None; in a DataFrame NaN
    too) is a worker the row lacks. A DataFrame gives a DataFrame of its rows
    (its index kept): n, lif, t; .attrs["groups"] a DataFrame of the
    configurations (their columns, count, mean, std) and
    .attrs["regression"] eq. 3.9's coefficients, standard errors and R^2,
    or None with .attrs["regression_error"] saying why. Otherwise perfmodel
    lif --json's document as a dict."""
    import json
    names = lambda what, v: None if v is None else _names(what, v)
    frame = data
    if _is_dataframe(data):     # pandas' NaN, a worker the row lacks: an empty cell
        frame = data.astype(object).where(data.notna(), None)
    written = {}
    with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
        path = _data_path(frame, "data", tmp, written)
        try:
            doc = json.loads(_perfmodel._lif(path, _names("workers", workers),
                                             names("n_col", n_col), names("target", target),
                                             names("extrinsic", extrinsic)))
        except Error as e:
            _relocate(e, written)
            raise
    if path in written:
        doc["file"] = f"<{written[path].what}>"
    if not _is_dataframe(data):
        return doc
    import pandas as pd
    rows = pd.DataFrame([(r["n"], r["lif"], r["t"]) for r in doc["rows"]],
                        columns=["n", "lif", "t"], index=data.index)
    rows.attrs["groups"] = pd.DataFrame([{**g["config"], "count": g["count"], "mean": g["mean"],
                                          "std": g["std"]} for g in doc["groups"]])
    rows.attrs["regression"] = doc["regression"]
    rows.attrs["regression_error"] = doc.get("regression_error")
    rows.attrs["workers"] = doc["workers"]
    return rows


def plan(data, candidates, at, spec=None, count=None, budget=None, cost_column=None,
         cost_scale=None, members=None, **options):
    """Which runs to measure next, as ``perfmodel plan`` (docs/plan.md): fit
    data as fit() does (options as fit's), refit it to bootstrap resamples of
    the measured configurations (with no form given, shared among the forms
    the choice measured: the document's "forms"), and pick the candidates
    whose measurement is expected to shrink the spread of the predictions at
    the targets (at) most per unit of cost, each pick counting the ones
    before it.

    data, candidates, at: paths, dicts of columns or DataFrames (candidates
    and at: the inputs' columns). count: picks at most (default 5; with a
    budget alone, no limit); budget: their costs' sum at most; cost_column:
    the candidates' column of costs, or cost_scale: a column the predicted
    time is multiplied by (nodes, GPUs); default cost: the predicted time;
    members: refits (16). A DataFrame of candidates gives a DataFrame: its
    picked rows in pick order, index kept, with cost, gain (the expected
    shrink of the targets' spread, 0 to 1) and predicted columns, and the
    whole plan (perfmodel plan --json's document) in .attrs["plan"];
    otherwise that document as a dict. Deterministic for a seed=. Raises
    Error; Ctrl-C stops it (KeyboardInterrupt).

    >>> import pandas as pd
    >>> candidates = pd.DataFrame({"n": [2048, 3072], "threads": [1, 2]}, index=["c", "d"])
    >>> picks = perfmodel.plan("data/gemm_cpu.csv", candidates, {"n": [4096], "threads": [2]},
    ...                        "models/gemm.json", seed=1, count=1)
    >>> picks.index.tolist(), picks.columns.tolist()
    (['d'], ['n', 'threads', 'cost', 'gain', 'predicted'])
    >>> 0 < picks["gain"]["d"] <= 1
    True
    """
    import json
    spec, spec_json = _spec_of(spec)
    wanted = [_number(lambda v: v >= 1 and v == int(v), "a whole number >= 1")("count", count)
              if count is not None else 0,
              _number(lambda v: 0 < v < float("inf"), "a finite number > 0")("budget", budget)
              if budget is not None else 0.0,
              _text("cost_column", cost_column) if cost_column is not None else None,
              _text("cost_scale", cost_scale) if cost_scale is not None else None,
              _number(lambda v: 2 <= v <= 1000 and v == int(v), "a whole number from 2 to "
                      "1000")("members", members) if members is not None else 0]
    if "warm_start" in options:
        raise _error("plan: warm_start is fit's: each refit starts from plan's own fit")
    written = {}
    with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
        words, _ = _command_words(options, spec, data, tmp, written)
        paths = [_data_path(candidates, "candidates", tmp, written),
                 _data_path(at, "at", tmp, written)]
        try:
            doc, rows = _perfmodel._plan(words, spec_json, *paths, int(wanted[0]),
                                         float(wanted[1]), *wanted[2:4], int(wanted[4]))
        except Error as e:
            _relocate(e, written)
            raise
    doc = json.loads(doc)
    for key in ("candidates", "targets"):    # a frame's temporary file: the frame
        if doc.get(key) in written:
            doc[key] = f"<{written[doc[key]].what}>"
    if not _is_dataframe(candidates):
        return doc
    picked = candidates.iloc[rows].copy()
    for key in ("cost", "gain", "predicted"):
        picked[key] = [p[key] for p in doc["picks"]]
    picked.attrs["plan"] = doc
    return picked


_READ_OPTIONS = ("format", "aggregate", "drop_first", "throughput", "per", "name_pattern",
                 "region", "callpath", "metric", "weights", "inclusive", "scaling", "target")


def inspect(data, key=None, frame=False, **options):
    """What a measurements file or a folder of CUBE run folders holds, read
    as fit reads it (``perfmodel inspect --json``, docs/formats.md): a dict
    with the format, the columns and their roles, the points with their runs,
    the regions x metrics (Extra-P, CUBE) and a CUBE profile's metrics and
    call tree. data: a path or columns (as fit's); key: the columns that
    make a point (a list or "a,b"; default every column but the target);
    options: the reading options of fit (target=, region=/callpath=,
    metric=, inclusive=, scaling=, format=, aggregate=, ...).
    frame=True: the points as a pandas DataFrame instead, a row each in
    the document's order: the key columns' values, runs, value (the
    point's value of its runs: the median unless aggregate= says) and cv
    (their coefficient of variation, NaN for one run); the dict in
    .attrs["inspect"].

    >>> info = perfmodel.inspect("data/gemm_cpu.csv", target="time_s", key="n,threads")
    >>> info["points"]["count"], info["runs"]
    (16, 100)
    >>> points = perfmodel.inspect("data/gemm_cpu.csv", target="time_s",
    ...                            key=["n", "threads"], frame=True)
    >>> points.head(3).round(6)
         n  threads  runs     value        cv
    0  128        1     3  0.000088  0.013820
    1  128        2     5  0.000052  0.251936
    2  192        1     9  0.000271  0.029227
    """
    import json
    frame = _flag("frame", frame)
    given = _normalise(options)
    bad = [k for k, _ in given.values() if k not in _READ_OPTIONS]
    if bad:
        raise _error(f"inspect reads: '{bad[0]}' is an option of the fit")
    if key is not None:
        names = [x.strip() for x in _names("key", key).split(",")]
        if not all(names):
            raise _error(f"key={key!r}: expected a column name or a list of them")
        key = names
    written = {}
    with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
        words = [w for name, (k, v) in given.items()
                 if (w := _word(name, k, v, tmp, written))]
        words += ["--", _data_path(data, "data", tmp, written)]
        try:
            doc = json.loads(_perfmodel._inspect(words, key))
        except Error as e:
            _relocate(e, written)
            raise
    if not frame:
        return doc
    import pandas as pd
    points = pd.DataFrame([{**p["point"], "runs": p["runs"], "value": p["value"],
                            "cv": np.nan if p["cv"] is None else p["cv"]}
                           for p in doc["points"]["list"]])
    points.attrs["inspect"] = doc
    return points


def _write_atomic(path, text):
    """text into path by a rename: a failure leaves any old file whole."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise _error(f"{path}: cannot write: {e.strerror}") from None


def load(path):
    """A model saved by Model.save or perfmodel fit -o (model.json).

    >>> import tempfile
    >>> m = perfmodel.fit("data/gemm_cpu.csv", "models/gemm.json", seed=1)
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     m.save(os.path.join(folder, "gemm.json"))
    ...     again = perfmodel.load(os.path.join(folder, "gemm.json"))
    >>> again.params == m.params, again.inputs
    (True, ['n', 'threads'])
    """
    return Model(_perfmodel._load(_path("path", path)))


def loads(text, name="<string>"):
    """A model from model.json's text; name labels errors."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise _error(f"{_text('name', name)}: not UTF-8 (byte {e.start})") from None
    if not isinstance(text, str):
        raise _wrong_type(f"text: expected model.json's text (str or bytes), not "
                          f"{type(text).__name__}")
    _no_nul(f"loads: the text of {_text('name', name)}", text)
    return Model(_perfmodel._loads(text, name))


class Model:
    """A fitted (or loaded) model: its parameters, accuracy and predictions.

    params: {name: value} as the formula writes them; params_std: their std
    over seeds (NaN for one fit); formula: the formula's text (None for the
    additive form, eq. 4.4); form; target; inputs: the input names in the
    model's order; levels: {categorical input: its levels}; metrics:
    {"training": {...}, "test": {...} or None}; warnings: what a reader must
    know before trusting it (a fit raised each as a FitWarning); info: the
    fit's record; selection / discovery: what select() and discover() tried
    (selection_table / discovery_table: the same as DataFrames).
    predict() and interval() answer in the shape of their points (a
    DataFrame's index kept), eval() measures it on rows, report() writes
    perfmodel report's page; in a notebook it shows its tables and plots."""

    def __init__(self, c, selection=None, discovery=None):
        if not isinstance(c, _perfmodel.CModel):
            raise _wrong_type("Model: made by fit(), select(), discover(), load() or loads(), "
                              f"not from {type(c).__name__}")
        self._c = c
        d = c._describe()
        params = c._params()
        self.params = {name: value for name, value, _ in params}
        self.params_std = {name: std for name, _, std in params}
        self.form = d["form"] or "additive"
        self.formula = d["formula"]
        self.target = d["target"]
        self.target_kind = d["target_kind"]
        self.has_intervals = d["has_intervals"]
        self._label = d["label"]
        self._inputs = c._inputs()
        self.inputs = [name for name, _, _ in self._inputs]
        self.levels = {name: levels for name, role, levels in self._inputs
                       if role == "categorical"}
        self.info = c._info()
        self.metrics = ({"training": self.info["training"], "test": self.info["test"]}
                        if self.info else {"training": None, "test": None})
        self.warnings = c._warnings()
        self.selection = selection
        self.discovery = discovery

    def __repr__(self):
        return _model_repr(self)

    def _repr_html_(self):
        """The model in a notebook: its formula, parameters, accuracy and
        warnings, and for a model fitted here (up to 5 000 rows) the
        report's predicted-against-measured and scaling plots, inline SVG."""
        return _model_html(self)

    @property
    def selection_table(self):
        """select()'s candidates as a pandas DataFrame, a row each in the
        order of select's table: form, loss, params, mape, mape_std, r2,
        folds, constant_folds, chosen, and each held-out metric's mean and
        std over the folds (mean_mape, std_mape, ...); None for a model not
        made by select()."""
        return None if self.selection is None else _selection_table(self.selection)

    @property
    def discovery_table(self):
        """discover()'s candidates as a pandas DataFrame: formula, terms,
        mape, mape_se, chosen; None for a model not made by discover()."""
        return None if self.discovery is None else _discovery_table(self.discovery)

    def eval(self, data):
        """The model's accuracy on data, as ``perfmodel eval -m MODEL DATA``:
        a pandas Series of rows, mape_rows, mae, mape, mse, rmse, r2, smape
        and adj_r2 (Model.metrics' keys), named as the target. data: a CSV
        path, a dict of columns or a DataFrame holding the inputs and the
        target, read as the command reads it. Needs pandas.

        >>> m = perfmodel.fit("data/gemm_cpu.csv", "models/gemm.json", seed=1)
        >>> metrics = m.eval("data/gemm_cpu.csv")
        >>> metrics.name, int(metrics["rows"]), round(metrics["mape"], 1)
        ('time_s', 100, 9.9)
        """
        written = {}
        with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
            try:
                metrics = self._c._eval(_data_path(data, "data", tmp, written))
            except Error as e:
                _relocate(e, written)
                raise
        return _metrics_series(metrics, self.target)

    def report(self, path=None, data=None, test=None):
        """The page of ``perfmodel report`` (one HTML file, its plots inline
        SVG): its text, also written to path when given (atomically).
        data, test: the rows to report on (a CSV path, a dict of columns or a
        DataFrame; test, held-out rows); by default those the model was
        fitted to (and its held-out rows), which a loaded model lacks."""
        written = {}
        with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
            files = [None if v is None else _data_path(v, what, tmp, written)
                     for what, v in (("data", data), ("test", test))]
            try:
                page = self._c._report_html(*files, None)
            except Error as e:
                _relocate(e, written)
                raise
        if path is not None:
            _write_atomic(_path("path", path), page)
        return page

    def scaling(self, data=None):
        """The scaling report (thesis §4.3; perfmodel fit's "scaling"): for
        each extrinsic input, the predicted time at each of its values in
        the rows (other inputs at the baseline: each numeric input's median,
        each categorical's most frequent level), the speedup and the
        efficiency. data: the rows (a path, dict of columns or DataFrame);
        default those the model was fitted to. A pandas DataFrame indexed by
        (input, value), columns time, speedup, efficiency; .attrs["inputs"]
        {input: {parameter, q, q_std, power, doubling, effective_exponent}},
        .attrs["baseline"] {input: value}."""
        import json
        import pandas as pd
        written = {}
        with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
            file = None if data is None else _data_path(data, "data", tmp, written)
            try:
                doc = json.loads(self._c._scaling(file))
            except Error as e:
                _relocate(e, written)
                raise
        rows = [(s["input"], p["value"], p["time"], p["speedup"], p["efficiency"])
                for s in doc["scaling"] for p in s["points"]]
        frame = pd.DataFrame(rows, columns=["input", "value", "time", "speedup", "efficiency"])
        frame = frame.set_index(["input", "value"])
        frame.attrs["inputs"] = {s["input"]: {k: v for k, v in s.items()
                                              if k not in ("input", "points")}
                                 for s in doc["scaling"]}
        frame.attrs["baseline"] = doc["baseline"]
        return frame

    def advise(self, at, vary, resource=None, min_efficiency=0.7, quantile=None,
               max_extrapolation=2, iterations=1, setup_time=0):
        """Which configuration to run, as ``perfmodel advise``: every
        combination of the varied inputs' values (vary: {input: values},
        up to 8 numeric inputs), the others as in at ({input: value}, a
        level's text for a categorical; a dict or a pandas Series), and
        three picks: the fastest, the cheapest (resource x time; resource:
        a varied input, default the first) and the largest resource count
        whose efficiency is at least min_efficiency. quantile: rank by that
        quantile of the time (a model with intervals); max_extrapolation:
        leave out combinations beyond that factor of the fitted data (None:
        no limit); iterations, setup_time: the job's time is setup_time +
        iterations x the model's time. A pandas DataFrame with a row per
        pick (fastest, cheapest, largest): the varied inputs' values, time,
        cost, speedup, efficiency, extrapolated; the whole perfmodel advise
        --json document in .attrs["advice"]. Without pandas: that dict."""
        import json
        if _is_series(at):
            at = at.to_dict()
        if not isinstance(at, dict):
            raise _wrong_type(f"at: expected a dict or a pandas Series, not {type(at).__name__}")
        if not isinstance(vary, dict) or not vary:
            raise _wrong_type(f"vary: expected {{input: values}}, not {vary!r}")
        items = []
        for name, values in vary.items():
            if not isinstance(name, str):
                raise _wrong_type(f"vary: input names are strings, not {name!r}")
            values = list(values) if isinstance(values, (list, tuple, range, np.ndarray)) \
                else [values]
            items.append((name, [_number(lambda v: 0 < v, "numbers > 0")(f"vary[{name!r}]", v)
                                 for v in values]))
        point = {k: (v.item() if isinstance(v, np.generic) else v) for k, v in at.items()}
        try:
            text = json.dumps(point, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise _error(f"at: not a configuration: {e}") from None
        number = lambda name, v, ok, want: _number(ok, want)(name, v)
        doc = json.loads(self._c._advise(
            text, items, None if resource is None else _text("resource", resource),
            number("min_efficiency", min_efficiency, lambda v: 0 < v <= 1, "a number in (0, 1]"),
            0.0 if quantile is None else _level("quantile", quantile),
            0.0 if max_extrapolation is None else
            number("max_extrapolation", max_extrapolation, lambda v: v >= 1, "a number >= 1"),
            number("iterations", iterations, lambda v: v > 0, "a number > 0"),
            number("setup_time", setup_time, lambda v: v >= 0, "a number >= 0")))
        try:
            import pandas as pd
        except ImportError:
            return doc
        rows = {pick: {**doc[pick].get("values", {}),
                       **{k: doc[pick].get(k) for k in ("time", "cost", "speedup", "efficiency",
                                                        "extrapolated")}}
                for pick in ("fastest", "cheapest", "largest") if pick in doc}
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.attrs["advice"] = doc
        return frame

    def _points(self, points):
        """(text or path, is_path, {"<points>": Written} for a frame's text)
        for the C core."""
        if isinstance(points, (str, bytes, os.PathLike)):
            return _path("points", points), True, {}
        if _is_series(points):
            points = _one_row(points)
        if not (isinstance(points, dict) or _is_dataframe(points)):
            want = f"a 2-D array of {len(self.inputs)} columns ({', '.join(self.inputs)})"
            if not isinstance(points, (list, tuple, np.ndarray)):
                raise _wrong_type(f"points: expected a DataFrame, a Series, a dict of columns, "
                                  f"{want} or a file path, not {type(points).__name__}")
            rows = np.asarray(points, dtype=object)
            if rows.ndim != 2 or rows.shape[1] != len(self.inputs):
                raise _error(f"points: expected {want}, not shape {rows.shape}")
            points = {name: list(rows[:, i]) for i, name in enumerate(self.inputs)}
        w = _Written(points, "points")
        return w.text, False, {"<points>": w}

    def _predict(self, points, level):
        """(predictions, bounds or None) as arrays, the bounds those of the
        central interval of probability level (a checked number; None:
        none); an error about a cell of a frame placed in it."""
        levels = () if level is None else (level,)
        text, is_path, written = self._points(points)
        try:
            pred, bounds = self._c._predict(text, is_path, levels)
        except Error as e:
            _relocate(e, written)
            raise
        return _as_array(pred), _as_array(bounds).reshape(-1, 2) if levels else None

    def predict(self, points, interval=None):
        """The model's predictions at points, as ``perfmodel predict``, shaped
        as points.

        points: a DataFrame, or a dict of columns, named as the inputs (extra
        columns ignored); a Series, one configuration (its index the inputs'
        names); a 2-D array of rows with the inputs in model order
        (self.inputs); or a CSV file path.
        Returns, for a DataFrame, a Series indexed as it, named as the
        command's column ("predicted"); for a Series, a float; else a numpy
        array, a value per row. interval=LEVEL (0.9) adds the central
        prediction interval of that probability, as ``perfmodel predict
        --interval LEVEL``: a DataFrame of predicted, lower and upper (a
        Series of the three for a Series; a tuple of three arrays else).

        >>> import pandas as pd
        >>> m = perfmodel.fit("data/gemm_cpu.csv", "models/gemm.json", seed=1)
        >>> m.predict(pd.DataFrame({"n": [1024, 2048], "threads": [2, 2]},
        ...                        index=["mid", "big"])).round(3)
        mid    0.021
        big    0.172
        Name: predicted, dtype: float64
        >>> m.predict({"n": [1024], "threads": [2]}).round(3)
        array([0.021])
        >>> p = m.predict(pd.Series({"n": 1024, "threads": 2}), interval=0.9)
        >>> p.index.tolist(), bool(p["lower"] <= p["predicted"] <= p["upper"])
        (['predicted', 'lower', 'upper'], True)
        """
        level = None if interval is None else _level("interval", interval)
        pred, bounds = self._predict(points, level)
        return _predictions(points, self._label, pred, bounds)

    def interval(self, points, level=0.9):
        """(lower, upper): the central prediction interval of probability
        level at each point, as ``perfmodel predict --interval LEVEL``: two
        Series indexed as a DataFrame's points (floats for a Series), else
        two arrays. Error for a model without intervals (fitted with
        intervals=False)."""
        _, bounds = self._predict(points, _level("level", level))
        return _bounds_of(points, bounds)

    def save(self, path):
        """Write model.json to path (atomically: a failure leaves any old
        file as it was); perfmodel predict -m and load() read it."""
        self._c._save(_path("path", path))

    def to_json(self):
        """model.json's text."""
        return self._c.to_json()
