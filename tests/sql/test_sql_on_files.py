"""SQL on files and table-valued functions in FROM.

A table name ``<format>.`<path>``` reads the files as ``spark.read`` does (Spark's
``runSQLOnFiles``), for the formats this engine reads; ``range(...)`` and the generators
(``explode(...)``...) are tables of their rows.
"""

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
    with pytest.raises(AnalysisException, match="PATH_NOT_FOUND"):
        spark.sql(f"SELECT * FROM avro.`{tmp_path / 'missing'}`").collect()
    with pytest.raises(AnalysisException, match="TABLE_OR_VIEW_NOT_FOUND"):
        spark.sql("SELECT * FROM delta.`/nowhere`").collect()


def test_table_valued_functions_range_and_generators(spark: SparkSession) -> None:
    assert [r.id for r in spark.sql("SELECT * FROM range(3)").collect()] == [0, 1, 2]
    assert spark.sql("SELECT sum(id) AS s FROM range(1, 11, 2) AS r").first().s == 25
    assert [r.n for r in spark.sql("SELECT n FROM range(0, 6, 2, 3) AS t(n)").collect()] == [0, 2, 4]
    assert [r.v for r in spark.sql("SELECT * FROM explode(array(10, 20)) AS t(v)").collect()] == [10, 20]
    assert [tuple(r) for r in spark.sql("SELECT * FROM inline(array(struct(1, 'a'), struct(2, 'b')))").collect()] \
        == [(1, "a"), (2, "b")]
    joined = spark.sql("SELECT r.id, e.col FROM range(2) r JOIN explode(array(0, 1, 1)) e ON r.id = e.col")
    assert sorted(tuple(r) for r in joined.collect()) == [(0, 0), (1, 1), (1, 1)]
    with pytest.raises(AnalysisException, match="UNRESOLVABLE_TABLE_VALUED_FUNCTION"):
        spark.sql("SELECT * FROM nothing_like_this(1)").collect()
    with pytest.raises(AnalysisException, match="integer literals"):
        spark.sql("SELECT * FROM range('a')").collect()
