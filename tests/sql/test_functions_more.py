"""PySpark 3.4-4.0 functions for strings, URLs, values, the session and dates, against
plain-Python models of Spark's rules (the modules' docs state them)."""

from __future__ import annotations

import datetime as dt
import unicodedata
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dstream.sql import SparkSession
from dstream.sql import functions as F  # noqa: N812 - PySpark's conventional name
from dstream.sql.errors import PySparkValueError, SparkRuntimeException

PROPERTY = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
TEXT = st.text(alphabet="abAB19 -_.~*/%+é€", max_size=12)


def locate_model(sub: str | None, text: str | None, start: int | None) -> int | None:
    if start is None or start < 1:
        return 0
    if sub is None or text is None:
        return None
    if sub == "":
        return 1
    for i in range(start - 1, len(text) - len(sub) + 1):
        if text[i:i + len(sub)] == sub:
            return i + 1
    return 0


def luhn_model(text: str) -> bool:
    if not text or any(c not in "0123456789" for c in text):
        return False
    digits = [int(c) for c in text][::-1]
    total = sum(d if i % 2 == 0 else sum(divmod(2 * d, 10)) for i, d in enumerate(digits))
    return total % 10 == 0


def mask_model(text: str, upper: str | None, lower: str | None, digit: str | None, other: str | None) -> str:
    # Java's Character.isUpperCase/isLowerCase/isDigit, as Spark's mask: any Unicode letter or
    # digit (PySpark 4.0.1 masks 'é' as 'x'), by its general category.
    def one(c: str) -> str:
        kind = unicodedata.category(c)
        if kind == "Lu":
            return c if upper is None else upper
        if kind == "Ll":
            return c if lower is None else lower
        if kind == "Nd":
            return c if digit is None else digit
        return c if other is None else other
    return "".join(one(c) for c in text)


@given(rows=st.lists(st.tuples(st.one_of(st.none(), st.text("ab", max_size=3)),
                               st.one_of(st.none(), st.text("ab", max_size=8)),
                               st.one_of(st.none(), st.integers(-2, 10))), min_size=1, max_size=8))
@PROPERTY
def test_position_matches_locate_rules(spark: SparkSession, rows: list[tuple[Any, Any, Any]]) -> None:
    got = spark.createDataFrame(rows, "s string, t string, p int").select(F.position("s", "t", "p")).collect()
    assert [r[0] for r in got] == [locate_model(*row) for row in rows]


@given(codes=st.lists(st.integers(-300, 600), min_size=1, max_size=10),
       digits=st.lists(st.text("0123456789x", max_size=19), min_size=1, max_size=10),
       texts=st.lists(TEXT, min_size=1, max_size=10),
       chars=st.tuples(*[st.one_of(st.none(), st.sampled_from("#Z0")) for _ in range(4)]))
@PROPERTY
def test_chr_luhn_check_and_mask_match_their_models(spark: SparkSession, codes: list[int], digits: list[str],
                                                    texts: list[str], chars: tuple[Any, ...]) -> None:
    got = spark.createDataFrame([(c,) for c in codes], "n long").select(F.chr("n"), F.char("n")).collect()
    assert [tuple(r) for r in got] == [("" if c < 0 else chr(c % 256),) * 2 for c in codes]
    got = spark.createDataFrame([(d,) for d in digits], "d string").select(F.luhn_check("d")).collect()
    assert [r[0] for r in got] == [luhn_model(d) for d in digits]
    got = spark.createDataFrame([(t,) for t in texts], "t string").select(F.mask("t", *chars)).collect()
    assert [r[0] for r in got] == [mask_model(t, *chars) for t in texts]


@given(texts=st.lists(st.text(max_size=10), min_size=1, max_size=10))
@PROPERTY
def test_url_encode_is_javas_form_encoding_and_url_decode_inverts_it(spark: SparkSession, texts: list[str]) -> None:
    df = spark.createDataFrame([(t,) for t in texts], "t string")
    rows = df.select(F.url_encode("t").alias("e"), F.url_decode(F.url_encode("t")).alias("d")).collect()
    for text, row in zip(texts, rows):
        java = "".join(c if c.isascii() and (c.isalnum() or c in ".-*_") else "+" if c == " " else
                       "".join(f"%{b:02X}" for b in c.encode("utf-8", "surrogatepass")) for c in text)
        assert row.e == java and row.d == text


def test_url_decode_errors_and_parse_url_parts(spark: SparkSession) -> None:
    bad = spark.createDataFrame([("a%zz",), ("%E9",)], "t string")
    assert [r[0] for r in bad.select(F.try_url_decode("t")).collect()] == [None, None]
    with pytest.raises(SparkRuntimeException, match="CANNOT_DECODE_URL"):
        bad.select(F.url_decode("t")).collect()
    url = "http://user:pw@Spark.apache.org:8080/path/p.html?query=1&b=x%20y#Ref"
    parts = ["HOST", "PATH", "QUERY", "REF", "PROTOCOL", "FILE", "AUTHORITY", "USERINFO", "NOPE"]
    df = spark.createDataFrame([(url, p) for p in parts], "u string, p string")
    assert [r[0] for r in df.select(F.parse_url("u", "p")).collect()] == [
        "Spark.apache.org", "/path/p.html", "query=1&b=x%20y", "Ref", "http", "/path/p.html?query=1&b=x%20y",
        "user:pw@Spark.apache.org:8080", "user:pw", None]
    keyed = spark.sql("SELECT parse_url('http://spark.apache.org/path?query=1', 'QUERY', 'query') AS a, "
                      "parse_url('http://spark.apache.org/path?query=1', 'QUERY', 'nope') AS b, "
                      "try_parse_url('not a url', 'HOST') AS c, parse_url('http://spark.apache.org', 'PATH') AS d"
                      ).first()
    assert tuple(keyed) == ("1", None, None, "")


