"""Behaviours found to differ from PySpark 4.0.1 by running the same programs under both.

One test per finding; the expected values are what PySpark printed for the same calls.
"""

from __future__ import annotations

import datetime
import decimal
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import (
    AnalysisException,
    IllegalArgumentException,
    PySparkIndexError,
)


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("pyspark-parity").getOrCreate()
    yield session
    session.stop()


@pytest.mark.parametrize("method", ["limit", "offset"])
def test_a_negative_limit_or_offset_is_refused(spark: SparkSession, method: str) -> None:
    # It read as "no limit" and returned every row.
    with pytest.raises(AnalysisException) as caught:
        getattr(spark.range(3), method)(-1)
    assert caught.value.getCondition() == "INVALID_LIMIT_LIKE_EXPRESSION.IS_NEGATIVE"
    assert f"The {method} expression must be equal to or greater than 0, but got -1" in str(caught.value)
    assert getattr(spark.range(3), method)(0).count() == (0 if method == "limit" else 3)


def test_sampling_more_than_everything_without_replacement_is_refused(spark: SparkSession) -> None:
    with pytest.raises(IllegalArgumentException, match=r"Sampling fraction \(1.5\) must be on interval \[0, 1\]"):
        spark.range(3).sample(1.5)
    assert spark.range(50).sample(True, 1.5, 7).count() > 0
    assert spark.range(10).sample(1.0).count() == 10


def test_dropping_a_column_object_that_does_not_exist_is_a_no_op(spark: SparkSession) -> None:
    df = spark.range(2).withColumn("x", F.lit(1))
    assert df.drop(F.col("nope")).columns == ["id", "x"]
    assert df.drop("nope", F.col("id")).columns == ["x"]


def test_path_glob_filter_and_recursive_lookup_in_a_batch_read(spark: SparkSession, tmp_path: Path) -> None:
    # pathGlobFilter was ignored: every file of the directory was read.
    for part, name, line in [("k=0", "a.csv", "a,1"), ("k=1", "b.txt", "b,2"), ("k=1", "c.csv", "c,3")]:
        (tmp_path / part).mkdir(exist_ok=True)
        (tmp_path / part / name).write_text(line + "\n")
    reader = spark.read.schema("s string, v int")
    assert reader.option("pathGlobFilter", "*.txt").csv(str(tmp_path)).collect() == [Row(s="b", v=2, k=1)]
    both = spark.read.option("pathGlobFilter", "*.csv").csv(str(tmp_path))
    assert both.columns == ["_c0", "_c1", "k"] and sorted(both.collect()) == [("a", "1", 0), ("c", "3", 1)]
    # With recursiveFileLookup, k=1 is a directory like any other: no partition column.
    flat = spark.read.option("pathGlobFilter", "*.csv").option("recursiveFileLookup", "true").csv(str(tmp_path))
    assert flat.columns == ["_c0", "_c1"] and sorted(flat.collect()) == [("a", "1"), ("c", "3")]


def test_explain_modes(spark: SparkSession, capsys: pytest.CaptureFixture[str]) -> None:
    df = spark.range(3).where("id > 0")
    for mode, headers in [("simple", 1), ("formatted", 1), ("extended", 4), ("cost", 4)]:
        df.explain(mode)
        assert capsys.readouterr().out.count("== ") == headers, mode
    with pytest.raises(IllegalArgumentException, match="Unknown explain mode: bogus"):
        df.explain("bogus")


def test_joining_back_a_dataframe_derived_from_the_same_one(spark: SparkSession) -> None:
    # df.g == agg.g named one column twice: every left row matched every right row.
    df = spark.createDataFrame([(1, "a", 10), (2, "a", 20), (3, "b", 30)], ["id", "g", "n"])
    agg = df.groupBy("g").agg(F.max("n").alias("mx"))
    assert df.join(agg, df.g == agg.g).select(df.id, agg.mx).orderBy("id").collect() == [
        Row(id=1, mx=20), Row(id=2, mx=20), Row(id=3, mx=30)]
    later = df.filter("n > 10")
    assert df.join(later, df.id == later.id, "left_anti").collect() == [Row(id=1, g="a", n=10)]
    assert df.join(later, df.n == later.n).count() == 2
    assert df.join(later, (df.id == later.id) & (df.g == later.g)).count() == 2
    assert df.join(later, df.id.eqNullSafe(later.id), "left_semi").count() == 2


