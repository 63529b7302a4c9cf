"""Every process puts a key in the same partition, whatever its type and the hash seed.

Keys whose builtin ``hash()`` follows the string-hash seed (dates, naive datetimes,
Enum members, frozen dataclasses of strings...) once landed in a different partition
in each ``local[N]`` worker, so ``reduceByKey`` returned one key several times. Here:

- properties on ``local`` and ``local[2]``: aggregations over random keys of all those
  types equal a dict, and equal keys (``1 == 1.0 == Level.LOW``) hash equal;
- partitioner agreement in interpreters started with ``PYTHONHASHSEED`` 0, 1, 12345
  and unset: ``lookup(k)`` finds every key, ``partitioner(k)`` is the partition that
  holds ``k``'s records, and every run places every key where this process would;
- the rule for keys only ``hash()`` can place (a user class): workers start with a
  pinned seed, and a process whose seed is random refuses to place them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rdd.partitioner import portable_hash

from dstream.testing import run_batches
from tests.rdd.key_types import Tagged, any_key, sample_keys
from tests.strategies import rdd_property

REPO = Path(__file__).resolve().parents[2]
SEEDS = ["0", "1", "12345", None]  # None: PYTHONHASHSEED unset, a random seed per process
NUM_KEYS = 20  # ~270 keys of 16 kinds: a wrong placement of any kind shows in every run
PARTITIONS = 5


def run_python(script: str, seed: str | None, *args: str) -> dict[str, Any]:
    """Run ``script`` in a fresh interpreter with ``PYTHONHASHSEED=seed`` and return its JSON."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONHASHSEED"}
    if seed is not None:
        env["PYTHONHASHSEED"] = seed
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], env=env,
                          cwd=REPO, capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0, f"PYTHONHASHSEED={seed}: {done.stderr}"
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_pythons(script: str, seeds: list[str | None], *args: str) -> dict[str | None, dict[str, Any]]:
    """:func:`run_python` once per seed, the interpreters side by side (each mostly waits on its workers)."""
    with ThreadPoolExecutor(len(seeds)) as pool:
        runs = {seed: pool.submit(run_python, script, seed, *args) for seed in seeds}
        return {seed: run.result() for seed, run in runs.items()}


# ------------------------------------------------------------------ properties

@settings(max_examples=300)
@given(a=any_key, b=any_key)
def test_equal_keys_hash_equal(a: Any, b: Any) -> None:
    if a == b:
        assert portable_hash(a) == portable_hash(b)


def sum_model(pairs: list[tuple[Any, int]]) -> dict[Any, int]:
    model: dict[Any, int] = defaultdict(int)
    for k, v in pairs:
        model[k] += v
    return dict(model)


def by_key(records: list[tuple[Any, Any]]) -> dict[Any, Any]:
    """The records as a dict, failing if a key came back twice (split across partitions)."""
    counts = Counter(k for k, _ in records)
    twice = [k for k, n in counts.items() if n > 1]
    assert not twice, f"keys returned twice: {twice}"
    return dict(records)


@rdd_property(pairs=st.lists(st.tuples(any_key, st.integers(0, 9)), max_size=40),
              num=st.integers(2, 5))
def test_aggregations_by_key_equal_a_dict(ctx: Any, pairs: list[tuple[Any, int]], num: int) -> None:
    pairs = pairs * 3  # every key in several of the 6 slices, so both workers hash it
    rdd = ctx.parallelize(pairs, 6)
    assert by_key(rdd.reduceByKey(lambda a, b: a + b, num).collect()) == sum_model(pairs)
    grouped = by_key(rdd.groupByKey(num).mapValues(sorted).collect())
    assert grouped == {k: sorted(v for key, v in pairs if key == k) for k in sum_model(pairs)}
    distinct = rdd.keys().distinct(num).collect()
    assert len(distinct) == len(sum_model(pairs)) and set(distinct) == set(sum_model(pairs))


def test_update_state_by_key_keeps_one_state_per_key(ctx: Any) -> None:
    keys = sample_keys(6)
    batches = [[(k, 1) for k in keys] * 2, [(k, 1) for k in keys[::2]], [(k, 1) for k in keys[::3]]]

    def count(values: list[int], state: int | None) -> int:
        return (state or 0) + sum(values)

    out = run_batches(ctx, batches,  # repartition: each batch is hashed in both workers
                      lambda s: s.repartition(6).updateStateByKey(count, numPartitions=4))
    model: Counter[Any] = Counter()
    for batch, states in zip(batches, out):
        model.update(k for k, _ in batch)
        assert by_key(states) == dict(model)


# ------------------------------------------------------------------ agreement across seeds

