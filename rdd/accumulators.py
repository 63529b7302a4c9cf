"""Accumulators: variables that tasks only add to and the driver reads.

The driver's ``Accumulator`` holds the value. Pickled into a task it becomes a worker
copy with the same id: its ``add`` records into the running task's updates, which ride
back with the task result and are merged on the driver exactly once per successful
partition. Reading ``.value`` inside a task is an error, as in PySpark.

The driver finds an accumulator by id through a registry of weak references (as Spark's
``AccumulatorContext``): one nobody holds any more is forgotten, so a stream that makes
accumulators every batch (a query's input counters, its observed metrics) does not keep
them all. Updates for a forgotten accumulator are dropped: nobody can read them.
"""

from __future__ import annotations

import copy
import threading
import weakref
from typing import Any, Generic, TypeVar

from .runtime.task_context import TaskContext

T = TypeVar("T")

_registry: weakref.WeakValueDictionary[int, Accumulator[Any]] = weakref.WeakValueDictionary()
_registry_lock = threading.Lock()


class AccumulatorParam(Generic[T]):
    """How to add values of a data type: ``zero(value)`` and ``addInPlace(v1, v2)``."""

    def zero(self, value: T) -> T:
        raise NotImplementedError

    def addInPlace(self, value1: T, value2: T) -> T:
        raise NotImplementedError


class AddingAccumulatorParam(AccumulatorParam[T]):
    """An AccumulatorParam that adds with ``+=`` from a given zero value."""

    def __init__(self, zero_value: T) -> None:
        self.zero_value = zero_value

    def zero(self, value: T) -> T:
        return self.zero_value

    def addInPlace(self, value1: T, value2: T) -> T:
        value1 += value2  # type: ignore[operator]
        return value1


INT_ACCUMULATOR_PARAM = AddingAccumulatorParam(0)
FLOAT_ACCUMULATOR_PARAM = AddingAccumulatorParam(0.0)
COMPLEX_ACCUMULATOR_PARAM = AddingAccumulatorParam(0.0j)


class Accumulator(Generic[T]):
    """A shared variable that tasks add to; created by ``SparkContext.accumulator``."""

    def __init__(self, aid: int, value: T, accum_param: AccumulatorParam[T]) -> None:
        self.aid = aid
        self.accum_param = accum_param
        self._value = value
        self._deserialized = False
        with _registry_lock:
            _registry[aid] = self

    @property
    def value(self) -> T:
        """The accumulated value (driver only)."""
        if self._deserialized:
            raise RuntimeError("Accumulator.value cannot be accessed inside tasks; read it on the driver "
                               "after the action completes")
        return self._value

    @value.setter
    def value(self, value: T) -> None:
        if self._deserialized:
            raise RuntimeError("Accumulator.value cannot be set inside tasks; use add() or += instead")
        self._value = value

    def add(self, term: T) -> None:
        """Add a term to this accumulator's value."""
        if self._deserialized:
            tctx = TaskContext.get()
            if tctx is not None:
                updates = tctx.accumulator_updates
                if self.aid in updates:
                    updates[self.aid] = self.accum_param.addInPlace(updates[self.aid], term)
                else:
                    updates[self.aid] = self.accum_param.addInPlace(
                        copy.deepcopy(self.accum_param.zero(self._value)), term)
                return
        self._value = self.accum_param.addInPlace(self._value, term)

    def __iadd__(self, term: T) -> Accumulator[T]:
        self.add(term)
        return self

    def __reduce__(self) -> Any:
        return (_worker_accumulator, (self.aid, self.accum_param.zero(self._value), self.accum_param))

    def __str__(self) -> str:
        return str(self._value)

    def __repr__(self) -> str:
        return f"Accumulator<id={self.aid}, value={self._value}>"


def _worker_accumulator(aid: int, zero: Any, accum_param: AccumulatorParam) -> Accumulator:
    acc = Accumulator.__new__(Accumulator)
    acc.aid = aid
    acc.accum_param = accum_param
    acc._value = zero
    acc._deserialized = True
    return acc


def merge_updates(updates: dict[int, Any]) -> None:
    """Apply one task's updates to the driver's accumulators."""
    for aid, value in updates.items():
        with _registry_lock:
            acc = _registry.get(aid)
        if acc is not None:
            acc._value = acc.accum_param.addInPlace(acc._value, value)
