"""Measurements and points in memory (a dict of columns, a pandas DataFrame)
as the CSV text the library reads (docs/python.md): names checked as the
library's CSV reader checks a header, and before they become text, so that
no two columns, and no cell, become one another on the way."""

import csv
import io
import os

import numpy as np

from ._errors import error, no_nul, path, wrong_type

DATA_TYPES = "a file path, a dict of columns or a pandas DataFrame"


def is_dataframe(x):
    # pandas only when it is there: perfmodel does not need it
    return type(x).__module__.startswith("pandas") and hasattr(x, "columns")


def _is_series(x):
    return type(x).__module__.startswith("pandas") and hasattr(x, "tolist")


def column_names(names, what):
    """The columns' names as the CSV header writes them (str), checked as
    the library checks a header (no empty name, none twice, no NUL) after
    that conversion: 1 and '1' would be one column, so they are an error
    naming both. A name is a string or a whole number; anything else (None,
    a float, a tuple of a MultiIndex) is an error."""
    seen = {}
    for name in names:
        if isinstance(name, (bool, np.bool_)) or \
                not isinstance(name, (str, int, np.integer)):
            raise wrong_type(f"{what}: column name {name!r}: expected a string")
        text = str(name)
        if not text:
            raise error(f"{what}: empty column name")
        no_nul(f"{what}: column name {text!r}", text)
        if text in seen:
            raise error(f"{what}: duplicate column name '{text}' (columns {seen[text]!r} and "
                        f"{name!r})")
        seen[text] = name
    return list(seen)


def _one_row(x):
    return x is None or isinstance(x, (str, bytes, int, float, np.generic))


def _values(name, col, what):
    """A column of a dict as a list: a list, tuple, range, 1-D numpy array or
    pandas Series; a single value is one row."""
    if isinstance(col, np.ndarray):
        if col.ndim > 1:
            raise error(f"{what}: column '{name}': expected one value per row, not an array "
                        f"of shape {col.shape}")
        return col.tolist() if col.ndim else [col.item()]
    if _one_row(col):
        return [col]
    if _is_series(col) or isinstance(col, (list, tuple, range)):
        return list(col.tolist() if _is_series(col) else col)
    raise wrong_type(f"{what}: column '{name}': expected a list, a numpy array or a pandas "
                     f"Series, not {type(col).__name__}")


def columns(data, what):
    """The columns of a dict or DataFrame as {name: list}, all of one length."""
    if is_dataframe(data):
        names = column_names(data.columns, what)
        cols = {n: data.iloc[:, i].tolist() for i, n in enumerate(names)}
    elif isinstance(data, dict):
        names = column_names(data, what)
        cols = {n: _values(n, col, what) for n, col in zip(names, data.values())}
    else:
        raise wrong_type(f"{what}: expected {DATA_TYPES}, not {type(data).__name__}")
    if not cols:
        raise error(f"{what}: no columns")
    if len({len(c) for c in cols.values()}) != 1:
        raise error(f"{what}: columns of different lengths: " +
                    ", ".join(f"'{n}' {len(c)}" for n, c in cols.items()))
    return cols


def _cell(x):
    if isinstance(x, np.generic):
        x = x.item()
    if x is None:
        return ""           # a gap, as pandas' NaN: an error naming it, or drop_incomplete
    if isinstance(x, float):
        return repr(x)      # the shortest text that reads back to the same double
    return str(x)


def _cells(name, col, what):
    out = [_cell(x) for x in col]
    for i, text in enumerate(out):
        if "\0" in text:
            no_nul(f"{what}: column '{name}', item {i}: {text!r}", text)
    return out


def csv_text(cols, what):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(cols.keys())
    w.writerows(zip(*(_cells(n, c, what) for n, c in cols.items())))
    return out.getvalue()


def _field_starts(text):
    """Each record's fields as the (line, byte column) of their first byte,
    both from 1, as the library's CSV reader places a cell: a quoted field
    may hold a newline, which starts a line but not a record."""
    records, fields, line, column, quoted, start = [], [], 1, 1, False, True
    for b in text.encode("utf-8"):
        if start:
            fields.append((line, column))
            start = False
        column += 1
        if b == 0x22:
            quoted = not quoted
        elif b == 0x2c and not quoted:
            start = True
        elif b == 0x0a:
            line, column = line + 1, 1
            if not quoted:
                records.append(fields)
                fields, start = [], True
    return records


class Written:
    """A DataFrame or dict of columns as the CSV text the library reads, and
    the way back from a place in that text (a line and column of the
    library's error) to the frame's own row label and column name."""

    def __init__(self, data, what):
        cols = columns(data, what)
        self.what = what
        self.text = csv_text(cols, what)
        self.names = list(data.columns if is_dataframe(data) else data)
        self.labels = list(data.index) if is_dataframe(data) else None

    def cell(self, line, column):
        """(row label, column name) of the place; None for either that the
        place does not name (a header's row, a row's column)."""
        records = _field_starts(self.text)
        r = next((i for i in range(len(records) - 1, -1, -1)
                  if records[i] and records[i][0][0] <= line), None)
        if r is None:
            return None, None
        row = None if r == 0 else self.labels[r - 1] if self.labels is not None else r - 1
        if not column:
            return row, None
        starts = [k for k, at in enumerate(records[r]) if at <= (line, column)]
        return row, self.names[starts[-1]] if starts else None

    def relocate(self, e):
        """Place e (an Error whose file is this text's) in the frame: row
        and column its label and name, file and line None, its message
        prefixed with them, the library's own left in e.message."""
        row, name = self.cell(e.line, e.column) if e.line else (None, None)
        e.file, e.line, e.row, e.column = None, None, row, name
        place = ", ".join(f"{k} {v!r}" for k, v in (("row", row), ("column", name))
                          if v is not None)
        e.args = (f"{self.what}: {place}: {e.message}" if place else
                  f"{self.what}: {e.message}",)


def relocate(e, written):
    """e placed in the frame it is about (Written.relocate) when its file is
    one of written's ({path or name: Written}); else a temporary file's path
    in its message named as the frame ("<candidates>"), which the user
    never saw."""
    w = written.get(e.file) if isinstance(e.file, str) else None
    if w is not None:
        w.relocate(e)
        return
    text = str(e)
    for file, w in written.items():
        if isinstance(file, str) and os.path.isabs(file) and file in text:
            text = text.replace(file, f"<{w.what}>")
            if isinstance(getattr(e, "message", None), str):
                e.message = e.message.replace(file, f"<{w.what}>")
    e.args = (text,)


def data_path(data, what, tmp, written):
    """A path the library reads: data's own, or a CSV of its columns in tmp,
    recorded in written ({path: Written}) to name the frame's cells in an
    error."""
    if isinstance(data, (str, bytes, os.PathLike)):
        return path(what, data)
    if not (is_dataframe(data) or isinstance(data, dict)):
        raise wrong_type(f"{what}: expected {DATA_TYPES}, not {type(data).__name__}")
    w = Written(data, what)
    file = os.path.join(tmp, what + ".csv")
    with open(file, "w", encoding="utf-8", newline="") as f:
        f.write(w.text)
    written[file] = w
    return file
