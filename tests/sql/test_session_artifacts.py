"""``addArtifacts`` and the Spark Connect-only members, as PySpark 4.0.1 Classic answers them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql.errors import PySparkRuntimeError, PySparkValueError


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local[1]").appName("artifacts").getOrCreate()
    yield session
    session.stop()


def test_add_artifacts_ships_files(spark: SparkSession, tmp_path: Path) -> None:
    data = tmp_path / "lookup.txt"
    data.write_text("42\n")
    spark.addArtifacts(str(tmp_path / "not-shipped.txt"))  # no flag: nothing ships, nothing is checked
    spark.addArtifacts(str(data), file=True)
    spark.addArtifact(str(data), file=True)  # the same contents again: accepted

    def read(_: object) -> str:
        from rdd import SparkFiles

        with open(SparkFiles.get("lookup.txt")) as f:
            return f.read().strip()

    assert spark.sparkContext.parallelize([0], 1).map(read).collect() == ["42"]
    other = tmp_path / "other"
    other.mkdir()
    (other / "lookup.txt").write_text("7\n")
    with pytest.raises(PySparkRuntimeError, match="DUPLICATED_ARTIFACT"):
        spark.addArtifacts(str(other / "lookup.txt"), file=True)
    with pytest.raises(PySparkValueError, match="INVALID_MULTIPLE_ARGUMENT_CONDITIONS"):
        spark.addArtifacts(str(data), file=True, pyfile=True)


@pytest.mark.parametrize("call", [
    lambda s: s.registerProgressHandler(lambda **kw: None), lambda s: s.removeProgressHandler(lambda **kw: None),
    lambda s: s.clearProgressHandlers(), lambda s: s.copyFromLocalToFs("/a", "/b"), lambda s: s.client,
])
def test_connect_only_members_fail_as_on_classic(spark: SparkSession, call: object) -> None:
    with pytest.raises(PySparkRuntimeError) as caught:
        call(spark)  # type: ignore[operator]
    assert caught.value.getCondition() == "ONLY_SUPPORTED_WITH_SPARK_CONNECT"
    assert "is only supported with Spark Connect; however, the current Spark session does not use Spark Connect." \
        in str(caught.value)
    with pytest.raises(PySparkValueError, match="CLASSIC_OPERATION_NOT_SUPPORTED_ON_DF"):
        spark.range(1).executionInfo  # noqa: B018 - the property raises
