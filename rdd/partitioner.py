"""Key placement: the stable hash and the Partitioner.

Invariant: every process of a run, and every run, puts equal keys in the same
partition. Python's ``hash()`` of ``str``, ``bytes``, ``date``, naive ``datetime``,
``Enum`` members and any object whose hash mixes in one of those depends on the
interpreter's string-hash seed (``PYTHONHASHSEED``), which is random per process
unless it is set; placing keys with it would scatter one key over several partitions
and break state recovery after a restart. So:

- ``portable_hash`` computes a seed-free hash itself for ``str``, ``bytes``, numbers,
  ``None``, ``date``/``datetime``/``time``/``timedelta``, ``Enum`` members, tuples
  (namedtuples included), frozensets and dataclasses with the generated hash, made
  of those. Equal keys hash equal, as with ``hash()``: ``1 == 1.0 == True``, an
  ``IntEnum`` member and its int, two aware datetimes of the same instant.
- Any other key falls back to ``hash()``, which is only safe where the seed is the
  same in every process and run: :data:`SEED_PINNED`. Workers always start with a
  pinned seed (:func:`worker_hash_seed`: the driver's own, else ``"0"``, as PySpark
  does); in a process whose seed is random (a driver started without
  ``PYTHONHASHSEED``) such a key raises :class:`~rdd.errors.KeyHashError` instead of
  being placed where no other process or run would look for it.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import operator
import os
import sys
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from itertools import repeat
from typing import Any
from zlib import crc32

from .errors import KeyHashError

_TUPLE_MULT = 1000003
_MASK = 0xFFFFFFFFFFFFFFFF
_MAX_SEED = 4294967295


def _pinned_seed() -> str | None:
    """This interpreter's ``PYTHONHASHSEED`` if it was fixed when it started, else None.

    ``sys.flags.hash_randomization`` is 0 only for seed 0; for another fixed seed the
    variable is the only witness, and it is trusted unless ``-E`` made Python ignore it.
    """
    if not sys.flags.hash_randomization:
        return "0"
    value = os.environ.get("PYTHONHASHSEED", "")
    if sys.flags.ignore_environment or not value.isdigit() or not 0 < int(value) <= _MAX_SEED:
        return None  # unset, "random", or a "0" set after start-up (the flag says random)
    return str(int(value))


#: The string-hash seed of this process when it is the same run after run (read once, at
#: import: changing ``os.environ`` later does not change the interpreter's seed).
PINNED_SEED: str | None = _pinned_seed()
SEED_PINNED: bool = PINNED_SEED is not None


def worker_hash_seed(requested: str | None = None) -> str:
    """The ``PYTHONHASHSEED`` a worker interpreter starts with.

    The driver's own seed when it is pinned (so the driver's ``lookup`` and the workers
    agree), else ``"0"``. ``requested`` is ``spark.executorEnv.PYTHONHASHSEED`` if set:
    it must be an integer in ``[0, 4294967295]`` and, when the driver's seed is pinned,
    equal to it.
    """
    if requested is None:
        return PINNED_SEED or "0"
    if not requested.isdigit() or int(requested) > _MAX_SEED:
        raise ValueError(f"spark.executorEnv.PYTHONHASHSEED={requested!r}: it must be an integer "
                         f"from 0 to {_MAX_SEED}, the same in every run; remove the setting to get "
                         "the driver's seed (or 0)")
    if PINNED_SEED is not None and int(requested) != int(PINNED_SEED):
        raise ValueError(f"spark.executorEnv.PYTHONHASHSEED={requested!r} differs from the "
                         f"driver's PYTHONHASHSEED={PINNED_SEED}: the driver and the workers must "
                         "hash keys alike; remove the setting (workers then get the driver's seed)")
    return str(int(requested))


def portable_hash(x: Any) -> int:
    """Hash ``x`` identically in every process and run.

    Strings and bytes use CRC-32 of their (UTF-8) bytes; numbers their numeric hash
    (seed-free by definition); tuples combine their items' hashes in order, frozensets
    without order; dates and times their fields (aware ones their UTC instant); Enum
    members their name (or their value's hash for ``int``/``str`` enums, which equal
    that value); dataclasses with the generated ``__hash__`` their hashed fields.
    Other objects fall back to ``hash(x)`` where this process's seed is pinned and
    raise :class:`~rdd.errors.KeyHashError` where it is random.

    Examples
    --------
    >>> portable_hash("spark") == portable_hash("spark")
    True
    >>> portable_hash(None)
    0
    """
    kind = type(x)
    if kind is str:
        return crc32(x.encode("utf-8", "surrogatepass"))
    if kind is int:
        return hash(x)
    if x is None:
        return 0
    if kind is tuple:
        h = 0x345678
        for item in x:
            h ^= portable_hash(item)
            h = (h * _TUPLE_MULT) & _MASK
        h ^= len(x)
        return h - (1 << 64) if h >= (1 << 63) else h
    if kind is bytes:
        return crc32(x)
    exact = _BY_TYPE.get(kind)
    return exact(x) if exact is not None else _hash_other(x)


def _numeric_hash(x: Any) -> int:
    # Numeric hashes are defined arithmetically (sys.hash_info), except NaN's, which is
    # its identity since 3.10: a NaN would land anywhere, differently on a re-run.
    return 0 if x != x else hash(x)


def _frozenset_hash(x: frozenset) -> int:
    h = len(x)
    for item in x:
        h ^= (portable_hash(item) * 0x9E3779B1) & 0xFFFFFFFF
    return h


def _delta_hash(days: int, seconds: int, microseconds: int) -> int:
    return portable_hash((days, seconds, microseconds))


def _timedelta_hash(x: datetime.timedelta) -> int:
    return _delta_hash(x.days, x.seconds, x.microseconds)


def _date_hash(x: datetime.date) -> int:
    return x.toordinal()


def _datetime_hash(x: datetime.datetime) -> int:
    # As CPython: naive datetimes by their fields (fold aside, as ==); aware ones by
    # their UTC instant, so datetimes equal across time zones hash equal.
    offset = (x.replace(fold=0) if x.fold else x).utcoffset()
    seconds = x.hour * 3600 + x.minute * 60 + x.second
    if offset is None:
        return _delta_hash(x.toordinal(), seconds, x.microsecond)
    return _timedelta_hash(datetime.timedelta(x.toordinal(), seconds, x.microsecond) - offset)


def _time_hash(x: datetime.time) -> int:
    offset = (x.replace(fold=0) if x.fold else x).utcoffset()
    seconds = x.hour * 3600 + x.minute * 60 + x.second
    if offset is None:
        return _delta_hash(0, seconds, x.microsecond)
    return _timedelta_hash(datetime.timedelta(0, seconds, x.microsecond) - offset)


_BY_TYPE: dict[type, Callable[[Any], int]] = {
    float: _numeric_hash, bool: hash, complex: _numeric_hash, Decimal: _numeric_hash,
    Fraction: hash, frozenset: _frozenset_hash, bytearray: crc32,
    datetime.date: _date_hash, datetime.datetime: _datetime_hash, datetime.time: _time_hash,
    datetime.timedelta: _timedelta_hash,
}

#: Per dataclass type: the names of the fields its generated ``__hash__`` hashes.
_HASHED_FIELDS: dict[type, tuple[str, ...]] = {}


def _hash_other(x: Any) -> int:
    """Subclasses of the supported types, Enum members, dataclasses, everything else."""
    # int and str first: an IntEnum/StrEnum member equals its value, so hashes as it.
    if isinstance(x, str):
        return crc32(str.encode(x, "utf-8", "surrogatepass"))
    if isinstance(x, int):
        return int.__hash__(x)
    if isinstance(x, float):
        return _numeric_hash(float(x))
    if isinstance(x, (bytes, bytearray)):
        return crc32(x)
    if isinstance(x, tuple):
        return portable_hash(tuple(x))
    if isinstance(x, frozenset):
        return _frozenset_hash(x)
    if isinstance(x, enum.Enum) and type(x).__hash__ is enum.Enum.__hash__:
        return portable_hash(x._name_)
    for base in (datetime.datetime, datetime.date, datetime.time, datetime.timedelta):
        if isinstance(x, base) and type(x).__hash__ is base.__hash__:
            return _BY_TYPE[base](x)
    if dataclasses.is_dataclass(x):
        names = _HASHED_FIELDS.get(type(x))
        if names is None:
            names = _HASHED_FIELDS[type(x)] = tuple(
                f.name for f in dataclasses.fields(x)
                if (f.compare if f.hash is None else f.hash))
        fields = tuple(getattr(x, name) for name in names)
        if hash(x) == hash(fields):  # the generated __hash__ (a custom one hashes otherwise)
            return portable_hash(fields)
    if not SEED_PINNED:
        raise KeyHashError(_unpinned_message(x))
    return hash(x)


def _unpinned_message(x: Any) -> str:
    kind = type(x)
    text = repr(x)
    text = text if len(text) <= 60 else text[:57] + "..."
    return (
        f"cannot place the key {text} of type {kind.__module__}.{kind.__qualname__}: its hash() "
        "may depend on the interpreter's string-hash seed, and this process's seed is random "
        "(PYTHONHASHSEED is not set), so other processes and later runs would look for this key "
        "in another partition. Fix: start Python with PYTHONHASHSEED=0 (or any fixed integer) "
        "in the environment, or use keys of a type placed without hash() (str, bytes, int, "
        "float, bool, None, Decimal, Fraction, date, datetime, time, timedelta, Enum members, "
        "and tuples, namedtuples, frozensets and frozen dataclasses of these), or pass a "
        "partitionFunc that does not use hash()."
    )


class Partitioner:
    """Places keys in ``numPartitions`` partitions with ``partitionFunc(key) % n``.

    Two partitioners are equal when both the count and the function are equal; an
    RDD already partitioned by an equal partitioner is not shuffled again.
    """

    __slots__ = ("numPartitions", "partitionFunc")

    def __init__(self, numPartitions: int, partitionFunc: Callable[[Any], int] = portable_hash) -> None:
        # 0 is allowed, as in Spark: the partitioner of an empty RDD's shuffle (distinct(),
        # reduceByKey() of an RDD without partitions); placing a key then fails, clearly.
        if not isinstance(numPartitions, int) or isinstance(numPartitions, bool) or numPartitions < 0:
            raise ValueError(f"numPartitions must be a positive integer, got {numPartitions!r}")
        self.numPartitions = numPartitions
        self.partitionFunc = partitionFunc

    def __call__(self, key: Any) -> int:
        if not self.numPartitions:
            self._no_partitions(key)
        return self.partitionFunc(key) % self.numPartitions

    @staticmethod
    def _no_partitions(key: Any) -> None:
        raise ValueError(f"cannot place key {key!r} into 0 partitions: only an empty RDD can be partitioned into "
                         "0 partitions; pass numPartitions=1 or more")

    def bucket_indices(self, keys: list[Any], kinds: set[type] | None = None) -> list[int]:
        """``[self(k) for k in keys]``, at C speed when every key is a ``str`` or every
        key an ``int`` and the function is :func:`portable_hash` (a map output's keys are
        usually one such type: a Python call per key is then most of the partitioning).
        ``kinds`` is the set of the keys' types, when the caller has it already."""
        n = self.numPartitions
        if not n and keys:
            self._no_partitions(keys[0])
        if self.partitionFunc is portable_hash:
            if kinds is None:
                kinds = set(map(type, keys))
            if kinds == {str}:
                try:  # strict UTF-8 is portable_hash's encoding for a str without surrogates
                    return list(map(operator.mod, map(crc32, map(str.encode, keys)), repeat(n)))
                except UnicodeEncodeError:
                    pass
            elif kinds == {int}:
                return list(map(operator.mod, map(hash, keys), repeat(n)))
        return list(map(operator.mod, map(self.partitionFunc, keys), repeat(n)))

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Partitioner) and other.numPartitions == self.numPartitions
                and other.partitionFunc == self.partitionFunc)

    def __hash__(self) -> int:
        return hash((self.numPartitions, id(self.partitionFunc)))

    def __getstate__(self) -> Any:
        return (self.numPartitions, self.partitionFunc)

    def __setstate__(self, state: Any) -> None:
        self.numPartitions, self.partitionFunc = state

    def __repr__(self) -> str:
        name = getattr(self.partitionFunc, "__name__", repr(self.partitionFunc))
        return f"Partitioner({self.numPartitions}, {name})"
