"""Properties of dstream.sql.kernels.cast against plain-Python statements of Spark's CAST rules."""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from zoneinfo import ZoneInfo

import pyarrow as pa
import pytest
from hypothesis import given
from hypothesis import strategies as st

from dstream.sql.errors import ArithmeticException, NumberFormatException
from dstream.sql.kernels.cast import cast
from dstream.sql.kernels.javafmt import java_double_str

WS = "".join(chr(c) for c in range(33))
INT32 = (-(2**31), 2**31 - 1)

int_texts = st.one_of(
    st.none(),
    st.integers(-(2**40), 2**40).map(str),
    st.builds(lambda s, n, z, w: w + s + "0" * z + str(n) + w, st.sampled_from(["", "+", "-"]),
              st.integers(0, 2**33), st.integers(0, 3), st.sampled_from(["", " ", "\t", "\n "])),
    st.sampled_from(["3.9", "-3.9", ".5", "3.", "", " ", "+", "1e3", "0x10", "1_000", "٣", "１"]),
    st.text(max_size=4),
)


def model_int(text: str | None, legacy: bool) -> int | None | str:
    """Spark: trim chars <= ' ', [+-]?digits (ASCII), in range; legacy also drops a '.digits' fraction."""
    if text is None:
        return None
    s = text.strip(WS)
    if legacy:
        m = re.fullmatch(r"([+-]?[0-9]+)\.[0-9]*|([+-]?)\.[0-9]+", s)
        if m:
            s = m.group(1) if m.group(1) is not None else (m.group(2) + "0")
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        return "bad"
    v = int(s)
    return v if INT32[0] <= v <= INT32[1] else "bad"


@given(texts=st.lists(int_texts, max_size=20))
def test_string_to_int_all_modes(texts: list) -> None:
    a = pa.array(texts, pa.string())
    for mode in ("legacy", "try"):
        want = [model_int(t, mode == "legacy") for t in texts]
        assert cast(a, None, pa.int32(), mode).to_pylist() == [None if w == "bad" else w for w in want]
    strict = [model_int(t, False) for t in texts]
    if "bad" in strict:
        first = texts[strict.index("bad")]
        with pytest.raises(NumberFormatException) as info:
            cast(a, None, pa.int32(), "ansi")
        assert str(info.value) == (
            f"[CAST_INVALID_INPUT] The value '{first}' of the type \"STRING\" cannot be cast to \"INT\" because it is "
            "malformed. Correct the value as per the syntax, or change its target type. Use `try_cast` to tolerate "
            "malformed input and return NULL instead. SQLSTATE: 22018")
    else:
        assert cast(a, None, pa.int32(), "ansi").to_pylist() == strict


def test_cast_examples() -> None:
    assert cast(pa.array([" 12 ", "3.9"]), None, pa.int64(), "legacy").to_pylist() == [12, 3]
    assert cast(pa.array([3.9, -3.9]), None, pa.int32(), "ansi").to_pylist() == [3, -3]
    with pytest.raises(ArithmeticException) as info:
        cast(pa.array([1e10]), None, pa.int32(), "ansi")
    assert str(info.value) == (
        '[CAST_OVERFLOW] The value 1.0E10D of the type "DOUBLE" cannot be cast to "INT" due to '
        "an overflow. Use `try_cast` to tolerate overflow and return NULL instead. SQLSTATE: 22003")
    with pytest.raises(ArithmeticException, match="CAST_OVERFLOW"):
        cast(pa.array([300]), None, pa.int8(), "ansi")
    assert cast(pa.array([300, -129]), None, pa.int8(), "legacy").to_pylist() == [44, 127]
    assert cast(pa.array(["T", "yes", "0", " no ", "x", None]), None, pa.bool_(), "try").to_pylist() == \
        [True, True, False, False, None, None]
    assert cast(pa.array([0.0, math.nan, -2.0]), None, pa.bool_(), "ansi").to_pylist() == [False, True, True]
    assert cast(pa.array([0.1, 2.675]), None, pa.decimal128(5, 2), "ansi").to_pylist() == \
        [Decimal("0.10"), Decimal("2.68")]


doubles = st.one_of(st.none(), st.floats(), st.sampled_from([3.9, -3.9, 2.0**31, -(2.0**31) - 0.5, 2.0**63]))


