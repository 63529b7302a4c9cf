"""The physical layer against plain-Python models of Spark's semantics.

Logical plans are built by hand over LocalRelations, planned with ``plan_physical``
and collected; each result is compared with what a straightforward Python
implementation of the same Spark rule gives.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rdd import SparkContext

from dstream.sql.execution.collect import collect_batches, to_arrow_table
from dstream.sql.execution.context import QueryContext
from dstream.sql.execution.partitioning import partition_ids
from dstream.sql.execution.planner import plan_physical
from dstream.sql.expressions.aggregate_base import SortOrder
from dstream.sql.expressions.base import Alias, AttributeReference
from dstream.sql.plan import logical as L  # noqa: N812
from dstream.sql.types import DoubleType, LongType

from .exec_helpers import And, Avg, Count, EqualNullSafe, EqualTo, GreaterThan, LessThan, Plus, Sum, relation

JOIN_TYPES = ["inner", "left_outer", "right_outer", "full_outer", "left_semi", "left_anti"]


@pytest.fixture(scope="module")
def sc() -> Iterator[SparkContext]:
    context = SparkContext("local", "t")
    yield context
    context.stop()


def run(sc: SparkContext, plan: L.LogicalPlan, partitions: int = 3, threshold: int = -1) -> list[tuple[Any, ...]]:
    qctx = QueryContext(sc=sc, shuffle_partitions=partitions, broadcast_threshold=threshold)
    table = to_arrow_table(plan_physical(plan, qctx), qctx)
    if not table.num_columns:
        return [()] * table.num_rows
    return list(zip(*(c.to_pylist() for c in table.columns)))


def canon(rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Rows sorted with None first (a multiset comparison)."""
    return sorted(rows, key=lambda r: tuple((v is not None, v) for v in r))


keys = st.one_of(st.none(), st.integers(-3, 3))
values = st.one_of(st.none(), st.integers(-100, 100))
tables = st.lists(st.tuples(keys, values), max_size=25)


def long_relation(rows: list[tuple[Any, Any]]) -> tuple[L.LocalRelation, list[AttributeReference]]:
    return relation({"k": (LongType(), [r[0] for r in rows]), "v": (LongType(), [r[1] for r in rows])})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=tables, partitions=st.integers(1, 4))
def test_group_by_matches_python(sc: SparkContext, rows: list[tuple[Any, Any]], partitions: int) -> None:
    rel, (k, v) = long_relation(rows)
    plan = L.Aggregate([k], [k, Alias(Sum([v]), "s"), Alias(Count([v]), "c"), Alias(Plus(Sum([v]), 1), "s1")], rel)
    groups: dict[Any, list[Any]] = {}
    for key, val in rows:
        groups.setdefault(key, []).append(val)
    expected = []
    for key, vals in groups.items():
        present = [x for x in vals if x is not None]
        total = sum(present) if present else None
        expected.append((key, total, len(present), None if total is None else total + 1))
    assert canon(run(sc, plan, partitions)) == canon(expected)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=tables)
def test_filter_then_global_aggregate_has_one_row(sc: SparkContext, rows: list[tuple[Any, Any]]) -> None:
    rel, (k, v) = long_relation(rows)
    plan = L.Aggregate([], [Alias(Sum([v]), "s"), Alias(Count([v]), "c"), Alias(Avg([v]), "a")],
                       L.Filter(GreaterThan(v, k), rel))
    kept = [val for key, val in rows if key is not None and val is not None and val > key]
    expected = (sum(kept) if kept else None, len(kept), sum(kept) / len(kept) if kept else None)
    assert run(sc, plan) == [expected]


