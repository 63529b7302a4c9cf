"""DataFrame.mergeInto: PySpark 4's builder, refused on session-catalog tables as Spark 4.0.1 refuses it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import MergeIntoWriter, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException, SparkRuntimeException, UnsupportedOperationException


@pytest.fixture
def spark(tmp_path: Path) -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").config("spark.sql.warehouse.dir", str(tmp_path)).getOrCreate()
    session.conf.set("spark.sql.warehouse.dir", str(tmp_path))
    yield session
    session.stop()


def test_the_builder_and_spark_s_refusal(spark: SparkSession) -> None:
    spark.createDataFrame([(1, "a")], "id int, v string").write.saveAsTable("target")
    source = spark.createDataFrame([(1, "b"), (2, "c")], "id int, v string")
    writer = source.mergeInto("target", F.col("target.id") == source.id)
    assert isinstance(writer, MergeIntoWriter)
    assert writer.whenMatched().updateAll() is writer
    assert writer.whenNotMatched(F.col("v") != "x").insert({"id": F.col("id"), "v": F.lit("new")}) is writer
    assert writer.whenNotMatchedBySource().delete() is writer and writer.withSchemaEvolution() is writer
    with pytest.raises(UnsupportedOperationException, match="MERGE INTO TABLE is not supported temporarily."):
        writer.merge()
    assert [tuple(r) for r in spark.table("target").collect()] == [(1, "a")]  # unchanged


def test_merge_checks_its_clauses_then_its_table(spark: SparkSession) -> None:
    source = spark.createDataFrame([(1,)], "id int")
    with pytest.raises(SparkRuntimeException, match="NO_MERGE_ACTION_SPECIFIED") as caught:
        source.mergeInto("nope", F.lit(True)).merge()
    assert "df.mergeInto needs to be followed by at least one of whenMatched/whenNotMatched/" in str(caught.value)
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        source.mergeInto("nope", F.lit(True)).whenMatched().delete().merge()


def test_sql_merge_into_answers_as_spark(spark: SparkSession) -> None:
    spark.createDataFrame([(1, "a")], "id int, v string").write.saveAsTable("target")
    spark.createDataFrame([(1, "b")], "id int, v string").createOrReplaceTempView("source")
    statement = ("MERGE INTO {} t USING {} s ON t.id = s.id "
                 "WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *")
    with pytest.raises(UnsupportedOperationException, match="MERGE INTO TABLE is not supported temporarily."):
        spark.sql(statement.format("target", "source"))
    with pytest.raises(UnsupportedOperationException):
        spark.sql(statement.format("source", "source"))  # a view too, as Spark
    for target, source, missing in (("nope", "source", "nope"), ("target", "gone", "gone")):
        with pytest.raises(AnalysisException, match=f"TABLE_OR_VIEW_NOT_FOUND.*`{missing}`"):
            spark.sql(statement.format(target, source))
    assert [tuple(r) for r in spark.table("target").collect()] == [(1, "a")]
