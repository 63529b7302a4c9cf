"""SQL on files: a table name ``<format>.`<path>``` reads the files as ``spark.read`` does
(Spark's ``runSQLOnFiles``), for the formats this engine reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import AnalysisException


def test_sql_reads_files_named_by_format_and_path(spark: SparkSession, tmp_path: Path) -> None:
    spark.range(5).write.parquet(str(tmp_path / "p"))
    (tmp_path / "t.txt").write_text("a\nb\n")
    (tmp_path / "j.json").write_text('{"k": 1}\n{"k": 2}\n')
    (tmp_path / "c.csv").write_text("x,y\n1,2\n")
    assert spark.sql(f"SELECT sum(id) AS s FROM parquet.`{tmp_path / 'p'}`").first().s == 10
    assert [r.value for r in spark.sql(f"SELECT value FROM text.`{tmp_path / 't.txt'}` ORDER BY value").collect()] \
        == ["a", "b"]
    assert spark.sql(f"SELECT max(k) AS m FROM json.`{tmp_path / 'j.json'}`").first().m == 2
    # No options: a CSV header is a row, as in Spark.
    assert [tuple(r) for r in spark.sql(f"SELECT * FROM CSV.`{tmp_path / 'c.csv'}`").collect()] == [
        ("x", "y"), ("1", "2")]
    named = spark.sql(f"SELECT input_file_name() AS f FROM text.`{tmp_path / 't.txt'}`").first().f
    assert named == (tmp_path / "t.txt").as_uri() == spark.read.text(str(tmp_path / "t.txt")).select(
        F.input_file_name()).first()[0]


def test_a_missing_path_or_an_unknown_format_is_named(spark: SparkSession, tmp_path: Path) -> None:
    with pytest.raises(AnalysisException, match="PATH_NOT_FOUND"):
        spark.sql(f"SELECT * FROM csv.`{tmp_path / 'missing'}`").collect()
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql("SELECT * FROM avro.`/nowhere`").collect()