def model_join(left: list[tuple[Any, Any]], right: list[tuple[Any, Any]], how: str,
               residual: bool = False) -> list[tuple[Any, ...]]:
    def match(a: tuple[Any, Any], b: tuple[Any, Any]) -> bool:
        ok = a[0] is not None and a[0] == b[0]
        return ok and (not residual or (a[1] is not None and b[1] is not None and a[1] < b[1]))
    out: list[tuple[Any, ...]] = []
    for a in left:
        matches = [b for b in right if match(a, b)]
        if how == "left_semi":
            out += [a] if matches else []
        elif how == "left_anti":
            out += [] if matches else [a]
        else:
            out += [a + b for b in matches]
            if not matches and how in ("left_outer", "full_outer"):
                out.append(a + (None, None))
    if how in ("right_outer", "full_outer"):
        out += [(None, None) + b for b in right if not any(match(a, b) for a in left)]
    return out


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(left=tables, right=tables, how=st.sampled_from(JOIN_TYPES), broadcast=st.booleans(),
       residual=st.booleans())
def test_joins_match_python(sc: SparkContext, left: list[tuple[Any, Any]], right: list[tuple[Any, Any]],
                            how: str, broadcast: bool, residual: bool) -> None:
    lrel, (lk, lv) = long_relation(left)
    rrel, (rk, rv) = long_relation(right)
    cond = EqualTo(lk, rk)
    if residual:
        cond = And(cond, LessThan(lv, rv))
    plan = L.Join(lrel, rrel, how, cond)
    got = run(sc, plan, 3, 10**9 if broadcast else -1)
    assert canon(got) == canon(model_join(left, right, how, residual))


def test_null_safe_join_matches_nulls(sc: SparkContext) -> None:
    lrel, (lk, lv) = long_relation([(None, 1), (1, 2), (2, 3)])
    rrel, (rk, rv) = long_relation([(None, 10), (1, 20)])
    got = run(sc, L.Join(lrel, rrel, "inner", EqualNullSafe(lk, rk)))
    assert canon(got) == canon([(None, 1, None, 10), (1, 2, 1, 20)])


def test_cross_and_non_equi_joins(sc: SparkContext) -> None:
    lrel, (lk, lv) = long_relation([(1, 1), (2, 2)])
    rrel, (rk, rv) = long_relation([(1, 5), (3, 0)])
    assert len(run(sc, L.Join(lrel, rrel, "cross", None))) == 4
    got = run(sc, L.Join(lrel, rrel, "full_outer", GreaterThan(lk, rv)))
    assert canon(got) == canon([(1, 1, 3, 0), (2, 2, 3, 0), (None, None, 1, 5)])


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=tables, partitions=st.integers(1, 4), ascending=st.booleans(), nulls_first=st.booleans())
def test_sort_matches_python(sc: SparkContext, rows: list[tuple[Any, Any]], partitions: int, ascending: bool,
                             nulls_first: bool) -> None:
    rel, (k, v) = long_relation(rows)
    plan = L.Sort([SortOrder(k, ascending, nulls_first)], True, rel)
    got = [r[0] for r in run(sc, plan, partitions)]
    present = sorted((x for x, _ in rows if x is not None), reverse=not ascending)
    nulls = [None] * sum(1 for x, _ in rows if x is None)
    assert got == (nulls + present if nulls_first else present + nulls)
    assert Counter(run(sc, plan, partitions)) == Counter(rows)


def test_sort_doubles_nan_greatest_and_zeros_equal(sc: SparkContext) -> None:
    data = [1.5, float("nan"), None, -0.0, 0.0, -2.0]
    rel, (x,) = relation({"x": (DoubleType(), data)})
    got = [r[0] for r in run(sc, L.Sort([SortOrder(x, False)], True, rel), 2)]
    assert math.isnan(got[0]) and got[1] == 1.5 and got[2:4] == [0.0, 0.0] and got[4] == -2.0 and got[5] is None