@given(xs=st.lists(doubles, max_size=20))
def test_double_to_int(xs: list) -> None:
    def trunc_or_bad(x: float) -> int | str:
        if not math.isfinite(x) or not (math.floor(x) <= INT32[1] and math.ceil(x) >= INT32[0]):
            return "bad"
        return int(x)

    def java_int(x: float) -> int:
        return 0 if math.isnan(x) else INT32[1] if x >= INT32[1] else INT32[0] if x <= INT32[0] else int(x)

    a = pa.array(xs, pa.float64())
    strict = [None if x is None else trunc_or_bad(x) for x in xs]
    assert cast(a, None, pa.int32(), "try").to_pylist() == [None if s == "bad" else s for s in strict]
    assert cast(a, None, pa.int32(), "legacy").to_pylist() == [None if x is None else java_int(x) for x in xs]


@given(xs=st.lists(st.one_of(st.none(), st.floats(), st.floats(width=32)), max_size=20))
def test_double_to_string_is_java(xs: list) -> None:
    got = cast(pa.array(xs, pa.float64()), None, pa.string()).to_pylist()
    assert got == [None if x is None else java_double_str(x) for x in xs]
    for x, g in zip(xs, got):  # Java's layout, independently of java_double_str
        if x is None or math.isnan(x) or math.isinf(x):
            continue
        assert float(g) == x
        if x != 0 and not 1e-3 <= abs(x) < 1e7:
            assert re.fullmatch(r"-?[1-9]\.[0-9]+E-?[0-9]+", g)
        else:
            assert re.fullmatch(r"-?[0-9]+\.[0-9]+", g)


def test_java_double_examples() -> None:
    xs = [1.0, 1.23456789e7, 1e-4, math.nan, math.inf, -0.0, 0.001, 1234567.0, 100.0, 1e21]
    want = ["1.0", "1.23456789E7", "1.0E-4", "NaN", "Infinity", "-0.0", "0.001", "1234567.0", "100.0", "1.0E21"]
    assert cast(pa.array(xs), None, pa.string()).to_pylist() == want


float_texts = st.one_of(st.none(), st.floats().map(repr), st.sampled_from(
    ["inf", "-Infinity", "NaN", "nan", "+inf", " 1.5d ", "1e5F", ".5", "5.", "abc", "", "1e", "--1", "Infinityx"]))


