"""spark.udf.register: Python functions called by name from SQL text, in one session."""

from __future__ import annotations

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkTypeError


def test_a_registered_function_is_callable_from_sql_text_and_columns(spark: SparkSession) -> None:
    squared = spark.udf.register("squared", lambda x: x * x, "long")
    spark.range(4).createOrReplaceTempView("numbers")
    assert [r.s for r in spark.sql("SELECT Squared(id) AS s FROM numbers ORDER BY id").collect()] == [0, 1, 4, 9]
    df = spark.range(4)
    assert [r.s for r in df.selectExpr("squared(id) AS s").collect()] == [0, 1, 4, 9]
    assert [r.id for r in df.filter("SQUARED(id) > 3").collect()] == [2, 3]
    assert [r[0] for r in df.select(squared("id")).collect()] == [0, 1, 4, 9]
    assert df.select(F.expr("squared(id)")).columns == ["squared(id)"]


def test_udf_objects_keep_their_type_and_names_may_shadow_builtins(spark: SparkSession) -> None:
    shout = F.udf(lambda s: s.upper() + "!", "string")
    assert spark.udf.register("shout", shout) is shout
    spark.udf.register("lower", lambda s: "shadowed")  # (the session is this test's own)
    row = spark.sql("SELECT shout('hi') AS a, lower('A') AS b").first()
    assert tuple(row) == ("HI!", "shadowed")
    other = spark.newSession()
    with pytest.raises(Exception, match="UNRESOLVED_ROUTINE"):
        other.sql("SELECT shout('hi')").collect()  # a registration belongs to its session


def test_bad_registrations_are_named(spark: SparkSession) -> None:
    with pytest.raises(PySparkTypeError, match="can not be specified when f is a user-defined function"):
        spark.udf.register("f", F.udf(lambda x: x), "int")
    with pytest.raises(PySparkTypeError, match="should be a function or a UDF, got int"):
        spark.udf.register("f", 3)
    with pytest.raises(PySparkTypeError, match="no JVM"):
        spark.udf.registerJavaFunction("f", "com.example.F")