def test_group_by_double_keys_merges_zeros_and_nans(sc: SparkContext) -> None:
    rel, (x, v) = relation({"x": (DoubleType(), [0.0, -0.0, float("nan"), float("nan"), None]),
                            "v": (LongType(), [1, 2, 3, 4, 5])})
    got = run(sc, L.Aggregate([x], [x, Alias(Sum([v]), "s")], rel), 3)
    assert sorted(s for _, s in got) == [3, 5, 7]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=tables, partitions=st.integers(1, 4))
def test_distinct_matches_python(sc: SparkContext, rows: list[tuple[Any, Any]], partitions: int) -> None:
    rel, (k, v) = long_relation(rows)
    assert canon(run(sc, L.Deduplicate([k, v], rel), partitions)) == canon(list(set(rows)))
    first: dict[Any, tuple[Any, Any]] = {}
    for r in rows:
        first.setdefault(r[0], r)
    assert canon(run(sc, L.Deduplicate([k], rel), partitions)) == canon(list(first.values()))


def test_limit_offset_union_range(sc: SparkContext) -> None:
    rel, (k, v) = long_relation([(i, i * 10) for i in range(10)])
    assert run(sc, L.Limit(3, rel)) == [(0, 0), (1, 10), (2, 20)]
    assert run(sc, L.Limit(2, rel, offset=4)) == [(4, 40), (5, 50)]
    assert run(sc, L.Limit(2, L.Sort([SortOrder(k, False)], True, rel))) == [(9, 90), (8, 80)]
    assert len(run(sc, L.Union([rel, rel]))) == 20
    r = L.RangeRelation([AttributeReference("id", LongType())], 5, 20, 3, 2)
    assert [x for (x,) in run(sc, r)] == list(range(5, 20, 3))
    assert run(sc, L.Aggregate([], [Alias(Count([]), "c")], L.Project([], r))) == [(5,)]


def test_global_aggregate_of_nothing_is_one_row(sc: SparkContext) -> None:
    rel, (k, v) = long_relation([])
    assert run(sc, L.Aggregate([], [Alias(Sum([v]), "s"), Alias(Count([v]), "c")], rel)) == [(None, 0)]
    assert run(sc, L.Aggregate([k], [k, Alias(Count([v]), "c")], rel)) == []


def test_join_keeps_duplicate_names_and_explain(sc: SparkContext) -> None:
    lrel, (lk, lv) = long_relation([(1, 2)])
    rrel, (rk, rv) = long_relation([(1, 3)])
    qctx = QueryContext(sc=sc, shuffle_partitions=2, broadcast_threshold=-1)
    physical = plan_physical(L.Join(lrel, rrel, "inner", EqualTo(lk, rk)), qctx)
    assert to_arrow_table(physical, qctx).column_names == ["k", "v", "k", "v"]
    text = physical.tree_string()
    assert text.startswith("ShuffledHashJoin [k#") and "Exchange hashpartitioning(k#" in text
    assert [b.schema.names for b in collect_batches(physical, qctx)][0][0] == f"#{lk.expr_id}"
    qctx.broadcast_threshold = 10**9
    assert plan_physical(L.Join(lrel, rrel, "inner", EqualTo(lk, rk)), qctx).describe().startswith(
        "BroadcastHashJoin")


def test_partition_ids_are_stable_and_spark_equal() -> None:
    ints = pa.array([1, None, 7, 1], pa.int32())
    assert partition_ids([ints], 5).to_pylist() == partition_ids([ints.cast(pa.int64())], 5).to_pylist()
    floats = partition_ids([pa.array([0.0, -0.0, float("nan"), float("nan")])], 7).to_pylist()
    assert floats[0] == floats[1] and floats[2] == floats[3]
    words = partition_ids([pa.array(["a", "b", None, "a"])], 1000).to_pylist()
    assert words[0] == words[3] and words == partition_ids([pa.array(["a", "b", None, "a"])], 1000).to_pylist()
    assert all(0 <= p < 1000 for p in words)
    spread = Counter(partition_ids([pa.array(range(10000))], 4).to_pylist())
    assert min(spread.values()) > 2000
