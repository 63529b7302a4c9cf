"""SparkConf's typed getters and the one parser of each value type, against a model.

- Times and sizes: Hypothesis draws a number, a unit (or none), letter case and blanks;
  the getter's result is the model's ``value * unit factor``, in the getter's unit and
  truncated toward zero as Spark truncates. A bare number is in the getter's unit
  (``getTimeAsMs("10")`` is 10 ms, ``getTimeAsSeconds("10")`` is 10 s).
- Bad text (an unknown unit, no digit, a fractional size) raises ``ConfigError`` naming
  the key and the value.
- Booleans are ``true``/``false`` in any case, nothing else (Spark's rule).
- Each getter: its default when the key is not set, its error when the value is bad.
- Settings read at context start: a bad value fails ``SparkContext(...)`` naming the key
  and leaves no local directory behind; ``spark.locality.wait`` is a Spark time string
  (a bare number is milliseconds).
"""

from __future__ import annotations

import os
import re
import string
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rdd import ConfigError, MissingConfigError, SparkConf, SparkContext

KEY = "spark.test.key"

# The model: what one of each unit is worth (microseconds, bytes).
TIME_US = {"us": 1, "ms": 10**3, "s": 10**6, "m": 60 * 10**6, "min": 60 * 10**6,
           "h": 3600 * 10**6, "d": 86400 * 10**6}
SIZE_B = {"b": 1, "k": 2**10, "kb": 2**10, "m": 2**20, "mb": 2**20, "g": 2**30, "gb": 2**30,
          "t": 2**40, "tb": 2**40, "p": 2**50, "pb": 2**50}
TIME_GETTERS = {"getTimeAsMs": "ms", "getTimeAsSeconds": "s"}
SIZE_GETTERS = {"getSizeAsBytes": "b", "getSizeAsKb": "k", "getSizeAsMb": "m", "getSizeAsGb": "g"}


def truncated(numerator: int, denominator: int) -> int:
    """``numerator / denominator`` truncated toward zero (Java's integer division)."""
    quotient = abs(numerator) // denominator
    return -quotient if numerator < 0 else quotient


@st.composite
def spelled(draw: Any, unit: str) -> str:
    """``unit`` in a random letter case, or the empty string unchanged."""
    return "".join(c.upper() if draw(st.booleans()) else c for c in unit)


blanks = st.sampled_from(["", " ", "  ", "\t"])


def read(getter: str, value: str) -> Any:
    return getattr(SparkConf().set(KEY, value), getter)(KEY)


@st.composite
def written(draw: Any, number: str, unit: str) -> str:
    """``number`` and ``unit`` as a user may write them: any case, blanks around and between."""
    return f"{draw(blanks)}{number}{draw(blanks)}{draw(spelled(unit))}{draw(blanks)}"


@given(st.integers(-10**7, 10**9), st.sampled_from(["", *TIME_US]),
       st.sampled_from(sorted(TIME_GETTERS)), st.data())
def test_time_strings_are_the_number_times_the_unit(number: int, unit: str, getter: str,
                                                    data: Any) -> None:
    target = TIME_GETTERS[getter]
    expected = truncated(number * TIME_US[unit or target], TIME_US[target])
    assert read(getter, data.draw(written(str(number), unit))) == expected


@given(st.integers(0, 10**6), st.text("0123456789", min_size=1, max_size=4),
       st.sampled_from(sorted(TIME_US)), st.sampled_from(sorted(TIME_GETTERS)))
def test_decimal_times_are_exact_then_truncated(whole: int, decimals: str, unit: str,
                                                getter: str) -> None:
    scale = 10 ** len(decimals)
    numerator = (whole * scale + int(decimals)) * TIME_US[unit]
    expected = numerator // (scale * TIME_US[TIME_GETTERS[getter]])
    assert read(getter, f"{whole}.{decimals}{unit}") == expected


@given(st.integers(0, 10**12), st.sampled_from(["", *SIZE_B]),
       st.sampled_from(sorted(SIZE_GETTERS)), st.data())
def test_size_strings_are_the_number_times_the_unit(number: int, unit: str, getter: str,
                                                    data: Any) -> None:
    target = SIZE_GETTERS[getter]
    expected = number * SIZE_B[unit or target] // SIZE_B[target]
    assert read(getter, data.draw(written(str(number), unit))) == expected


