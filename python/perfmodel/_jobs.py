"""perfmodel.batch and perfmodel.fit_groups (docs/python.md): many fits run
by the library's batch (perfmodel/batch.h, docs/batch.md), `threads` jobs at
once on threads of their own, each fit on one thread, so that the results,
in job order, are the same for any number. Both make the batch's jobs
(JSON Lines) and read its result lines through run_jobs."""

import json
import os
import tempfile

import numpy as np

from . import _perfmodel
from ._data import column_names, data_path, is_dataframe, relocate
from ._errors import error, warn_fit, wrong_type
from ._options import number, spec_of, words
from ._perfmodel import Error, cpu_count

COMMANDS = {"fit": 0, "select": 1, "discover": 2}
_NAMED = ("id", "command", "data", "spec")      # a job's members that are no option


def _workers(threads):
    if threads is None:
        return cpu_count()
    return int(number(lambda v: 1 <= v <= 1024 and v == int(v),
                       "a whole number from 1 to 1024")("threads", threads))


def _command(command, label):
    if not isinstance(command, str) or command not in COMMANDS:
        raise error(f"{label}command={command!r}: expected 'fit', 'select' or 'discover'")
    return command


def _job_members(words):
    """perfmodel fit's words as a batch job's members (docs/batch.md):
    --key=value as "key": "value", a flag as true."""
    out = {}
    for w in words:
        key, eq, value = w[2:].partition("=")
        out[key] = value if eq else True
    return out


def _spec_member(spec):
    """A spec (a path or a dict) as a job's "spec" member, or None."""
    path, text = spec_of(spec)
    return path if text is None else json.loads(text)


def run_jobs(jobs, labels, workers, written):
    """Each job (its members, docs/batch.md, without an id) run by the
    library's batch: a Model or the Error it failed with each, in job
    order, messages prefixed with its label ("job 'a'"), a frame's
    temporary file named as the frame (written, as data_path's). The
    models' warnings are raised as FitWarnings, counted from the caller's
    caller. A job the batch refuses (no job: an output option, --help, an
    empty "data") raises Error naming its label before any job runs."""
    from . import Model
    # the members are text, true and a spec spec_of has made JSON
    lines = [json.dumps({"id": i, **job}, allow_nan=False) + "\n" for i, job in enumerate(jobs)]
    try:
        results = _perfmodel._batch("".join(lines), workers, 1, "jobs") if lines else []
    except Error as e:
        if e.file != "jobs" or not e.line:
            raise
        raise error(f"{labels[e.line - 1]}: {e.message.removeprefix(f'jobs:{e.line}: ')}") \
            from None
    out = []
    for label, line in zip(labels, results):
        r = json.loads(line)
        if "model" in r:
            m = Model(_perfmodel._loads(json.dumps(r["model"]), label))
            warn_fit([f"{label}: {w}" for w in m.warnings], stacklevel=3)
            out.append(m)
        else:
            e = error(f"{label}: {r['error']}")
            relocate(e, written)
            out.append(e)
    return out


