"""Typed reads of a streaming source's or sink's options, with Spark's error sentences.

What this module owns
---------------------
:class:`SourceOptions`: the options a ``readStream``/``writeStream`` was given (keys
lower-cased, as the engine hands them over) read as longs, booleans and durations.
Every bad value raises :class:`~dstream.sql.errors.IllegalArgumentException` naming the
option, the value, the rule and the fix, the way Spark's ``CaseInsensitiveStringMap``
getters and its providers' checks word it.

Invariants
----------
* Names are looked up case-insensitively; the message names the option as the
  caller spelled it (``rowsPerSecond``, not ``rowspersecond``).
* Booleans and durations follow the engine's one rule for setting values
  (``true``/``false`` in any case; a number with a unit such as ``5s``), so a stream
  option and a Spark setting accept the same text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from rdd import ConfigError, SparkConf
from rdd.engine_api import parse_boolean

from ...errors import IllegalArgumentException

__all__ = ["SourceOptions"]


class SourceOptions:
    """Case-insensitive, typed access to one source's (or sink's) options.

    Parameters
    ----------
    options : mapping of str to str
        The options as given (keys in any case).
    """

    def __init__(self, options: Mapping[str, str]) -> None:
        self._options = {str(k).lower(): v for k, v in options.items()}

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._options

    def __iter__(self) -> Iterator[str]:
        return iter(self._options)

    def items(self) -> list[tuple[str, str]]:
        """Every ``(lower-cased name, value)``."""
        return list(self._options.items())

    def get(self, name: str, default: str | None = None) -> str | None:
        """The option's text, or ``default``."""
        value = self._options.get(name.lower())
        return default if value is None else str(value)

    def required(self, name: str, fix: str) -> str:
        """The option's text; an ``IllegalArgumentException`` saying ``fix`` when it is missing."""
        value = self.get(name)
        if value is None:
            raise IllegalArgumentException(f"Option '{name}' must be specified: {fix}")
        return value

    def get_long(self, name: str, default: int) -> int:
        """A whole-number option (``"10"``)."""
        text = self.get(name)
        if text is None:
            return default
        try:
            return int(text.strip())
        except ValueError:
            raise IllegalArgumentException(
                f"Invalid value '{text}' for option '{name}': it must be a whole number, for example "
                f"{default if default > 0 else 10}; remove the option to use the default ({default}).") from None

    def get_boolean(self, name: str, default: bool) -> bool:
        """A ``true``/``false`` option (any case)."""
        text = self.get(name)
        if text is None:
            return default
        try:
            return parse_boolean(name, text.strip(), default)
        except ConfigError:
            raise IllegalArgumentException(
                f"The value of option '{name}' must be true or false, got '{text}'; remove the option to use "
                f"the default ({str(default).lower()}).") from None

    def get_duration_seconds(self, name: str, default: int) -> int:
        """A duration option in whole seconds (``"5s"``, ``"1m"``; a bare number is seconds)."""
        text = self.get(name)
        if text is None:
            return default
        # SparkConf's getter is the engine's one parser of durations.
        try:
            return SparkConf(loadDefaults=False).set(name, text).getTimeAsSeconds(name)
        except ConfigError:
            raise IllegalArgumentException(
                f"Invalid value '{text}' for option '{name}': it must be a duration such as '5s', '10' "
                f"(seconds) or '1min'; remove the option to use the default ({default}s).") from None
