"""``DataFrame.show()`` prints exactly what PySpark 4 prints, for a table of mixed types.

The expected text is written out literally (Spark's layout: right-aligned cells truncated
to 20 characters by default, left-aligned and full with ``truncate=False``; a blank line
after the table, none after "only showing top n rows"). The session time zone is
Asia/Tokyo and the machine's (the suite's TZ) UTC: a naive datetime is the machine's wall
time, as in PySpark, so 12:00 shows as 21:00; an aware one (03:04:05.12 UTC) shows as
12:04:05.12.
"""

# ruff: noqa: E501 - the expected tables are written out literally, as PySpark prints them

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest

from dstream.sql import DataFrame, Row, SparkSession

SCHEMA = ("i int, s string, d double, b boolean, t timestamp, day date, a array<int>, "
          "st struct<x:int,y:string>, m map<string,int>")
ROWS = [
    (1, "a", 1.23456789e7, True, dt.datetime(2024, 1, 15, 12, 0, 0), dt.date(2024, 1, 15), [1, 2, None],
     Row(x=1, y="p"), {"k": 1}),
    (None, "", 1.0e-4, False, dt.datetime(2024, 1, 15, 3, 4, 5, 120000, tzinfo=dt.timezone.utc),
     dt.date(1999, 12, 31), [], Row(x=None, y=None), {"k": None}),
    (-7, "the quick brown fox jumps", -0.0, None, None, None, None, None, None),
    (None, None, None, None, None, None, None, None, None),
]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local").appName("dataframe-show")
               .config("spark.sql.session.timeZone", "Asia/Tokyo").getOrCreate())
    yield session
    session.stop()


@pytest.fixture
def df(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame(ROWS, SCHEMA)


TRUNCATED = """\
+----+--------------------+------------+-----+--------------------+----------+------------+------------+-----------+
|   i|                   s|           d|    b|                   t|       day|           a|          st|          m|
+----+--------------------+------------+-----+--------------------+----------+------------+------------+-----------+
|   1|                   a|1.23456789E7| true| 2024-01-15 21:00:00|2024-01-15|[1, 2, NULL]|      {1, p}|   {k -> 1}|
|NULL|                    |      1.0E-4|false|2024-01-15 12:04:...|1999-12-31|          []|{NULL, NULL}|{k -> NULL}|
|  -7|the quick brown f...|        -0.0| NULL|                NULL|      NULL|        NULL|        NULL|       NULL|
|NULL|                NULL|        NULL| NULL|                NULL|      NULL|        NULL|        NULL|       NULL|
+----+--------------------+------------+-----+--------------------+----------+------------+------------+-----------+

"""

FULL = """\
+----+-------------------------+------------+-----+----------------------+----------+------------+------------+-----------+
|i   |s                        |d           |b    |t                     |day       |a           |st          |m          |
+----+-------------------------+------------+-----+----------------------+----------+------------+------------+-----------+
|1   |a                        |1.23456789E7|true |2024-01-15 21:00:00   |2024-01-15|[1, 2, NULL]|{1, p}      |{k -> 1}   |
|NULL|                         |1.0E-4      |false|2024-01-15 12:04:05.12|1999-12-31|[]          |{NULL, NULL}|{k -> NULL}|
|-7  |the quick brown fox jumps|-0.0        |NULL |NULL                  |NULL      |NULL        |NULL        |NULL       |
|NULL|NULL                     |NULL        |NULL |NULL                  |NULL      |NULL        |NULL        |NULL       |
+----+-------------------------+------------+-----+----------------------+----------+------------+------------+-----------+

"""


def test_show_truncates_and_right_aligns_by_default(df: DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    df.show()
    assert capsys.readouterr().out == TRUNCATED


def test_show_without_truncation_left_aligns(df: DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    df.show(truncate=False)
    assert capsys.readouterr().out == FULL


def test_show_two_rows_prints_the_footer_and_no_blank_line(df: DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    df.select("i", "s", "d", "t").show(2)
    assert capsys.readouterr().out == (
        "+----+---+------------+--------------------+\n"
        "|   i|  s|           d|                   t|\n"
        "+----+---+------------+--------------------+\n"
        "|   1|  a|1.23456789E7| 2024-01-15 21:00:00|\n"
        "|NULL|   |      1.0E-4|2024-01-15 12:04:...|\n"
        "+----+---+------------+--------------------+\n"
        "only showing top 2 rows\n"
    )


def test_show_vertical(df: DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    df.select("i", "s", "b").show(vertical=True)
    assert capsys.readouterr().out == (
        "-RECORD 0-------------------\n"
        " i   | 1                    \n"
        " s   | a                    \n"
        " b   | true                 \n"
        "-RECORD 1-------------------\n"
        " i   | NULL                 \n"
        " s   |                      \n"
        " b   | false                \n"
        "-RECORD 2-------------------\n"
        " i   | -7                   \n"
        " s   | the quick brown f... \n"
        " b   | NULL                 \n"
        "-RECORD 3-------------------\n"
        " i   | NULL                 \n"
        " s   | NULL                 \n"
        " b   | NULL                 \n"
        "\n"
    )


def test_show_vertical_with_footer(df: DataFrame, capsys: pytest.CaptureFixture[str]) -> None:
    df.select("i", "d").show(1, vertical=True)
    assert capsys.readouterr().out == (
        "-RECORD 0-----------\n"
        " i   | 1            \n"
        " d   | 1.23456789E7 \n"
        "only showing top 1 row\n"
    )
