"""Session time zones: Spark's zone ids as Python ``tzinfo`` objects and as Arrow time zone strings.

What this module owns
---------------------
Reading a ``spark.sql.session.timeZone`` value (``"America/Los_Angeles"``, ``"UTC"``,
``"+08:00"``, ``"GMT+8"``...) into the ``tzinfo`` Python code converts with and the
string Arrow kernels accept, and the machine's own zone, Spark's default session zone;
and, row by row, an instant (microseconds since the epoch) as a zone's wall time and back
(:func:`wall_time`, :func:`instant_us`, :func:`naive_us`).

Invariants
----------
* The ``tzinfo`` and the Arrow string of one zone id describe the same rules (an IANA name
  for both, or the same fixed offset).
* An unknown zone id raises ``PySparkValueError`` naming it; nothing falls back silently.
* A wall time a daylight-saving change skips maps forward by the gap, one it repeats to the
  earlier instant (``java.time``'s rules, which Spark uses; Python's ``fold=0``).
"""

from __future__ import annotations

import datetime
import functools
import os
import re
import zoneinfo

from dstream.sql.errors import PySparkValueError

__all__ = ["python_time_zone", "session_time_zone_default", "zone_of", "arrow_zone", "is_utc", "wall_time",
           "instant_us", "naive_us"]

_EPOCH = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
_MICROSECOND = datetime.timedelta(microseconds=1)


def wall_time(instant: int, tz: datetime.tzinfo) -> datetime.datetime:
    """The naive wall time in ``tz`` of an instant given in microseconds since the epoch."""
    return (_EPOCH + datetime.timedelta(microseconds=instant)).astimezone(tz).replace(tzinfo=None)


def instant_us(wall: datetime.datetime, tz: datetime.tzinfo) -> int:
    """The instant, in microseconds since the epoch, of the naive wall time ``wall`` in ``tz``."""
    return (wall.replace(tzinfo=tz) - _EPOCH) // _MICROSECOND


def naive_us(wall: datetime.datetime) -> int:
    """A naive wall time as a ``timestamp_ntz`` holds it: microseconds since 1970-01-01 00:00."""
    return (wall - _EPOCH.replace(tzinfo=None)) // _MICROSECOND

_UTC_NAMES = frozenset({"UTC", "Z", "GMT", "UT", "Etc/UTC", "Etc/GMT", "Etc/UCT", "UCT", "Zulu", "Etc/Zulu"})
# "+08:00", "-5", "+0530", optionally after "UTC"/"GMT"/"UT" (Java's ZoneId.of forms).
_OFFSET = re.compile(r"(?:UTC|GMT|UT)?([+-])(\d{1,2})(?::?(\d{2}))?(?::?(\d{2}))?")


def _offset_of(zone_id: str) -> datetime.timedelta | None:
    m = _OFFSET.fullmatch(zone_id.strip())
    if m is None:
        return None
    sign = -1 if m.group(1) == "-" else 1
    delta = datetime.timedelta(hours=int(m.group(2)), minutes=int(m.group(3) or 0), seconds=int(m.group(4) or 0))
    if delta > datetime.timedelta(hours=18):
        return None
    return sign * delta


def is_utc(zone_id: str) -> bool:
    """Whether the zone id names UTC itself (so no conversion is needed)."""
    return zone_id in _UTC_NAMES or _offset_of(zone_id) == datetime.timedelta(0)


@functools.lru_cache(maxsize=64)
def zone_of(zone_id: str) -> datetime.tzinfo:
    """The ``tzinfo`` of a Spark zone id (an IANA region, ``UTC``, or a fixed offset such as ``+08:00``).

    Raises
    ------
    PySparkValueError
        When the zone id is not one Spark or the IANA database knows.
    """
    if zone_id in _UTC_NAMES:
        return datetime.timezone.utc
    offset = _offset_of(zone_id)
    if offset is not None:
        return datetime.timezone(offset)
    try:
        return zoneinfo.ZoneInfo(zone_id)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise PySparkValueError(
            f"The value '{zone_id}' of the time zone is not a valid zone id: use a region id such as "
            "'America/Los_Angeles', 'UTC', or an offset such as '+08:00'.",
            "INVALID_TIMEZONE", {"timeZone": zone_id}) from None


@functools.lru_cache(maxsize=64)
def arrow_zone(zone_id: str) -> str:
    """The zone as an Arrow timestamp ``tz`` string (``"UTC"``, ``"+08:00"`` or the IANA name)."""
    tz = zone_of(zone_id)
    if tz is datetime.timezone.utc:
        return "UTC"
    if isinstance(tz, datetime.timezone):
        minutes = int(tz.utcoffset(None).total_seconds()) // 60
        sign = "-" if minutes < 0 else "+"
        return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    return zone_id


def python_time_zone() -> str:
    """The zone a naive Python ``datetime`` is a wall time in, both ways, as PySpark reads it.

    PySpark converts between Python datetimes and Spark's instants with Python's own local
    time (``datetime.timestamp()``, ``datetime.fromtimestamp()``): the machine's zone, not
    ``spark.sql.session.timeZone``. So do ``createDataFrame`` rows, ``collect()``, ``.rdd``
    and Python UDFs here; the session zone governs SQL (casts, ``hour()``, ``show()``,
    ``toPandas()``). The two differ only when the session zone is set to another zone.
    """
    return session_time_zone_default()


def session_time_zone_default() -> str:
    """The machine's local zone as an IANA name (from ``TZ`` or ``/etc/localtime``), ``"UTC"`` if unknown.

    Spark's default ``spark.sql.session.timeZone`` is the JVM's local zone; this is the same zone.
    """
    env = os.environ.get("TZ", "").lstrip(":")
    if env:
        try:
            zone_of(env)
            return env
        except PySparkValueError:
            pass
    try:
        target = os.path.realpath("/etc/localtime")
        marker = "zoneinfo/"
        if marker in target:
            name = target[target.index(marker) + len(marker):]
            zone_of(name)
            return name
    except (OSError, PySparkValueError):
        pass
    try:
        with open("/etc/timezone", encoding="utf-8") as f:
            name = f.read().strip()
        zone_of(name)
        return name
    except (OSError, PySparkValueError):
        return "UTC"
