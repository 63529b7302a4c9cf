"""Pattern-based datetime kernels against plain-Python models (datetime, zoneinfo)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from zoneinfo import ZoneInfo

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.sql.errors import DateTimeException, IllegalArgumentException, NumberFormatException
from dstream.sql.kernels.datetimes import date_format, from_unixtime, to_date, to_timestamp, unix_timestamp

UTC = dt.timezone.utc
TS = pa.timestamp("us", tz="UTC")
ZONES = ["UTC", "America/Los_Angeles", "Asia/Kolkata", "Europe/London", "Australia/Lord_Howe", "+05:30"]
# Arrow's zone rules stop at 2037 (java.time extrapolates DST beyond): the models stay before it.
wall_times = st.datetimes(dt.datetime(1000, 1, 1), dt.datetime(2037, 12, 1))
instants = st.datetimes(dt.datetime(1000, 1, 2), dt.datetime(2037, 12, 1)).map(lambda d: d.replace(tzinfo=UTC))


def _tz(zone: str) -> dt.tzinfo:
    return dt.timezone(dt.timedelta(hours=5, minutes=30)) if zone == "+05:30" else ZoneInfo(zone)


def _offset(d: dt.datetime) -> str:
    off = d.utcoffset()
    assert off is not None
    seconds = int(off.total_seconds())
    if seconds == 0:
        return "Z"
    minutes = abs(seconds) // 60  # java.time drops the seconds of old local mean time offsets
    return f"{'-' if seconds < 0 else '+'}{minutes // 60:02d}:{minutes % 60:02d}"


# (Spark pattern, model text of a wall time, precision of the parsed value)
PATTERNS: list[tuple[str, Callable[[dt.datetime], str], Callable[[dt.datetime], dt.datetime]]] = [
    ("yyyy-MM-dd HH:mm:ss", lambda d: d.strftime("%Y-%m-%d %H:%M:%S"), lambda d: d.replace(microsecond=0)),
    ("dd/MM/yyyy", lambda d: d.strftime("%d/%m/%Y"), lambda d: d.replace(hour=0, minute=0, second=0, microsecond=0)),
    ("yyyy-MM-dd'T'HH:mm:ss.SSSSSS", lambda d: d.strftime("%Y-%m-%dT%H:%M:%S.%f"), lambda d: d),
    ("d MMM yyyy h:mm:ss a", lambda d: f"{d.day} {d.strftime('%b %Y')} {(d.hour + 11) % 12 + 1}:"
     f"{d.strftime('%M:%S')} {'AM' if d.hour < 12 else 'PM'}", lambda d: d.replace(microsecond=0)),
    ("EEEE, MMMM dd yyyy HH", lambda d: d.strftime("%A, %B %d %Y %H"),
     lambda d: d.replace(minute=0, second=0, microsecond=0)),
    ("yyyyMMddHHmmssSSS", lambda d: d.strftime("%Y%m%d%H%M%S") + f"{d.microsecond // 1000:03d}",
     lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)),
]


@settings(max_examples=60, deadline=None)
@given(walls=st.lists(st.one_of(st.none(), wall_times), max_size=12), zone=st.sampled_from(ZONES),
       which=st.integers(0, len(PATTERNS) - 1))
def test_to_timestamp_reads_wall_time_in_session_zone(walls: list, zone: str, which: int) -> None:
    pattern, text_of, kept = PATTERNS[which]
    texts = [None if w is None else text_of(w) for w in walls]
    got = to_timestamp(pa.array(texts, pa.string()), pattern, zone, True).to_pylist()
    # java.time: overlaps take the earlier offset, gaps move forward (Python's fold=0).
    want = [None if w is None else kept(w).replace(tzinfo=_tz(zone)).astimezone(UTC) for w in walls]
    assert got == want


@settings(max_examples=60, deadline=None)
@given(moments=st.lists(st.one_of(st.none(), instants), max_size=12), zone=st.sampled_from(ZONES))
def test_date_format_prints_wall_time_in_session_zone(moments: list, zone: str) -> None:
    pattern = "yyyy-MM-dd HH:mm:ss.SSS EEE MMM yy hh a XXX D"
    got = date_format(pa.array(moments, TS), pattern, zone).to_pylist()

    def model(m: dt.datetime) -> str:
        w = m.astimezone(_tz(zone))
        return (w.strftime("%Y-%m-%d %H:%M:%S") + f".{w.microsecond // 1000:03d} " + w.strftime("%a %b %y %I %p ")
                + _offset(w) + f" {w.timetuple().tm_yday}")
    assert got == [None if m is None else model(m) for m in moments]


@settings(max_examples=40, deadline=None)
@given(seconds=st.lists(st.one_of(st.none(), st.integers(-30_000_000_000, 2_100_000_000)), max_size=12),
       zone=st.sampled_from(ZONES))
def test_from_unixtime_and_back(seconds: list, zone: str) -> None:
    fmt = "yyyy-MM-dd HH:mm:ss"
    texts = from_unixtime(pa.array(seconds, pa.int64()), fmt, zone).to_pylist()
    epoch = dt.datetime(1970, 1, 1, tzinfo=UTC)
    want = [None if s is None else (epoch + dt.timedelta(seconds=s)).astimezone(_tz(zone)).strftime("%Y-%m-%d %H:%M:%S")
            for s in seconds]
    assert texts == want
    back = unix_timestamp(pa.array(texts, pa.string()), fmt, zone).to_pylist()
    for s, b, t in zip(seconds, back, texts):
        if s is not None:
            # In a DST overlap the earlier instant is read back: at most the overlap earlier.
            assert b == s or (0 < s - b <= 3600 and t is not None)


def test_offsets_and_zone_names_in_text() -> None:
    texts = ["2020-01-02T03:04:05.1+01:00", "2020-01-02T03:04:05.123Z", "2020-01-02T03:04:05-08:00"]
    got = to_timestamp(pa.array(texts), "yyyy-MM-dd'T'HH:mm:ss[.SSS]XXX", "Asia/Tokyo", True).to_pylist()
    assert got == [dt.datetime(2020, 1, 2, 2, 4, 5, 100000, tzinfo=UTC), dt.datetime(2020, 1, 2, 3, 4, 5, 123000,
                   tzinfo=UTC), dt.datetime(2020, 1, 2, 11, 4, 5, tzinfo=UTC)]
    zoned = ["2020-07-01 10:00 PDT", "2020-07-01 10:00 Europe/Paris", "2020-07-01 10:00 Nowhere"]
    named = to_timestamp(pa.array(zoned), "yyyy-MM-dd HH:mm z", "UTC", False).to_pylist()
    assert named == [dt.datetime(2020, 7, 1, 17, tzinfo=UTC), dt.datetime(2020, 7, 1, 8, tzinfo=UTC), None]
    assert to_timestamp(pa.array(["2020-01-02 0304+0530"]), "yyyy-MM-dd HHmmZ", "UTC", True).to_pylist() == [
        dt.datetime(2020, 1, 1, 21, 34, tzinfo=UTC)]


def test_parsing_is_strict_but_case_insensitive() -> None:
    texts = ["2020-01-02", "2020-1-02", " 2020-01-02", "2020-01-02 ", "2020-02-30", "2019-02-29", "2020-02-29", None]
    assert to_date(pa.array(texts), "yyyy-MM-dd", False).to_pylist() == [
        dt.date(2020, 1, 2), None, None, None, None, None, dt.date(2020, 2, 29), None]
    assert to_date(pa.array(["02-JAN-20 pm", "02-jan-20 AM"]), "dd-MMM-yy a", True).to_pylist() == [
        dt.date(2020, 1, 2), dt.date(2020, 1, 2)]
    # A fraction of n letters reads 1 to n digits; more is unparsed text.
    assert to_timestamp(pa.array(["00:00:01.5", "00:00:01.123", "00:00:01.1234"]), "HH:mm:ss.SSS", "UTC",
                        False).to_pylist() == [dt.datetime(1970, 1, 1, 0, 0, 1, 500000, tzinfo=UTC),
                                               dt.datetime(1970, 1, 1, 0, 0, 1, 123000, tzinfo=UTC), None]
    # hh without a is a morning hour; a day name must agree with the date.
    assert to_timestamp(pa.array(["12:30", "11:30"]), "hh:mm", "UTC", True).to_pylist() == [
        dt.datetime(1970, 1, 1, 0, 30, tzinfo=UTC), dt.datetime(1970, 1, 1, 11, 30, tzinfo=UTC)]
    assert to_date(pa.array(["Thu 2020-01-02", "Fri 2020-01-02"]), "EEE yyyy-MM-dd", False).to_pylist() == [
        dt.date(2020, 1, 2), None]


@pytest.mark.parametrize(("text", "pattern", "detail"), [
    ("x", "yyyy-MM-dd", "could not be parsed at index 0"),
    ("2020-1-02", "yyyy-MM-dd", "could not be parsed at index 5"),
    ("2020-01-01 10:00:00abc", "yyyy-MM-dd HH:mm:ss", "could not be parsed, unparsed text found at index 19"),
    ("2020-13-01", "yyyy-MM-dd", "could not be parsed: Invalid value for MonthOfYear (valid values 1 - 12): 13"),
    ("2020-02-30", "yyyy-MM-dd", "could not be parsed: Invalid date 'FEBRUARY 30'"),
    ("2020-01-01 25:00", "yyyy-MM-dd HH:mm",
     "could not be parsed: Invalid value for HourOfDay (valid values 0 - 23): 25"),
])
def test_ansi_cannot_parse_timestamp(text: str, pattern: str, detail: str) -> None:
    with pytest.raises(DateTimeException) as info:
        to_timestamp(pa.array([None, text]), pattern, "UTC", True)
    assert str(info.value) == (f"[CANNOT_PARSE_TIMESTAMP] Text '{text}' {detail}. Use `try_to_timestamp` to "
                               "tolerate invalid input string and return NULL instead. SQLSTATE: 22007")
    assert info.value.getErrorClass() == "CANNOT_PARSE_TIMESTAMP"
    assert to_timestamp(pa.array([text]), pattern, "UTC", False).to_pylist() == [None]
    with pytest.raises(DateTimeException, match="CANNOT_PARSE_TIMESTAMP"):
        unix_timestamp(pa.array([text]), pattern, "UTC", True)
    assert unix_timestamp(pa.array([text]), pattern, "UTC").to_pylist() == [None]


def test_without_pattern_is_cast() -> None:
    got = to_timestamp(pa.array(["2020-01-02 03:04", "2020-01-02T03:04:05.5Z", "bad"]), None, "America/Los_Angeles",
                       False).to_pylist()
    assert got == [dt.datetime(2020, 1, 2, 11, 4, tzinfo=UTC), dt.datetime(2020, 1, 2, 3, 4, 5, 500000, tzinfo=UTC),
                   None]
    with pytest.raises(NumberFormatException, match="CAST_INVALID_INPUT"):
        to_timestamp(pa.array(["bad"]), None, "UTC", True)
    assert to_date(pa.array(["2020-1-2", "x"]), None, False).to_pylist() == [dt.date(2020, 1, 2), None]


def test_to_date_of_text_with_offset_is_in_session_zone() -> None:
    texts = pa.array(["2020-01-01 23:00 -08:00"])
    assert to_date(texts, "yyyy-MM-dd HH:mm XXX", True, "UTC").to_pylist() == [dt.date(2020, 1, 2)]
    assert to_date(texts, "yyyy-MM-dd HH:mm XXX", True, "America/Los_Angeles").to_pylist() == [dt.date(2020, 1, 1)]


def test_date_format_of_dates_literals_and_offsets() -> None:
    dates = pa.array([dt.date(2024, 2, 29), None], pa.date32())
    assert date_format(dates, "yyyy/MM/dd 'at' h 'o''clock' ''Q''Q G", "America/Los_Angeles").to_pylist() == [
        "2024/02/29 at 12 o'clock '1'1 AD", None]
    moment = pa.array([dt.datetime(2024, 7, 1, 12, 0, 0, 123456, tzinfo=UTC)], TS)
    got = date_format(moment, "X XX XXX x xxx Z ZZZZ ZZZZZ z VV SSSSSSSSS S k K", "America/Los_Angeles").to_pylist()
    assert got == ["-07 -0700 -07:00 -07 -07:00 -0700 GMT-07:00 -07:00 PDT America/Los_Angeles 123456000 1 5 5"]
    assert date_format(moment, "X xx Z ZZZZ", "UTC").to_pylist() == ["Z +0000 +0000 GMT"]
    assert date_format(pa.array([None], TS), "'lit'", "UTC").to_pylist() == [None]


@pytest.mark.parametrize("pattern", ["yyyy-bb", "yyyy-MM-dd'T", "SSSSSSSSSS", "yyyy]"])
def test_bad_patterns_raise(pattern: str) -> None:
    with pytest.raises(IllegalArgumentException, match="INVALID_DATETIME_PATTERN"):
        to_timestamp(pa.array(["2020"]), pattern, "UTC", False)


def test_unix_timestamp_of_timestamps_and_dates() -> None:
    moments = pa.array([dt.datetime(1969, 12, 31, 23, 59, 59, 500000, tzinfo=UTC), None], TS)
    assert unix_timestamp(moments, "yyyy", "UTC").to_pylist() == [-1, None]
    assert unix_timestamp(pa.array([dt.date(1970, 1, 2)], pa.date32()), "yyyy", "Asia/Tokyo").to_pylist() == [
        86400 - 9 * 3600]


@pytest.mark.parametrize(("pattern", "condition"), [
    ("YYYY-ww", "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION"),
    ("W", "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION"),
    ("u", "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_PATTERN_RECOGNITION"),
    ("e", "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN"),
    ("c", "INCONSISTENT_BEHAVIOR_CROSS_VERSION.DATETIME_WEEK_BASED_PATTERN"),
    ("B", "INVALID_DATETIME_PATTERN.ILLEGAL_CHARACTER"),
    ("qqqqq", "INVALID_DATETIME_PATTERN.LENGTH"),
])
def test_refused_letters_raise_sparks_conditions(pattern: str, condition: str) -> None:
    # The conditions PySpark 4.0.1 raises for date_format(date'2024-12-30', pattern).
    from dstream.sql.errors import CapturedException

    with pytest.raises(CapturedException) as caught:
        date_format(pa.array([dt.datetime(2024, 12, 30, tzinfo=UTC)], TS), pattern, "UTC")
    assert caught.value.getCondition() == condition


def test_quarters_are_formatted_as_java_writes_them() -> None:
    moments = pa.array([dt.datetime(2024, m, 15, tzinfo=UTC) for m in (1, 4, 7, 12)], TS)
    # PySpark 4.0.1: Q and q give 4, 04, Q4, 4th quarter.
    assert date_format(moments, "q qq qqq", "UTC").to_pylist() == ["1 01 Q1", "2 02 Q2", "3 03 Q3", "4 04 Q4"]
    assert date_format(moments, "QQQQ|qqqq", "UTC").to_pylist() == [
        "1st quarter|1st quarter", "2nd quarter|2nd quarter", "3rd quarter|3rd quarter", "4th quarter|4th quarter"]
