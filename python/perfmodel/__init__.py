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
(an argument of the wrong type: a :class:`TypeError` too).
"""

import os
import tempfile

import numpy as np

from . import _perfmodel
from ._data import columns as _columns, csv_text as _csv_text, data_path as _data_path, \
    is_dataframe as _is_dataframe
from ._errors import error as _error, no_nul as _no_nul, path as _path, \
    wrong_type as _wrong_type
from ._perfmodel import Error, cpu_count

__all__ = ["Error", "Model", "fit", "select", "discover", "inspect", "load", "loads", "cpu_count",
           "__version__"]
__version__ = _perfmodel.version

_FIT, _SELECT, _DISCOVER = 0, 1, 2


# ---- options: the CLI's long options, checked as perfmodel fit checks them --

def _whole(lo, hi, want):
    def conv(name, v):
        if isinstance(v, bool) or not isinstance(v, (int, str, np.integer)):
            raise _error(f"{name}={v!r}: expected {want}")
        text = str(v)
        if not (text.isascii() and text.isdigit()) or not lo <= int(text) <= hi:
            raise _error(f"{name}={v!r}: expected {want}")
        return int(text)
    return conv


def _number(ok, want):
    def conv(name, v):
        try:
            if isinstance(v, bool):
                raise ValueError
            x = float(v)
        except (TypeError, ValueError):
            raise _error(f"{name}={v!r}: expected {want}") from None
        if not (np.isfinite(x) and ok(x)):
            raise _error(f"{name}={v!r}: expected {want}")
        return x
    return conv


def _choice(*values):
    def conv(name, v):
        if v not in values:
            raise _error(f"{name}={v!r}: expected " + ", ".join(values[:-1]) + " or " + values[-1])
        return v
    return conv


def _text(name, v):
    if not isinstance(v, str):
        raise _wrong_type(f"{name}={v!r}: expected a string")
    return _no_nul(f"{name}={v!r}", v)


def _names(name, v):
    """Column names: a comma-separated string or a list of names, as the
    library takes them: one string, split at commas, each name trimmed. A
    name in a list that would not come back whole (a comma, blanks at
    either end, empty) is an error naming it (a column name so is named in
    the spec instead)."""
    if isinstance(v, str):
        return _no_nul(f"{name}={v!r}", v)
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
        raise _wrong_type(f"{name}={v!r}: expected a column name or a list of them")
    for x in v:
        if "," in x or x != x.strip() or not x:
            raise _error(f"{name}={v!r}: {x!r} would not come through whole (the list "
                         "goes as one comma-separated text, each item trimmed)")
        _no_nul(f"{name}={v!r}", x)
    return ",".join(v)


def _flag(name, v):
    if not isinstance(v, (bool, np.bool_)):
        raise _wrong_type(f"{name}={v!r}: expected True or False")
    return bool(v)


def _mutation(name, v):
    want = "F or (LO, HI) with 0 <= LO <= HI <= 2"
    pair = v if isinstance(v, (list, tuple)) else str(v).split(",") if isinstance(v, str) else [v]
    if len(pair) == 1:
        pair = [pair[0], pair[0]]
    if len(pair) != 2:
        raise _error(f"{name}={v!r}: expected {want}")
    lo, hi = (_number(lambda x: True, want)(name, x) for x in pair)
    if not 0 <= lo <= hi <= 2:
        raise _error(f"{name}={v!r}: expected {want}")
    return lo, hi


_UINT64 = 2**64 - 1
# name -> converter; names as the CLI's long options, '-' as '_'
_OPTIONS = {
    # roles
    "target": _text, "extrinsic": _names, "intrinsic": _names, "categorical": _names,
    "ignore": _names, "workers": _names, "target_kind": _text, "resource": _text,
    "per": _text, "form": _choice("additive", "multiplicative", "auto"), "formula": _text,
    # the fit
    "engine": _choice("varpro", "de"), "scale": _choice("auto", "none"),
    "seed": _whole(0, _UINT64, "a whole number >= 0"),
    "seeds": _whole(1, 10000, "a whole number from 1 to 10000"),
    "threads": _whole(1, 1024, "a whole number from 1 to 1024"),
    "maxiter": _whole(1, 100000000, "a whole number >= 1"),
    "popsize": _whole(1, 100000, "a whole number >= 1"),
    "tol": _number(lambda x: x >= 0, "a number >= 0"),
    "atol": _number(lambda x: x >= 0, "a number >= 0"),
    "mutation": _mutation,
    "recombination": _number(lambda x: 0 <= x <= 1, "a number in [0, 1]"),
    "polish": _flag, "intervals": _flag, "warm_start": None,
    "loss": None, "reg": _choice("none", "l1", "l2"),
    "lambda": _number(lambda x: x >= 0, "a number >= 0"),
    "lambda_power": _number(lambda x: x >= 0, "a number >= 0"),
    # held-out rows
    "test_fraction": _number(lambda x: 0 < x < 1, "a number between 0 and 1"),
    "split_seed": _whole(0, _UINT64, "a whole number >= 0"),
    "test": None, "validate": _text,
    # reading the measurements (docs/formats.md)
    "format": _text, "aggregate": _text,
    "drop_first": _whole(0, 1000000, "a whole number >= 0"),
    "throughput": _text, "name_pattern": _text, "region": _text, "metric": _text,
    "weights": _choice("none", "inverse-variance"),
    "inclusive": _flag, "scaling": _choice("weak", "strong", "each"),
    "drop_incomplete": _flag,
    # selection
    "forms": _names, "cv": _whole(2, 1000000, "a whole number of folds >= 2"),
    "cv_seed": _whole(0, _UINT64, "a whole number >= 0"),
    # discovery
    "max_terms": _whole(1, 6, "a whole number from 1 to 6"),
    "beam": _whole(1, 64, "a whole number from 1 to 64"),
    "top": _whole(1, 100, "a whole number from 1 to 100"),
    "refine": _flag,
}
# Python spellings of options whose CLI name is a keyword or has a '-'
_ALIASES = {"lam": "lambda", "lambda_": "lambda", "no_polish": None, "no_intervals": None,
            "callpath": "region"}
_SELECT_ONLY = ("forms", "cv", "cv_seed")
_DISCOVER_ONLY = ("max_terms", "beam", "top", "refine")


def _normalise(options):
    """{canonical name: value as given}; unknown names raise Error."""
    out = {}
    for key, value in options.items():
        name = key.replace("-", "_")
        name = _ALIASES.get(name, name) or name
        if name in ("no_polish", "no_intervals"):
            name, value = name[3:], not _flag(key, value)
        if name not in _OPTIONS:
            raise _error(f"unknown option '{key}'")
        if name in out:
            raise _error(f"option '{key}' given twice")
        out[name] = value
    return out


def _losses(value, many):
    names = value.split(",") if isinstance(value, str) else value
    if isinstance(names, (list, tuple)) and all(isinstance(x, str) for x in names):
        names = [_no_nul(f"loss={value!r}", x) for x in names if x]
        if names and (len(names) == 1 or many):
            return names
    raise _error(f"loss={value!r}: expected " +
                 ("a list of mae, mse, mape, log" if many else "mae, mse, mape or log"))


def _spec_text(spec):
    """A spec path that is no regular file (a pipe) read once, as its text:
    looking for its form must not use it up; else the spec as given (a
    path: a str)."""
    if spec is None or isinstance(spec, dict):
        return spec
    spec = _path("spec", spec)
    try:
        if not os.path.isfile(spec) and os.path.exists(spec):
            with open(spec, encoding="utf-8") as f:
                return _SpecText(f.read())
    except (OSError, TypeError, ValueError):
        pass
    return spec


class _SpecText(str):
    """A spec's JSON text read from a pipe (_spec_text)."""


