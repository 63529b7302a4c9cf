"""The parsers of configuration values: booleans, numbers, Spark time and size strings.

What this module owns
---------------------
The one definition, for the whole engine, of what a setting's text may look like.
:class:`~rdd.conf.SparkConf`'s typed getters (``getInt``, ``getBoolean``,
``getTimeAsMs``, ``getSizeAsBytes``, ...) call these functions, and so do the few readers
of settings that are not in a SparkConf (``kafkaParams`` booleans). Nothing else in
``rdd`` or ``dstream`` parses a setting (a test walks the code to keep it so).

Rules (Spark's, with the two extensions marked)
-----------------------------------------------
* Booleans: ``true`` or ``false`` in any case; anything else (``1``, ``yes``) is an error.
* Integers: Python's ``int`` of the text; no range limit, so ``getLong`` is ``getInt``.
* Numbers: Python's ``float`` of the text.
* Times: a number and an optional unit ``us``, ``ms``, ``s``, ``m`` or ``min``, ``h``,
  ``d``; a bare number is in the getter's unit (``getTimeAsMs`` of ``"10"`` is 10 ms,
  ``getTimeAsSeconds`` of ``"10"`` is 10 s). The result is a whole number of the
  getter's unit, truncated toward zero as Spark's ``TimeUnit.convert`` does
  (``getTimeAsSeconds`` of ``"1500ms"`` is 1). *Extension*: a decimal number such as
  ``0.5s`` is accepted (Spark takes whole numbers only).
* Sizes: a whole number and an optional unit ``b``, ``k``/``kb``, ``m``/``mb``,
  ``g``/``gb``, ``t``/``tb``, ``p``/``pb``, binary (``1k`` is 1024 bytes); a bare number
  is in the getter's unit; converting to a larger unit truncates (``getSizeAsMb`` of
  ``"1500k"`` is 1). Fractions (``1.5g``) are refused, as Spark refuses them.
* Case and blanks around the value (and, *extension*, between the number and its unit)
  do not matter.

Every error is a :class:`~rdd.errors.ConfigError` whose message names the key, the value,
the rule and the fix.
"""

from __future__ import annotations

import re

from .errors import ConfigError

__all__ = [
    "SIZE_UNITS",
    "TIME_UNITS_US",
    "parse_boolean",
    "parse_float",
    "parse_int",
    "parse_size",
    "parse_time",
]

#: Microseconds in one of each time unit (Spark's ``JavaUtils.timeSuffixes``).
TIME_UNITS_US: dict[str, int] = {
    "us": 1,
    "ms": 1_000,
    "s": 1_000_000,
    "m": 60_000_000,
    "min": 60_000_000,
    "h": 3_600_000_000,
    "d": 86_400_000_000,
}
_TIME_UNIT_NAMES = {"us": "microseconds", "ms": "milliseconds", "s": "seconds",
                    "m": "minutes", "min": "minutes", "h": "hours", "d": "days"}

#: Bytes in one of each size unit (Spark's ``JavaUtils.byteSuffixes``).
SIZE_UNITS: dict[str, int] = {
    "b": 1,
    "k": 1 << 10, "kb": 1 << 10,
    "m": 1 << 20, "mb": 1 << 20,
    "g": 1 << 30, "gb": 1 << 30,
    "t": 1 << 40, "tb": 1 << 40,
    "p": 1 << 50, "pb": 1 << 50,
}
_SIZE_UNIT_NAMES = {"b": "bytes", "k": "KiB", "m": "MiB", "g": "GiB", "t": "TiB", "p": "PiB"}

_TIME = re.compile(r"(-?[0-9]+(?:\.[0-9]+)?)\s*([a-z]*)")
_SIZE = re.compile(r"([0-9]+)\s*([a-z]*)")
_FRACTIONAL_SIZE = re.compile(r"[0-9]+\.[0-9]+\s*[a-z]*")


def _or_default(default: object) -> str:
    return "" if default is None else f"; or remove the setting to use the default ({default})"


