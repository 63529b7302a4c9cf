"""Event-time windows against PySpark 4.0.1: session merging, per-row gaps, windows outside ``groupBy``.

Each expected value is what PySpark printed for the same program (session zone UTC).
"""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from dstream.sql import DataFrame, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException


def at(second: int) -> datetime.datetime:
    return datetime.datetime(2024, 1, 1, 0, 0) + datetime.timedelta(seconds=second)


def spans(df: DataFrame, column: str = "session_window") -> list[tuple[object, ...]]:
    """The rows with the window struct as ``(start second, end second)``."""
    out = []
    for row in df.collect():
        values = row.asDict()
        window = values.pop(column)
        start, end = ((window.start - at(0)).total_seconds(), (window.end - at(0)).total_seconds())
        out.append(((int(start), int(end)), *values.values()))
    return out


def test_rows_exactly_one_gap_apart_are_one_session(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", at(0)), ("a", at(5)), ("a", at(11)), ("b", at(0)), ("b", at(4))],
                               "k string, t timestamp")
    got = df.groupBy("k", F.session_window("t", "5 seconds")).count().orderBy("k", "session_window")
    assert [(k, w, n) for w, k, n in spans(got)] == [("a", (0, 10), 2), ("a", (11, 16), 1), ("b", (0, 9), 2)]


def test_a_fixed_gap_that_is_not_a_positive_interval_leaves_every_row_out(spark: SparkSession) -> None:
    # PySpark 4.0.1 returns no rows for these gaps (no error), grouped or not.
    df = spark.createDataFrame([("a", at(1)), ("a", at(3))], "k string, t timestamp")
    for gap in ("0 seconds", "-5 seconds", "abc"):
        assert df.groupBy("k", F.session_window("t", gap)).count().collect() == []
        assert df.select(F.session_window("t", gap)).collect() == []
    assert spans(df.groupBy("k", F.session_window("t", "10 seconds")).count()) == [((1, 13), "a", 2)]


@pytest.fixture
def gaps(spark: SparkSession) -> DataFrame:
    rows = [("a", at(0), 5), ("a", at(4), 2), ("a", at(6), 10), ("a", at(16), 1), ("a", at(17), 0),
            ("a", at(30), -3), ("a", at(40), None), ("b", at(0), 1), ("b", at(1), 1), ("b", at(3), 1),
            ("b", at(2), 5)]
    return spark.createDataFrame(rows, "k string, t timestamp, g int")


def test_a_gap_per_row_merges_overlapping_and_touching_windows(gaps: DataFrame) -> None:
    gap = F.when(F.col("g").isNull(), None).otherwise(F.concat(F.col("g").cast("string"), F.lit(" seconds")))
    got = gaps.groupBy("k", F.session_window("t", gap).alias("s")).agg(F.count("*").alias("n"),
                                                                       F.sum("g").alias("sg"))
    # a: [0,5) [4,6) [6,16) [16,17) chain into one; gaps 0, -3 and null leave their rows out.
    assert spans(got.orderBy("k", "s"), "s") == [((0, 17), "a", 4, 18), ((0, 7), "b", 4, 8)]
    assert got.schema.simpleString() == "struct<k:string,s:struct<start:timestamp,end:timestamp>,n:bigint,sg:bigint>"
    mixed = gaps.groupBy(F.session_window("t", F.when(F.col("k") == "a", "5 seconds").otherwise("1 second")))
    assert spans(mixed.count().orderBy("session_window")) == [((0, 11), 7), ((16, 22), 2), ((30, 35), 1),
                                                              ((40, 45), 1)]


