"""Functions missing until PySpark 4.0.1 was compared: ``raise_error``, ``assert_true``,
``to_binary``/``try_to_binary``, ``try_parse_url`` (and ``parse_url``'s ``INVALID_URL``),
``try_make_timestamp_ltz``/``_ntz`` and ``call_udf``.

The expected values are what PySpark 4.0.1 returned (or raised) for the same calls.
"""

from __future__ import annotations

import datetime
import doctest
from collections.abc import Iterator
from typing import Any

import pytest

from dstream.sql import SparkSession, functions_checks
from dstream.sql import functions as F
from dstream.sql.errors import AnalysisException, IllegalArgumentException, SparkRuntimeException


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = (SparkSession.builder.master("local[1]").appName("parity-checked")
               .config("spark.sql.session.timeZone", "UTC").getOrCreate())
    yield session
    session.stop()


def _shown(spark: SparkSession, sql: str) -> tuple[list[str], list[tuple[Any, ...]], str]:
    df = spark.sql(sql)
    return df.columns, [tuple(r) for r in df.collect()], df.schema.simpleString()


def test_raise_error_fails_only_where_evaluated(spark: SparkSession) -> None:
    with pytest.raises(SparkRuntimeException) as info:
        spark.sql("SELECT raise_error('boom')").collect()
    assert info.value.getCondition() == "USER_RAISED_EXCEPTION"
    assert str(info.value).startswith("[USER_RAISED_EXCEPTION] boom")
    assert "SQLSTATE: P0001" in str(info.value)
    assert spark.sql("SELECT raise_error('boom')").schema.simpleString() == (
        "struct<raise_error(USER_RAISED_EXCEPTION, map(errorMessage, boom)):void>")
    with pytest.raises(SparkRuntimeException, match=r"\[USER_RAISED_EXCEPTION\] null"):
        spark.sql("SELECT raise_error(NULL)").collect()
    assert _shown(spark, "SELECT CASE WHEN id > 5 THEN raise_error('big') ELSE id END FROM range(3)") == (
        ["CASE WHEN (id > 5) THEN raise_error(USER_RAISED_EXCEPTION, map(errorMessage, big)) ELSE id END"],
        [(0,), (1,), (2,)],
        "struct<CASE WHEN (id > 5) THEN raise_error(USER_RAISED_EXCEPTION, map(errorMessage, big)) ELSE id END:bigint>")
    df = spark.createDataFrame([(1,)], "a int")
    for message in ("x", F.lit("x")):
        with pytest.raises(SparkRuntimeException, match=r"\[USER_RAISED_EXCEPTION\] x"):
            df.select(F.raise_error(message)).collect()


def test_assert_true(spark: SparkSession) -> None:
    assert _shown(spark, "SELECT assert_true(1 < 2), assert_true(1 < 2, 'msg')") == (
        ["assert_true((1 < 2), '(1 < 2)' is not true!)", "assert_true((1 < 2), msg)"], [(None, None)],
        "struct<assert_true((1 < 2), '(1 < 2)' is not true!):void,assert_true((1 < 2), msg):void>")
    for sql, message in (("assert_true(1 > 2)", "'(1 > 2)' is not true!"),
                         ("assert_true(1 > 2, 'custom message')", "custom message"),
                         ("assert_true(NULL)", "'null' is not true!")):
        with pytest.raises(SparkRuntimeException) as info:
            spark.sql(f"SELECT {sql}").collect()
        assert str(info.value).startswith(f"[USER_RAISED_EXCEPTION] {message}")
    df = spark.createDataFrame([(1,)], "a int")
    assert df.select(F.assert_true(F.col("a") > 0, "m"), F.assert_true(F.col("a") > 0, F.lit("m"))).columns == [
        "assert_true((a > 0), m)", "assert_true((a > 0), m)"]
    with pytest.raises(SparkRuntimeException, match=r"\[USER_RAISED_EXCEPTION\] bad a"):
        df.select(F.assert_true(F.col("a") < 0, "bad a")).collect()