@pytest.mark.parametrize("how", ["option", "conf"])
def test_dynamic_partition_overwrite_replaces_only_the_partitions_written(spark: SparkSession, tmp_path: Path,
                                                                         how: str) -> None:
    # The setting was ignored: overwriting yr=2021 deleted yr=2020 too.
    out = str(tmp_path / "t")
    spark.createDataFrame([(1, "old", 2020), (2, "old", 2021)], "id int, v string, yr int") \
        .write.partitionBy("yr").parquet(out)
    new = spark.createDataFrame([(3, "new", 2021)], "id int, v string, yr int").write.mode("overwrite") \
        .partitionBy("yr")
    if how == "option":
        new.option("partitionOverwriteMode", "dynamic").parquet(out)
    else:
        spark.conf.set("spark.sql.sources.partitionOverwriteMode", "dynamic")
        try:
            new.parquet(out)
        finally:
            spark.conf.unset("spark.sql.sources.partitionOverwriteMode")
    assert sorted(spark.read.parquet(out).collect()) == [Row(id=1, v="old", yr=2020), Row(id=3, v="new", yr=2021)]
    # STATIC, the default, replaces the whole output.
    spark.createDataFrame([(4, "s", 2022)], "id int, v string, yr int").write.mode("overwrite").partitionBy("yr") \
        .parquet(out)
    assert spark.read.parquet(out).collect() == [Row(id=4, v="s", yr=2022)]
    with pytest.raises(IllegalArgumentException, match="partitionOverwriteMode must be STATIC or DYNAMIC"):
        new.option("partitionOverwriteMode", "sometimes").parquet(out)


@given(rows=st.lists(st.tuples(st.one_of(st.none(), st.just(math.nan), st.floats(-5, 5)),
                               st.one_of(st.none(), st.sampled_from(["a", "b"]))), max_size=12))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_na_functions_treat_nan_as_missing(spark: SparkSession, rows: list[tuple[Any, Any]]) -> None:
    # NaN was kept by na.fill and counted as present by na.drop; Spark treats it as missing.
    def missing(v: Any) -> bool:
        return v is None or (isinstance(v, float) and math.isnan(v))

    df = spark.createDataFrame(rows, "d double, s string")
    assert [tuple(r) for r in df.na.fill(0.0).collect()] == [(0.0 if missing(d) else d, s) for d, s in rows]
    assert df.na.drop().count() == sum(1 for d, s in rows if not missing(d) and s is not None)
    assert df.na.drop(how="all").count() == sum(1 for d, s in rows if not (missing(d) and s is None))
    assert df.dropna(subset=["d"]).count() == sum(1 for d, _ in rows if not missing(d))


def test_na_functions_refuse_columns_the_dataframe_does_not_have(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1.0, "a")], "d double, s string")
    for call in (lambda: df.na.fill({"zz": 1}), lambda: df.na.fill(1, subset=["zz"]), lambda: df.na.drop(subset=["zz"]),
                 lambda: df.na.replace("a", "b", subset=["zz"])):
        with pytest.raises(AnalysisException) as caught:
            call()
        assert caught.value.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION"


