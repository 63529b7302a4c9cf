"""The stable key hash: ``portable_hash`` and ``partitionBy`` placement across processes.

Python's ``hash()`` of ``str`` and ``bytes`` changes with ``PYTHONHASHSEED``; our
``portable_hash`` must not, or a key would land in different partitions in different
workers and after a restart. Each check runs real interpreters (``subprocess``) with
``PYTHONHASHSEED`` set to 0, 1, 12345 and ``random``, and compares what they compute
with the test process's own values. A control asserts that the builtin ``hash`` really
differs between those runs, so the test would notice if the seeds had no effect.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from rdd.partitioner import portable_hash

#: Keys of every supported kind, including non-ASCII text, nested tuples and bytes.
VALUES: list[Any] = [
    0, 1, -1, 7, 2**40, -(2**63), 2**64 + 5,
    "", "a", "spark", "é", "ключ", "鍵", "🙂", "a" * 100,
    b"", b"abc", b"\x00\xff",
    None,
    (), (1,), (1, "a"), ("é", (2, None)), ((1, 2), (3, (b"x", "y"))),
    True, False, 1.5, -0.25,
]

SEEDS = ["0", "1", "12345", "random"]

SCRIPT = textwrap.dedent(
    """
    import ast, json, sys
    from rdd import SparkContext
    from rdd.partitioner import portable_hash

    values = ast.literal_eval(sys.argv[1])
    hashes = [portable_hash(v) for v in values]
    with SparkContext("local[2]", "hash-check") as sc:
        pairs = [(v, i) for i, v in enumerate(values)]
        placed = sc.parallelize(pairs, 3).partitionBy(4).glom().collect()
        in_worker = sc.parallelize(values, 2).map(portable_hash).collect()
    print(json.dumps({
        "hashes": hashes,
        "in_worker": in_worker,
        "placement": [sorted(i for _, i in part) for part in placed],
        "builtin": hash("builtin hash control"),
    }))
    """
)


def run_with_seed(seed: str, cwd: Path) -> dict[str, Any]:
    env = dict(os.environ, PYTHONHASHSEED=seed)
    repo_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [repo_root, env.get("PYTHONPATH")]))
    completed = subprocess.run(
        [sys.executable, "-c", SCRIPT, repr(VALUES)],
        env=env, cwd=cwd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
    )
    assert completed.returncode == 0, f"seed {seed}: {completed.stderr}"
    return json.loads(completed.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    cwd = tmp_path_factory.mktemp("hash-runs")
    return {seed: run_with_seed(seed, cwd) for seed in SEEDS}


def test_seeds_really_change_the_builtin_hash(runs: dict[str, dict[str, Any]]) -> None:
    assert runs["0"]["builtin"] != runs["1"]["builtin"]


@pytest.mark.parametrize("seed", SEEDS)
def test_portable_hash_is_the_same_under_every_seed(runs: dict[str, dict[str, Any]], seed: str) -> None:
    expected = [portable_hash(v) for v in VALUES]
    assert runs[seed]["hashes"] == expected
    assert runs[seed]["in_worker"] == expected, "workers hash like the driver"


@pytest.mark.parametrize("seed", SEEDS)
def test_partition_by_places_keys_identically_under_every_seed(runs: dict[str, dict[str, Any]],
                                                               seed: str) -> None:
    expected = [sorted(i for i, v in enumerate(VALUES) if portable_hash(v) % 4 == p) for p in range(4)]
    assert runs[seed]["placement"] == expected


def test_portable_hash_returns_ints() -> None:
    assert all(type(portable_hash(v)) is int for v in VALUES)


def test_portable_hash_of_none_is_zero() -> None:
    assert portable_hash(None) == 0


@pytest.mark.parametrize(("a", "b"), [(1, True), (0, False), (1, 1.0), (0, -0.0), (2, 2.0), ((1, "a"), (True, "a"))])
def test_equal_keys_hash_equal(a: Any, b: Any) -> None:
    """Keys that compare equal must meet in one partition, as dict keys do."""
    assert a == b
    assert portable_hash(a) == portable_hash(b)


def test_equal_keys_of_different_types_meet_in_reduce_by_key(sc: Any) -> None:
    data = [(1, 1), (True, 10), (1.0, 100), (0, 1), (False, 10), (-0.0, 100), ((1, "a"), 1), ((True, "a"), 10)]
    result = dict(sc.parallelize(data, 3).reduceByKey(lambda a, b: a + b, 4).collect())
    assert result == {1: 111, 0: 111, (1, "a"): 11}
    assert len(sc.parallelize(data, 3).reduceByKey(lambda a, b: a + b, 4).collect()) == 3
