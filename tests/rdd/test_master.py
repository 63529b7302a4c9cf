"""The master URL as a value: ``Master.parse`` is the one parser of ``spark.master``.

Accepted forms give their kind and worker count; anything else is a ``ValueError``
listing the accepted forms (``SparkContext`` raises it before taking the one-context
slot: see ``test_context.py``); a non-string is a ``TypeError``.
"""

from __future__ import annotations

import os

import pytest

from rdd.master import Master, MasterKind


@pytest.mark.parametrize(("url", "kind", "workers"), [
    ("local", MasterKind.LOCAL, 0),
    (" local ", MasterKind.LOCAL, 0),
    ("local[1]", MasterKind.LOCAL_N, 1),
    ("local[12]", MasterKind.LOCAL_N, 12),
    ("local[*]", MasterKind.LOCAL_STAR, os.cpu_count() or 1),
    ("local[2][4]", MasterKind.LOCAL_N, 2),
    ("ray", MasterKind.RAY, 0),
    ("ray[3]", MasterKind.RAY, 3),
])
def test_accepted_masters(url: str, kind: MasterKind, workers: int) -> None:
    master = Master.parse(url)
    assert (master.url, master.kind, master.workers) == (url.strip(), kind, workers)
    assert master.inline is (kind is MasterKind.LOCAL)


@pytest.mark.parametrize("url", ["yarn", "local[0]", "local[x]", "local[2", "LOCAL", "", "local[1]x", "ray[0]",
                                 "ray[*]", "RAY"])
def test_other_masters_list_the_accepted_forms(url: str) -> None:
    listed = r"Could not parse master URL .*'local'.*local\[N\].*local\[\*\].*'ray'.*ray\[N\]"
    with pytest.raises(ValueError, match=listed):
        Master.parse(url)


def test_a_master_that_is_not_a_string() -> None:
    with pytest.raises(TypeError, match="master must be a string such as 'local\\[2\\]', got 2 \\(int\\)"):
        Master.parse(2)


def test_the_value_is_frozen_and_comparable() -> None:
    assert Master.parse("local[3]") == Master.parse(" local[3]")
    with pytest.raises(AttributeError):
        Master.parse("local").workers = 2  # type: ignore[misc]