def assert_names_key_and_value(getter: str, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        read(getter, text)
    message = str(info.value)
    assert f"{KEY}={text!r}" in message
    return message


unknown_units = st.text(string.ascii_letters, min_size=1, max_size=4)


@given(st.integers(0, 10**6), unknown_units.filter(lambda u: u.lower() not in TIME_US),
       st.sampled_from(sorted(TIME_GETTERS)))
def test_an_unknown_time_unit_is_an_error_naming_the_key(number: int, unit: str,
                                                         getter: str) -> None:
    message = assert_names_key_and_value(getter, f"{number}{unit}")
    assert "is not a time" in message and "'200ms'" in message


@given(st.integers(0, 10**6), unknown_units.filter(lambda u: u.lower() not in SIZE_B),
       st.sampled_from(sorted(SIZE_GETTERS)))
def test_an_unknown_size_unit_is_an_error_naming_the_key(number: int, unit: str,
                                                         getter: str) -> None:
    message = assert_names_key_and_value(getter, f"{number}{unit}")
    assert "'64m'" in message


@given(st.text(st.characters(blacklist_categories=["Nd"])),
       st.sampled_from(sorted(TIME_GETTERS | SIZE_GETTERS)))
def test_text_without_a_digit_is_never_a_time_or_a_size(text: str, getter: str) -> None:
    assert_names_key_and_value(getter, text)


@given(st.integers(0, 10**6), st.integers(1, 999), st.sampled_from(["", *SIZE_B]),
       st.sampled_from(sorted(SIZE_GETTERS)))
def test_fractional_sizes_are_refused_as_in_spark(whole: int, fraction: int, unit: str,
                                                  getter: str) -> None:
    message = assert_names_key_and_value(getter, f"{whole}.{fraction}{unit}")
    assert "fractions are not accepted" in message


@pytest.mark.parametrize("text", ["-1", "-5m", "1 2k", "1e3", "0x10", "k5"])
def test_negative_and_malformed_sizes_are_refused(text: str) -> None:
    assert_names_key_and_value("getSizeAsBytes", text)


@pytest.mark.parametrize("text", ["1.s", ".5s", "1e3ms", "--1s", "1 2s", "1,5s", "s1"])
def test_malformed_times_are_refused(text: str) -> None:
    assert_names_key_and_value("getTimeAsMs", text)


@pytest.mark.parametrize(("getter", "text", "expected"), [
    ("getTimeAsMs", "10", 10), ("getTimeAsSeconds", "10", 10),
    ("getTimeAsSeconds", "1500ms", 1), ("getTimeAsMs", "1500us", 1),
    ("getTimeAsMs", "2min", 120_000), ("getTimeAsSeconds", "1d", 86_400),
    ("getSizeAsBytes", "64MB", 64 << 20), ("getSizeAsKb", "1500", 1500),
    ("getSizeAsMb", "1500k", 1), ("getSizeAsGb", "2t", 2048), ("getSizeAsBytes", "1pb", 1 << 50),
])
def test_sparks_examples(getter: str, text: str, expected: int) -> None:
    assert read(getter, text) == expected


# ------------------------------------------------------------------ booleans


@given(st.sampled_from(["true", "false"]), st.data())
def test_booleans_are_true_or_false_in_any_case(word: str, data: Any) -> None:
    text = data.draw(written("", word))
    assert SparkConf().set(KEY, text).getBoolean(KEY, word != "true") is (word == "true")


@given(st.text().filter(lambda t: t.strip().lower() not in ("true", "false")))
def test_anything_else_is_not_a_boolean(text: str) -> None:
    with pytest.raises(ConfigError) as info:
        SparkConf().set(KEY, text).getBoolean(KEY, True)
    assert f"{KEY}={text!r} must be 'true' or 'false'" in str(info.value)
    assert "default (True)" in str(info.value)


@pytest.mark.parametrize("text", ["1", "0", "yes", "no", "on"])
def test_spark_does_not_take_numbers_or_words_for_booleans(text: str) -> None:
    with pytest.raises(ConfigError, match=f"{KEY}='{text}' must be 'true' or 'false'"):
        SparkConf().set(KEY, text).getBoolean(KEY, False)


def test_a_boolean_set_from_python_reads_back() -> None:
    assert SparkConf().set(KEY, True).getBoolean(KEY, False) is True
    assert SparkConf().set(KEY, False).getBoolean(KEY, True) is False


# ------------------------------------------------------------ defaults and errors of each getter


@pytest.mark.parametrize(("getter", "default", "bad", "rule"), [
    ("getInt", 7, "7.5", "must be an integer"),
    ("getLong", 2**40, "lots", "must be an integer"),
    ("getDouble", 0.2, "lots", "must be a number"),
    ("getBoolean", True, "maybe", "must be 'true' or 'false'"),
])
def test_number_and_boolean_getters(getter: str, default: Any, bad: str, rule: str) -> None:
    assert getattr(SparkConf(), getter)(KEY, default) == default
    with pytest.raises(ConfigError) as info:
        getattr(SparkConf().set(KEY, bad), getter)(KEY, default)
    assert str(info.value).startswith(f"{KEY}={bad!r} {rule}")
    assert f"remove the setting to use the default ({default})" in str(info.value)


def test_number_getters_read_what_is_set() -> None:
    conf = SparkConf().set("a", "12").set("b", " 3 ").set("c", "1e3").set("d", "-0.5")
    read_back = (conf.getInt("a", 0), conf.getLong("b", 0), conf.getDouble("c", 0.0),
                 conf.getDouble("d", 0.0))
    assert read_back == (12, 3, 1000.0, -0.5)


@pytest.mark.parametrize(("getter", "default", "expected"), [
    ("getSizeAsBytes", "64m", 64 << 20), ("getSizeAsBytes", 4096, 4096),
    ("getSizeAsKb", "2m", 2048), ("getSizeAsMb", "1g", 1024), ("getSizeAsGb", "3", 3),
    ("getTimeAsMs", "200ms", 200), ("getTimeAsMs", 250, 250),
    ("getTimeAsSeconds", "60s", 60), ("getTimeAsSeconds", "2min", 120),
])
def test_unit_getters_parse_their_default_by_the_same_rule(getter: str, default: Any,
                                                           expected: int) -> None:
    assert getattr(SparkConf(), getter)(KEY, default) == expected


@pytest.mark.parametrize("getter", sorted(TIME_GETTERS | SIZE_GETTERS))
def test_unit_getters_without_a_default_need_the_key(getter: str) -> None:
    with pytest.raises(MissingConfigError) as info:
        getattr(SparkConf(), getter)(KEY)
    assert isinstance(info.value, KeyError) and isinstance(info.value, ConfigError)
    assert str(info.value).startswith(f"{KEY} is not set and no default was given")


def test_a_bad_default_is_named_as_the_default() -> None:
    with pytest.raises(ConfigError, match=re.escape(f"{KEY} (default)='soon' is not a time")):
        SparkConf().getTimeAsMs(KEY, "soon")


def test_the_bad_value_message_gives_the_rule_and_the_fix() -> None:
    message = assert_names_key_and_value("getTimeAsSeconds", "5 parsecs")
    assert "units us, ms, s, m or min, h, d; a bare number means seconds" in message
    message = assert_names_key_and_value("getSizeAsMb", "1.5g")
    assert "a number of MiB" in message and "write '1536m', not '1.5g'" in message


# ------------------------------------------------------------------ settings read at context start


@pytest.mark.usefixtures("no_active_context")
@pytest.mark.parametrize(("key", "value"), [("spark.locality.wait", "soon"),
                                            ("spark.executor.closureCacheBytes", "lots")])
def test_a_bad_setting_fails_the_context_and_leaves_no_directory(tmp_path: Any, key: str,
                                                                 value: str) -> None:
    conf = SparkConf().set("spark.local.dir", str(tmp_path)).set(key, value)
    with pytest.raises(ConfigError, match=f"{key}={value!r}"):
        SparkContext("local[2]", "bad-setting", conf=conf)
    assert os.listdir(tmp_path) == []
    with SparkContext("local", "after") as sc:  # the failed context did not take the slot
        assert sc.parallelize([1]).collect() == [1]


@pytest.mark.usefixtures("no_active_context")
@pytest.mark.parametrize(("value", "seconds"), [("2500", 2.5), ("1min", 60.0)])
def test_locality_wait_is_a_spark_time_string(value: str, seconds: float) -> None:
    conf = SparkConf().set("spark.locality.wait", value)
    with SparkContext("local[2]", "locality", conf=conf) as sc:
        assert sc._env.backend._locality_wait == seconds
