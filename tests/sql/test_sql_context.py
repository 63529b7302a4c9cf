"""SQLContext and HiveContext, PySpark's legacy entry points, against PySpark 4.0.1's answers."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from rdd import SparkContext

from dstream.sql import HiveContext, Row, SparkSession, SQLContext
from dstream.sql.errors import AnalysisException, SparkNoSuchElementException
from dstream.sql.types import IntegerType
from dstream.testing import run_batches

DEPRECATED = "Deprecated in 3.0.0. Use SparkSession.builder.getOrCreate() instead."


@pytest.fixture
def sc(make_sc: Callable[..., SparkContext]) -> Iterator[SparkContext]:
    """A context of its own (the suite's shared one is stopped first), with no SQLContext yet."""
    SQLContext._instantiatedContext = None
    yield make_sc("local[1]")
    SQLContext._instantiatedContext = None


def _warnings_of(thunk: Any) -> tuple[Any, list[tuple[str, str]]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = thunk()
    return result, [(w.category.__name__, str(w.message)) for w in caught]


def test_a_context_made_without_a_session_warns_and_is_the_singleton(sc: SparkContext) -> None:
    ctx, said = _warnings_of(lambda: SQLContext(sc))
    assert said == [("FutureWarning", DEPRECATED)]
    again, said = _warnings_of(lambda: SQLContext.getOrCreate(sc))
    assert again is ctx and said == [("FutureWarning", DEPRECATED)]
    assert ctx.sparkSession.sparkContext is sc
    hive, said = _warnings_of(lambda: HiveContext(sc))
    assert [w[1] for w in said] == ["HiveContext is deprecated in Spark 2.0.0. Please use "
                                    "SparkSession.builder.enableHiveSupport().getOrCreate() instead.", DEPRECATED]
    assert isinstance(hive, SQLContext) and _warnings_of(lambda: SQLContext.getOrCreate(sc))[0] is ctx
    other = ctx.newSession()
    assert type(other) is SQLContext and other.sparkSession is not ctx.sparkSession


def test_data_frames_tables_and_settings(sc: SparkContext) -> None:
    ctx = SQLContext(sc, SparkSession(sc))
    df = ctx.createDataFrame([Row(a=1, b="x"), Row(a=2, b="y")])
    assert df.collect() == [Row(a=1, b="x"), Row(a=2, b="y")]
    ctx.registerDataFrameAsTable(df, "t1")
    assert ctx.sql("select a from t1 order by a").collect() == [Row(a=1), Row(a=2)]
    assert ctx.table("t1").count() == 2
    assert ctx.tables().columns == ["namespace", "tableName", "isTemporary"]
    assert ctx.tables().collect() == [Row(namespace="", tableName="t1", isTemporary=True)]
    assert ctx.tables("default").collect() == ctx.tables().collect()
    assert ctx.tableNames() == ["t1"] and ctx.tableNames("default") == ["t1"]
    ctx.setConf("spark.sql.shuffle.partitions", 3)
    ctx.setConf("spark.my.flag", True)
    assert (ctx.getConf("spark.sql.shuffle.partitions"), ctx.getConf("spark.my.flag")) == ("3", "true")
    assert ctx.getConf("spark.my.key", "dflt") == "dflt"
    with pytest.raises(SparkNoSuchElementException, match='The SQL config "spark.my.key" cannot be found'):
        ctx.getConf("spark.my.key")
    _, said = _warnings_of(lambda: ctx.registerFunction("plus1", lambda x: x + 1, IntegerType()))
    assert said == [("FutureWarning", "Deprecated in 2.3.0. Use spark.udf.register instead.")]
    assert ctx.sql("select plus1(a) from t1 order by 1").collect() == [Row(**{"plus1(a)": 2}), Row(**{"plus1(a)": 3})]
    assert ctx.udf is ctx.sparkSession.udf
    assert ctx.range(3).collect() == [Row(id=0), Row(id=1), Row(id=2)]
    assert ctx.range(1, 7, 2, 2).collect() == [Row(id=1), Row(id=3), Row(id=5)]
    ctx.cacheTable("t1")
    assert ctx.sparkSession.catalog.isCached("t1")
    ctx.uncacheTable("t1")
    assert not ctx.sparkSession.catalog.isCached("t1")
    ctx.clearCache()
    for call in (ctx.cacheTable, ctx.uncacheTable):
        with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
            call("nope")
    ctx.dropTempTable("t1")
    ctx.dropTempTable("nope")  # nothing to drop: no error
    assert ctx.tableNames() == []
    assert type(ctx.read).__name__ == "DataFrameReader" and type(ctx.readStream).__name__ == "DataStreamReader"
    assert ctx.streams.active == []
    rdd: Any = sc.parallelize([(1, 2)])  # toDF is added to RDD by a session, as PySpark does
    assert rdd.toDF(["p", "q"]).collect() == [Row(p=1, q=2)]


def test_tables_come_before_views_as_spark_lists_them(sc: SparkContext, tmp_path: Any) -> None:
    session = SparkSession(sc, [("spark.sql.warehouse.dir", str(tmp_path))])
    ctx = SQLContext(sc, session)
    for name in ("zz_view", "a_view"):
        session.createDataFrame([(1,)], "a int").createOrReplaceTempView(name)
    for name in ("z_table", "b_table"):
        session.createDataFrame([(1,)], "a int").write.saveAsTable(name)
    assert ctx.tableNames() == ["b_table", "z_table", "a_view", "zz_view"]
    assert [tuple(r) for r in session.sql("SHOW TABLES").collect()] == [
        ("default", "b_table", False), ("default", "z_table", False), ("", "a_view", True), ("", "zz_view", True)]


def test_the_dstream_era_pattern_runs_sql_on_each_batch(sc: SparkContext) -> None:
    # Spark 1.x's streaming programs: SQLContext.getOrCreate(rdd.context) inside foreachRDD.
    counted: list[list[tuple[str, int]]] = []

    def per_batch(stream: Any) -> Any:
        def process(rdd: Any) -> None:
            sql_context = SQLContext.getOrCreate(rdd.context)
            words = sql_context.createDataFrame(rdd.map(lambda w: Row(word=w)))
            sql_context.registerDataFrameAsTable(words, "words")
            rows = sql_context.sql("select word, count(*) as total from words group by word order by word")
            counted.append([(r.word, r.total) for r in rows.collect()])

        stream.foreachRDD(process)
        return stream

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        run_batches(sc, [["a", "b", "a"], ["c"]], per_batch)
    assert counted == [[("a", 2), ("b", 1)], [("c", 1)]]