def fit_groups(data, by, spec=None, command="fit", threads=None, **options):
    """One model per group of data's rows, the way Thicket users model each
    call-tree node with Extra-P: data a pandas DataFrame, by a column name
    or a list of them (the groups: rows whose by-columns are equal, in
    pandas' groupby order, NaN a key of its own); each group's rows, its
    by-columns left out, fitted as fit() fits (command="select" or
    "discover": as those) with spec and options, by the library's batch
    (perfmodel batch's jobs): `threads` groups at once (default: the CPUs),
    each fit on one thread, the same models for any number.

    Returns a pandas Series indexed by the groups' keys (a MultiIndex for
    several columns): each group's Model, or the perfmodel.Error its fit
    failed with (not raised: the other groups are fitted). A model's
    warnings are raised as FitWarnings, each prefixed with its group.

    >>> import pandas as pd
    >>> df = pd.read_csv("data/gemm_cpu.csv")
    >>> models = perfmodel.fit_groups(df, by="threads", spec={"target": "time_s",
    ...                               "intrinsic": ["n"]}, seed=1, threads=2)
    >>> models.index.tolist(), models.index.name, models[2].inputs
    ([1, 2], 'threads', ['n'])
    >>> round(models[1].params["p_n"], 1), round(models[2].params["p_n"], 1)
    (3.0, 3.0)
    """
    import pandas as pd
    if not is_dataframe(data):
        raise wrong_type(f"data: expected a pandas DataFrame, not {type(data).__name__}")
    keys = [by] if isinstance(by, str) else list(by) if isinstance(by, (list, tuple)) else None
    if not keys or not all(isinstance(k, str) for k in keys):
        raise wrong_type(f"by={by!r}: expected a column name or a list of them")
    missing = [k for k in keys if k not in data.columns]
    if missing:
        raise error(f"by: no column '{missing[0]}' in data")
    _command(command, "")
    if "warm_start" in options:
        raise error("fit_groups: warm_start is fit's: each group starts on its own")
    workers = _workers(threads)
    spec_path, spec_json = spec_of(spec)
    spec_member = spec_path if spec_json is None else json.loads(spec_json)
    groups = list(data.groupby(keys if len(keys) > 1 else keys[0], sort=True, dropna=False))
    labels = [f"group {key!r}" for key, _ in groups]
    written = {}
    with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
        shared_words, _ = words(options, tmp, written)
        # checked once here, not as every group's error
        _perfmodel._check(COMMANDS[command], shared_words + (["--spec=" + spec_path] if
                                                             spec_path else []) +
                          ["--", "group"], spec_json)
        shared = _job_members(shared_words)
        if spec_member is not None:
            shared["spec"] = spec_member
        jobs = [{"command": command, **shared,
                 "data": data_path(rows.drop(columns=keys), f"group{i}", tmp, written)}
                for i, (_, rows) in enumerate(groups)]
        out = run_jobs(jobs, labels, workers, written)
    index = pd.MultiIndex.from_tuples([k for k, _ in groups], names=keys) if len(keys) > 1 \
        else pd.Index([k for k, _ in groups], name=keys[0])
    return pd.Series(out, index=index, dtype=object, name="model")


def _missing(v):
    """A member not given: None, or (in a DataFrame) NaN or pandas' NA."""
    import pandas as pd
    return v is None or (pd.api.types.is_scalar(v) and bool(pd.isna(v)))


def _cell(v):
    """A DataFrame's cell as a member: a whole number that pandas made a
    float (a column with NaN) as that number, numpy's scalars as Python's."""
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and v.is_integer() and abs(v) < 2.0 ** 53:
        return int(v)
    return v


def _job_id(job, i):
    """A job's "id" (None when it has none), checked as the batch checks it."""
    v = job.get("id")
    if isinstance(v, np.integer):
        v = int(v)
    if v is not None and (isinstance(v, bool) or not isinstance(v, (str, int))):
        raise wrong_type(f"job {i}: id={v!r}: expected a string or a whole number")
    return v


def _members(job, label, folder, written):
    """A job's dict as the batch's members: the options as fit() takes them
    (Python's spelling or the command line's), data or test in memory
    written to a CSV in folder, a Model to start from saved there."""
    from . import Model
    if not isinstance(job, dict):
        raise wrong_type(f"{label}: expected a dict of docs/batch.md's members, not "
                         f"{type(job).__name__}")
    job = {k: v for k, v in job.items() if not _missing(v)}
    bad = [k for k in job if not isinstance(k, str)]
    if bad:
        raise wrong_type(f"{label}: member {bad[0]!r}: expected a string")
    command = _command(job.get("command", "fit"), f"{label}: ")
    if "data" not in job:
        raise error(f"{label}: no \"data\": the measurements to fit")
    options = {k: v for k, v in job.items() if k not in _NAMED}
    os.makedirs(folder)
    try:
        for key in ("warm_start", "warm-start"):
            if isinstance(options.get(key), Model):
                options[key] = os.path.join(folder, "warm-start.json")
                job[key].save(options[key])
        job_words, _ = words(options, folder, written)
        members = {"command": command, **_job_members(job_words),
                   "data": data_path(job["data"], "data", folder, written)}
        spec = _spec_member(job.get("spec"))
    except Error as e:
        e.args = (f"{label}: {e}",)
        e.message = f"{label}: {e.message}"
        raise
    if spec is not None:
        members["spec"] = spec
    return members