AGREEMENT = """
    import json, sys
    from rdd import SparkContext
    from tests.rdd.key_types import sample_keys

    keys = sample_keys(int(sys.argv[1]))
    n = int(sys.argv[2])
    with SparkContext("local[2]", "placement") as sc:
        data = sc.parallelize([(k, i) for i, k in enumerate(keys)], 3)
        report = {}
        for name, rdd in [("partitionBy", data.partitionBy(n)),
                          ("reduceByKey", data.reduceByKey(lambda a, b: a + b, n))]:
            held = rdd.mapPartitionsWithIndex(lambda p, it: [(v, p) for _, v in it]).collect()
            report[name] = {
                "held": sorted(held),
                "said": [rdd.partitioner(k) for k in keys],
                "lookup": [rdd.lookup(k) for k in keys],
            }
    print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def agreement() -> dict[str | None, dict[str, Any]]:
    return run_pythons(AGREEMENT, SEEDS, str(NUM_KEYS), str(PARTITIONS))


@pytest.mark.parametrize("seed", SEEDS, ids=["seed0", "seed1", "seed12345", "unset"])
@pytest.mark.parametrize("how", ["partitionBy", "reduceByKey"])
def test_partitioner_lookup_and_placement_agree(agreement: dict[str | None, dict[str, Any]],
                                                seed: str | None, how: str) -> None:
    keys = sample_keys(NUM_KEYS)
    run = agreement[seed][how]
    expected = [portable_hash(k) % PARTITIONS for k in keys]  # this process's seed is another one
    assert run["said"] == expected, "partitioner(k) differs from portable_hash(k) % n here"
    assert [p for _, p in run["held"]] == expected, "records live where partitioner(k) says"
    assert run["lookup"] == [[i] for i in range(len(keys))], "lookup(k) finds every key's value"


# ------------------------------------------------------------------ keys only hash() can place

SEED_RULE = """
    import json, os, sys
    from rdd import KeyHashError, SparkContext
    from tests.rdd.key_types import Tagged

    tags = [Tagged(f"t{i % 7}") for i in range(70)]
    report = {}
    with SparkContext("local[2]", "seed-rule") as sc:
        probe = sc.parallelize(range(8), 4).map(
            lambda _: (os.environ["PYTHONHASHSEED"], sys.flags.hash_randomization, hash("probe")))
        report["workers"] = sorted(set(map(tuple, probe.collect())))
        counts = sc.parallelize([(t, 1) for t in tags], 4).reduceByKey(lambda a, b: a + b, 5)
        report["counts"] = sorted((t.tag, n) for t, n in counts.collect())
        try:
            report["lookup"] = counts.lookup(Tagged("t3"))
        except KeyHashError as exc:
            report["lookup"] = str(exc)
    with SparkContext("local", "seed-rule-inline") as sc:
        try:
            report["inline"] = sorted(sc.parallelize(tags, 2).distinct().map(repr).collect())
        except KeyHashError as exc:
            report["inline"] = str(exc)
    from rdd.partitioner import worker_hash_seed
    for requested in ["5", "x"]:  # what spark.executorEnv.PYTHONHASHSEED may ask for
        try:
            report[f"requested {requested}"] = worker_hash_seed(requested)
        except ValueError as exc:
            report[f"requested {requested}"] = str(exc)
    print(json.dumps(report))
"""


@pytest.fixture(scope="module")
def seed_rule() -> dict[str, dict[str, Any]]:
    runs = run_pythons(SEED_RULE, [None, "12345"])
    return {"unset": runs[None], "12345": runs["12345"]}


def test_workers_start_with_the_drivers_seed_or_zero(seed_rule: dict[str, dict[str, Any]]) -> None:
    assert [w[:2] for w in seed_rule["unset"]["workers"]] == [["0", 0]], "one pinned seed: 0"
    assert [w[:2] for w in seed_rule["12345"]["workers"]] == [["12345", 1]], "the driver's seed"


@pytest.mark.parametrize("seed", ["unset", "12345"])
def test_user_keys_are_placed_by_pinned_workers(seed_rule: dict[str, dict[str, Any]],
                                                seed: str) -> None:
    assert seed_rule[seed]["counts"] == [[f"t{i}", 10] for i in range(7)]


def test_a_driver_with_a_pinned_seed_places_user_keys(seed_rule: dict[str, dict[str, Any]]) -> None:
    assert seed_rule["12345"]["lookup"] == [10]
    assert seed_rule["12345"]["inline"] == sorted(repr(Tagged(f"t{i}")) for i in range(7))


@pytest.mark.parametrize("where", ["lookup", "inline"])
def test_a_driver_with_a_random_seed_refuses_user_keys(seed_rule: dict[str, dict[str, Any]],
                                                       where: str) -> None:
    message = seed_rule["unset"][where]
    assert isinstance(message, str), f"a random-seed driver placed Tagged keys: {message}"
    assert message.startswith("cannot place the key Tagged('t")
    assert "of type tests.rdd.key_types.Tagged" in message
    assert "PYTHONHASHSEED=0" in message and "partitionFunc" in message



def test_executor_env_may_only_repeat_the_drivers_seed(seed_rule: dict[str, dict[str, Any]]) -> None:
    assert seed_rule["unset"]["requested 5"] == "5"
    assert seed_rule["12345"]["requested 5"].startswith(
        "spark.executorEnv.PYTHONHASHSEED='5' differs from the driver's PYTHONHASHSEED=12345")
    for run in seed_rule.values():
        assert run["requested x"].startswith("spark.executorEnv.PYTHONHASHSEED='x': it must be an")
