"""Behaviours found to differ from PySpark 4.0.1: file sources and sinks, and DataFrame API gaps.

One test per finding; the expected values are what PySpark 4.0.1 printed (or wrote) for
the same calls.
"""

from __future__ import annotations

import datetime
import glob
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dstream.sql import DataFrame, SparkSession
from dstream.sql.errors import AnalysisException, PySparkIndexError


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local").appName("parity-io")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


def _written(df: DataFrame, path: Path, fmt: str = "csv", **options: Any) -> str:
    """The text of the part files ``df`` writes (as one partition) with ``options``."""
    getattr(df.coalesce(1).write.options(**options), fmt)(str(path))
    return "".join(Path(f).read_text() for f in sorted(glob.glob(os.path.join(path, "part-*"))))


@pytest.fixture
def quoting(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([(1, 'he said "x"', "a,b", None, "", " sp ")],
                                 "id int, s string, t string, n string, e string, w string")


def test_csv_quote_all_quotes_every_field_nulls_and_the_header_too(quoting: DataFrame, tmp_path: Path) -> None:
    # quoteAll was ignored: only fields that needed quotes were quoted.
    assert _written(quoting, tmp_path / "a", quoteAll=True) == '"1","he said \\"x\\"","a,b","","","sp"\n'
    assert _written(quoting, tmp_path / "b", quoteAll=True, header=True) == (
        '"id","s","t","n","e","w"\n"1","he said \\"x\\"","a,b","","","sp"\n')
    assert _written(quoting, tmp_path / "c", quoteAll=True, nullValue="NULL") == (
        '"1","he said \\"x\\"","a,b","NULL","","sp"\n')


def test_csv_empty_value_on_write_replaces_the_quoted_empty_field(quoting: DataFrame, tmp_path: Path) -> None:
    # emptyValue was ignored: empty strings were always written as "".
    assert _written(quoting, tmp_path / "a", emptyValue="EMPTY") == '1,"he said \\"x\\"","a,b",,EMPTY,sp\n'
    assert _written(quoting, tmp_path / "b", emptyValue="") == '1,"he said \\"x\\"","a,b",,,sp\n'
    assert _written(quoting, tmp_path / "c", emptyValue="a,b") == '1,"he said \\"x\\"","a,b",,"a,b",sp\n'
    assert _written(quoting, tmp_path / "d", quoteAll=True, emptyValue="EMPTY") == (
        '"1","he said \\"x\\"","a,b","","EMPTY","sp"\n')


def test_csv_write_can_keep_surrounding_white_space(quoting: DataFrame, tmp_path: Path) -> None:
    # The writer always trimmed; Spark trims only while ignore*WhiteSpace (default true on write).
    assert _written(quoting, tmp_path / "a", ignoreLeadingWhiteSpace=False, ignoreTrailingWhiteSpace=False) == (
        '1,"he said \\"x\\"","a,b",,"", sp \n')


@pytest.fixture
def temporals(spark: SparkSession) -> DataFrame:
    stamp = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)
    return spark.createDataFrame([(datetime.date(2024, 1, 2), stamp, stamp)], "d date, t timestamp, z timestamp_ntz")


def test_csv_and_json_writers_honour_date_and_timestamp_formats(temporals: DataFrame, tmp_path: Path) -> None:
    # dateFormat/timestampFormat were ignored on write: the defaults were always written.
    formats = {"dateFormat": "dd/MM/yyyy", "timestampFormat": "yyyy/MM/dd HH:mm"}
    assert _written(temporals, tmp_path / "default") == "2024-01-02,2024-01-02T03:04:05.123Z,2024-01-02T03:04:05.123\n"
    assert _written(temporals, tmp_path / "a", **formats) == "02/01/2024,2024/01/02 03:04,2024-01-02T03:04:05.123\n"
    assert _written(temporals, tmp_path / "b", timestampFormat="yyyy-MM-dd HH:mm:ss.SSSSSS XXX") == (
        "2024-01-02,2024-01-02 03:04:05.123456 Z,2024-01-02T03:04:05.123\n")
    assert _written(temporals, tmp_path / "c", timestampNTZFormat="dd.MM.yyyy HH:mm") == (
        "2024-01-02,2024-01-02T03:04:05.123Z,02.01.2024 03:04\n")
    assert _written(temporals, tmp_path / "j", "json", **formats) == (
        '{"d":"02/01/2024","t":"2024/01/02 03:04","z":"2024-01-02T03:04:05.123"}\n')


