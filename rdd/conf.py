"""SparkConf: string settings and the parsing of master URLs.

Owns the accepted master forms (``local``, ``local[N]``, ``local[*]``) and the
default master (``local[*]``) used when none is given anywhere.
"""

from __future__ import annotations

import os
import re
from typing import Iterable

DEFAULT_MASTER = "local[*]"
ACCEPTED_MASTERS = "'local' (tasks inline in the driver), 'local[N]' (N worker processes, N >= 1) or 'local[*]' (one worker per core)"

_LOCAL_N = re.compile(r"^local\[(\d+|\*)\](?:\[\d+\])?$")


def parse_master(master: str) -> int:
    """Return the number of worker processes for ``master``; 0 means inline.

    Raises
    ------
    ValueError
        For any other form, listing the accepted ones.
    """
    if not isinstance(master, str):
        raise TypeError(f"master must be a string such as 'local[2]', got {master!r} ({type(master).__name__})")
    master = master.strip()
    if master == "local":
        return 0
    match = _LOCAL_N.match(master)
    if match:
        count = match.group(1)
        if count == "*":
            return os.cpu_count() or 1
        if int(count) >= 1:
            return int(count)
    raise ValueError(f"Could not parse master URL {master!r}: use {ACCEPTED_MASTERS}")


class SparkConf:
    """Configuration for a Spark application, as key-value string pairs.

    Parameters
    ----------
    loadDefaults : bool
        Accepted for PySpark compatibility; reads ``SPARK_*``-free defaults (none today).
    _jvm, _jconf
        Accepted and ignored (PySpark signature compatibility).

    Examples
    --------
    >>> conf = SparkConf().setMaster("local[2]").setAppName("demo")
    >>> conf.get("spark.master")
    'local[2]'
    """

    def __init__(self, loadDefaults: bool = True, _jvm: object = None, _jconf: object = None) -> None:
        self._settings: dict[str, str] = {}

    def set(self, key: str, value: object) -> SparkConf:
        """Set a configuration property; the value is stored as a string."""
        self._settings[str(key)] = _to_conf_string(value)
        return self

    def setIfMissing(self, key: str, value: object) -> SparkConf:
        """Set a configuration property, if not already set."""
        if key not in self._settings:
            self.set(key, value)
        return self

    def setMaster(self, value: str) -> SparkConf:
        """Set the master URL to connect to (``local``, ``local[N]``, ``local[*]``)."""
        return self.set("spark.master", value)

    def setAppName(self, value: str) -> SparkConf:
        """Set the application name."""
        return self.set("spark.app.name", value)

    def setSparkHome(self, value: str) -> SparkConf:
        """Accepted for compatibility; there is no Spark home."""
        return self.set("spark.home", value)

    def setExecutorEnv(self, key: str | None = None, value: str | None = None,
                       pairs: Iterable[tuple[str, str]] | None = None) -> SparkConf:
        """Set environment variables for worker processes."""
        if (key is not None) == (pairs is not None):
            raise ValueError("setExecutorEnv takes either key and value, or pairs, not both")
        for k, v in ([(key, value)] if pairs is None else list(pairs)):
            self.set(f"spark.executorEnv.{k}", v)
        return self

    def setAll(self, pairs: Iterable[tuple[str, object]]) -> SparkConf:
        """Set several properties from a list of ``(key, value)`` pairs."""
        for key, value in pairs:
            self.set(key, value)
        return self

    def get(self, key: str, defaultValue: str | None = None) -> str | None:
        """Get a property, or ``defaultValue`` when it is not set."""
        return self._settings.get(key, defaultValue)

    def getAll(self) -> list[tuple[str, str]]:
        """All properties as a list of ``(key, value)`` pairs."""
        return list(self._settings.items())

    def contains(self, key: str) -> bool:
        """Whether the property is set."""
        return key in self._settings

    def toDebugString(self) -> str:
        """The properties as ``key=value`` lines."""
        return "\n".join(f"{k}={v}" for k, v in self._settings.items())

    # -- typed reads used inside the engine (snake_case: not PySpark surface) --
    def get_int(self, key: str, default: int) -> int:
        value = self._settings.get(key)
        if value is None:
            return default
        try:
            return int(value)
        except ValueError:
            raise ValueError(f"configuration {key}={value!r} must be an integer") from None

    def get_float(self, key: str, default: float) -> float:
        value = self._settings.get(key)
        if value is None:
            return default
        try:
            return float(value)
        except ValueError:
            raise ValueError(f"configuration {key}={value!r} must be a number") from None

    def get_bool(self, key: str, default: bool) -> bool:
        value = self._settings.get(key)
        if value is None:
            return default
        lowered = value.strip().lower()
        if lowered in ("true", "1", "yes"):
            return True
        if lowered in ("false", "0", "no"):
            return False
        raise ValueError(f"configuration {key}={value!r} must be 'true' or 'false'")

    def copy(self) -> SparkConf:
        clone = SparkConf()
        clone._settings = dict(self._settings)
        return clone

    def __repr__(self) -> str:
        return f"SparkConf({self._settings!r})"


def _to_conf_string(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
