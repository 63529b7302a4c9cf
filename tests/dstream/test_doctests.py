"""The examples in the streaming facade's docstrings run and print what they show.

Each module's doctests get ``sc``, a fresh ``SparkContext('local')``.
"""

from __future__ import annotations

import doctest
import importlib
from typing import Any

import pytest

pytestmark = pytest.mark.usefixtures("examples_temp_dir")  # the examples' mkdtemp() directories

MODULES = [
    "dstream",
    "dstream.clock",
    "dstream.context",
    "dstream.dstream",
    "dstream.listener",
    "dstream.pair",
    "dstream.testing",
    "dstream.time",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(sc: Any, name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module,
        extraglobs={"sc": sc},
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
        report=True,
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} doctest(s) of {name} failed (see output)"