@pytest.mark.parametrize(("query", "proposal"), [
    # PySpark 4.0.1's proposals: names ranked by the edit distance of the quoted name to the name
    # as written, ties in name order, the qualifier all the columns share left out.
    ("select kk from (select 1 as k, 2 as v, 3 as ts) t", "[`k`, `v`, `ts`]"),
    ("select K2 from (select 1 as k, 2 as v, 3 as ts, 4 as s) t", "[`k`, `s`, `v`, `ts`]"),
    ("select t.kx from (select 1 as k, 2 as v) t", "[`t`.`k`, `t`.`v`]"),
    ("select a.k from (select 1 as k) a join (select 2 as k, 3 as w) b on true where kk > 1",
     "[`a`.`k`, `b`.`k`, `b`.`w`]"),
    ("select abcd from (select 1 as abc, 2 as bcd, 3 as xyz, 4 as abcde, 5 as ab, 6 as a, 7 as zz) t",
     "[`abc`, `bcd`, `ab`, `abcde`, `a`]"),
    ("select `k2` from (select 1 as `k 2`, 2 as k_2, 3 as K2x) t", "[`k 2`, `k_2`, `K2x`]"),
])
def test_unresolved_column_proposals_in_pysparks_order(spark: SparkSession, query: str, proposal: str) -> None:
    with pytest.raises(AnalysisException) as caught:
        spark.sql(query).collect()
    assert caught.value.getMessageParameters()["proposal"] == proposal


def test_order_by_positions(spark: SparkSession) -> None:
    # PySpark 4: 1-based positions, negative for descending; -1 sorted ascending here and 0 the last column.
    df = spark.createDataFrame([(1, "b"), (2, None), (3, "a")], "i int, s string")
    assert [r.i for r in df.orderBy(-1).collect()] == [3, 2, 1]
    assert [r.i for r in df.orderBy(2).collect()] == [2, 3, 1]
    assert [r.i for r in df.orderBy(-2, 1).collect()] == [1, 3, 2]  # descending: nulls last
    with pytest.raises(PySparkIndexError) as caught:
        df.orderBy(0)
    assert caught.value.getCondition() == "ZERO_INDEX"
    with pytest.raises(PySparkIndexError, match="3 is out of range for 2 column"):
        df.sort(-3)


def test_to_pandas_converts_rows_as_pyspark_does_without_arrow(spark: SparkSession) -> None:
    import datetime
    import decimal

    import numpy as np

    df = spark.createDataFrame(
        [([1, 2], {"a": 1}, (1, "x"), bytearray(b"x"), datetime.datetime(2024, 1, 2, 3, 4, 5), 1, None,
          decimal.Decimal("1.5"))],
        "a array<int>, m map<string,int>, s struct<p:int,q:string>, b binary, t timestamp, i int, n string, "
        "d decimal(3,1)")
    pdf = df.toPandas()
    first = pdf.iloc[0].tolist()
    assert first[:4] == [[1, 2], {"a": 1}, Row(p=1, q="x"), bytearray(b"x")]
    assert pdf["t"].dtype == np.dtype("datetime64[ns]") and pdf["i"].dtype == np.int32
    assert pdf["n"].dtype == object and first[6] is None and first[7] == decimal.Decimal("1.5")
    nulls = spark.createDataFrame([(1, None), (None, True)], "i int, f boolean").toPandas()
    assert nulls["i"].dtype == np.float64 and nulls["f"].dtype == object
    assert spark.createDataFrame([], "i int, s string").toPandas().dtypes.tolist() == [np.int32, object]
    spark.conf.set("spark.sql.execution.arrow.pyspark.enabled", "true")
    try:  # through Arrow, as PySpark with that setting: arrays as numpy arrays
        assert isinstance(df.toPandas()["a"][0], np.ndarray)
    finally:
        spark.conf.unset("spark.sql.execution.arrow.pyspark.enabled")


def test_csv_empty_fields_bom_and_date_inference(spark: SparkSession, tmp_path: Path) -> None:
    # An empty field stayed "" once nullValue was set; a BOM opened the first column's name;
    # yyyy-MM-dd columns were inferred as strings (Spark 3.4+ infers dates).
    (tmp_path / "f.csv").write_bytes(b"\xef\xbb\xbfa,b,d\n1,,2024-01-02\n,x,2024-02-03\n")
    df = spark.read.option("header", True).option("inferSchema", True).csv(str(tmp_path))
    assert df.schema.simpleString() == "struct<a:int,b:string,d:date>"
    assert [tuple(r) for r in df.collect()] == [(1, None, datetime.date(2024, 1, 2)),
                                                (None, "x", datetime.date(2024, 2, 3))]
    flagged = spark.read.option("header", True).option("nullValue", "NA").csv(str(tmp_path))
    assert [r.b for r in flagged.collect()] == [None, "x"]
    (tmp_path / "g.csv").write_text("d\n2024-01-02\n2024-01-02 03:04:05\n")
    mixed = spark.read.option("header", True).option("inferSchema", True).csv(str(tmp_path / "g.csv"))
    assert mixed.schema.simpleString() == "struct<d:timestamp>"  # a date meets a timestamp: timestamp