def batch(jobs, threads=None):
    """Many fits at once, as ``perfmodel batch`` runs a jobs file
    (docs/batch.md), by the library's batch: `threads` jobs at once
    (default: the CPUs), each fit on one thread (a job's own "threads"
    wins), the same results for any number.

    jobs: a list of dicts, each a job of docs/batch.md: "data" (a path, a
    dict of columns or a DataFrame), "spec" (a path or a dict), "command"
    ("fit", the default, "select" or "discover"), "id" (a string or a whole
    number, unique) and the command's options, by fit()'s names or the
    command line's ("max_terms" or "max-terms"; None: not given); or a
    pandas DataFrame, a job per row, its columns the members (NaN: not
    given), its index the jobs' names. Relative paths are read from the
    current folder.

    Returns a pandas Series named "model", indexed by the jobs' ids when
    every job has one (else 0..n-1; a DataFrame's: its index): each job's
    Model, or the perfmodel.Error it failed with (not raised: the other
    jobs run). A model's warnings are raised as FitWarnings, each prefixed
    with its job ("job 'a': ..."). Raises Error (TypeError too for a wrong
    type) naming the job for what is no job: not a dict, an unknown option
    or command, no "data", an id given twice, a member the batch refuses
    (an output option). Ctrl-C stops it (KeyboardInterrupt).

    >>> results = perfmodel.batch([
    ...     {"id": "s1", "data": "data/gemm_cpu.csv", "spec": "models/gemm.json", "seed": 1},
    ...     {"id": "mult", "data": "data/gemm_cpu.csv", "spec": "models/gemm.json",
    ...      "seed": 1, "form": "multiplicative"},
    ...     {"id": "none", "data": "data/nothere.csv"}], threads=2)
    >>> results.index.tolist()
    ['s1', 'mult', 'none']
    >>> results["mult"].form
    'multiplicative'
    >>> print(results["none"])
    job 'none': data/nothere.csv: cannot open: No such file or directory
    """
    import pandas as pd
    if is_dataframe(jobs):
        if "id" in jobs.columns:
            raise error("jobs: a DataFrame's jobs are named by its index, not an 'id' column "
                        "(jobs.set_index('id'))")
        names = column_names(jobs.columns, "jobs")
        rows = [{n: _cell(v) for n, v in zip(names, row)}
                for row in jobs.itertuples(index=False, name=None)]
        index = jobs.index
        labels = [f"job {k!r}" for k in index]
    elif isinstance(jobs, (list, tuple)):
        rows = list(jobs)
        ids = [_job_id(job, i) if isinstance(job, dict) else None
               for i, job in enumerate(rows)]
        first = {}
        for i, v in enumerate(ids):
            if v is not None and first.setdefault(v, i) != i:
                raise error(f"job {i}: id {v!r} is also job {first[v]}'s: ids must be unique")
        labels = [f"job {i}" if v is None else f"job {v!r}" for i, v in enumerate(ids)]
        index = pd.Index(ids, name="id") if rows and None not in ids \
            else pd.RangeIndex(len(rows))
    else:
        raise wrong_type(f"jobs: expected a list of dicts or a pandas DataFrame, not "
                         f"{type(jobs).__name__}")
    workers = _workers(threads)
    written = {}
    with tempfile.TemporaryDirectory(prefix="perfmodel-") as tmp:
        members = [_members(job, label, os.path.join(tmp, str(i)), written)
                   for i, (job, label) in enumerate(zip(rows, labels))]
        out = run_jobs(members, labels, workers, written)
    return pd.Series(out, index=index, dtype=object, name="model")
