"""Expressions whose value depends on where a row is evaluated: ``spark_partition_id()``,
``monotonically_increasing_id()``, ``rand(seed)``, ``randn(seed)``, ``uuid()``, and the draws
of ``uniform`` and ``randstr``.

What this module owns
---------------------
:class:`SparkPartitionId`, :class:`MonotonicallyIncreasingId`, :class:`Rand`,
:class:`Randn` and :class:`Uuid`, and the per-task state the last three carry from one batch of rows to
the next.

Invariants
----------
* All five are non-deterministic (``deterministic = False``): the optimizer neither
  folds them nor moves them past a filter, so a position or a random draw belongs to
  the row it was computed for, as in Spark.
* The partition is the running task's (``TaskContext.partitionId()``); 0 when rows are
  evaluated outside a task.
* ``monotonically_increasing_id()`` is Spark's layout: the partition index in the upper
  31 bits, the row's position in its partition (counted over every batch the task
  evaluates, from 0) in the lower 33. Ids are unique and increase within a partition,
  and a rerun task gives the same ids to the same rows.
* ``rand(seed)``/``randn(seed)`` draw from one generator per task seeded with
  ``seed + partition`` (Spark's rule), Spark's ``XORShiftRandom``
  (:mod:`dstream.sql.kernels.xorshift`): the same seed, partitioning and row order give
  Spark's very numbers.
* State is per task and per expression node: it lives as long as the task's context.
"""

from __future__ import annotations

import uuid
import weakref
from typing import Any

import pyarrow as pa

from ..kernels.xorshift import XORShiftRandom
from ..types import DataType, DoubleType, IntegerType, LongType, StringType
from .base import EvalContext, LeafExpression

__all__ = ["InputPosition", "MonotonicallyIncreasingId", "Rand", "RandStr", "Randn", "SparkPartitionId", "UniformDraw",
           "Uuid"]

# task context -> {id(expression node): its state in that task}
_task_state: weakref.WeakKeyDictionary[Any, dict[int, Any]] = weakref.WeakKeyDictionary()
_EXTRAS_KEY = "partition_functions.state"


def _task() -> Any:
    from rdd import TaskContext  # noqa: PLC0415 - the engine is only needed where rows are evaluated

    return TaskContext.get()


def _partition() -> int:
    task = _task()
    return 0 if task is None else task.partitionId()


def _state_table(ctx: EvalContext) -> dict[int, Any]:
    """The table of per-node state of the running task (outside a task: of this evaluation)."""
    task = _task()
    if task is None:
        outside: dict[int, Any] = ctx.extras.setdefault(_EXTRAS_KEY, {})
        return outside
    table = _task_state.get(task)
    if table is None:
        table = _task_state[task] = {}
    return table


class _PartitionLeaf(LeafExpression):
    deterministic = False

    @property
    def nullable(self) -> bool:
        return False

    def _options(self) -> Any:
        return id(self)  # two calls are two different columns, never one


class SparkPartitionId(_PartitionLeaf):
    """``spark_partition_id()``: the index of the partition a row is in."""

    def data_type(self) -> DataType:
        return IntegerType()

    def sql(self) -> str:
        return "SPARK_PARTITION_ID()"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pa.array([_partition()] * batch.num_rows, pa.int32())


class MonotonicallyIncreasingId(_PartitionLeaf):
    """``monotonically_increasing_id()``: ``partition << 33`` plus the row's position."""

    def data_type(self) -> DataType:
        return LongType()

    def sql(self) -> str:
        return "monotonically_increasing_id()"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        table = _state_table(ctx)
        start = table.get(id(self), 0)
        table[id(self)] = start + batch.num_rows
        first = (_partition() << 33) + start
        return pa.array(range(first, first + batch.num_rows), pa.int64())


class InputPosition(MonotonicallyIncreasingId):
    """The row's position in the input, as ``monotonically_increasing_id()`` numbers rows, for the
    engine's own rewrites: ``first(v) FILTER (WHERE c)`` is the ``v`` of the least position among
    the kept rows. Deterministic for one input order, which is all ``first`` itself relies on, so
    an aggregate may take it as an argument (a user's ``monotonically_increasing_id()`` may not)."""

    deterministic = True


