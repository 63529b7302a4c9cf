"""spark.profile and spark.sql.pyspark.udf.profiler: Python UDF profiles, as PySpark 4 shows them."""

from __future__ import annotations

import contextlib
import io
import pstats
from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import PySparkValueError
from dstream.sql.functions import pandas_udf, udf


@pytest.fixture
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[2]").appName("udf-profiler").getOrCreate()
    session.profile.clear()
    yield session
    session.stop()


def _shown(spark: SparkSession, **kwargs: object) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        spark.profile.show(**kwargs)  # type: ignore[arg-type]
    return out.getvalue()


def plus_one(x: int) -> int:
    return x + 1


def test_perf_profiles_of_python_and_pandas_udfs(spark: SparkSession, tmp_path: Path) -> None:
    spark.conf.set("spark.sql.pyspark.udf.profiler", "perf")
    plain = udf(plus_one, "long")
    vectorized = pandas_udf(lambda s: s + 1, "long")
    df = spark.range(0, 100, numPartitions=2)
    called = plain("id")
    assert len(df.select(called, vectorized("id")).collect()) == 100
    shown = _shown(spark)
    headers = [line for line in shown.splitlines() if line.startswith("Profile of UDF<id=")]
    assert len(headers) == 2
    assert shown.startswith("=" * 60 + "\nProfile of UDF<id=")
    assert "Ordered by: internal time, cumulative time" in shown
    row = next(line for line in shown.splitlines() if line.endswith("(plus_one)"))
    assert row.split()[0] == "100" and "test_udf_profiler.py:" in row  # one call per row, files by base name
    ids = sorted(int(h.split("=")[1].rstrip(">")) for h in headers)
    spark.profile.dump(str(tmp_path))
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"udf_{i}_perf.pstats" for i in ids]
    assert pstats.Stats(str(tmp_path / f"udf_{ids[0]}_perf.pstats")).total_calls > 0
    # A second action with the same call adds to its profile.
    df.select(called).collect()
    again = next(line for line in _shown(spark, id=ids[0]).splitlines() if line.endswith("(plus_one)"))
    assert again.split()[0] == "200"
    assert spark.profile.render(ids[0], renderer=lambda stats: stats.total_calls) > 0
    spark.profile.clear(ids[0])
    assert f"UDF<id={ids[0]}>" not in _shown(spark) and f"UDF<id={ids[1]}>" in _shown(spark)
    spark.profile.clear()
    assert _shown(spark) == ""


def test_nothing_is_profiled_unless_the_setting_is_perf(spark: SparkSession) -> None:
    spark.range(10).select(udf(plus_one, "long")("id")).collect()
    assert _shown(spark) == ""
    spark.conf.set("spark.sql.pyspark.udf.profiler", "memory")
    with pytest.raises(PySparkValueError, match="memory_profiler"):
        spark.range(10).select(udf(plus_one, "long")("id")).collect()
    spark.conf.set("spark.sql.pyspark.udf.profiler", "loud")
    with pytest.raises(PySparkValueError, match="must be 'perf' or 'memory'"):
        spark.range(10).collect()
    with pytest.raises(PySparkValueError, match="type must be 'perf' or 'memory'"):
        spark.profile.show(type="cpu")