@given(values=st.lists(st.one_of(st.none(), st.integers(-3, 3)), min_size=1, max_size=10))
@PROPERTY
def test_positive_nullifzero_and_zeroifnull(spark: SparkSession, values: list[Any]) -> None:
    df = spark.createDataFrame([(v,) for v in values], "n int")
    got = df.select(F.positive("n"), F.nullifzero("n"), F.zeroifnull("n")).collect()
    assert [tuple(r) for r in got] == [(v, None if v == 0 else v, 0 if v is None else v) for v in values]
    assert [f.dataType.simpleString() for f in df.select(F.nullifzero("n"), F.zeroifnull("n")).schema] == ["int"] * 2


def test_typeof_and_the_session_functions(spark: SparkSession) -> None:
    df = spark.createDataFrame([(1, 2.5, "s", [1], {"k": 1}, dt.date(2024, 1, 1))],
                               "i int, d double, s string, a array<bigint>, m map<string,int>, t date")
    got = df.select(*[F.typeof(c) for c in df.columns]).first()
    assert tuple(got) == ("int", "double", "string", "array<bigint>", "map<string,int>", "date")
    row = spark.sql("SELECT current_database() AS a, current_schema() AS b, current_catalog() AS c, "
                    "current_user() AS d, user() AS e, session_user() AS f, version() AS g, typeof(1L) AS h").first()
    assert row.a == row.b == "default" and row.c == "spark_catalog"
    assert row.d == row.e == row.f == spark.sparkContext.sparkUser()
    assert row.g.startswith(spark.version) and row.h == "bigint"


@given(days=st.lists(st.dates(dt.date(1, 1, 1), dt.date(9999, 12, 31)), min_size=1, max_size=10))
@PROPERTY
def test_extract_and_the_day_and_month_names(spark: SparkSession, days: list[dt.date]) -> None:
    months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    df = spark.createDataFrame([(d,) for d in days], "d date")
    got = df.select(F.monthname("d"), F.dayname("d"), F.extract(F.lit("YEAR"), "d"), F.date_part("doy", "d"),
                    F.datepart(F.lit("dow"), "d"), F.weekday("d")).collect()
    assert [tuple(r) for r in got] == [
        (months[d.month - 1], weekdays[d.weekday()], d.year, d.timetuple().tm_yday, d.isoweekday() % 7 + 1,
         d.weekday()) for d in days]


def test_extract_names_a_bad_field(spark: SparkSession) -> None:
    with pytest.raises(PySparkValueError, match="unknown field 'EPOCHS'"):
        F.extract(F.lit("EPOCHS"), "d")
    with pytest.raises(PySparkValueError, match="must be a literal"):
        F.extract(F.col("f"), "d")


def test_approx_percentile_is_percentile_approx(spark: SparkSession) -> None:
    df = spark.createDataFrame([(v,) for v in [5, 1, 9, 3, 7, None]], "v int")
    assert df.select(F.approx_percentile("v", [0.25, 0.5, 0.9]), F.percentile_approx("v", [0.25, 0.5, 0.9])) \
        .first()[0] == [3, 5, 9]
    assert spark.sql("SELECT approx_percentile(id, 0.5) AS m FROM range(11)").first().m == 5


@given(values=st.lists(st.decimals(min_value=-999999, max_value=999999, places=2, allow_nan=False,
                                   allow_infinity=False), min_size=1, max_size=10))
@PROPERTY
def test_to_number_reads_what_a_number_format_writes(spark: SparkSession, values: list[Any]) -> None:
    # Grouped by threes and signed at the end, as the format '999,999.99S' reads them.
    texts = [f"{abs(v):,.2f}{'-' if v < 0 else '+'}" for v in values]
    df = spark.createDataFrame([(t, "$" + t[:-1]) for t in texts], "t string, d string")
    got = df.select(F.to_number("t", F.lit("999,999.99S")), F.to_number("d", F.lit("$999,999.99"))).collect()
    assert [tuple(r) for r in got] == [(v, abs(v)) for v in values]
    assert df.select(F.to_number("t", F.lit("999,999.99S"))).schema[0].dataType.simpleString() == "decimal(8,2)"


def test_to_number_examples_and_mismatches(spark: SparkSession) -> None:
    row = spark.sql("SELECT to_number('454', '999') AS a, to_number('454.00', '000.00') AS b, "
                    "to_number('12,454', '99,999') AS c, to_number('$78.12', '$99.99') AS d, "
                    "to_number('12,454.8-', '99,999.9S') AS e, to_number('<12>', '99PR') AS f").first()
    assert [str(v) for v in row] == ["454", "454.00", "12454", "78.12", "-12454.8", "-12"]
    bad = spark.createDataFrame([("12454",), ("45",), ("1,2",), ("x",), (None,)], "t string")
    assert [r[0] for r in bad.select(F.try_to_number("t", F.lit("00,000"))).collect()] == [None] * 5
    with pytest.raises(Exception, match="MISMATCH_INPUT"):
        bad.select(F.to_number("t", F.lit("99,999"))).collect()
    with pytest.raises(Exception, match="INVALID_FORMAT"):
        spark.sql("SELECT to_number('1', '9.9.9')").collect()