def _spec_names_form(spec):
    """Whether the spec (a dict, a file or its text) names a form; one that
    cannot be read names none here: the C core reports it."""
    import json
    if spec is None:
        return False
    try:
        if isinstance(spec, _SpecText):
            spec = json.loads(spec)
        elif not isinstance(spec, dict):
            with open(spec, encoding="utf-8") as f:
                spec = json.load(f)
    except (OSError, ValueError, TypeError):
        return False
    return isinstance(spec, dict) and ("form" in spec or "formula" in spec)


def _options(mode, spec, options, tmp):
    """The typed options the C core takes, with perfmodel fit's defaults and
    checks (cli/cmd_fit.c parse_args); data the C core reads is in tmp."""
    given = _normalise(options)
    spec = _spec_text(spec)
    o = {}
    v = {name: (_OPTIONS[name](name, value) if _OPTIONS[name] else value)
         for name, value in given.items()}
    if v.get("form") == "auto":
        if mode == _DISCOVER:
            raise _error("discover writes the formula: no form, formula or forms")
        mode = _SELECT
        del v["form"]
    elif mode == _FIT and "form" not in v and "formula" not in v and "warm_start" not in v \
            and not _spec_names_form(spec):
        # no form given: the best model it can find, as perfmodel fit
        if v.get("seeds", 1) > 1:
            raise _error("seeds repeats the fit of one form: name it (form='additive', as "
                         "the thesis's tables; form='multiplicative'; formula=TEXT)")
        mode = _SELECT
    if mode == _DISCOVER and ("form" in v or "formula" in v or "forms" in v):
        raise _error("discover writes the formula: no form, formula or forms")
    if "form" in v and "formula" in v:
        raise _error("give one of form and formula")
    if mode == _FIT and any(k in v for k in _SELECT_ONLY):
        raise _error("forms, cv and cv_seed choose the form: not with a form given (form, "
                     "formula, the spec's \"form\")")
    if mode != _DISCOVER and any(k in v for k in _DISCOVER_ONLY):
        raise _error("max_terms, beam, top and refine are discover's: use perfmodel.discover")
    if "warm_start" in v and mode != _FIT:
        raise _error("warm_start refits the form of one model: not with model selection or "
                     "discover")
    if v.get("seeds", 1) > 1 and mode == _SELECT:
        raise _error("seeds repeats one form's fit: not with model selection")
    if v.get("reg", "none") == "none" and (v.get("lambda", 0) > 0 or v.get("lambda_power", 0) > 0):
        raise _error("lambda needs reg='l1' or 'l2'")
    if sum(k in v for k in ("test", "test_fraction", "validate")) > 1:
        raise _error("test, test_fraction and validate exclude each other")
    if "throughput" in v and "target_kind" in v:
        raise _error("throughput turns its column into a time as it is read (a model of "
                     "time); target_kind fits the target as what it measures: give one of them")

    # roles: a spec file or dict, then the role options (pm_spec setters)
    if isinstance(spec, _SpecText):
        o["spec_json"] = str(spec)
    elif isinstance(spec, dict):
        import json
        try:
            o["spec_json"] = json.dumps(spec, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise _error(f"spec: not JSON: {e}") from None
    elif spec is not None:
        o["spec_path"] = spec
    for k in ("target", "extrinsic", "intrinsic", "categorical", "ignore", "workers",
              "target_kind", "resource"):
        if k in v:
            o[k] = v[k]
    if "form" in v or "formula" in v:
        o["form"] = v.get("form", v.get("formula"))
    # per: the throughput's (time = per/throughput) with throughput, else
    # the target kind's
    if "per" in v:
        o["read_per" if "throughput" in v else "per"] = v["per"]
    for k in ("format", "aggregate", "drop_first", "throughput", "name_pattern", "region",
              "metric", "weights"):
        if k in v:
            o[k] = v[k]
    if v.get("inclusive"):
        o["inclusive"] = 1
    if v.get("drop_incomplete"):
        o["drop_incomplete"] = 1
    if "scaling" in v:
        o["scaling"] = ("weak", "strong", "each").index(v["scaling"])

    # the fit (the engine's defaults are set in C before these)
    for k in ("seed", "threads", "maxiter", "popsize", "tol", "atol", "recombination",
              "test_fraction", "split_seed"):
        if k in v:
            o[k] = v[k]
    if "engine" in v:
        o["engine"] = 0 if v["engine"] == "varpro" else 1
    if "scale" in v:
        o["scale"] = 0 if v["scale"] == "auto" else 1
    if "reg" in v:
        o["reg"] = ("none", "l1", "l2").index(v["reg"])
    if "mutation" in v:
        o["mutation_lo"], o["mutation_hi"] = v["mutation"]
    if "lambda" in v:
        o["lambda_coef"] = o["lambda_power"] = v["lambda"]
    if "lambda_power" in v:     # wins over lambda
        o["lambda_power"] = v["lambda_power"]
    if "polish" in v:
        o["polish"] = int(v["polish"])
    if "intervals" in v and not v["intervals"]:
        o["intervals"] = 0
    if "seeds" in v:
        o["nseeds"] = v["seeds"]
    if "warm_start" in v:
        w = v["warm_start"]
        o["warm_start"] = w._c if isinstance(w, Model) else _path("warm_start", w)
    for k in _DISCOVER_ONLY:
        if k in v:
            o[k] = int(v[k])
    if mode == _DISCOVER and "loss" not in v:
        o["losses"] = ["mape"]     # discover ranks by relative error: its winner fits so too
    elif "loss" in v:
        o["losses"] = _losses(v["loss"], mode == _SELECT)
    if mode != _SELECT and "losses" in o:
        o["loss"] = o.pop("losses")[0]
    if mode == _SELECT:
        o["forms"] = [x for x in v.get("forms", "additive,multiplicative,discover").split(",")
                      if x]
        if not o["forms"]:
            raise _error(f"forms={v['forms']!r}: expected a form or a list of them")
        o.setdefault("losses", ["mae", "log"])

    # held-out rows and validation (cli/cmd_fit.c validation_args)
    scheme = None
    if "validate" in v:
        if _perfmodel._is_scheme(v["validate"]):
            scheme = v["validate"]
        else:
            v["test"] = v.pop("validate")
    if "test" in v:
        o["test_path"] = _data_path(v["test"], "test", tmp)
    seed = v.get("seed", 1)
    if "split_seed" in v and "test_fraction" not in v and \
            not (mode == _FIT and scheme and scheme.startswith("kfold")):
        raise _error("split_seed needs test_fraction or validate='kfold'")
    split_seed = v.get("split_seed", seed)
    o["split_seed"] = split_seed
    if mode == _FIT:
        if scheme:
            o["validate"], o["validate_seed"] = scheme, split_seed
    else:
        if "cv" in v and scheme:
            raise _error("cv=K is validate='kfold:K': give one of them")
        if "cv" in v or not scheme:
            scheme = "kfold:%d" % v.get("cv", 5)
        if "cv_seed" in v and not scheme.startswith("kfold"):
            raise _error(f"cv_seed deals k folds: not with validate={scheme!r}")
        o["validate"], o["validate_seed"] = scheme, v.get("cv_seed", seed)
    return mode, o


def _run(mode, data, spec, options):
    with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
        mode, o = _options(mode, spec, options, tmp)
        path = _data_path(data, "data", tmp)
        c, extra = _perfmodel._fit(mode, path, o)
    return Model(c, selection=extra if mode == _SELECT else None,
                 discovery=extra if mode == _DISCOVER else None)


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
    (KeyboardInterrupt)."""
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


_READ_OPTIONS = ("format", "aggregate", "drop_first", "throughput", "per", "name_pattern",
                 "region", "metric", "weights", "inclusive", "scaling", "target")


def inspect(data, key=None, **options):
    """What a measurements file or a folder of CUBE run folders holds, read
    as fit reads it (``perfmodel inspect --json``, docs/formats.md): a dict
    with the format, the columns and their roles, the points with their runs,
    the regions x metrics (Extra-P, CUBE) and a CUBE profile's metrics and
    call tree. data: a path or columns (as fit's); key: the columns that
    make a point (a list or "a,b"; default every column but the target);
    options: the reading options of fit (target=, region=/callpath=,
    metric=, inclusive=, scaling=, format=, aggregate=, ...)."""
    import json
    given = _normalise(options)
    bad = [k for k in given if k not in _READ_OPTIONS]
    if bad:
        raise _error(f"inspect reads: '{bad[0]}' is an option of the fit")
    v = {name: (_OPTIONS[name](name, value) if _OPTIONS[name] else value)
         for name, value in given.items()}
    o = {k: v[k] for k in ("format", "aggregate", "drop_first", "throughput", "name_pattern",
                           "region", "metric", "weights", "target") if k in v}
    if "per" in v:
        o["read_per"] = v["per"]
    if v.get("inclusive"):
        o["inclusive"] = 1
    if "scaling" in v:
        o["scaling"] = ("weak", "strong", "each").index(v["scaling"])
    if key is not None:
        names = [x.strip() for x in _names("key", key).split(",")]
        if not all(names):
            raise _error(f"key={key!r}: expected a column name or a list of them")
        key = names
    with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
        path = _data_path(data, "data", tmp)
        return json.loads(_perfmodel._inspect(path, o, key))


def load(path):
    """A model saved by Model.save or perfmodel fit -o (model.json)."""
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
    model's order; levels: {categorical input: its levels}; metrics: {"training": {...}, "test": {...} or None};
    warnings: what a reader must know before trusting it; info: the fit's
    record; selection / discovery: what select() and discover() tried."""

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
        return (f"<perfmodel.Model {self.target} ~ {self.formula or self.form}: "
                f"{len(self.params)} parameters>")

    def _points(self, points):
        """(text or path, is_path) for the C core."""
        if isinstance(points, (str, bytes, os.PathLike)):
            return _path("points", points), True
        if isinstance(points, dict) or _is_dataframe(points):
            return _csv_text(_columns(points, "points"), "points"), False
        want = f"a 2-D array of {len(self.inputs)} columns ({', '.join(self.inputs)})"
        if not isinstance(points, (list, tuple, np.ndarray)):
            raise _wrong_type(f"points: expected a DataFrame, a dict of columns, {want} or a "
                              f"file path, not {type(points).__name__}")
        rows = np.asarray(points, dtype=object)
        if rows.ndim != 2 or rows.shape[1] != len(self.inputs):
            raise _error(f"points: expected {want}, not shape {rows.shape}")
        return _csv_text({name: list(rows[:, i]) for i, name in enumerate(self.inputs)},
                         "points"), False

    def predict(self, points):
        """The model's predictions at points, as ``perfmodel predict``: a
        numpy array, a value per row. points: a DataFrame or dict of columns
        named as the inputs (extra columns ignored), a 2-D array of rows
        with the inputs in model order (self.inputs), or a CSV file path."""
        pred, _ = self._c._predict(*self._points(points), ())
        return np.frombuffer(pred, dtype=np.float64).copy()

    def interval(self, points, level=0.9):
        """(lower, upper): the central prediction interval of probability
        level at each point, as ``perfmodel predict --interval LEVEL``. Error
        for a model without intervals (fitted with intervals=False)."""
        level = _number(lambda x: 0 < x < 1, "a probability between 0 and 1 (0.9)")("level",
                                                                                  level)
        _, bounds = self._c._predict(*self._points(points), (level,))
        b = np.frombuffer(bounds, dtype=np.float64).reshape(-1, 2)
        return b[:, 0].copy(), b[:, 1].copy()

    def save(self, path):
        """Write model.json to path (atomically: a failure leaves any old
        file as it was); perfmodel predict -m and load() read it."""
        self._c._save(_path("path", path))

    def to_json(self):
        """model.json's text."""
        return self._c.to_json()