class Uuid(_PartitionLeaf):
    """``uuid()``: a random (version 4) UUID per row, as a string."""

    def data_type(self) -> DataType:
        return StringType()

    def sql(self) -> str:
        return "uuid()"

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pa.array([str(uuid.uuid4()) for _ in range(batch.num_rows)], pa.string())


class Rand(_PartitionLeaf):
    """``rand(seed)``: uniform doubles in [0, 1)."""

    name = "rand"

    def __init__(self, seed: int, hide_seed: bool = False) -> None:
        self.seed = seed
        # SQL's rand() draws its seed at analysis and, as Spark's, is named without it.
        self.hide_seed = hide_seed

    def data_type(self) -> DataType:
        return DoubleType()

    def sql(self) -> str:
        return f"{self.name}()" if self.hide_seed else f"{self.name}({self.seed})"

    def _generator(self, ctx: EvalContext) -> XORShiftRandom:
        table = _state_table(ctx)
        generator = table.get(id(self))
        if generator is None:
            generator = table[id(self)] = XORShiftRandom(self.seed + _partition())
        return generator

    def _draw(self, generator: XORShiftRandom) -> float:
        return generator.next_double()

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        generator = self._generator(ctx)
        if type(self) is Rand:
            return pa.array(generator.doubles(batch.num_rows), pa.float64())
        draw = self._draw
        return pa.array([draw(generator) for _ in range(batch.num_rows)], pa.float64())


class Randn(Rand):
    """``randn(seed)``: doubles from the standard normal distribution."""

    name = "randn"

    def _draw(self, generator: XORShiftRandom) -> float:
        return generator.next_gaussian()


class _Drawn(_PartitionLeaf):
    """A leaf drawing from Spark's generator of ``seed + partition``, one task-long sequence per node."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def _rng(self, ctx: EvalContext) -> XORShiftRandom:
        table = _state_table(ctx)
        generator = table.get(id(self))
        if generator is None:
            generator = table[id(self)] = XORShiftRandom(self.seed + _partition())
        return generator


class UniformDraw(_Drawn):
    """``low + (high - low) * rand(seed)`` as doubles: the value ``uniform`` casts to its type."""

    def __init__(self, low: float, high: float, seed: int, text: str) -> None:
        super().__init__(seed)
        self.low, self.high, self.text = low, high, text

    def data_type(self) -> DataType:
        return DoubleType()

    def sql(self) -> str:
        return self.text

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        rng, low, span = self._rng(ctx), self.low, self.high - self.low
        return pa.array([low + span * rng.next_double() for _ in range(batch.num_rows)], pa.float64())


class RandStr(_Drawn):
    """``randstr(length, seed)``: ``length`` characters of ``0-9a-zA-Z``, each from one 32-bit draw."""

    def __init__(self, length: int, seed: int, text: str) -> None:
        super().__init__(seed)
        self.length, self.text = length, text

    def data_type(self) -> DataType:
        return StringType()

    def sql(self) -> str:
        return self.text

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..errors import SparkRuntimeException  # noqa: PLC0415 - errors is a leaf module

        if self.length < 0:
            raise SparkRuntimeException(
                f"The value of parameter(s) `length` in `randstr` is invalid: Expects `length` greater than or equal "
                f"to 0, but got {self.length}.", "INVALID_PARAMETER_VALUE.LENGTH",
                {"parameter": "`length`", "functionName": "`randstr`", "length": str(self.length)})
        rng = self._rng(ctx)
        return pa.array([_random_text(rng, self.length) for _ in range(batch.num_rows)], pa.string())


_ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _random_text(rng: XORShiftRandom, length: int) -> str:
    chars = []
    for _ in range(length):
        draw = rng.next_int()
        chars.append(_ALPHABET[abs(draw) % 62])  # Java's abs(draw % 62): the same for a truncated remainder
    return "".join(chars)
