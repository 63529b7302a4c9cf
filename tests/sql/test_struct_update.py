"""Column.withField / dropFields against a model over Python dicts.

The model: a null struct stays null; a set replaces the field of that name or appends it;
a drop removes it (an absent name is ignored); the operations apply in order.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import AnalysisException, Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkTypeError

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
STRUCTS = st.lists(st.one_of(st.none(), st.fixed_dictionaries({"b": st.integers(0, 9), "c": st.integers(0, 9)})),
                   min_size=1, max_size=5)
OPS = st.lists(st.tuples(st.sampled_from(["b", "c", "d"]), st.one_of(st.none(), st.integers(10, 99))),
               min_size=1, max_size=4)


def model(value: dict[str, Any] | None, ops: list[tuple[str, int | None]]) -> dict[str, Any] | None:
    if value is None:
        return None
    out = {"b": value["b"], "c": value["c"]}  # the schema's field order
    for name, new in ops:
        if new is None:
            out.pop(name, None)
        else:
            out[name] = new  # a dict keeps an existing key's place and appends a new one, as Spark does
    return out


@given(structs=STRUCTS, ops=OPS)
@PROPERTY
def test_operations_match_the_model(spark: SparkSession, structs: list[Any], ops: list[tuple[str, Any]]) -> None:
    df = spark.createDataFrame([(s,) for s in structs], "s struct<b:int,c:int>")
    column = df.s
    for name, new in ops:
        column = column.dropFields(name) if new is None else column.withField(name, F.lit(new))
    if any(not model({"b": 0, "c": 0}, ops[:i]) for i in range(1, len(ops) + 1)):
        # Some step leaves no field: Spark refuses that step, whatever follows it.
        with pytest.raises(AnalysisException, match="CANNOT_DROP_ALL_FIELDS"):
            df.select(column.alias("s")).collect()
        return
    got = [r.s for r in df.select(column.alias("s")).collect()]
    expected = [model(s, ops) for s in structs]
    assert [None if g is None else g.asDict() for g in got] == expected
    assert [None if g is None else list(g.asDict()) for g in got] == [None if e is None else list(e) for e in expected]


def test_nested_paths_names_and_refusals(spark: SparkSession) -> None:
    df = spark.createDataFrame([Row(a=Row(b=1, n=Row(x=1, y=2))), Row(a=Row(b=2, n=None))],
                               "a struct<b:int,n:struct<x:int,y:int>>")
    out = df.select(df.a.withField("n.z", F.col("a.b") * 10).dropFields("n.x").alias("a")).collect()
    assert [r.a for r in out] == [Row(b=1, n=Row(y=2, z=10)), Row(b=2, n=None)]
    assert df.select(df.a.withField("b", F.lit(9))).columns == ["update_fields(a, WithField(b, 9))"]
    with pytest.raises(AnalysisException, match="CANNOT_DROP_ALL_FIELDS"):
        df.select(df.a.dropFields("b", "n")).collect()
    with pytest.raises(AnalysisException, match="need a struct column"):
        df.select(F.col("a.b").withField("q", F.lit(1))).collect()
    with pytest.raises(AnalysisException, match="No such struct field `b`"):
        df.select(df.a.withField("b.q", F.lit(1))).collect()
    with pytest.raises(PySparkTypeError, match="should be a Column"):
        df.a.withField("b", 1)  # type: ignore[arg-type]
