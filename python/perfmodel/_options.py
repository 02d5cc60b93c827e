"""fit's options as the command line's words, parsed by the library
(perfmodel/options.h): the table, each value's checks and the checks
together are the library's, as perfmodel fit's; here only the Python
types and spellings (docs/python.md)."""

import numpy as np

from . import _perfmodel
from ._data import data_path
from ._errors import error, no_nul, path, wrong_type


# name -> (takes a value, flags), the CLI's long options
TABLE = {name: (takes, flags) for name, takes, flags in _perfmodel._option_table()}
NOT_PYTHON = _perfmodel.OPTION_OUTPUT | _perfmodel.OPTION_HELP
# Python spellings of options whose CLI name is a keyword; polish= and
# intervals= are --no-polish and --no-intervals turned around
ALIASES = {"lam": "lambda", "lambda_": "lambda"}
TURNED = {"polish": "no-polish", "intervals": "no-intervals"}
LISTS = ("extrinsic", "intrinsic", "categorical", "ignore", "workers", "forms")


def number(ok, want):
    def conv(name, v):
        try:
            if isinstance(v, bool):
                raise ValueError
            x = float(v)
        except (TypeError, ValueError):
            raise error(f"{name}={v!r}: expected {want}") from None
        if not (np.isfinite(x) and ok(x)):
            raise error(f"{name}={v!r}: expected {want}")
        return x
    return conv


level = number(lambda x: 0 < x < 1, "a probability between 0 and 1 (0.9)")


def text(name, v):
    if not isinstance(v, str):
        raise wrong_type(f"{name}={v!r}: expected a string")
    return no_nul(f"{name}={v!r}", v)


def names(name, v):
    """Column names: a comma-separated string or a list of names, as the
    library takes them: one string, split at commas, each name trimmed. A
    name in a list that would not come back whole (a comma, blanks at
    either end, empty) is an error naming it (a column name so is named in
    the spec instead)."""
    if isinstance(v, str):
        return no_nul(f"{name}={v!r}", v)
    if not isinstance(v, (list, tuple)) or not all(isinstance(x, str) for x in v):
        raise wrong_type(f"{name}={v!r}: expected a column name or a list of them")
    for x in v:
        if "," in x or x != x.strip() or not x:
            raise error(f"{name}={v!r}: {x!r} would not come through whole (the list "
                         "goes as one comma-separated text, each item trimmed)")
        no_nul(f"{name}={v!r}", x)
    return ",".join(v)


def flag(name, v):
    if not isinstance(v, (bool, np.bool_)):
        raise wrong_type(f"{name}={v!r}: expected True or False")
    return bool(v)


def scalar(name, v):
    """A value as the command line's text: a string as it is, a number
    written back exactly; the library checks it."""
    if isinstance(v, str):
        return no_nul(f"{name}={v!r}", v)
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    raise wrong_type(f"{name}={v!r}: expected a string or a number")


def normalise(options):
    """{CLI name: (key as given, value)}; unknown names raise Error."""
    out = {}
    for key, value in options.items():
        name = ALIASES.get(key, key.replace("_", "-"))
        if name in TURNED:
            name, value = TURNED[name], not flag(key, value)
        if name not in TABLE or TABLE[name][1] & NOT_PYTHON:
            raise error(f"unknown option '{key}'")
        if name in out:
            raise error(f"option '{key}' given twice")
        out[name] = (key, value)
    return out


def word(name, key, v, tmp, written):
    """The word of one option (None: a flag not given); what is a path or
    data becomes a path, data written to tmp (and recorded in written, as
    data_path's)."""
    from . import Model
    if not TABLE[name][0]:
        return f"--{name}" if flag(key, v) else None
    if name == "test" or (name == "validate" and not (isinstance(v, str) and _perfmodel._is_scheme(
            no_nul(f"{key}={v!r}", v)))):
        text = data_path(v, key, tmp, written)
    elif name == "warm-start":
        text = "<Model>" if isinstance(v, Model) else path(key, v)
    elif name in LISTS:
        text = names(key, v)
    elif name in ("loss", "mutation") and isinstance(v, (list, tuple)):
        text = ",".join(scalar(key, x) for x in v)
    else:
        text = scalar(key, v)
    return f"--{name}={text}"


def words(options, tmp, written):
    """The words of the options and the Model to start from (or None)."""
    from . import Model
    out = []
    for name, (key, v) in normalise(options).items():
        w = word(name, key, v, tmp, written)
        if w is not None:
            out.append(w)
    warm = options.get("warm_start")
    return out, warm._c if isinstance(warm, Model) else None


def spec_of(spec):
    """(its path, its JSON text), one of them None or both: a spec given as
    a path or as the spec's JSON (a dict), as the library takes it."""
    import json
    if isinstance(spec, dict):
        try:
            return None, json.dumps(spec, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise error(f"spec: not JSON: {e}") from None
    return (None if spec is None else path("spec", spec)), None


def command_words(options, spec_path, data, tmp, written):
    """fit's words of the options, the spec's path and the data (after
    "--"), and the Model to start from (or None)."""
    out, warm = words(options, tmp, written)
    if spec_path is not None:
        out.append("--spec=" + spec_path)
    return out + ["--", data_path(data, "data", tmp, written)], warm
