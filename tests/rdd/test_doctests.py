"""The examples in the RDD facade's docstrings run and print what they show.

Each module's doctests get ``sc``, a fresh ``SparkContext('local')`` (some examples ship
files or set names, so no module shares its context); ``rdd.context``'s own example
creates its context, so it runs first, with none active.
"""

from __future__ import annotations

import doctest
import importlib
from collections.abc import Callable
from typing import Any

import pytest

from rdd import SparkFiles

MODULES = [
    "rdd.actions",
    "rdd.approximate",
    "rdd.conf",
    "rdd.derived",
    "rdd.join",
    "rdd.numeric",
    "rdd.ordered",
    "rdd.output",
    "rdd.pair",
    "rdd.piped",
    "rdd.rdd",
    "rdd.statcounter",
    "rdd.user_files",
]

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _run(name: str, extraglobs: dict[str, Any]) -> None:
    result = doctest.testmod(importlib.import_module(name), extraglobs=extraglobs, optionflags=FLAGS, report=True)
    assert result.attempted > 0, f"{name} has no examples left: drop it from MODULES"
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest(s) of {name} failed (see output)"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(make_sc: Callable[..., Any], name: str) -> None:
    _run(name, {"sc": make_sc("local"), "SparkFiles": SparkFiles})


def test_the_context_examples(make_sc: Callable[..., Any]) -> None:
    """The class's example makes its own context; the methods' use ``sc``, made after it stopped."""
    module = importlib.import_module("rdd.context")
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    tests = [t for t in doctest.DocTestFinder().find(module) if t.examples]
    made: list[Any] = []
    for test in sorted(tests, key=lambda t: t.name != "rdd.context.SparkContext"):
        if test.name != "rdd.context.SparkContext":
            made = made or [make_sc("local")]
            test.globs["sc"] = made[0]
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 1 and result.failed == 0, f"{result.failed} of {result.attempted} failed (see output)"
