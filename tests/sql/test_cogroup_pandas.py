"""groupBy(...).cogroup(other.groupBy(...)).applyInPandas / applyInArrow against a plain-Python cogroup.

The model: each key present on either side (null included) is one call, with every row of
that key on the left and every row of it on the right (none for a side without it); what
the calls return, matched to the schema, is the result.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException, PySparkTypeError, PythonException

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
KEYS = st.one_of(st.none(), st.integers(0, 4))
SIDE = st.lists(st.tuples(KEYS, st.integers(-50, 50)), max_size=12)


def model(left: list[tuple[Any, int]], right: list[tuple[Any, int]]) -> list[tuple[Any, ...]]:
    keys = {k for k, _ in left} | {k for k, _ in right}
    out = []
    for key in keys:
        lv = [v for k, v in left if k == key]
        rv = [v for k, v in right if k == key]
        out.append((key, len(lv), sum(lv), len(rv), sum(rv)))
    return sorted(out, key=repr)


@given(left=SIDE, right=SIDE)
@PROPERTY
def test_apply_in_pandas_sees_each_keys_rows_of_both_sides_once(spark: SparkSession, left: list[tuple[Any, int]],
                                                                 right: list[tuple[Any, int]]) -> None:
    import pandas as pd

    # The right side's key is a long, the left's an int: equal keys still meet.
    ldf = spark.createDataFrame(left, "k int, v long").repartition(3)
    rdf = spark.createDataFrame(right, "k long, w long").repartition(2)

    def summary(key: tuple[Any, ...], lpdf: pd.DataFrame, rpdf: pd.DataFrame) -> pd.DataFrame:
        assert list(lpdf.columns) == ["k", "v"] and list(rpdf.columns) == ["k", "w"]
        k = None if pd.isna(key[0]) else int(key[0])
        return pd.DataFrame({"k": [k], "n": [len(lpdf)], "s": [int(lpdf.v.sum())], "m": [len(rpdf)],
                             "t": [int(rpdf.w.sum())]})

    got = ldf.groupBy("k").cogroup(rdf.groupBy("k")).applyInPandas(summary, "k int, n long, s long, m long, t long")
    assert sorted((tuple(r) for r in got.collect()), key=repr) == model(left, right)


@given(left=SIDE, right=SIDE)
@PROPERTY
def test_apply_in_arrow_without_the_key_matches_the_same_model(spark: SparkSession, left: list[tuple[Any, int]],
                                                                right: list[tuple[Any, int]]) -> None:
    import pyarrow.compute as pc

    ldf = spark.createDataFrame(left, "k int, v long")
    rdf = spark.createDataFrame(right, "k int, w long").repartition(3)

    def summary(lt: pa.Table, rt: pa.Table) -> pa.Table:
        assert lt.schema.names == ["k", "v"] and rt.schema.names == ["k", "w"]
        key = (lt if lt.num_rows else rt).column("k")[0].as_py()
        return pa.table({"k": [key], "n": [lt.num_rows], "s": [pc.sum(lt.column("v")).as_py() or 0],
                         "m": [rt.num_rows], "t": [pc.sum(rt.column("w")).as_py() or 0]})

    got = ldf.groupBy("k").cogroup(rdf.groupBy("k")).applyInArrow(summary, "k int, n long, s long, m long, t long")
    assert sorted((tuple(r) for r in got.collect()), key=repr) == model(left, right)


def test_two_keys_an_empty_side_keeps_its_columns_and_results_by_position(spark: SparkSession) -> None:
    import pandas as pd

    ldf = spark.createDataFrame([(1, "a", 1.5), (1, "b", 2.5), (2, "a", 4.0)], "x long, y string, v double")
    rdf = spark.createDataFrame([(1, "a", True), (3, "c", False)], "x long, y string, flag boolean")

    def merge(key: tuple[Any, ...], lpdf: pd.DataFrame, rpdf: pd.DataFrame) -> pd.DataFrame:
        # Unnamed columns: matched to the schema by position.
        return pd.DataFrame([[key[0], key[1], float(lpdf.v.sum()), bool(rpdf.flag.any()),
                              str(rpdf.flag.dtype)]])

    got = ldf.groupBy("x", "y").cogroup(rdf.groupBy("x", "y")).applyInPandas(
        merge, "x long, y string, total double, any_flag boolean, flag_dtype string")
    assert sorted(tuple(r) for r in got.collect()) == [
        (1, "a", 1.5, True, "bool"), (1, "b", 2.5, False, "bool"), (2, "a", 4.0, False, "bool"),
        (3, "c", 0.0, False, "bool")]


def test_bad_arguments_and_results_are_named(spark: SparkSession) -> None:
    import pandas as pd

    ldf = spark.createDataFrame([(1, 2)], "a long, b long")
    rdf = spark.createDataFrame([(1, 3)], "a long, c long")
    with pytest.raises(AnalysisException, match="left by 1, the right by 2"):
        ldf.groupBy("a").cogroup(rdf.groupBy("a", "c"))
    with pytest.raises(PySparkTypeError, match="should be a GroupedData, got DataFrame"):
        ldf.groupBy("a").cogroup(rdf)  # type: ignore[arg-type]
    cogrouped = ldf.groupBy("a").cogroup(rdf.groupBy("a"))
    with pytest.raises(PySparkTypeError, match="`func` should be a function, got int"):
        cogrouped.applyInPandas(3, "a long")  # type: ignore[arg-type]
    with pytest.raises(PythonException, match="returned a list, not a pandas.DataFrame"):
        cogrouped.applyInPandas(lambda left, right: [1], "a long").collect()
    with pytest.raises(PythonException, match="returned a DataFrame, not a pyarrow.Table"):
        cogrouped.applyInArrow(lambda left, right: pd.DataFrame({"a": [1]}), "a long").collect()
    with pytest.raises(PythonException, match="missing 'b'"):
        cogrouped.applyInPandas(lambda left, right: pd.DataFrame({"a": [1]}), "a long, b long").collect()
