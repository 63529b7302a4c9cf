"""Behaviours found to differ from PySpark 4.0.1: name resolution, struct access and typing.

One test per finding; the expected values are what PySpark printed for the same calls.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from typing import Any

import pytest

from dstream.sql import DataFrame, Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException
from dstream.sql.types import ArrayType, IntegerType, StructField, StructType
from dstream.sql.window import Window

from .expr_harness import Frame


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("parity-analysis").getOrCreate()
    yield session
    session.stop()


@pytest.fixture
def df(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([(1, "a")], "i int, g string")


def test_sorting_by_a_name_a_select_reuses_takes_the_output_column(df: DataFrame) -> None:
    # The output i and the child's i were both candidates: AMBIGUOUS_REFERENCE.
    assert df.select((F.col("i") * 2).alias("i")).orderBy("i").collect() == [Row(i=2)]
    assert df.selectExpr("cast(i as double)").orderBy("i").collect() == [Row(i=1.0)]
    assert df.select(F.col("i").cast("double")).orderBy("i").collect() == [Row(i=1.0)]
    # A column the select dropped is still a sort key, as in Spark.
    assert df.select("g").orderBy("i").collect() == [Row(g="a")]


@pytest.fixture
def structs(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([((1, "x"), ((2, 3),), 5)],
                                 "st struct<a:int,b:string>, s struct<inner:struct<p:int,q:int>>, i int")


def test_a_struct_star_expands_to_the_fields(structs: DataFrame) -> None:
    # Only table aliases were expanded: CANNOT_RESOLVE_STAR_EXPAND.
    for df in (structs.select("st.*"), structs.select(F.col("st.*")), structs.selectExpr("st.*"),
               structs.alias("t").select("t.st.*")):
        assert df.schema.simpleString() == "struct<a:int,b:string>"
        assert df.collect() == [Row(a=1, b="x")]
    assert structs.select("s.inner.*").collect() == [Row(p=2, q=3)]
    mixed = structs.select("i", "st.*", "st.a")
    assert mixed.columns == ["i", "a", "b", "a"] and mixed.collect() == [(5, 1, "x", 1)]


def test_a_star_on_a_column_that_is_not_a_struct_is_refused(structs: DataFrame) -> None:
    with pytest.raises(AnalysisException) as caught:
        structs.select("i.*")
    assert caught.value.getCondition() == "_LEGACY_ERROR_TEMP_1050"
    assert "Can only star expand struct data types. Attribute: `List(i)`." in str(caught.value)
    with pytest.raises(AnalysisException) as missing:
        structs.select("zz.*")
    assert missing.value.getCondition() == "CANNOT_RESOLVE_STAR_EXPAND"


def test_a_field_of_an_array_of_structs_is_an_array(spark: SparkSession) -> None:
    # INVALID_EXTRACT_BASE_FIELD_TYPE: only a struct's fields could be extracted.
    a = spark.createDataFrame([([(1, "x"), (2, "y")], None), ([(3, "z"), None], [(4,)])],
                              "v array<struct<a:int,b:string>>, n array<struct<a:int>>")
    for df in (a.select("v.a"), a.selectExpr("v.a")):
        assert df.schema.simpleString() == "struct<a:array<int>>"
        assert df.collect() == [Row(a=[1, 2]), Row(a=[3, None])]
    for df in (a.select(F.col("v").getField("a")), a.select(F.col("v")["a"])):
        assert df.columns == ["v.a"] and df.collect()[0] == Row(**{"v.a": [1, 2]})
    assert a.select(F.col("v.a")[0], "n.a").collect() == [Row(**{"v.a[0]": 1, "a": None}), (3, [4])]
    assert a.selectExpr("v.b[1]", "v[0].b").columns == ["v.b[1]", "v[0].b"]
    assert a.select("v.A").columns == ["A"]


def test_a_field_of_an_array_of_structs_in_a_sliced_batch() -> None:
    dt = ArrayType(StructType([StructField("a", IntegerType())]))
    frame = Frame(v=(dt, [[(1,)], None, [(2,), (3,)], [None, (4,)]]))
    expr = frame.resolve(F.col("v.a"))
    frame.batch = frame.batch.slice(1)
    assert frame.eval(expr) == [None, [2, 3], [None, 4]]


def test_a_date_plus_or_minus_days_is_a_date(spark: SparkSession) -> None:
    # BINARY_OP_WRONG_TYPE: Spark rewrites these sums to date_add/date_sub.
    sums = spark.sql("SELECT date'2024-01-31' + 1 AS a, date'2024-01-31' - 1 AS b, 1 + date'2024-01-31' AS c")
    assert sums.schema.simpleString() == "struct<a:date,b:date,c:date>"
    assert sums.collect() == [Row(a=date(2024, 2, 1), b=date(2024, 1, 30), c=date(2024, 2, 1))]
    d = spark.createDataFrame([(date(2024, 1, 31), 2)], "d date, n int")
    df = d.select(F.col("d") + 1, F.col("d") - 1, F.lit(1) + F.col("d"), F.col("d") + F.col("n"),
                  F.col("d") - F.col("n"))
    assert df.columns == ["date_add(d, 1)", "date_sub(d, 1)", "date_add(d, 1)", "date_add(d, n)", "date_sub(d, n)"]
    assert df.collect() == [(date(2024, 2, 1), date(2024, 1, 30), date(2024, 2, 1), date(2024, 2, 2),
                             date(2024, 1, 29))]
    assert d.selectExpr("d + cast(1 as smallint)").collect() == [(date(2024, 2, 1),)]


@pytest.mark.parametrize(("sql", "shown"), [("d + cast(1 as bigint)", "CAST(1 AS BIGINT)"), ("d + 1.5", "1.5")])
def test_a_date_plus_a_count_that_is_not_an_int_is_refused(spark: SparkSession, sql: str, shown: str) -> None:
    d = spark.createDataFrame([(date(2024, 1, 31),)], "d date")
    with pytest.raises(AnalysisException) as caught:
        d.selectExpr(sql)
    assert caught.value.getCondition() == "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE"
    assert f'requires the ("INT" or "SMALLINT" or "TINYINT") type, however "{shown}"' in str(caught.value)


def test_rounding_a_decimal_may_carry_into_a_new_digit(spark: SparkSession) -> None:
    # ArrowInvalid: Arrow rounded within the input's precision (0.5 is decimal(1,1)).
    df = spark.sql("SELECT round(0.5) a, round(-0.5) b, bround(-0.5) c, bround(0.5) d, round(9.95, 1) e, "
                   "round(0.05, 1) f, round(99.5) g, round(-0.95, 1) i, round(125.5, -1) j, round(0.5, -1) k, "
                   "round(cast(9.5 as decimal(38,1))) m")
    assert df.schema.simpleString() == (
        "struct<a:decimal(1,0),b:decimal(1,0),c:decimal(1,0),d:decimal(1,0),e:decimal(3,1),f:decimal(2,1),"
        "g:decimal(3,0),i:decimal(2,1),j:decimal(4,0),k:decimal(2,0),m:decimal(38,0)>")
    assert df.collect() == [tuple(Decimal(v) for v in ("1", "-1", "0", "0", "10.0", "0.1", "100", "-1.0", "130",
                                                        "0", "10"))]


@pytest.mark.parametrize("build", [
    lambda spark: spark.range(3).agg(F.sum(F.max("id"))),
    lambda spark: spark.range(3).select(F.sum(F.max("id") + 1)),
    lambda spark: spark.range(3).groupBy("id").agg(F.sum(F.count("id"))),
    lambda spark: spark.sql("SELECT sum(max(id)) FROM range(3)"),
])
def test_an_aggregate_inside_an_aggregate_is_refused_at_definition(spark: SparkSession, build: Any) -> None:
    # It was accepted, then collect() raised a TypeError.
    with pytest.raises(AnalysisException) as caught:
        build(spark)
    assert caught.value.getCondition() == "NESTED_AGGREGATE_FUNCTION"
    assert "It is not allowed to use an aggregate function in the argument of another aggregate function." \
        in str(caught.value)


@pytest.mark.parametrize(("build", "shown"), [
    (lambda spark: spark.range(10).groupBy().agg(F.sum(F.rand(1))), "sum(rand(1))"),
    (lambda spark: spark.range(10).select(F.sum(F.rand(1))), "sum(rand(1))"),
    (lambda spark: spark.range(10).groupBy((F.col("id") % 2).alias("k")).agg(F.count(F.rand(1) > 0.5)),
     "count((rand(1) > 0.5))"),
    (lambda spark: spark.sql("SELECT sum(rand(3)) FROM range(3)"), "sum(rand(3))"),
    (lambda spark: spark.range(3).agg(F.sum(F.udf(lambda x: x, "long").asNondeterministic()("id"))),
     "sum(<lambda>(id))"),
    (lambda spark: spark.range(3).agg(F.max(F.shuffle(F.array("id")))), "max(shuffle(array(id)))"),
    (lambda spark: spark.sql("SELECT max(input_file_name()) FROM range(3)"), "max(input_file_name())"),
    (lambda spark: spark.sql("SELECT max(spark_partition_id()) FROM range(3)"), "max(SPARK_PARTITION_ID())"),
])
def test_a_non_deterministic_argument_of_an_aggregate_is_refused(spark: SparkSession, build: Any, shown: str) -> None:
    # Accepted before: a retried task or a re-run micro-batch would aggregate other values.
    with pytest.raises(AnalysisException) as caught:
        build(spark)
    assert caught.value.getCondition() == "AGGREGATE_FUNCTION_WITH_NONDETERMINISTIC_EXPRESSION"
    assert (f'Non-deterministic expression "{shown}" should not appear in the arguments of an aggregate function.'
            in str(caught.value))


def test_non_deterministic_values_beside_or_around_an_aggregate_are_allowed(spark: SparkSession) -> None:
    df = spark.range(10)
    assert df.groupBy().agg((F.sum("id") + F.rand(1)).alias("x")).columns == ["x"]
    assert df.groupBy((F.rand(1) > 0.5).alias("g")).count().columns == ["g", "count"]
    assert spark.sql("SELECT max(current_timestamp()), max(now()) FROM range(3)").count() == 1
    assert df.select(F.sum(F.rand(1)).over(Window.orderBy("id")).alias("s")).count() == 10


def test_an_aggregate_inside_a_window_function_after_a_group_by_is_allowed(spark: SparkSession) -> None:
    df = spark.sql("SELECT id % 2 k, sum(max(id)) OVER () t FROM range(3) GROUP BY id % 2")
    assert sorted(df.collect()) == [Row(k=0, t=3), Row(k=1, t=3)]


def test_ceil_and_floor_with_a_scale_give_decimals(spark: SparkSession) -> None:
    # TypeError: ceil() and floor() took no scale.
    c = spark.createDataFrame([(1.41, 1.41, Decimal("1.41"), 7, 7)],
                              "f float, db double, c decimal(5,2), i int, l bigint")
    df = c.select(F.ceil("f", F.lit(1)), F.floor("f", F.lit(1)), F.ceil("c", 1), F.floor("db", 1),
                  F.ceil("i", F.lit(-1)), F.floor("l", -1), F.ceil("c", 3))
    assert df.schema.simpleString() == (
        "struct<ceil(f, 1):decimal(9,1),floor(f, 1):decimal(9,1),ceil(c, 1):decimal(5,1),floor(db, 1):decimal(17,1),"
        "ceil(i, -1):decimal(11,0),floor(l, -1):decimal(21,0),ceil(c, 3):decimal(6,2)>")
    assert df.collect() == [tuple(Decimal(v) for v in ("1.5", "1.4", "1.5", "1.4", "10", "0", "1.41"))]
    sql = spark.sql("SELECT floor(2.555, 2) e, ceil(2.555, 2) f, floor(-1.41, 1) h, ceil(9.99, 1) i, ceil(15, -1) k")
    assert sql.schema.simpleString() == (
        "struct<e:decimal(4,2),f:decimal(4,2),h:decimal(3,1),i:decimal(3,1),k:decimal(11,0)>")
    assert sql.collect() == [tuple(Decimal(v) for v in ("2.55", "2.56", "-1.5", "10.0", "20"))]
    # Without a scale, the names and types are unchanged.
    assert c.select(F.ceil("c"), F.floor("db")).schema.simpleString() == "struct<CEIL(c):decimal(4,0),FLOOR(db):bigint>"
