"""SparkConf: the application's settings, and their typed reads.

What this module owns
---------------------
:class:`SparkConf` stores every setting as a string (PySpark's surface: ``set``, ``get``,
``getAll``, ...). Its typed getters, with the names and defaults of Spark's Scala
``SparkConf`` (``getInt``, ``getLong``, ``getDouble``, ``getBoolean``,
``getSizeAsBytes``/``Kb``/``Mb``/``Gb``, ``getTimeAsMs``/``Seconds``), are how every part
of ``rdd`` and ``dstream`` reads a setting: the rules of each value type live in
:mod:`rdd.conf_parsing`, once. The master URL is parsed by :mod:`rdd.master`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TypeVar

from .conf_defaults import default_settings
from .conf_parsing import parse_boolean, parse_float, parse_int, parse_size, parse_time
from .errors import MissingConfigError

_T = TypeVar("_T")


class SparkConf:
    """Configuration for a Spark application, as key-value string pairs.

    Parameters
    ----------
    loadDefaults : bool
        Start from the ``spark.*`` settings of ``$SPARK_CONF_DIR/spark-defaults.conf``
        (else ``$SPARK_HOME/conf/spark-defaults.conf``), the file PySpark's launcher reads;
        settings made in the program override them.
    _jvm, _jconf
        Accepted and ignored (PySpark signature compatibility).

    Examples
    --------
    >>> conf = SparkConf().setMaster("local[2]").setAppName("demo")
    >>> conf.get("spark.master")
    'local[2]'
    """

    def __init__(self, loadDefaults: bool = True, _jvm: object = None, _jconf: object = None) -> None:
        self._settings: dict[str, str] = default_settings() if loadDefaults else {}

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

    # -- typed reads (Spark's Scala SparkConf names) ------------------------------
    def _typed(self, key: str, default: _T, parse: Callable[[str, object, object], _T]) -> _T:
        value = self._settings.get(key)
        return default if value is None else parse(key, value, default)

    def getInt(self, key: str, defaultValue: int) -> int:
        """Get a property as an integer.

        Parameters
        ----------
        key : str
            The property's name.
        defaultValue : int
            Returned when the property is not set.

        Raises
        ------
        ConfigError
            If the value is not a whole number; the message names the key and the value.

        Examples
        --------
        >>> SparkConf().set("spark.default.parallelism", "8").getInt("spark.default.parallelism", 1)
        8
        """
        return self._typed(key, defaultValue, parse_int)

    def getLong(self, key: str, defaultValue: int) -> int:
        """Get a property as an integer (the same as :meth:`getInt`: Python ints have no limit).

        Raises
        ------
        ConfigError
            If the value is not a whole number.
        """
        return self._typed(key, defaultValue, parse_int)

    def getDouble(self, key: str, defaultValue: float) -> float:
        """Get a property as a float (``"0.5"``, ``"100"``, ``"1e3"``).

        Raises
        ------
        ConfigError
            If the value is not a number.

        Examples
        --------
        >>> SparkConf().getDouble("spark.streaming.backpressure.pid.integral", 0.2)
        0.2
        """
        return self._typed(key, defaultValue, parse_float)

    def getBoolean(self, key: str, defaultValue: bool) -> bool:
        """Get a property as a boolean: ``true`` or ``false``, in any case.

        Raises
        ------
        ConfigError
            For any other value (``1``, ``yes``, ``on`` are not booleans, as in Spark).

        Examples
        --------
        >>> SparkConf().set("spark.streaming.unpersist", "FALSE").getBoolean(
        ...     "spark.streaming.unpersist", True)
        False
        """
        return self._typed(key, defaultValue, parse_boolean)

    def _in_unit(self, key: str, default: str | int | None,
                 parse: Callable[[str, object, str, object], int], unit: str) -> int:
        value = self._settings.get(key)
        if value is not None:
            return parse(key, value, unit, default)
        if default is None:
            raise MissingConfigError(f"{key} is not set and no default was given: set it with "
                                     f"SparkConf().set({key!r}, ...) or pass a defaultValue")
        return parse(f"{key} (default)", default, unit, None)

    def getSizeAsBytes(self, key: str, defaultValue: str | int | None = None) -> int:
        """Get a size property in bytes; a bare number is bytes.

        Parameters
        ----------
        key : str
            The property's name.
        defaultValue : str or int, optional
            Used when the property is not set, parsed by the same rule (``"64m"``).

        Returns
        -------
        int
            Bytes. Units: ``b``, ``k``/``kb``, ``m``/``mb``, ``g``/``gb``, ``t``/``tb``,
            ``p``/``pb``, binary (``1k`` is 1024), any case; whole numbers only.

        Raises
        ------
        ConfigError
            If the value is not a whole number with a known unit.
        MissingConfigError
            If the property is not set and there is no default.

        Examples
        --------
        >>> SparkConf().set("spark.executor.closureCacheBytes", "64m").getSizeAsBytes(
        ...     "spark.executor.closureCacheBytes")
        67108864
        """
        return self._in_unit(key, defaultValue, parse_size, "b")

    def getSizeAsKb(self, key: str, defaultValue: str | int | None = None) -> int:
        """Get a size property in KiB (truncated); a bare number is KiB.

        Raises
        ------
        ConfigError, MissingConfigError
            As :meth:`getSizeAsBytes`.
        """
        return self._in_unit(key, defaultValue, parse_size, "k")

    def getSizeAsMb(self, key: str, defaultValue: str | int | None = None) -> int:
        """Get a size property in MiB (truncated); a bare number is MiB.

        Raises
        ------
        ConfigError, MissingConfigError
            As :meth:`getSizeAsBytes`.
        """
        return self._in_unit(key, defaultValue, parse_size, "m")

    def getSizeAsGb(self, key: str, defaultValue: str | int | None = None) -> int:
        """Get a size property in GiB (truncated); a bare number is GiB.

        Raises
        ------
        ConfigError, MissingConfigError
            As :meth:`getSizeAsBytes`.
        """
        return self._in_unit(key, defaultValue, parse_size, "g")

    def getTimeAsMs(self, key: str, defaultValue: str | int | None = None) -> int:
        """Get a time property in milliseconds; a bare number is milliseconds.

        Parameters
        ----------
        key : str
            The property's name.
        defaultValue : str or int, optional
            Used when the property is not set, parsed by the same rule (``"200ms"``).

        Returns
        -------
        int
            Milliseconds, truncated toward zero. Units: ``us``, ``ms``, ``s``, ``m`` or
            ``min``, ``h``, ``d``, any case; a decimal number (``"0.5s"``) is accepted.

        Raises
        ------
        ConfigError
            If the value is not a number with a known unit.
        MissingConfigError
            If the property is not set and there is no default.

        Examples
        --------
        >>> conf = SparkConf().set("spark.streaming.blockInterval", "1s")
        >>> conf.getTimeAsMs("spark.streaming.blockInterval", "200ms")
        1000
        >>> conf.set("spark.streaming.blockInterval", "10").getTimeAsMs(
        ...     "spark.streaming.blockInterval")
        10
        """
        return self._in_unit(key, defaultValue, parse_time, "ms")

    def getTimeAsSeconds(self, key: str, defaultValue: str | int | None = None) -> int:
        """Get a time property in seconds (truncated toward zero); a bare number is seconds.

        Raises
        ------
        ConfigError, MissingConfigError
            As :meth:`getTimeAsMs`.

        Examples
        --------
        >>> SparkConf().getTimeAsSeconds("spark.streaming.fileStream.minRememberDuration", "60s")
        60
        """
        return self._in_unit(key, defaultValue, parse_time, "s")

    def copy(self) -> SparkConf:
        """A new SparkConf with the same properties."""
        clone = SparkConf(loadDefaults=False)
        clone._settings = dict(self._settings)
        return clone

    def __repr__(self) -> str:
        return f"SparkConf({self._settings!r})"


def _to_conf_string(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
