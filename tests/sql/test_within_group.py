"""percentile_cont, percentile_disc and mode() WITHIN GROUP (ORDER BY v [DESC]) in SQL.

Fixed points: Spark's documented examples. The model, over a group's non-null values sorted
in the ORDER BY's direction: percentile_cont interpolates at rank (n - 1) * p,
percentile_disc takes rank floor((n - 1) * p), and mode the most frequent value, a tie
going to the first in that order.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import AnalysisException, SparkSession

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def test_sparks_documented_values(spark: SparkSession) -> None:
    row = spark.sql("SELECT percentile_cont(0.25) WITHIN GROUP (ORDER BY col) AS a, "
                    "percentile_cont(0.25) WITHIN GROUP (ORDER BY col DESC) AS b, "
                    "percentile_disc(0.25) WITHIN GROUP (ORDER BY col) AS c, "
                    "percentile_disc(0.25) WITHIN GROUP (ORDER BY col DESC) AS d "
                    "FROM VALUES (0), (10) AS tab(col)").first()
    assert tuple(row) == (2.5, 7.5, 0.0, 10.0)


def model(values: list[Any], p: float, descending: bool) -> tuple[Any, Any, Any]:
    present = sorted((v for v in values if v is not None), reverse=descending)
    if not present:
        return None, None, None
    position = (len(present) - 1) * p
    low, high = present[math.floor(position)], present[math.ceil(position)]
    cont = low + (position - math.floor(position)) * (high - low)
    counts = Counter(present)
    top = max(counts.values())
    mode = next(v for v in present if counts[v] == top)  # the first in the ordering among the most frequent
    return float(cont), float(present[math.floor(position)]), mode


@given(groups=st.lists(st.tuples(st.integers(0, 2), st.one_of(st.none(), st.integers(-5, 5))), min_size=1,
                       max_size=20),
       p=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0]), descending=st.booleans())
@PROPERTY
def test_within_group_matches_the_model(spark: SparkSession, groups: list[tuple[int, Any]], p: float,
                                        descending: bool) -> None:
    spark.createDataFrame(groups, "k int, v int").createOrReplaceTempView("wg")
    order = "v DESC" if descending else "v"
    got = spark.sql(f"SELECT k, percentile_cont({p}) WITHIN GROUP (ORDER BY {order}), "
                    f"percentile_disc({p}) WITHIN GROUP (ORDER BY {order}), "
                    f"mode() WITHIN GROUP (ORDER BY {order}) FROM wg GROUP BY k").collect()
    by_key: dict[int, list[Any]] = {}
    for k, v in groups:
        by_key.setdefault(k, []).append(v)
    expected = {k: model(vs, p, descending) for k, vs in by_key.items()}
    def rounded(values: Any) -> tuple[Any, ...]:  # interpolation in doubles: compare to 9 places
        return tuple(None if x is None else round(x, 9) for x in values)

    assert {r[0]: rounded(r[1:]) for r in got} == {k: rounded(e) for k, e in expected.items()}


def test_names_arrays_and_refusals(spark: SparkSession) -> None:
    spark.createDataFrame([(1,), (2,), (3,), (4,)], "v int").createOrReplaceTempView("wg2")
    df = spark.sql("SELECT percentile_cont(array(0.5, 1.0)) WITHIN GROUP (ORDER BY v), "
                   "mode() WITHIN GROUP (ORDER BY v DESC) FROM wg2")
    assert df.columns == ["percentile_cont(array(0.5, 1.0)) WITHIN GROUP (ORDER BY v)",
                          "mode() WITHIN GROUP (ORDER BY v DESC)"]
    assert tuple(df.first()) == ([2.5, 4.0], 4)
    with pytest.raises(AnalysisException, match="WITHIN GROUP takes one ordering"):
        spark.sql("SELECT listagg(DISTINCT cast(v AS string)) WITHIN GROUP (ORDER BY v) FROM wg2").collect()
    with pytest.raises(AnalysisException, match="WITHIN GROUP takes one ordering"):
        spark.sql("SELECT sum(v) WITHIN GROUP (ORDER BY v) FROM wg2").collect()
    with pytest.raises(AnalysisException, match="one literal percentage"):
        spark.sql("SELECT percentile_cont(v) WITHIN GROUP (ORDER BY v) FROM wg2").collect()


@given(rows=st.lists(st.tuples(st.integers(0, 1), st.one_of(st.none(), st.sampled_from("abc")),
                               st.one_of(st.none(), st.integers(0, 4))), min_size=1, max_size=12),
       descending=st.booleans())
@PROPERTY
def test_listagg_within_group_joins_in_the_keys_order(spark: SparkSession, rows: list[tuple[int, Any, Any]],
                                                      descending: bool) -> None:
    spark.createDataFrame(rows, "g int, s string, o int").coalesce(1).createOrReplaceTempView("wg3")
    order = "o DESC" if descending else "o"
    got = {r[0]: r[1] for r in spark.sql(f"SELECT g, listagg(s, '-') WITHIN GROUP (ORDER BY {order}) FROM wg3 "
                                         "GROUP BY g").collect()}
    expected = {}
    for g in {r[0] for r in rows}:
        pairs = [(o, s) for gg, s, o in rows if gg == g and s is not None]
        # Nulls first ascending, last descending; equal keys keep the rows' order (a stable sort).
        pairs.sort(key=lambda p: (p[0] is not None, p[0]), reverse=descending)
        expected[g] = "-".join(s for _, s in pairs) if pairs else None
    assert got == expected
