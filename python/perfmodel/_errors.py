"""perfmodel.Error for what the package checks itself (docs/python.md): an
argument of the wrong type or value, named as the user wrote it, before any
of it reaches the library, where a NUL would cut a string short; and
perfmodel.FitWarning, the warnings of a fit as Python warnings."""

import os
import warnings

from ._perfmodel import Error


class WrongTypeError(Error, TypeError):
    """perfmodel.Error for an argument of the wrong type: a TypeError too,
    so that code catching either catches it."""


class FitWarning(UserWarning):
    """What a reader must know before trusting a fitted model: each line that
    ``perfmodel fit`` prints as ``perfmodel: warning: TEXT``, with the same
    TEXT, raised through Python's warnings (so ``warnings.catch_warnings``,
    ``-W error`` and pytest's capture see it). The model keeps them in
    ``Model.warnings`` whatever the filters do."""
    __module__ = "perfmodel"    # as tracebacks and -W name it


def warn_fit(texts, stacklevel):
    """Each text as a FitWarning; stacklevel as warnings.warn's, counted
    from the caller of warn_fit."""
    for text in texts:
        warnings.warn(text, FitWarning, stacklevel=stacklevel + 1)


def _fill(e, message):
    e.status, e.message, e.file, e.line, e.column = "invalid argument", message, None, None, None
    e.row = None
    return e


def error(message):
    """A perfmodel.Error made here (a bad option or argument), without a place."""
    return _fill(Error(message), message)


def wrong_type(message):
    return _fill(WrongTypeError(message), message)


def no_nul(label, text):
    """text, or Error naming it (label: what it is, as the user wrote it)
    when it holds a NUL: C would read it only up to there."""
    if "\0" in text:
        raise error(f"{label}: contains a NUL character (at {text.index(chr(0))})")
    return text


def path(name, v):
    """A file path (str, bytes or os.PathLike) as str; Error for another
    type, an empty path or a NUL."""
    if not isinstance(v, (str, bytes, os.PathLike)):
        raise wrong_type(f"{name}={v!r}: expected a file path")
    try:
        text = os.fsdecode(v)
    except TypeError:       # a PathLike whose __fspath__ gives neither
        raise wrong_type(f"{name}={v!r}: expected a file path") from None
    if not text:
        raise error(f"{name}='': expected a file path, not an empty one")
    return no_nul(f"{name}={v!r}", text)