def test_to_binary_and_try_to_binary(spark: SparkSession) -> None:
    assert _shown(spark, "SELECT to_binary('abc', 'utf-8'), to_binary('414243', 'hex'), to_binary('QUJD', 'base64'), "
                         "to_binary('abc'), to_binary('4142', 'HEX'), to_binary('a b', 'UTF8')") == (
        ["to_binary(abc, utf-8)", "to_binary(414243, hex)", "to_binary(QUJD, base64)", "to_binary(abc)",
         "to_binary(4142, HEX)", "to_binary(a b, UTF8)"],
        [(bytearray(b"abc"), bytearray(b"ABC"), bytearray(b"ABC"), bytearray(b"\n\xbc"), bytearray(b"AB"),
          bytearray(b"a b"))],
        "struct<to_binary(abc, utf-8):binary,to_binary(414243, hex):binary,to_binary(QUJD, base64):binary,"
        "to_binary(abc):binary,to_binary(4142, HEX):binary,to_binary(a b, UTF8):binary>")
    for sql, shown in (("to_binary('xyz', 'hex')", "The value 'xyz' ('HEX') cannot be converted"),
                       ("to_binary('!!', 'base64')", "The value '!!' ('BASE64') cannot be converted")):
        with pytest.raises(IllegalArgumentException) as info:
            spark.sql(f"SELECT {sql}").collect()
        assert info.value.getCondition() == "CONVERSION_INVALID_INPUT" and shown in str(info.value)
    with pytest.raises(AnalysisException) as bad_format:
        spark.sql("SELECT to_binary('abc', 'xx')").collect()
    assert bad_format.value.getCondition() == "DATATYPE_MISMATCH.INVALID_ARG_VALUE"
    assert "literal of 'hex', 'utf-8', 'utf8', or 'base64', but got 'xx'" in str(bad_format.value)
    assert _shown(spark, "SELECT try_to_binary('xyz', 'hex'), try_to_binary('4', 'hex'), try_to_binary('abc', "
                         "'utf-8'), try_to_binary(NULL, 'hex'), try_to_binary('41', NULL), try_to_binary('abc', 'xx')"
                  )[1] == [(None, bytearray(b"\x04"), bytearray(b"abc"), None, None, None)]
    df = spark.range(1).select(F.to_binary(F.lit("abc"), F.lit("utf-8")), F.try_to_binary(F.lit("zz"), F.lit("hex")),
                               F.to_binary(F.lit("41")))
    assert df.columns == ["to_binary(abc, utf-8)", "try_to_binary(zz, hex)", "to_binary(41)"]
    assert tuple(df.first()) == (bytearray(b"abc"), None, bytearray(b"A"))


#: PySpark 4.0.1's parse_url(u, 'HOST'), parse_url(u, 'PATH'); None: INVALID_URL.
_URLS: dict[str, tuple[str | None, str | None] | None] = {
    "not a url": None, "http://a b/": None, "http://x/%zz": None, "http://x/%4": None, "1http://x": None,
    "http://x/a|b": None, "http://x/\u00fc": ("x", "/\u00fc"), "mailto:a@b": (None, None), "": (None, ""),
    "abc": (None, "abc"), "/path/x": (None, "/path/x"), "http://[::1]/p": ("[::1]", "/p"), "http://x/a{b}": None,
    "http://x/?q=a b": None, "http://x/#a#b": None, "http://x:y/": (None, "/"), ":x": None,
    "http://x/a\\b": None, "http://x/a^b": None, 'http://x/"q"': None,
}


@pytest.mark.parametrize("url", list(_URLS))
def test_parse_url_reads_urls_as_java_uri_and_try_parse_url_tolerates_bad_ones(spark: SparkSession,
                                                                             url: str) -> None:
    df = spark.createDataFrame([(url,)], "u string")
    expected = _URLS[url]
    if expected is None:
        with pytest.raises(IllegalArgumentException) as info:
            df.select(F.parse_url("u", F.lit("HOST"))).collect()
        assert info.value.getCondition() == "INVALID_URL"
        assert f"The url is invalid: {url}. Use `try_parse_url`" in str(info.value)
        assert tuple(df.select(F.try_parse_url("u", F.lit("HOST")), F.try_parse_url("u", F.lit("PATH"))).first()) \
            == (None, None)
    else:
        assert tuple(df.select(F.parse_url("u", F.lit("HOST")), F.parse_url("u", F.lit("PATH"))).first()) == expected


def test_try_parse_url_names(spark: SparkSession) -> None:
    assert _shown(spark, "SELECT try_parse_url('inva lid://x', 'HOST'), try_parse_url('http://a.b/c?x=1', 'QUERY', "
                         "'x'), try_parse_url('http://a.b/c?x=1', 'HOST')")[:2] == (
        ["try_parse_url(inva lid://x, HOST)", "try_parse_url(http://a.b/c?x=1, QUERY, x)",
         "try_parse_url(http://a.b/c?x=1, HOST)"], [(None, "1", "a.b")])