@given(texts=st.lists(float_texts, max_size=20))
def test_string_to_double(texts: list) -> None:
    specials = {"inf": math.inf, "+inf": math.inf, "infinity": math.inf, "+infinity": math.inf, "-inf": -math.inf,
                "-infinity": -math.inf, "nan": math.nan}

    def model(t: str | None) -> float | None:
        if t is None:
            return None
        s = t.strip(WS)
        if s.lower() in specials:
            return specials[s.lower()]
        if re.fullmatch(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?[fFdD]?", s):
            return float(s.rstrip("fFdD"))
        return None

    got = cast(pa.array(texts, pa.string()), None, pa.float64(), "try").to_pylist()
    for g, w in zip(got, [model(t) for t in texts]):
        if g is None or w is None:
            assert g is None and w is None
        else:
            assert g == w or (math.isnan(g) and math.isnan(w))


@given(ds=st.lists(st.one_of(st.none(), st.dates(dt.date(1000, 1, 1), dt.date(9999, 12, 31))), max_size=20))
def test_string_to_date_roundtrip(ds: list) -> None:
    texts = [None if d is None else f"{d.year}-{d.month}-{d.day}" + (" 12:00" if d.day % 2 else "") for d in ds]
    assert cast(pa.array(texts, pa.string()), None, pa.date32(), "ansi").to_pylist() == ds
    assert cast(pa.array(ds, pa.date32()), None, pa.string()).to_pylist() == \
        [None if d is None else d.isoformat() for d in ds]


def test_bad_dates() -> None:
    assert cast(pa.array(["2020-2-30", "2019-02-29", "2020-13-01", "x", "2020-01-01T"]), None, pa.date32(),
                "try").to_pylist() == [None, None, None, None, dt.date(2020, 1, 1)]
    with pytest.raises(NumberFormatException, match="cannot be cast to \"DATE\""):
        cast(pa.array(["2020-2-30"]), None, pa.date32(), "ansi")


@given(ts=st.lists(st.one_of(st.none(), st.datetimes(dt.datetime(1900, 1, 1), dt.datetime(2037, 1, 1))), max_size=15),
       zone=st.sampled_from(["UTC", "America/New_York", "Asia/Kolkata", "Europe/London", "Australia/Lord_Howe"]))
def test_string_to_timestamp_is_wall_time_in_session_zone(ts: list, zone: str) -> None:
    texts = [None if t is None else t.isoformat(sep=" ") for t in ts]
    got = cast(pa.array(texts, pa.string()), None, pa.timestamp("us", tz="UTC"), "ansi", zone).to_pylist()
    # java.time: overlaps take the earlier offset, gaps shift forward by the gap (Python's fold=0).
    want = [None if t is None else t.replace(tzinfo=ZoneInfo(zone)).astimezone(dt.timezone.utc) for t in ts]
    assert got == want
    back = cast(pa.array(got, pa.timestamp("us", tz="UTC")), None, pa.string(), "ansi", zone).to_pylist()
    for t, b, w in zip(ts, back, want):
        if t is not None:
            local = w.astimezone(ZoneInfo(zone)).replace(tzinfo=None)
            assert b == local.strftime("%Y-%m-%d %H:%M:%S") + (f".{local.microsecond:06d}".rstrip("0")
                                                               if local.microsecond else "")


def test_timestamp_zones_in_text() -> None:
    texts = ["2020-01-05 10:00:00Z", "2020-01-05 10:00:00+01:30", "2020-01-05T10:00:00 Europe/Paris",
             "2020-01-05 10:00:00.1234567", "2020-01-05 24:00"]
    got = cast(pa.array(texts), None, pa.timestamp("us", tz="UTC"), "try", "UTC").to_pylist()
    utc = dt.timezone.utc
    assert got == [dt.datetime(2020, 1, 5, 10, tzinfo=utc), dt.datetime(2020, 1, 5, 8, 30, tzinfo=utc),
                   dt.datetime(2020, 1, 5, 9, tzinfo=utc), dt.datetime(2020, 1, 5, 10, 0, 0, 123456, tzinfo=utc), None]


decimal_texts = st.one_of(st.none(), st.decimals(-10**5, 10**5, allow_nan=False, places=4).map(str),
                          st.sampled_from(["abc", " 1.25 ", "1e2", "NaN", ""]))


@given(texts=st.lists(decimal_texts, max_size=20))
def test_string_to_decimal(texts: list) -> None:
    def model(t: str | None) -> Decimal | None:
        if t is None:
            return None
        try:
            d = Decimal(t.strip(WS))
        except ArithmeticError:
            return None
        if not d.is_finite():
            return None
        q = d.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
        return q if abs(q) < 10**4 else None

    got = cast(pa.array(texts, pa.string()), None, pa.decimal128(5, 1), "try").to_pylist()
    assert got == [model(t) for t in texts]


def test_nested_and_binary_to_string() -> None:
    assert cast(pa.array([[1, None], None, []]), None, pa.string()).to_pylist() == ["[1, null]", None, "[]"]
    assert cast(pa.array([{"a": 1, "b": "x"}]), None, pa.string()).to_pylist() == ["{1, x}"]
    assert cast(pa.array([b"h\xc3\xa9", b"\xff"]), None, pa.string()).to_pylist() == ["hé", "\ufffd"]
    assert cast(pa.array([True, None]), None, pa.string()).to_pylist() == ["true", None]


def test_million_strings_fast() -> None:
    import time
    a = pa.array([str(i) for i in range(1_000_000)])
    start = time.perf_counter()
    cast(a, None, pa.int32(), "ansi")
    cast(pa.array([i * 0.5 for i in range(1_000_000)]), None, pa.string())
    assert time.perf_counter() - start < 3.0


@given(xs=st.lists(st.one_of(st.none(), st.decimals(min_value=-10**12, max_value=10**12, places=6,
                                                     allow_nan=False)), max_size=20))
def test_decimal_to_double_is_correctly_rounded(xs: list) -> None:
    """As Java's ``BigDecimal.doubleValue``: the double nearest the exact value (Python's ``float(Decimal)``)."""
    a = pa.array(xs, pa.decimal128(19, 6))
    assert cast(a, None, pa.float64(), "ansi").to_pylist() == [None if x is None else float(x) for x in xs]