def test_array_and_map_keys_group_distinct_and_join(spark: SparkSession) -> None:
    # Arrow's hash kernels take no list keys: these raised ArrowNotImplementedError.
    a = spark.createDataFrame([(1, [1.0]), (2, [2.0]), (3, [1.0]), (4, None), (5, [-0.0]), (6, [0.0])],
                              "i int, a array<double>")
    assert sorted((r.a, r["count"]) for r in a.groupBy("a").count().collect() if r.a is not None) == [
        ([0.0], 2), ([1.0], 2), ([2.0], 1)]  # -0.0 and 0.0 one group, as Spark
    assert a.select("a").distinct().count() == 4 and a.dropDuplicates(["a"]).count() == 4
    assert a.alias("x").join(a.alias("y"), "a").count() == 9
    m = spark.createDataFrame([({"k": 1},), ({"k": 1},), ({"k": 2},)], "m map<string,int>")
    assert sorted(r["count"] for r in m.groupBy("m").count().collect()) == [1, 2]
    with pytest.raises(AnalysisException, match=r"Sorting by m \(map<.*\) is not supported here yet"):
        m.orderBy("m").collect()


def test_pivot_first_skips_other_values_and_collect_list_cells_are_empty_arrays(spark: SparkSession) -> None:
    p = spark.createDataFrame([("a", 1, 2020), ("a", 2, 2021), ("b", None, 2020), ("b", 1, None), ("c", 3, 2021)],
                              ["k", "q", "yr"])
    firsts = p.groupBy("k").pivot("yr").agg(F.first("q")).orderBy("k").collect()
    assert [tuple(r) for r in firsts] == [("a", None, 1, 2), ("b", 1, None, None), ("c", None, None, 3)]
    lists = p.groupBy("k").pivot("yr").agg(F.collect_list("q")).orderBy("k").collect()
    assert [tuple(r) for r in lists] == [("a", [], [1], [2]), ("b", [1], [], []), ("c", [], [], [3])]
    counts = p.groupBy("k").pivot("yr").count().orderBy("k").collect()
    assert [tuple(r) for r in counts] == [("a", None, 1, 1), ("b", 1, 1, None), ("c", None, None, 1)]


def test_create_dataframe_merges_a_value_and_a_string_into_a_string(spark: SparkSession) -> None:
    # PySpark 4 infers string where a column mixes strings and other atomic values (we raised CANNOT_MERGE_TYPE).
    df = spark.createDataFrame([(1, 2.5), ("x", "y")], ["a", "b"])
    assert df.schema.simpleString() == "struct<a:string,b:string>"
    assert [tuple(r) for r in df.collect()] == [("1", "2.5"), ("x", "y")]


def test_json_permissive_keeps_the_fields_that_convert(spark: SparkSession, tmp_path: Path) -> None:
    # One bad field nulled the whole record; Spark keeps the others (partial results).
    path = tmp_path / "j.json"
    path.write_text('{"d": "2024-01-02", "n": 1.5}\n{"d": "2024-01-03", "n": 2}\nnot json\n')
    rows = spark.read.schema("d date, n int, _corrupt_record string").json(str(path)).collect()
    assert [tuple(r) for r in rows] == [
        (datetime.date(2024, 1, 2), None, '{"d": "2024-01-02", "n": 1.5}'), (datetime.date(2024, 1, 3), 2, None),
        (None, None, "not json")]
    assert spark.read.schema("d date, n int").option("mode", "DROPMALFORMED").json(str(path)).count() == 1