def test_json_ignore_null_fields_false_writes_nulls_in_rows_and_structs(spark: SparkSession, tmp_path: Path) -> None:
    # ignoreNullFields=False was ignored: null fields were always omitted.
    df = spark.createDataFrame([(1, None, (None, 2), [1, None], {"k": None})],
                               "a int, b string, s struct<x:int,y:int>, l array<int>, m map<string,int>")
    assert _written(df, tmp_path / "a", "json") == '{"a":1,"s":{"y":2},"l":[1,null],"m":{"k":null}}\n'
    assert _written(df, tmp_path / "b", "json", ignoreNullFields=False) == (
        '{"a":1,"b":null,"s":{"x":null,"y":2},"l":[1,null],"m":{"k":null}}\n')
    assert _written(df, tmp_path / "c", "json", ignoreNullFields="false") == (
        '{"a":1,"b":null,"s":{"x":null,"y":2},"l":[1,null],"m":{"k":null}}\n')


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json"])
def test_partitioning_by_every_column_is_refused_before_writing(spark: SparkSession, tmp_path: Path,
                                                                fmt: str) -> None:
    # The write went ahead, leaving files without any column.
    df = spark.createDataFrame([(1, "a")], "id int, v string")
    with pytest.raises(AnalysisException) as caught:
        getattr(df.write.partitionBy("id", "v"), fmt)(str(tmp_path / "out"))
    assert caught.value.getCondition() == "ALL_PARTITION_COLUMNS_NOT_ALLOWED"
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(("schema", "row", "column_type"), [
    ("a array<int>", ([1],), '"ARRAY<INT>"'),
    ("i int, a map<string,int>", (1, {"a": 1}), '"MAP<STRING, INT>"'),
    ("i int, a struct<x:int>", (1, (1,)), '"STRUCT<x: INT>"'),
])
def test_csv_refuses_nested_columns_before_writing(spark: SparkSession, tmp_path: Path, schema: str,
                                                   row: tuple[Any, ...], column_type: str) -> None:
    # The CSV writer printed nested values as Python reprs.
    with pytest.raises(AnalysisException) as caught:
        spark.createDataFrame([row], schema).write.csv(str(tmp_path / "out"))
    assert caught.value.getCondition() == "UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE"
    assert caught.value.getMessageParameters() == {"columnName": "`a`", "columnType": column_type, "format": "CSV"}
    assert not (tmp_path / "out").exists()


def test_text_refuses_a_non_string_column_before_writing(spark: SparkSession, tmp_path: Path) -> None:
    # The refusal came from the tasks, after the output directory was created.
    with pytest.raises(AnalysisException) as caught:
        spark.createDataFrame([(1,)], "i int").write.text(str(tmp_path / "out"))
    assert caught.value.getMessageParameters() == {"columnName": "`i`", "columnType": '"INT"', "format": "Text"}
    assert not (tmp_path / "out").exists()


def _csv(path: Path, text: str) -> str:
    path.write_text(text)
    return str(path)


def test_csv_read_tells_quoted_empty_fields_from_unquoted_ones(spark: SparkSession, tmp_path: Path) -> None:
    # Every empty field was null; emptyValue was ignored and nullValue="x" still nulled "".
    path = _csv(tmp_path / "q.csv", 'a,b\n"",5\n,6\nx,7\n"x",8\n')
    assert [r.a for r in spark.read.csv(path, header=True).collect()] == [None, None, "x", "x"]
    assert [r.a for r in spark.read.csv(path, header=True, emptyValue="EMPTY").collect()] == (
        ["EMPTY", None, "x", "x"])
    assert [r.a for r in spark.read.csv(path, header=True, nullValue="x").collect()] == ["", None, None, None]


def test_csv_read_line_sep(spark: SparkSession, tmp_path: Path) -> None:
    # lineSep was ignored: the file was one record '1|b', '2|'.
    path = _csv(tmp_path / "ls.csv", "a;1|b;2|")
    rows = spark.read.csv(path, sep=";", lineSep="|").collect()
    assert [tuple(r) for r in rows] == [("a", "1"), ("b", "2")]


def test_csv_read_ignores_white_space_when_asked_also_for_inference(spark: SparkSession, tmp_path: Path) -> None:
    # The options were ignored: " 4 " made the column a double and " 5 " kept its spaces.
    path = _csv(tmp_path / "ws.csv", "a,b\n1,2.5\n3,x\n,\n 4 , 5 \n")
    plain = spark.read.csv(path, header=True, inferSchema=True)
    assert plain.dtypes == [("a", "double"), ("b", "string")]
    trimmed = spark.read.csv(path, header=True, inferSchema=True, ignoreLeadingWhiteSpace=True,
                             ignoreTrailingWhiteSpace=True)
    assert trimmed.dtypes == [("a", "int"), ("b", "string")]
    assert [tuple(r) for r in trimmed.collect()] == [(1, "2.5"), (3, "x"), (None, None), (4, "5")]


def test_csv_without_multiline_ends_a_record_at_a_quoted_line_break(spark: SparkSession, tmp_path: Path) -> None:
    # The record was read as if multiLine were set.
    path = _csv(tmp_path / "ml.csv", 'a,b\n"multi\nline",2\n')
    assert [tuple(r) for r in spark.read.csv(path, header=True).collect()] == [("multi", None), ('line"', "2")]
    assert [tuple(r) for r in spark.read.csv(path, header=True, multiLine=True).collect()] == [("multi\nline", "2")]


def test_spark_version_is_the_spark_release_followed(spark: SparkSession) -> None:
    # spark.version said dstreams' own "0.1.0", so version gates in PySpark programs took old paths.
    assert spark.version == "4.0.1"
    assert spark.sql("SELECT version() AS v").first().v.startswith("4.0.1 ")


def test_group_by_a_position_groups_by_that_column(spark: SparkSession) -> None:
    # groupBy(1) raised NOT_COLUMN_OR_STR; PySpark 4 takes ints as 1-based column positions.
    df = spark.createDataFrame([(1, "a"), (1, "b"), (2, "c")], "k int, v string")
    assert sorted(tuple(r) for r in df.groupBy(1).count().collect()) == [(1, 2), (2, 1)]
    assert df.groupBy(2).count().columns == ["v", "count"]
    with pytest.raises(PySparkIndexError) as caught:
        df.groupBy(0)
    assert caught.value.getCondition() == "INDEX_NOT_POSITIVE"
