# Type hints of the perfmodel package (docs/python.md): what __init__.py
# accepts and returns. Data and points are a path, a dict of columns, a
# pandas DataFrame (or, for points, a Series: one configuration, or a numpy
# array in the model's input order); a spec is a path or the spec's JSON as
# a dict. Options are perfmodel fit's long options, '-' as '_'.
import os
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np

_Path = Union[str, os.PathLike[str]]
_Data = Union[_Path, Mapping[str, Sequence[Any]], Any]  # Any: a pandas DataFrame
_Points = Union[_Path, Mapping[str, Sequence[Any]], np.ndarray, Any]  # Any: DataFrame, Series
_Spec = Union[_Path, Mapping[str, Any], None]

__version__: str


class Error(ValueError):
    """The library's or the package's refusal: str(e) the whole message."""
    status: str
    message: str
    file: Optional[str]
    line: Optional[int]
    column: Optional[Union[int, str, Any]]
    row: Optional[Any]


class FitWarning(UserWarning):
    """A fit's warning, the text perfmodel fit prints after 'warning: '."""


class Model:
    params: dict[str, float]
    params_std: dict[str, float]
    form: str
    formula: Optional[str]
    target: str
    target_kind: str
    has_intervals: bool
    inputs: list[str]
    levels: dict[str, list[str]]
    info: Optional[dict[str, Any]]
    metrics: dict[str, Optional[dict[str, Any]]]
    warnings: list[str]
    selection: Optional[dict[str, Any]]
    discovery: Optional[dict[str, Any]]

    @property
    def selection_table(self) -> Any: ...  # a pandas DataFrame, or None
    @property
    def discovery_table(self) -> Any: ...  # a pandas DataFrame, or None
    def eval(self, data: _Data) -> Any: ...  # a pandas Series of metrics
    # a DataFrame with a row per pick (fastest, cheapest, largest)
    def advise(self, at: Mapping[str, Any], vary: Mapping[str, Any],
               resource: Optional[str] = None, min_efficiency: float = 0.7,
               quantile: Optional[float] = None, max_extrapolation: Optional[float] = 2,
               iterations: float = 1, setup_time: float = 0) -> Any: ...
    # a DataFrame indexed by (input, value): time, speedup, efficiency
    def scaling(self, data: Optional[_Data] = None) -> Any: ...
    def report(self, path: Optional[_Path] = None, data: Optional[_Data] = None,
               test: Optional[_Data] = None) -> str: ...
    # a DataFrame gives a Series (its index kept; with interval= a
    # DataFrame predicted/lower/upper), a Series a float, anything else an
    # ndarray (with interval= a tuple of three)
    def predict(self, points: _Points, interval: Optional[float] = None) -> Any: ...
    def interval(self, points: _Points, level: float = 0.9) -> Any: ...
    def save(self, path: _Path) -> None: ...
    def to_json(self) -> str: ...
    def _repr_html_(self) -> str: ...


def fit(data: _Data, spec: _Spec = None, **options: Any) -> Model: ...
def select(data: _Data, spec: _Spec = None, **options: Any) -> Model: ...
def discover(data: _Data, spec: _Spec = None, **options: Any) -> Model: ...
# a pandas Series of Models (or the Error a group's fit failed with),
# indexed by the groups' keys
def fit_groups(data: Any, by: Union[str, Sequence[str]], spec: _Spec = None,
               command: str = "fit", threads: Optional[int] = None,
               **options: Any) -> Any: ...
# a pandas Series named "model" of Models (or the Error a job failed with),
# indexed by the jobs' ids (else 0..n-1; a DataFrame's: its index); jobs:
# dicts of docs/batch.md's members, or a DataFrame with a job per row
def batch(jobs: Union[Sequence[Mapping[str, Any]], Any],
          threads: Optional[int] = None) -> Any: ...
# a DataFrame gives a DataFrame of its rows (n, lif, t), else the dict
def lif(data: _Data, workers: Union[str, Sequence[str]], n_col: Optional[str] = None,
        target: Optional[str] = None,
        extrinsic: Union[str, Sequence[str], None] = None) -> Any: ...
# a DataFrame of candidates gives a DataFrame (the picks, index kept, with
# cost, gain and predicted; the document in .attrs["plan"]), else the dict
def plan(data: _Data, candidates: _Data, at: _Data, spec: _Spec = None,
         count: Optional[int] = None, budget: Optional[float] = None,
         cost_column: Optional[str] = None, cost_scale: Optional[str] = None,
         members: Optional[int] = None, **options: Any) -> Any: ...
# the document as a dict; frame=True: its points as a DataFrame (the key
# columns, runs, value, cv; the dict in .attrs["inspect"])
def inspect(data: _Data, key: Union[str, Sequence[str], None] = None, frame: bool = False,
            **options: Any) -> Any: ...
def load(path: _Path) -> Model: ...
def loads(text: Union[str, bytes, bytearray], name: str = "<string>") -> Model: ...
def cpu_count() -> int: ...
