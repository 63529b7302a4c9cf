"""functions.partitioning (years, months, days, hours, bucket) and DataFrameWriterV2.clusterBy,
against PySpark 4.0.1's answers on the session catalog's tables."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom
from dstream.sql.errors import AnalysisException, PySparkTypeError, UnsupportedOperationException
from dstream.sql.functions import partitioning


@pytest.fixture
def spark(tmp_path: Path) -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").config("spark.sql.warehouse.dir", str(tmp_path)).getOrCreate()
    session.conf.set("spark.sql.warehouse.dir", str(tmp_path))
    yield session
    session.stop()


@pytest.fixture
def df(spark: SparkSession) -> Any:
    return spark.createDataFrame([(1, "2024-01-02 03:04:05")], "id int, s string").selectExpr(
        "id", "cast(s as timestamp) ts")


@pytest.mark.parametrize("name", ["years", "months", "days", "hours"])
def test_time_transforms_are_refused_for_session_tables(spark: SparkSession, df: Any, name: str) -> None:
    transform = getattr(partitioning, name)("ts")
    assert str(transform) == f"Column<'{name}(ts)'>"
    with pytest.raises(AnalysisException, match="PARTITION_TRANSFORM_EXPRESSION_NOT_IN_PARTITIONED_BY") as caught:
        df.select(transform).collect()
    assert f"The expression {name}(ts) must be inside 'partitionedBy'." in str(caught.value)
    with pytest.raises(UnsupportedOperationException, match="UNSUPPORTED_PARTITION_TRANSFORM") as refused:
        df.writeTo(f"t_{name}").using("parquet").partitionedBy(transform).create()
    assert (f"Unsupported partition transform: `{name}(ts)`. The supported transforms are `identity`, `bucket`, "
            "and `clusterBy`." in str(refused.value))
    assert not spark.catalog.tableExists(f"t_{name}")


def test_bucket_makes_a_bucketed_table(spark: SparkSession, df: Any) -> None:
    for table, count in (("t_bucket", 4), ("t_bucket_col", F.lit(4))):
        transform = partitioning.bucket(count, "id")
        assert str(transform) == "Column<'bucket(4, id)'>"
        df.writeTo(table).using("parquet").partitionedBy(transform).create()
        assert [tuple(r) for r in spark.table(table).collect()] == [tuple(r) for r in df.collect()]
    with pytest.raises(PySparkTypeError, match="NOT_COLUMN_OR_INT"):
        partitioning.bucket("x", "id")  # type: ignore[arg-type]


def test_the_old_spellings_warn(df: Any) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        column = F.years("ts")
    assert str(column) == "Column<'years(ts)'>"
    assert [str(w.message) for w in caught] == ["Deprecated in 4.0.0, use partitioning.years instead."]
    assert caught[0].category is FutureWarning


def test_cluster_by_keeps_the_rows(spark: SparkSession, df: Any) -> None:
    df.writeTo("t_clustered").using("parquet").clusterBy("id").create()
    assert spark.table("t_clustered").count() == 1
