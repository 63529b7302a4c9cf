"""Spark 4's rules that programs see, one small test each, through the DataFrame API.

ANSI mode is on (Spark 4's default): bad casts and arithmetic raise at the action,
not at definition; names are resolved at definition (AnalysisException naming the
column and listing the available ones). Expected values are Spark 4's.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import AnalysisException, DataFrame, Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import ArithmeticException, NumberFormatException
from dstream.sql.types import BooleanType, DoubleType, IntegerType, LongType, StringType


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local").appName("spark4-rules")
               .config("spark.sql.session.timeZone", "America/New_York").getOrCreate())
    yield session
    session.stop()


def one(df: DataFrame) -> object:
    """The single value of a one-row, one-column DataFrame."""
    rows = df.collect()
    assert len(rows) == 1 and len(rows[0]) == 1
    return rows[0][0]


def strings(spark: SparkSession, *values: str | None) -> DataFrame:
    return spark.createDataFrame([(v,) for v in values], "s string")


# ------------------------------------------------------------------ casts


@pytest.mark.parametrize("text", ["x", "3.9"])
def test_ansi_cast_of_malformed_string_raises_at_the_action(spark: SparkSession, text: str) -> None:
    df = strings(spark, text).select(F.col("s").cast("int"))  # no error yet: definition only
    with pytest.raises(NumberFormatException) as info:
        df.collect()
    assert info.value.getCondition() == "CAST_INVALID_INPUT"
    assert f"'{text}'" in str(info.value) and "try_cast" in str(info.value)


def test_try_cast_gives_null(spark: SparkSession) -> None:
    df = strings(spark, "x", "3.9", "12")
    assert [r[0] for r in df.select(F.col("s").try_cast("int")).collect()] == [None, None, 12]


def test_cast_trims_spaces(spark: SparkSession) -> None:
    assert one(strings(spark, " 7 ").select(F.col("s").cast("int"))) == 7


def test_double_to_int_truncates(spark: SparkSession) -> None:
    df = spark.createDataFrame([(3.9,), (-3.9,)], "d double")
    assert [r[0] for r in df.select(F.col("d").cast("int")).collect()] == [3, -3]


# ------------------------------------------------------------------ arithmetic


def test_division_gives_double(spark: SparkSession) -> None:
    df = spark.createDataFrame([(7, 2)], "a int, b int").select(F.col("a") / F.col("b"))
    assert df.schema[0].dataType == DoubleType() and one(df) == 3.5


def test_remainder_takes_the_dividend_sign(spark: SparkSession) -> None:
    df = spark.createDataFrame([(-7, 3), (7, -3)], "a int, b int")
    assert [r[0] for r in df.select(F.col("a") % F.col("b")).collect()] == [-1, 1]


@pytest.mark.parametrize(("ddl", "row"), [("a int, b int", (1, 0)), ("a double, b double", (1.0, 0.0))])
def test_division_by_zero_raises(spark: SparkSession, ddl: str, row: tuple) -> None:
    df = spark.createDataFrame([row], ddl).select(F.col("a") / F.col("b"))
    with pytest.raises(ArithmeticException) as info:
        df.collect()
    assert info.value.getCondition() == "DIVIDE_BY_ZERO"


def test_integer_overflow_raises(spark: SparkSession) -> None:
    df = spark.createDataFrame([(2_147_483_647,)], "a int").select(F.col("a") + 1)
    with pytest.raises(ArithmeticException) as info:
        df.collect()
    assert info.value.getCondition() == "ARITHMETIC_OVERFLOW"


# ------------------------------------------------------------------ nulls


def test_equality_with_none_matches_nothing(spark: SparkSession) -> None:
    df = strings(spark, "a", None)
    assert df.where(F.col("s") == None).count() == 0  # noqa: E711 - the point of the test
    assert df.where(F.col("s") != None).count() == 0  # noqa: E711


def test_eq_null_safe_matches_null(spark: SparkSession) -> None:
    df = strings(spark, "a", None)
    assert df.where(F.col("s").eqNullSafe(None)).collect() == [Row(s=None)]
    assert [r[0] for r in df.select(F.col("s").eqNullSafe("a")).collect()] == [True, False]


def test_isin_on_null_gives_null(spark: SparkSession) -> None:
    df = strings(spark, None, "a", "b")
    assert [r[0] for r in df.select(F.col("s").isin("a", "c")).collect()] == [None, True, False]


def test_default_null_ordering(spark: SparkSession) -> None:
    df = spark.createDataFrame([(2,), (None,), (1,)], "v int")
    assert [r.v for r in df.orderBy("v").collect()] == [None, 1, 2]
    assert [r.v for r in df.orderBy(F.desc("v")).collect()] == [2, 1, None]


def test_show_prints_null(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    strings(spark, None).show()
    assert capsys.readouterr().out == "+----+\n|   s|\n+----+\n|NULL|\n+----+\n\n"


# ------------------------------------------------------------------ schemas of created DataFrames


def test_create_from_dicts_orders_columns_by_sorted_key(spark: SparkSession) -> None:
    df = spark.createDataFrame([{"b": 1, "a": "x"}])
    assert df.columns == ["a", "b"]
    assert df.schema["b"].dataType == LongType() and df.collect() == [Row(a="x", b=1)]


def test_rows_keep_field_order(spark: SparkSession) -> None:
    df = spark.createDataFrame([Row(b=1, a="x")])
    assert df.columns == ["b", "a"]


# ------------------------------------------------------------------ aggregates


def test_default_aggregate_names(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1,)], "v int")
    got = df.agg(F.count("*"), F.count("v"), F.sum("v"), F.avg("v"), F.countDistinct("v"))
    assert got.columns == ["count(1)", "count(v)", "sum(v)", "avg(v)", "count(DISTINCT v)"]


def test_sum_of_int_is_bigint_and_min_max_keep_the_type(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, "b", True), (2, "a", False)], "v int, s string, b boolean")
    got = df.agg(F.sum("v"), F.min("v"), F.max("s"), F.min("b"))
    assert [f.dataType for f in got.schema] == [LongType(), IntegerType(), StringType(), BooleanType()]
    assert got.collect() == [Row(3, 1, "b", False)]


def test_aggregate_over_no_rows_gives_one_row(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1,)], "v int").where(F.col("v") > 5)
    assert df.agg(F.count("*"), F.sum("v"), F.max("v")).collect() == [Row(0, None, None)]


def test_null_key_is_its_own_group(spark: SparkSession) -> None:
    df = spark.createDataFrame([(None, 1), ("a", 2), (None, 3)], "k string, v int")
    got = {r.k: r["sum(v)"] for r in df.groupBy("k").sum("v").collect()}
    assert got == {None: 4, "a": 2}


# ------------------------------------------------------------------ joins


@pytest.mark.parametrize(("how", "keys"), [("right", [1, 3]), ("full", [1, 2, 3])])
def test_using_join_takes_the_key_from_whichever_side_has_it(spark: SparkSession, how: str, keys: list[int]) -> None:
    left = spark.createDataFrame([(1, "l1"), (2, "l2")], "k int, l string")
    right = spark.createDataFrame([(1, "r1"), (3, "r3")], "k int, r string")
    got = left.join(right, on="k", how=how)
    assert got.columns == ["k", "l", "r"]
    assert sorted(r.k for r in got.collect()) == keys


# ------------------------------------------------------------------ strings


def test_trim_removes_spaces_only(spark: SparkSession) -> None:
    assert one(strings(spark, " \t a \n ").select(F.trim("s"))) == "\t a \n"


def test_concat_ws_skips_nulls_and_concat_gives_null(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", None, "c")], "x string, y string, z string")
    assert df.select(F.concat_ws("-", "x", "y", "z"), F.concat("x", "y", "z")).collect() == [Row("a-c", None)]


def test_regexp_extract_gives_empty_string_on_no_match(spark: SparkSession) -> None:
    df = strings(spark, "abc", "x-12")
    assert [r[0] for r in df.select(F.regexp_extract("s", r"(\d+)", 1)).collect()] == ["", "12"]


def test_regexp_replace_with_group_reference(spark: SparkSession) -> None:
    assert one(strings(spark, "2024-01-31").select(F.regexp_replace("s", r"(\d+)-(\d+)-(\d+)", "$3/$2/$1"))) \
        == "31/01/2024"


@pytest.mark.parametrize(("pos", "length", "expected"), [(1, 2, "ab"), (0, 2, "ab"), (-2, 2, "de"), (2, 100, "bcde")])
def test_substring_positions(spark: SparkSession, pos: int, length: int, expected: str) -> None:
    assert one(strings(spark, "abcde").select(F.substring("s", pos, length))) == expected


def test_split_keeps_empty_strings(spark: SparkSession) -> None:
    assert one(strings(spark, ",a,,b,").select(F.split("s", ","))) == ["", "a", "", "b", ""]


# ------------------------------------------------------------------ files


def test_csv_inference_and_empty_field_is_null(spark: SparkSession, tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("i,l,d,b,s\n1,3000000000,1.5,true,x\n,4,2,false,\n")
    df = spark.read.csv(str(path), header=True, inferSchema=True)
    assert [f.dataType.simpleString() for f in df.schema] == ["int", "bigint", "double", "boolean", "string"]
    assert df.collect() == [Row(1, 3000000000, 1.5, True, "x"), Row(None, 4, 2.0, False, None)]


def test_writing_to_an_existing_path_without_mode_fails(spark: SparkSession, tmp_path: Path) -> None:
    out = str(tmp_path / "out")
    df = strings(spark, "a")
    df.write.csv(out)
    with pytest.raises(AnalysisException) as info:
        df.write.csv(out)
    assert "PATH_ALREADY_EXISTS" in str(info.value) and "overwrite" in str(info.value)
    df.write.mode("overwrite").csv(out)


# ------------------------------------------------------------------ analysis at definition


@pytest.mark.parametrize("make", [
    lambda df, spark: df.select("nope"),
    lambda df, spark: df.where(F.col("nope") > 1),
    lambda df, spark: df.withColumn("c", F.col("nope") + 1),
    lambda df, spark: spark.sql("SELECT nope FROM rules_t"),
], ids=["select", "where", "withColumn", "sql"])
def test_unknown_column_raises_at_definition(spark: SparkSession, make: object) -> None:
    df = spark.createDataFrame([(1, "x")], "alpha int, beta string")
    df.createOrReplaceTempView("rules_t")
    with pytest.raises(AnalysisException) as info:
        make(df, spark)  # type: ignore[operator]
    message = str(info.value)
    assert "`nope`" in message and "`alpha`" in message and "`beta`" in message
    assert info.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


def test_analysis_exception_is_importable_from_the_package() -> None:
    from dstream.sql import AnalysisException as Exported  # noqa: PLC0415 - the import is the test
    from dstream.sql.errors import AnalysisException as Defined  # noqa: PLC0415

    assert Exported is Defined and issubclass(Exported, Exception)


# ------------------------------------------------------------------ UDFs


def test_udf_gets_none_for_null_and_returns_string_by_default(spark: SparkSession) -> None:
    def describe(x: object) -> object:
        return "none" if x is None else x * 2  # type: ignore[operator]

    f = F.udf(describe)
    df = spark.createDataFrame([(None,), (21,)], "v int").select(f("v").alias("u"))
    assert df.schema["u"].dataType == StringType()
    assert [r.u for r in df.collect()] == ["none", "42"]


# ------------------------------------------------------------------ timestamps


def test_timestamps_collect_as_naive_datetimes_in_the_machine_zone(spark: SparkSession) -> None:
    # As PySpark: collect() gives the machine's wall times (the suite pins TZ=UTC), whatever
    # the session zone (New York here) that parsed the string.
    df = spark.createDataFrame([(dt.datetime(2024, 1, 15, 17, 0, tzinfo=dt.timezone.utc),)], "t timestamp")
    parsed = strings(spark, "2024-07-01 08:30:00").select(F.col("s").cast("timestamp"))
    assert one(df) == dt.datetime(2024, 1, 15, 17, 0) and one(parsed) == dt.datetime(2024, 7, 1, 12, 30)
    spark.conf.set("spark.sql.session.timeZone", "UTC")
    try:
        assert one(df) == dt.datetime(2024, 1, 15, 17, 0)
        assert one(parsed) == dt.datetime(2024, 7, 1, 8, 30)  # now parsed as 08:30 UTC
    finally:
        spark.conf.set("spark.sql.session.timeZone", "America/New_York")


# ------------------------------------------------------------------ Row


def test_row_access_as_dict_and_tuple_equality() -> None:
    row = Row(name="Alice", age=11)
    assert row.name == row["name"] == row[0] == "Alice" and row[1] == 11
    assert row.asDict() == {"name": "Alice", "age": 11}
    assert row == ("Alice", 11) and Row(a=Row(b=1)).asDict(recursive=True) == {"a": {"b": 1}}
