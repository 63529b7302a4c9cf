"""The added string functions against plain Python, and Spark's documented examples.

Models: ``str`` methods for the pieces (``substring_index``, ``left``/``right``,
``split_part``, ``translate``), the recursive definition of the edit distance, and
``base64``/``binascii``/``zlib`` for the byte functions, which must also read back
what they wrote.
"""

from __future__ import annotations

import base64
import functools
import zlib
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import SparkRuntimeException

PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
texts = st.text(alphabet="ab.,é🙂 ", max_size=12)


def edit_distance(a: str, b: str) -> int:
    @functools.cache
    def d(i: int, j: int) -> int:
        if not i or not j:
            return i or j
        return min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + (a[i - 1] != b[j - 1]))
    return d(len(a), len(b))


@given(data=st.lists(st.tuples(texts, texts), min_size=1, max_size=6), count=st.integers(-3, 3),
       n=st.integers(-2, 5), part=st.integers(-3, 3).filter(bool))
@PROPERTY
def test_pieces_of_strings(spark: SparkSession, data: list[tuple[str, str]], count: int, n: int, part: int) -> None:
    df = spark.createDataFrame(data, "s string, t string")
    rows = df.select(F.substring_index("s", ".", count), F.left("s", n), F.right("s", n),
                     F.split_part("s", F.lit(","), F.lit(part)), F.translate("s", "a.é", "Xy"),
                     F.levenshtein("s", "t"), F.locate("b", "s", 2)).collect()
    for (s, t), row in zip(data, rows):
        pieces = s.split(".")
        assert row[0] == ("" if count == 0 else ".".join(pieces[:count] if count > 0 else pieces[count:]))
        assert row[1] == (s[:n] if n > 0 else "") and row[2] == (s[-n:] if n > 0 else "")
        parts = s.split(",")
        index = part - 1 if part > 0 else len(parts) + part
        assert row[3] == (parts[index] if 0 <= index < len(parts) else "")
        assert row[4] == s.replace("a", "X").replace(".", "y").replace("é", "")
        assert row[5] == edit_distance(s, t)
        assert row[6] == (s.find("b", 1) + 1 if "b" in s[1:] else 0)


@given(data=st.lists(st.one_of(st.none(), st.text(max_size=8)), min_size=1, max_size=6))
@PROPERTY
def test_bytes_functions_round_trip(spark: SparkSession, data: list[str | None]) -> None:
    df = spark.createDataFrame([(s,) for s in data], "s string")
    rows = df.select(F.base64("s").alias("b64"), F.unbase64(F.base64("s")).alias("back64"),
                     F.hex("s").alias("hex"), F.unhex(F.hex("s")).alias("backhex"), F.crc32("s").alias("crc"),
                     F.octet_length("s").alias("octets"), F.bit_length("s").alias("bits"),
                     F.ascii("s").alias("ascii")).collect()
    for s, row in zip(data, rows):
        if s is None:
            assert all(v is None for v in row[:7])
            continue
        raw = s.encode()
        assert row.b64 == base64.b64encode(raw).decode() and bytes(row.back64) == raw
        assert row.hex == raw.hex().upper() and bytes(row.backhex) == raw
        assert (row.crc, row.octets, row.bits, row.ascii) == (zlib.crc32(raw), len(raw), 8 * len(raw),
                                                              ord(s[0]) if s else 0)


def test_spark_documented_examples(spark: SparkSession) -> None:
    row = spark.sql(
        "SELECT translate('AaBbCc', 'abc', '123') AS tr, substring_index('www.apache.org', '.', 2) AS si, "
        "left('Spark SQL', 3) AS l, right('Spark SQL', 3) AS r, split_part('11.12.13', '.', 3) AS sp, "
        "locate('bar', 'foobarbar', 5) AS lo, ascii('222') AS a, octet_length('Spark SQL') AS o, "
        "bit_length('Spark SQL') AS bl, base64('Spark SQL') AS b, hex(17) AS h, hex('Spark SQL') AS hs, "
        "crc32('Spark') AS c, levenshtein('kitten', 'sitting') AS lv, soundex('Miller') AS sx, "
        "format_number(12332.123456, 4) AS fn, btrim('    SparkSQL   ') AS bt").first()
    assert row.asDict() == {
        "tr": "A1B2C3", "si": "www.apache", "l": "Spa", "r": "SQL", "sp": "13", "lo": 7, "a": 50, "o": 9,
        "bl": 72, "b": "U3BhcmsgU1FM", "h": "11", "hs": "537061726B2053514C", "c": 1557323817, "lv": 3,
        "sx": "M460", "fn": "12,332.1235", "bt": "SparkSQL"}
    edge = spark.sql("SELECT hex(-1) AS h, unhex('GG') AS u, unhex('A 1') AS s, format_number(2.675, 2) AS fd, "
                     "format_number(CAST(2.675 AS DOUBLE), 2) AS f, format_number(1.0, -1) AS neg, "
                     "soundex('1abc') AS nl, levenshtein('kitten', 'sitting', 2) AS t").first()
    # 2.675 is a decimal literal (exactly 2.675: half to even gives .68); as a double it is 2.67499999...
    assert tuple(edge) == ("FFFFFFFFFFFFFFFF", None, None, "2.68", "2.67", None, "1abc", -1)
    with pytest.raises(SparkRuntimeException, match="INVALID_INDEX_OF_ZERO"):
        spark.sql("SELECT split_part('a.b', '.', 0)").collect()


def test_names(spark: SparkSession) -> None:
    df = spark.createDataFrame([("x",)], "s string")
    names: list[Any] = df.select(F.translate("s", "a", "b"), F.locate("a", "s"), F.btrim("s"), F.hex("s"),
                                 F.format_number(F.lit(1.5), 1), F.levenshtein("s", "s", 3)).columns
    assert names == ["translate(s, a, b)", "locate(a, s, 1)", "btrim(s)", "hex(s)", "format_number(1.5, 1)",
                     "levenshtein(s, s, 3)"]
