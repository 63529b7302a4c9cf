"""from_csv, to_csv and schema_of_csv against the csv module and the CSV reader's rules."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import SparkRuntimeException

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
# (No spaces: the reader trims a field's surrounding whitespace.)
TEXTS = st.text(alphabet='ab,"x;\\', min_size=1, max_size=6)
ROWS = st.lists(st.tuples(st.one_of(st.none(), st.integers(-10**6, 10**6)), st.one_of(st.none(), TEXTS),
                          st.one_of(st.none(), st.booleans())), min_size=1, max_size=10)


@given(rows=ROWS)
@PROPERTY
def test_to_csv_then_from_csv_gives_the_struct_back(spark: SparkSession, rows: list[tuple[Any, ...]]) -> None:
    df = spark.createDataFrame(rows, "n int, s string, b boolean")
    lines = df.select(F.to_csv(F.struct("n", "s", "b")).alias("line"))
    back = lines.select(F.from_csv("line", "n INT, s STRING, b BOOLEAN").alias("r")).collect()
    assert [tuple(r.r) for r in back] == rows
    for (n, _, b), line in zip(rows, [r.line for r in lines.collect()]):
        # the first and last fields hold no separator: the line starts and ends with them
        assert line.split(",")[0] == ("" if n is None else str(n))
        assert line.rsplit(",", 1)[1] == ("" if b is None else str(b).lower())


@given(records=st.lists(st.tuples(st.integers(-999, 999), st.text("abc", max_size=4)), min_size=1, max_size=8))
@PROPERTY
def test_from_csv_reads_records_as_the_reader_does(spark: SparkSession, records: list[tuple[int, str]]) -> None:
    texts = [f"{n};{s}" for n, s in records]
    df = spark.createDataFrame([(t,) for t in texts], "t string")
    got = df.select(F.from_csv("t", "n INT, s STRING", {"sep": ";"}).alias("r")).collect()
    assert [tuple(r.r) for r in got] == [(n, s or None) for n, s in records]  # an empty field is null


def test_malformed_records_schema_of_csv_and_sql(spark: SparkSession) -> None:
    df = spark.createDataFrame([("x,1",), ("2",), (None,)], "t string")
    assert [None if r.r is None else tuple(r.r) for r in df.select(F.from_csv("t", "a INT, b INT").alias("r"))
            .collect()] == [(None, 1), (2, None), None]
    with pytest.raises(SparkRuntimeException, match="MALFORMED_RECORD"):
        df.select(F.from_csv("t", "a INT, b INT", {"mode": "FAILFAST"})).collect()
    schema = spark.range(1).select(F.schema_of_csv("1,abc,2.5,true,2024-01-01 10:00:00").alias("s")).first().s
    assert schema == "STRUCT<_c0: INT, _c1: STRING, _c2: DOUBLE, _c3: BOOLEAN, _c4: TIMESTAMP>"
    parsed = spark.range(1).select(F.from_csv(F.lit("7|q"), F.schema_of_csv(F.lit("1|a"), {"sep": "|"}),
                                              {"sep": "|"}).alias("r")).first().r
    assert tuple(parsed) == (7, "q")
    row = spark.sql("SELECT from_csv('1;2', 'a INT, b INT', map('sep', ';')) AS c, "
                    "to_csv(named_struct('a', 1, 'b', 'x,y')) AS t").first()
    assert tuple(row.c) == (1, 2) and row.t == '1,"x,y"'