def test_try_make_timestamp_ltz_and_ntz(spark: SparkSession) -> None:
    assert _shown(spark, "SELECT try_make_timestamp_ltz(2024, 1, 2, 3, 4, 5.5), try_make_timestamp_ltz(2024, 13, 2, "
                         "3, 4, 5), try_make_timestamp_ltz(2024, 1, 2, 3, 4, 5, 'America/New_York')") == (
        ["try_make_timestamp_ltz(2024, 1, 2, 3, 4, 5.5)", "try_make_timestamp_ltz(2024, 13, 2, 3, 4, 5)",
         "try_make_timestamp_ltz(2024, 1, 2, 3, 4, 5, America/New_York)"],
        [(datetime.datetime(2024, 1, 2, 3, 4, 5, 500000), None, datetime.datetime(2024, 1, 2, 8, 4, 5))],
        "struct<try_make_timestamp_ltz(2024, 1, 2, 3, 4, 5.5):timestamp,try_make_timestamp_ltz(2024, 13, 2, 3, 4, 5)"
        ":timestamp,try_make_timestamp_ltz(2024, 1, 2, 3, 4, 5, America/New_York):timestamp>")
    assert _shown(spark, "SELECT try_make_timestamp_ntz(2024, 1, 2, 3, 4, 5.5), try_make_timestamp_ntz(2024, 2, 30, "
                         "3, 4, 5)")[1:] == (
        [(datetime.datetime(2024, 1, 2, 3, 4, 5, 500000), None)],
        "struct<try_make_timestamp_ntz(2024, 1, 2, 3, 4, 5.5):timestamp_ntz,try_make_timestamp_ntz(2024, 2, 30, 3, 4,"
        " 5):timestamp_ntz>")
    fields = [F.lit(v) for v in (2024, 1, 2, 3, 4, 5)]
    df = spark.range(1).select(F.try_make_timestamp_ltz(*fields), F.try_make_timestamp_ntz(*fields))
    assert df.columns == ["try_make_timestamp_ltz(2024, 1, 2, 3, 4, 5)", "try_make_timestamp_ntz(2024, 1, 2, 3, 4, 5)"]
    assert tuple(df.first()) == (datetime.datetime(2024, 1, 2, 3, 4, 5), datetime.datetime(2024, 1, 2, 3, 4, 5))


def test_call_udf(spark: SparkSession) -> None:
    spark.udf.register("plus1", lambda x: x + 1, "int")
    df = spark.createDataFrame([(1,)], "a int")
    got = df.select(F.call_udf("plus1", F.col("a")), F.call_udf("plus1", "a"))
    assert got.columns == ["plus1(a)", "plus1(a)"] and tuple(got.first()) == (2, 2)
    with pytest.raises(AnalysisException) as info:
        df.select(F.call_udf("nope", F.col("a"))).collect()
    assert info.value.getCondition() == "UNRESOLVED_ROUTINE" and "`nope`" in str(info.value)


def test_docstring_examples(spark: SparkSession) -> None:
    result = doctest.testmod(functions_checks, extraglobs={"spark": spark},
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 2 and result.failed == 0, result


def test_utf8_checks(spark: SparkSession) -> None:
    assert _shown(spark, "SELECT is_valid_utf8('abc'), make_valid_utf8('abc'), validate_utf8('abc'), "
                         "try_validate_utf8('abc'), is_valid_utf8(NULL), is_valid_utf8(12)") == (
        ["is_valid_utf8(abc)", "make_valid_utf8(abc)", "validate_utf8(abc)", "try_validate_utf8(abc)",
         "is_valid_utf8(NULL)", "is_valid_utf8(12)"], [(True, "abc", "abc", "abc", None, True)],
        "struct<is_valid_utf8(abc):boolean,make_valid_utf8(abc):string,validate_utf8(abc):string,"
        "try_validate_utf8(abc):string,is_valid_utf8(NULL):boolean,is_valid_utf8(12):boolean>")
    assert _shown(spark, "SELECT is_valid_utf8(X'61FF62'), make_valid_utf8(X'61FF62'), try_validate_utf8(X'61FF62'), "
                         "is_valid_utf8(X'6162'), make_valid_utf8(X'61E282'), make_valid_utf8(X'C0AF'), "
                         "make_valid_utf8(X'EDA080'), make_valid_utf8(X'F4908080')")[1] == [
        (False, "a\ufffdb", None, True, "a\ufffd", "\ufffd" * 2, "\ufffd" * 3, "\ufffd" * 4)]
    with pytest.raises(IllegalArgumentException) as info:
        spark.sql("SELECT validate_utf8(X'61FF62')").collect()
    assert info.value.getCondition() == "INVALID_UTF8_STRING"
    assert str(info.value).startswith("[INVALID_UTF8_STRING] Invalid UTF8 byte sequence found in string: "
                                      "\\x61\\xFF\\x62. SQLSTATE: 22029")
    df = spark.createDataFrame([("abc", bytearray(b"a\xffb"))], "s string, b binary")
    got = df.select(F.is_valid_utf8("s"), F.make_valid_utf8("b"), F.validate_utf8("s"), F.try_validate_utf8("b"))
    assert got.columns == ["is_valid_utf8(s)", "make_valid_utf8(b)", "validate_utf8(s)", "try_validate_utf8(b)"]
    assert tuple(got.first()) == (True, "a\ufffdb", "abc", None)