def test_outside_groupby_each_row_keeps_its_own_window_and_rows_without_one_go(spark: SparkSession) -> None:
    df = spark.createDataFrame([("a", at(0), "5 seconds"), ("a", at(5), "bogus"), ("a", at(20), None),
                                ("a", at(30), "1 day")], "k string, t timestamp, g string")
    assert spans(df.select(F.session_window("t", F.col("g")).alias("s")), "s") == [((0, 5),), ((30, 86430),)]
    with pytest.raises(AnalysisException, match="must be CalendarIntervalType, but got IntegerType"):
        df.groupBy(F.session_window("t", F.length("g"))).count()
    times = spark.createDataFrame([("a", at(0)), ("a", None), ("b", at(3))], "k string, t timestamp")
    assert spans(times.select("k", F.window("t", "5 seconds").alias("w")), "w") == [((0, 5), "a"), ((0, 5), "b")]
    assert spans(times.select("k", F.session_window("t", "5 seconds").alias("w")), "w") == [((0, 5), "a"),
                                                                                           ((3, 8), "b")]
    assert times.select("k", F.window("t", "5 seconds", "1 second").alias("w")).count() == 10
    assert len(times.withColumn("w", F.session_window("t", "5 seconds")).where("k = 'a'").collect()) == 1


def test_sql_group_by_a_window_the_select_list_repeats(spark: SparkSession) -> None:
    spark.createDataFrame([("a", at(0), "5 seconds"), ("a", at(5), "2 seconds"), ("b", at(30), "1 second")],
                          "k string, t timestamp, g string").createOrReplaceTempView("events")
    tumbling = spark.sql("SELECT window(t, '5 seconds') AS w, count(*) AS n FROM events "
                         "GROUP BY window(t, '5 seconds') ORDER BY 1")
    assert spans(tumbling, "w") == [((0, 5), 1), ((5, 10), 1), ((30, 35), 1)]
    by_ordinal = spark.sql("SELECT window(t, '5 seconds') AS w, count(*) AS n FROM events GROUP BY 1 ORDER BY 1")
    assert spans(by_ordinal, "w") == spans(tumbling, "w")
    sessions = spark.sql("SELECT k, session_window(t, g) AS w, count(*) AS n FROM events "
                         "GROUP BY k, session_window(t, g) ORDER BY 1, 2")
    assert spans(sessions, "w") == [((0, 7), "a", 2), ((30, 31), "b", 1)]


def test_streaming_sessions_touching_across_batches_merge(spark: SparkSession, tmp_path: Path) -> None:
    files = [["a,2024-01-01 00:00:00,5", "b,2024-01-01 00:00:00,1"],
             ["a,2024-01-01 00:00:05,2", "b,2024-01-01 00:00:01,3"],
             ["a,2024-01-01 00:00:07,1", "b,2024-01-01 00:00:09,1"], ["c,2024-01-01 00:10:00,1"]]
    for i, lines in enumerate(files):
        (tmp_path / f"f{i}.csv").write_text("\n".join(lines) + "\n")
    source = spark.readStream.schema("k string, t timestamp, g int").option("maxFilesPerTrigger", 1).csv(str(tmp_path))
    expected = {
        "static": [((0, 12), "a", 3), ((0, 6), "b", 2), ((9, 14), "b", 1)],
        "dyn": [((0, 8), "a", 3), ((0, 4), "b", 2), ((9, 10), "b", 1)],
    }
    for name, gap in [("static", F.lit("5 seconds")), ("dyn", F.concat(F.col("g").cast("string"), F.lit(" seconds")))]:
        for mode, late in [("append", []), ("complete", [("c", 5 if name == "static" else 1)])]:
            counts = source.groupBy("k", F.session_window("t", gap)).agg(F.count("*").alias("n"))
            if mode == "append":
                counts = source.withWatermark("t", "1 second").groupBy("k", F.session_window("t", gap)).agg(
                    F.count("*").alias("n"))
            table = f"sessions_{name}_{mode}"
            query = (counts.writeStream.outputMode(mode).format("memory").queryName(table)
                     .trigger(availableNow=True).start())
            try:
                assert query.awaitTermination(60)
            finally:
                query.stop()
            got = spans(spark.table(table).orderBy("k", "session_window"))
            want = expected[name] + [((600, 600 + length), key, 1) for key, length in late]
            assert [(w, k, n) for w, k, n in got] == want, (name, mode)