@pytest.mark.parametrize(("codec", "ending"), [("gzip", ".gz"), ("bzip2", ".bz2"), ("deflate", ".deflate")])
def test_text_formats_write_and_read_compressed_files(spark: SparkSession, tmp_path: Path, codec: str,
                                                      ending: str) -> None:
    # compression was ignored for csv/json/text (plain files written), and .gz inputs were read as bytes.
    df = spark.createDataFrame([(1, "x"), (2, "y")], "a int, b string")
    for fmt, frame in (("csv", df), ("json", df), ("text", df.select("b"))):
        out = tmp_path / fmt
        frame.write.option("compression", codec).format(fmt).save(str(out))
        parts = [p.name for p in out.iterdir() if p.name.startswith("part-")]
        assert parts and all(p.endswith(f".{'txt' if fmt == 'text' else fmt}{ending}") for p in parts)
        back = spark.read.format(fmt).load(str(out))
        assert back.count() == 2
    with pytest.raises(IllegalArgumentException, match=r"Codec \[lz4\] is not available"):
        df.write.option("compression", "lz4").csv(str(tmp_path / "lz4"))
    assert not (tmp_path / "lz4").exists()


def _spark_array_key(values: list[Any]) -> tuple[Any, ...]:
    # Spark's ArrayType ordering: element by element, a null element first, a prefix first.
    return tuple((0,) if v is None else (1, v) for v in values)


@given(rows=st.lists(st.one_of(st.none(), st.lists(st.one_of(st.none(), st.integers(-3, 3)), max_size=4)),
                     max_size=15))
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_order_by_an_array_column_as_spark(spark: SparkSession, rows: list[Any]) -> None:
    # Arrow sorts no lists: orderBy raised ArrowTypeError.
    df = spark.createDataFrame(list(enumerate(rows)), "i int, a array<int>")
    up = [r.a for r in df.orderBy("a", "i").collect()]
    assert up == [None] * rows.count(None) + sorted((r for r in rows if r is not None), key=_spark_array_key)
    down = [r.a for r in df.orderBy(F.desc("a"), "i").collect()]
    assert down == sorted((r for r in rows if r is not None), key=_spark_array_key, reverse=True) + [
        None] * rows.count(None)


def test_date_and_decimal_keys_in_shuffles_and_null_safe_joins(spark: SparkSession) -> None:
    # pyarrow 26 casts no date32 to int64: every shuffle keyed on a date raised; a null-safe
    # join (intersect) on dates and on narrow decimals failed filling its nulls.
    d = datetime.date
    df = spark.createDataFrame([(1, d(2024, 1, 1)), (1, d(2024, 1, 1)), (2, d(2024, 1, 2)), (3, None)], ["a", "d"])
    assert df.dropDuplicates().count() == 3 and df.select("d").distinct().count() == 3
    assert df.groupBy("d").count().orderBy("d").collect() == [
        Row(d=None, count=1), Row(d=d(2024, 1, 1), count=2), Row(d=d(2024, 1, 2), count=1)]
    assert df.join(df.select("d").distinct(), "d").count() == 3 and df.repartition(3, "d").count() == 4
    assert df.selectExpr("sum(a) over (partition by d) AS s").count() == 4
    dates = df.select("d")
    assert dates.intersect(dates).count() == 3 and dates.subtract(dates).count() == 0
    dec = spark.createDataFrame([(decimal.Decimal("1.5"),), (None,)], "x decimal(3,1)")
    assert dec.intersect(dec).count() == 2 and dec.subtract(dec).count() == 0


def test_struct_of_computed_columns_keeps_their_names(spark: SparkSession) -> None:
    # The optimizer inlined x = k + 1 into struct(x, y), whose fields became col1, col2.
    df = spark.createDataFrame([(1, "a")], ["k", "s"])
    b = df.select((F.col("k") + 1).alias("x"), F.upper("s").alias("y"))
    assert b.select(F.struct("x", "y").alias("st")).collect() == [Row(st=Row(x=2, y="A"))]
    assert b.select(F.to_json(F.struct("x", "y")).alias("j")).first() == Row(j='{"x":2,"y":"A"}')
    j = df.withColumn("x", F.col("k") * 2).select(F.to_json(F.struct("x", "s")).alias("j")).first()
    assert j == Row(j='{"x":2,"s":"a"}')


