"""Global temporary views: ``createGlobalTempView``/``createOrReplaceGlobalTempView`` make a
DataFrame ``global_temp.<name>`` for every session of the application, not a session's own
temporary view (the replace form once registered a plain temporary view)."""

from __future__ import annotations

from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import AnalysisException


def test_every_session_of_the_application_sees_them(spark: SparkSession) -> None:
    spark.range(3).createGlobalTempView("shared_numbers")
    other = spark.newSession()
    try:
        assert other.sql("SELECT sum(id) FROM global_temp.shared_numbers").collect()[0][0] == 3
        assert other.table("global_temp.shared_numbers").count() == 3
        with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
            other.table("shared_numbers")  # not a session temporary view
        with pytest.raises(AnalysisException) as caught:
            spark.range(1).createGlobalTempView("shared_numbers")
        assert caught.value.getCondition() == "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS"
        spark.range(5).createOrReplaceGlobalTempView("shared_numbers")
        assert other.table("global_temp.shared_numbers").count() == 5
    finally:
        assert other.catalog.dropGlobalTempView("shared_numbers")
    assert not spark.catalog.dropGlobalTempView("shared_numbers")
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.table("global_temp.shared_numbers")


def test_stopping_a_session_leaves_no_active_session_on_its_stopped_context(make_sc: Any) -> None:
    # newSession() became the active session; stopping the first one stopped their context
    # but left the new one active, so getOrCreate() handed out a session that could not run.
    first = SparkSession(make_sc("local"))
    second = first.newSession()
    assert SparkSession.getActiveSession() is second
    first.stop()
    assert SparkSession.getActiveSession() is None


def test_register_temp_table_is_the_deprecated_create_or_replace(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1,)], "a int")
    with pytest.warns(FutureWarning, match="use createOrReplaceTempView"):
        df.registerTempTable("old_style")
    with pytest.warns(FutureWarning):
        spark.createDataFrame([(2,)], "a int").registerTempTable("old_style")  # replaces, as Spark's
    assert [r.a for r in spark.sql("SELECT a FROM old_style").collect()] == [2]


def test_get_or_create_replaces_a_session_whose_context_was_stopped(no_active_context: None) -> None:
    first = SparkSession.builder.master("local").appName("first").getOrCreate()
    first.sparkContext.stop()  # the context alone, not the session
    second = SparkSession.builder.master("local").appName("second").getOrCreate()
    try:
        assert second is not first
        assert second.range(3).count() == 3
    finally:
        second.stop()