def parse_boolean(key: str, value: object, default: object = None) -> bool:
    """Parse a boolean setting: ``true`` or ``false``, in any case.

    Parameters
    ----------
    key : str
        The setting's name, for the message.
    value : str or bool
        The setting's value (a ``bool`` is returned as it is).
    default : object, optional
        The default, named in the message as the way out.

    Raises
    ------
    ConfigError
        For any other text.
    """
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text == "true":
        return True
    if text == "false":
        return False
    raise ConfigError(f"{key}={value!r} must be 'true' or 'false' (in any case)"
                      f"{_or_default(default)}")


def parse_int(key: str, value: object, default: object = None) -> int:
    """Parse an integer setting (``"10"``).

    Raises
    ------
    ConfigError
        If the text is not a whole number.
    """
    try:
        return int(str(value))
    except ValueError:
        raise ConfigError(f"{key}={value!r} must be an integer, for example 10"
                          f"{_or_default(default)}") from None


def parse_float(key: str, value: object, default: object = None) -> float:
    """Parse a number setting (``"0.5"``, ``"100"``, ``"1e3"``).

    Raises
    ------
    ConfigError
        If the text is not a number.
    """
    try:
        return float(str(value))
    except ValueError:
        raise ConfigError(f"{key}={value!r} must be a number, for example 100 or 0.5"
                          f"{_or_default(default)}") from None


def parse_time(key: str, value: object, unit: str, default: object = None) -> int:
    """Parse a Spark time string into a whole number of ``unit``.

    Parameters
    ----------
    key : str
        The setting's name, for the message.
    value : str
        A number with an optional unit (``"200ms"``, ``"2s"``, ``"1min"``, ``"1500"``).
    unit : str
        The unit of the result and of a bare number: a key of :data:`TIME_UNITS_US`.
    default : object, optional
        The default, named in the message as the way out.

    Raises
    ------
    ConfigError
        If the text is not a number with a known unit.

    Examples
    --------
    >>> parse_time("k", "2s", "ms"), parse_time("k", "10", "s"), parse_time("k", "1500ms", "s")
    (2000, 10, 1)
    """
    match = _TIME.fullmatch(str(value).strip().lower())
    suffix = match.group(2) if match is not None else ""
    if match is None or (suffix and suffix not in TIME_UNITS_US):
        raise ConfigError(
            f"{key}={value!r} is not a time: use a number with a unit, for example '200ms', "
            f"'2s' or '1min' (units us, ms, s, m or min, h, d; a bare number means "
            f"{_TIME_UNIT_NAMES[unit]}){_or_default(default)}")
    whole, _, decimals = match.group(1).partition(".")
    # In 10**-len(decimals) microseconds, to stay in integers (exact, and fast).
    scaled = int(whole + decimals) * TIME_UNITS_US[suffix or unit]
    count = abs(scaled) // (10 ** len(decimals) * TIME_UNITS_US[unit])
    return -count if scaled < 0 else count  # truncated toward zero, as Spark's TimeUnit


def parse_size(key: str, value: object, unit: str, default: object = None) -> int:
    """Parse a Spark size string into a whole number of ``unit`` (binary units).

    Parameters
    ----------
    key : str
        The setting's name, for the message.
    value : str
        A whole number with an optional unit (``"64m"``, ``"512k"``, ``"1g"``, ``"100"``).
    unit : str
        The unit of the result and of a bare number: a key of :data:`SIZE_UNITS`.
    default : object, optional
        The default, named in the message as the way out.

    Raises
    ------
    ConfigError
        If the text is not a whole number with a known unit.

    Examples
    --------
    >>> parse_size("k", "64m", "b"), parse_size("k", "2m", "k"), parse_size("k", "1500k", "m")
    (67108864, 2048, 1)
    """
    text = str(value).strip().lower()
    match = _SIZE.fullmatch(text)
    if match is not None and (not match.group(2) or match.group(2) in SIZE_UNITS):
        return int(match.group(1)) * SIZE_UNITS[match.group(2) or unit] // SIZE_UNITS[unit]
    fraction = ("; fractions are not accepted: write '1536m', not '1.5g'"
                if _FRACTIONAL_SIZE.fullmatch(text) else "")
    raise ConfigError(
        f"{key}={value!r}: give a number of {_SIZE_UNIT_NAMES[unit[0]]}, or a whole number "
        "with a unit, for example '64m', '512k' or '1g' (units b, k or kb, m or mb, g or gb, "
        f"t or tb, p or pb; 1k is 1024 bytes){fraction}{_or_default(default)}")
