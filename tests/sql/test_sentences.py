"""``sentences``: texts split as Spark splits them (Java's BreakIterator), against PySpark 4.0.1.

``data/sentences.json`` holds PySpark's answers for 128 texts (``[text, sentences]``): abbreviations, numbers, prices,
URLs, quotes, ellipses, apostrophes and hyphens, accented, Cyrillic and Japanese text. The
rules were written on the first 88 of them and checked, unchanged, on the last 40.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from dstream.sql import Row, SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's idiom

CASES = [tuple(case) for case in json.loads((Path(__file__).parent / "data" / "sentences.json").read_text("utf-8"))]


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("sentences").getOrCreate()
    yield session
    session.stop()


def test_every_text_splits_as_spark_splits_it(spark: SparkSession) -> None:
    df = spark.createDataFrame([(text,) for text, _ in CASES], "s string")
    got = [r.x for r in df.select(F.sentences("s").alias("x")).collect()]
    differ = [(text, want, have) for (text, want), have in zip(CASES, got) if want != have]
    assert not differ, f"{len(differ)} of {len(CASES)} texts split otherwise than Spark's: {differ[:3]}"


def test_names_types_nulls_and_sql(spark: SparkSession) -> None:
    df = spark.range(1)
    assert df.select(F.sentences(F.lit("a b"))).columns == ["sentences(a b, , )"]
    assert df.select(F.sentences(F.lit("a b"), F.lit("en"), F.lit("US"))).columns == ["sentences(a b, en, US)"]
    assert df.select(F.sentences(F.lit("a b"))).schema.simpleString() == \
        "struct<sentences(a b, , ):array<array<string>>>"
    assert spark.createDataFrame([(None,)], "s string").select(F.sentences("s").alias("x")).collect() == [Row(x=None)]
    assert spark.sql("SELECT sentences('Hi there! Good morning.', 'en', 'US') AS a, sentences('Hi there!', 'tr') AS b"
                     ).collect() == [Row(a=[["Hi", "there"], ["Good", "morning"]], b=[["Hi", "there"]])]