def test_aggregates_of_nested_values(spark: SparkSession) -> None:
    # collect_list(struct(...)), first of a struct, max of a struct, collect_list of arrays:
    # Arrow's hash kernels take no nested values and these raised ArrowNotImplementedError.
    df = spark.createDataFrame([(1, "a", 2, [1, 2]), (1, "b", 3, [3]), (2, "c", 4, None)], ["k", "s", "q", "arr"])
    got = df.groupBy("k").agg(F.collect_list(F.struct("s", "q")).alias("v"), F.flatten(F.collect_list("arr")).alias(
        "f"), F.first(F.struct("s", "q")).alias("first"), F.max(F.struct("q", "s")).alias("max"),
        F.size(F.collect_set(F.struct("s", "q"))).alias("n")).orderBy("k").collect()
    assert [tuple(r) for r in got] == [
        (1, [Row(s="a", q=2), Row(s="b", q=3)], [1, 2, 3], Row(s="a", q=2), Row(q=3, s="b"), 2),
        (2, [Row(s="c", q=4)], [], Row(s="c", q=4), Row(q=4, s="c"), 1)]


def test_a_star_among_function_arguments_stands_for_every_column(spark: SparkSession) -> None:
    # to_json(struct("*")) raised INVALID_USAGE_OF_STAR_OR_REGEX.
    df = spark.createDataFrame([(1, "a")], ["k", "s"]).withColumn("up", F.upper("s"))
    assert df.select(F.to_json(F.struct("*")).alias("j")).first() == Row(j='{"k":1,"s":"a","up":"A"}')
    assert df.selectExpr("to_json(struct(*)) AS j").first() == Row(j='{"k":1,"s":"a","up":"A"}')
    assert df.select(F.struct("*").alias("st")).first() == Row(st=Row(k=1, s="a", up="A"))


def test_an_empty_output_keeps_its_schema_and_an_empty_input_needs_one(spark: SparkSession, tmp_path: Path) -> None:
    # A file-sink batch without rows wrote no file, so reading the output back had no columns;
    # reading a directory without data files gave a bare IndexError.
    from dstream.sql.streaming import MemoryStream

    stream = MemoryStream("k int", spark)
    out, ckpt = tmp_path / "out", tmp_path / "ckpt"
    query = stream.toDF().filter("k > 10").writeStream.format("parquet").option("checkpointLocation", str(ckpt)) \
        .start(str(out))
    try:
        stream.addData([1, 2])
        query.processAllAvailable(60)
    finally:
        query.stop()
    back = spark.read.parquet(str(out))
    assert back.columns == ["k"] and back.count() == 0
    (tmp_path / "nothing").mkdir()
    with pytest.raises(AnalysisException) as caught:
        spark.read.parquet(str(tmp_path / "nothing"))
    assert caught.value.getCondition() == "UNABLE_TO_INFER_SCHEMA"


def test_session_window_gap_columns(spark: SparkSession) -> None:
    # A Column gap raised "'Column' object is not callable": a literal one works, and so does one per row.
    import datetime as dt

    df = spark.createDataFrame([(dt.datetime(2024, 1, 1, 0, 0), "u1"), (dt.datetime(2024, 1, 1, 0, 3), "u1")],
                               "ts timestamp, user string")
    assert df.groupBy(F.session_window("ts", F.lit("5 minutes"))).count().collect()[0]["count"] == 2
    per_user = df.groupBy(F.session_window("ts", F.when(F.col("user") == "u1", "10 minutes").otherwise("1 minute")))
    session, count = per_user.count().first()
    assert (session.end, count) == (dt.datetime(2024, 1, 1, 0, 13), 2)


