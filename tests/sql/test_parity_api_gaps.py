"""Methods PySpark 4.0.1 has and dstreams lacked: ``Column.isNaN``, ``Catalog.getFunction``,
``Catalog.registerFunction`` and ``spark.tvf``.

The expected values are what PySpark 4.0.1 returned for the same calls.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, PySparkValueError


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("parity-api-gaps").getOrCreate()
    yield session
    session.stop()


def test_column_is_nan(spark: SparkSession) -> None:
    # Was: df.x.isNaN read as the struct field "isNaN" ('Column' object is not callable).
    df = spark.createDataFrame([(1.0, "a"), (float("nan"), "b"), (None, "a")], "x double, k string")
    got = df.select(df.x.isNaN(), F.col("x").isNaN().alias("n"))
    assert got.columns == ["isnan(x)", "n"]
    assert got.collect() == [Row(False, False), Row(True, True), Row(False, False)]


def test_catalog_register_and_get_function(spark: SparkSession) -> None:
    with pytest.warns(FutureWarning, match="Use spark.udf.register instead"):
        spark.catalog.registerFunction("twice", lambda v: v * 2, "int")
    assert spark.sql("SELECT twice(3) t").collect() == [Row(t=6)]
    udf = spark.catalog.getFunction("twice")
    assert (udf.name, udf.catalog, udf.namespace, udf.description, udf.isTemporary) == (
        "twice", None, None, "N/A.", True)
    builtin = spark.catalog.getFunction("abs")
    assert (builtin.name, builtin.catalog, builtin.namespace, builtin.isTemporary) == ("abs", None, None, True)
    with pytest.raises(AnalysisException) as info:
        spark.catalog.getFunction("nope_fn")
    assert info.value.getCondition() == "UNRESOLVED_ROUTINE" and "`nope_fn`" in str(info.value)
    assert (spark.catalog.functionExists("abs"), spark.catalog.functionExists("twice"),
            spark.catalog.functionExists("nope")) == (True, True, False)


def test_table_valued_functions(spark: SparkSession) -> None:
    tvf = spark.tvf
    assert tvf.range(3).collect() == [Row(id=0), Row(id=1), Row(id=2)]
    assert tvf.range(1, 7, 2).collect() == [Row(id=1), Row(id=3), Row(id=5)]
    assert tvf.explode(F.array(F.lit(1), F.lit(2))).collect() == [Row(col=1), Row(col=2)]
    assert tvf.explode(F.create_map(F.lit("a"), F.lit(1))).collect() == [Row(key="a", value=1)]
    assert tvf.explode_outer(F.array().cast("array<int>")).collect() == [Row(col=None)]
    assert tvf.posexplode(F.array(F.lit("x"), F.lit("y"))).collect() == [Row(pos=0, col="x"), Row(pos=1, col="y")]
    inline = tvf.inline(F.array(F.struct(F.lit(1).alias("a"), F.lit("b").alias("b"))))
    assert inline.collect() == [Row(a=1, b="b")]
    assert tvf.json_tuple(F.lit('{"a": 1, "b": "x"}'), F.lit("a"), F.lit("b")).collect() == [Row(c0="1", c1="x")]
    assert tvf.stack(F.lit(2), F.lit(1), F.lit(2), F.lit(3), F.lit(4)).collect() == [
        Row(col0=1, col1=2), Row(col0=3, col1=4)]
    with pytest.raises(PySparkValueError, match="At least one field must be specified"):
        tvf.json_tuple(F.lit('{"a": 1}'))
