"""The examples in the RDD facade's docstrings run and print what they show.

Each module's doctests get ``sc``, a fresh ``SparkContext('local')`` (some examples ship
files or set names, so no module shares its context); ``rdd.context``'s own example
creates its context, so it runs first, with none active.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
from collections.abc import Callable
from typing import Any

import pytest

from rdd import SparkFiles

from tests.conftest import code_starts_processes

pytestmark = pytest.mark.usefixtures("examples_temp_dir")  # the examples' mkdtemp() directories

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


class _Examples:
    """The examples of one module, as a test parameter.

    ``processes`` tells the test-fast rule of ``tests/conftest.py`` whether they start a
    process, read from the module's source by the rule's own test for code, so
    ``make test-fast`` leaves those out.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.processes = code_starts_processes(inspect.getsource(importlib.import_module(name)))

    def __repr__(self) -> str:
        return self.name


def _run(name: str, extraglobs: dict[str, Any]) -> None:
    result = doctest.testmod(importlib.import_module(name), extraglobs=extraglobs, optionflags=FLAGS, report=True)
    assert result.attempted > 0, f"{name} has no examples left: drop it from MODULES"
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest(s) of {name} failed (see output)"


@pytest.mark.parametrize("examples", [_Examples(name) for name in MODULES], ids=MODULES)
def test_docstring_examples(make_sc: Callable[..., Any], examples: _Examples) -> None:
    _run(examples.name, {"sc": make_sc("local"), "SparkFiles": SparkFiles})


@pytest.mark.parametrize("examples", [_Examples("rdd.context")], ids=["rdd.context"])
def test_the_context_examples(make_sc: Callable[..., Any], examples: _Examples) -> None:
    """The class's example makes its own context; the methods' use ``sc``, made after it stopped."""
    module = importlib.import_module(examples.name)
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
