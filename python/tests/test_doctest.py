"""The docstrings' examples (>>>) run as doctest runs them, from the source
tree (their paths, data/ and models/, are the bundled ones), so that what
help() shows is what the package does."""
import doctest
import os

import pytest

import perfmodel
from perfmodel import _jobs

pytest.importorskip("pandas")

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
EXAMPLES = [t for module in (perfmodel, _jobs)
            for t in doctest.DocTestFinder().find(module, globs={"perfmodel": perfmodel,
                                                                 "os": os})
            if t.examples]
# the main calls show how they are used
SHOWN = {"fit", "plan", "fit_groups", "batch", "inspect", "load", "Model.predict",
         "Model.eval"}


def test_the_main_calls_have_examples():
    names = {t.name.removeprefix("perfmodel.").removeprefix("_jobs.") for t in EXAMPLES}
    assert SHOWN <= names, SHOWN - names


@pytest.mark.parametrize("test", EXAMPLES, ids=lambda t: t.name)
def test_example(test, source, monkeypatch):
    monkeypatch.chdir(source)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    runner.run(test)
    assert runner.failures == 0, f"{test.name}: {runner.failures} example(s) failed (above)"
