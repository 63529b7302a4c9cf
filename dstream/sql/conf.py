"""``spark.conf``: the session's runtime settings (PySpark's ``RuntimeConfig``).

What this module owns
---------------------
The ``spark.sql.*`` settings a session reads when it plans and runs a query, their
defaults (Spark 4's), and the typed reads the rest of ``dstream.sql`` uses
(:meth:`RuntimeConfig.ansi_enabled`, :meth:`RuntimeConfig.shuffle_partitions`...).
Values are kept in a ``SparkConf``, so every typed read goes through its getters.

Invariants
----------
* ``spark.conf.get(key)`` returns the string a PySpark program sees (Spark's
  defaults are reported even when never set); a key without a default and not set
  raises ``SparkNoSuchElementException``'s counterpart (a ``KeyError``-like
  :class:`~dstream.sql.errors.PySparkException`) unless a default is passed.
* Settings changed with ``spark.conf.set`` apply to the next action, not to a query
  already running.
"""

from __future__ import annotations

from typing import Any

from rdd import SparkConf

from .errors import SparkNoSuchElementException
from .timezones import session_time_zone_default

__all__ = ["RuntimeConfig", "SQL_DEFAULTS"]


#: Spark 4's defaults of the settings dstream.sql reads, as ``spark.conf.get`` shows them.
SQL_DEFAULTS: dict[str, str] = {
    "spark.sql.ansi.enabled": "true",
    "spark.sql.shuffle.partitions": "200",
    "spark.sql.autoBroadcastJoinThreshold": "10485760b",
    "spark.sql.caseSensitive": "false",
    "spark.sql.adaptive.enabled": "true",
    "spark.sql.adaptive.coalescePartitions.enabled": "true",
    "spark.sql.files.maxPartitionBytes": "134217728b",
    "spark.sql.sources.default": "parquet",
    "spark.sql.repl.eagerEval.enabled": "false",
    "spark.sql.execution.arrow.pyspark.enabled": "false",
}


class RuntimeConfig:
    """The settings of a :class:`~dstream.sql.SparkSession` (``spark.conf``).

    Parameters
    ----------
    initial : iterable of (str, str)
        Settings given to the builder (``.config(k, v)``) or inherited from the
        SparkContext's configuration.
    """

    def __init__(self, initial: Any = ()) -> None:
        self._settings = SparkConf(loadDefaults=False)
        self._settings.set("spark.sql.session.timeZone", session_time_zone_default())
        for key, value in SQL_DEFAULTS.items():
            self._settings.set(key, value)
        for key, value in initial:
            self._settings.set(key, str(value))

    def set(self, key: str, value: Any) -> None:
        """Set a setting for the next actions of this session.

        Booleans are stored as Spark writes them (``true``/``false``).
        """
        if isinstance(value, bool):
            value = "true" if value else "false"
        self._settings.set(key, str(value))

    def get(self, key: str, default: Any = ...) -> str | None:
        """The value of ``key`` as a string, ``default`` if unset, or raise if neither."""
        value = self._settings.get(key)
        if value is not None:
            return value
        if default is not ...:
            return default
        raise SparkNoSuchElementException(
            f'The SQL config "{key}" cannot be found. Please verify that the config exists.',
            "SQL_CONF_NOT_FOUND", {"sqlConf": key})

    def unset(self, key: str) -> None:
        """Forget a setting (its Spark default applies again)."""
        pairs = [(k, v) for k, v in self._settings.getAll() if k != key]
        self._settings = SparkConf(loadDefaults=False)
        self._settings.setAll(pairs)
        if key in SQL_DEFAULTS:
            self._settings.set(key, SQL_DEFAULTS[key])
        if key == "spark.sql.session.timeZone":
            self._settings.set(key, session_time_zone_default())

    def getAll(self) -> dict[str, str]:  # noqa: N802 - PySpark's name
        """Every setting, as a dict."""
        return dict(self._settings.getAll())

    def isModifiable(self, key: str) -> bool:  # noqa: N802 - PySpark's name
        """Whether ``key`` may change at run time (``spark.sql.*`` settings may)."""
        return key.startswith("spark.sql.")

    # -- typed reads for the engine -------------------------------------------------

    def ansi_enabled(self) -> bool:
        """``spark.sql.ansi.enabled``."""
        return self._settings.getBoolean("spark.sql.ansi.enabled", True)

    def case_sensitive(self) -> bool:
        """``spark.sql.caseSensitive``."""
        return self._settings.getBoolean("spark.sql.caseSensitive", False)

    def time_zone(self) -> str:
        """``spark.sql.session.timeZone``."""
        return self._settings.get("spark.sql.session.timeZone") or "UTC"

    def shuffle_partitions(self) -> int:
        """``spark.sql.shuffle.partitions``."""
        return self._settings.getInt("spark.sql.shuffle.partitions", 200)

    def adaptive_coalesce(self) -> bool:
        """Whether shuffles may use fewer partitions than asked (AQE's coalescing)."""
        return (self._settings.getBoolean("spark.sql.adaptive.enabled", True)
                and self._settings.getBoolean("spark.sql.adaptive.coalescePartitions.enabled", True))

    def broadcast_threshold(self) -> int:
        """``spark.sql.autoBroadcastJoinThreshold`` in bytes (-1 disables broadcast joins)."""
        value = self._settings.get("spark.sql.autoBroadcastJoinThreshold") or "10485760b"
        if value.strip().startswith("-"):
            return -1
        return self._settings.getSizeAsBytes("spark.sql.autoBroadcastJoinThreshold", "10485760b")

    def get_boolean(self, key: str, default: bool) -> bool:
        """A boolean setting (``true``/``false``), with the engine's rules and errors."""
        return self._settings.getBoolean(key, default)

    def get_int(self, key: str, default: int) -> int:
        """An integer setting."""
        return self._settings.getInt(key, default)

    def get_time_ms(self, key: str, default: str) -> int:
        """A duration setting in milliseconds (``"10s"``; a bare number is milliseconds)."""
        return self._settings.getTimeAsMs(key, default)

    def max_partition_bytes(self) -> int:
        """``spark.sql.files.maxPartitionBytes``."""
        return self._settings.getSizeAsBytes("spark.sql.files.maxPartitionBytes", "134217728b")