def test_summary_percentiles_of_a_decimal_are_doubles(spark: SparkSession) -> None:
    values = [(1, decimal.Decimal("1.50")), (2, decimal.Decimal("2.00")), (3, decimal.Decimal("3.10"))]
    df = spark.createDataFrame(values, "i int, d decimal(5,2)")
    rows = {r.summary: (r.i, r.d) for r in df.summary().collect()}
    assert rows["25%"] == ("1", "1.5") and rows["50%"] == ("2", "2.0") and rows["max"] == ("3", "3.10")  # PySpark's


def test_multiline_json_reads_the_first_value_of_a_json_lines_file(spark: SparkSession, tmp_path: Path) -> None:
    path = tmp_path / "people.json"
    path.write_text('{"name":"Michael"}\n{"name":"Andy", "age":30}\n')
    assert spark.read.option("multiLine", True).json(str(path)).collect() == [Row(name="Michael")]  # PySpark's


def test_nanvl_keeps_numbers_when_the_replacement_is_null_and_fill_is_not_nullable(spark: SparkSession) -> None:
    df = spark.createDataFrame([(math.nan, None), (None, 2), (1.0, None)], "a double, b int")
    got = df.select(F.nanvl("a", F.lit(None).cast("double")).alias("n")).collect()
    assert [r.n for r in got] == [None, None, 1.0]  # nanvl(1.0, null) was null
    filled = df.na.fill({"b": 0, "a": 9.0})
    assert [tuple(r) for r in filled.collect()] == [(9.0, 0), (9.0, 2), (1.0, 0)]
    assert [f.nullable for f in filled.schema.fields] == [False, False]  # Spark's coalesce: not nullable


def test_integer_literals_in_decimal_arithmetic_are_as_wide_as_their_digits(spark: SparkSession) -> None:
    # Spark's DecimalType.fromLiteral: 10.0 / 3 is decimal(8,6) = 3.333333 (we gave decimal(14,12)).
    r = spark.sql("SELECT 10.0 / 3 AS a, 1.5 + 1 AS b, CAST(1 AS DECIMAL(10,2)) / 3 AS c, 2.50 * 2L AS d")
    assert r.schema.simpleString() == "struct<a:decimal(8,6),b:decimal(3,1),c:decimal(14,6),d:decimal(5,2)>"
    assert r.first() == Row(a=decimal.Decimal("3.333333"), b=decimal.Decimal("2.5"), c=decimal.Decimal("0.333333"),
                            d=decimal.Decimal("5.00"))
    df = spark.createDataFrame([(decimal.Decimal("1.50"),)], "x decimal(5,2)")
    assert df.select(F.col("x") + 1).schema.simpleString() == "struct<(x + 1):decimal(6,2)>"


def test_ansi_coercion_of_strings_and_floats_in_arithmetic(spark: SparkSession) -> None:
    # '1' + 2 was a double 3.0 and float + int a float; Spark 4 (ANSI) gives bigint 3 and double.
    r = spark.sql("SELECT '1' + 2 AS a, '5' * 2 AS b, CAST(0.1 AS FLOAT) * 3 AS c")
    assert r.schema.simpleString() == "struct<a:bigint,b:bigint,c:double>"
    assert r.first() == Row(a=3, b=10, c=0.30000000447034836)
    with pytest.raises(AnalysisException) as caught:
        spark.sql("SELECT '1' + '2'").collect()
    assert caught.value.getCondition() == "DATATYPE_MISMATCH.BINARY_OP_WRONG_TYPE"


def test_df_star_is_every_column_of_that_dataframe(spark: SparkSession) -> None:
    # df["*"] raised INVALID_USAGE_OF_STAR_OR_REGEX.
    a = spark.createDataFrame([(1, "a")], ["k", "s"])
    b = spark.createDataFrame([(1, 2.0)], ["k", "v"])
    assert a.select(a["*"]).columns == ["k", "s"]
    assert a.join(b, a.k == b.k).select(b["*"], a.s).columns == ["k", "v", "s"]
    assert a.join(b, a.k == b.k).select(b["*"]).first() == Row(k=1, v=2.0)
