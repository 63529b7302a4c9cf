"""Spark's ``count_min_sketch(col, eps, confidence, seed)``: a count-min sketch of a group's values.

What this module owns
---------------------
The aggregate and the sketch itself, as Spark's ``CountMinSketchImpl`` builds and
serializes it, so the bytes are Spark's (and Spark's ``CountMinSketch.readFrom`` reads them):

* ``width = ceil(2 / eps)`` and ``depth = ceil(-log(1 - confidence) / log(2))``; row ``i``
  hashes with the coefficient ``a_i``, the ``i``-th ``java.util.Random(seed).nextInt(2^31 - 1)``
  (the seed taken as a Java ``int``, as Spark narrows it).
* An integral value ``x`` (TINYINT to BIGINT, as a ``long``) counts in column
  ``h mod width`` of row ``i``, ``h = a_i * x`` (64-bit, wrapping) plus ``h >> 32``,
  masked to 31 bits. A STRING (its UTF-8 bytes) or a BINARY counts in column
  ``|(h1 + i * h2) mod width|`` (32-bit arithmetic) where ``h1`` is Spark's Murmur3 of the
  bytes with seed 0 and ``h2`` the same with seed ``h1``. Nulls are skipped.
* The bytes: version 1 (int), the total count (long), depth and width (ints), the ``a_i``
  (longs), then the table row by row (longs); all big-endian. A group without values
  gets the empty sketch, never null.
* ``eps``, ``confidence`` and ``seed`` are constants checked as Spark checks them: DOUBLE,
  DOUBLE, INT or BIGINT; foldable; not null; ``eps > 0`` and ``0 < confidence < 1``.
* Partial aggregation collects a group's values and makes its sketch per partition;
  a merge adds the partial sketches' tables and counts (the same table whatever the
  partitioning: addition commutes).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from ..formatting import java_double_str
from ..types import BinaryType, ByteType, DataType, DoubleType, IntegerType, LongType, NullType, ShortType, StringType
from .aggregate_base import AggregateFunction, ArrowAgg
from .aggregates import LIST_CONCAT
from .base import EvalContext, Expression
from .checks import mismatch, quoted_type
from .hash_functions import murmur3_bytes
from .java_random import JavaRandom, int32
from .predicates import fold

__all__ = ["CountMinSketchAgg", "Sketch"]

_VERSION = 1
_PRIME_MODULUS = (1 << 31) - 1
_HEADER = struct.Struct(">iqii")
#: Cells a sketch may have (8 bytes each): beyond, eps is too small to be meant.
_MAX_CELLS = 1 << 27
_INTEGRAL = (ByteType, ShortType, IntegerType, LongType)


class Sketch:
    """A count-min sketch: ``depth`` rows of ``width`` counters, Spark's ``CountMinSketchImpl``."""

    def __init__(self, depth: int, width: int, hash_a: Sequence[int], total: int = 0,
                 table: np.ndarray | None = None) -> None:
        self.depth, self.width = depth, width
        self.hash_a = [int(a) for a in hash_a]
        self.total = total
        self.table = np.zeros((depth, width), np.int64) if table is None else table

    @classmethod
    def create(cls, eps: float, confidence: float, seed: int) -> Sketch:
        """An empty sketch of Spark's size for ``eps`` and ``confidence``, coefficients from ``seed``."""
        width = math.ceil(2 / eps)
        depth = math.ceil(-math.log(1 - confidence) / math.log(2))
        if width * depth > _MAX_CELLS:
            raise ValueError(
                f"count_min_sketch with eps={eps} and confidence={confidence} needs {depth} x {width} counters "
                f"({depth * width * 8:,} bytes): give a larger eps or a smaller confidence")
        rng = JavaRandom(int32(seed))
        return cls(depth, width, [rng.next_int(_PRIME_MODULUS) for _ in range(depth)])

    def empty_like(self) -> Sketch:
        """A sketch of the same size and coefficients, without counts."""
        return Sketch(self.depth, self.width, self.hash_a)

    def add_longs(self, values: Sequence[int] | np.ndarray) -> None:
        """Count each of ``values`` (Java longs) once."""
        if not len(values):
            return
        items = np.asarray(values, np.int64)
        with np.errstate(over="ignore"):
            for i, a in enumerate(self.hash_a):
                h = items * np.int64(a)  # wraps as Java's long multiplication does
                h = h + (h >> np.int64(32))
                h &= np.int64(_PRIME_MODULUS)
                self.table[i] += np.bincount(h % self.width, minlength=self.width)
        self.total += len(items)

    def add_bytes(self, data: bytes) -> None:
        """Count the value whose bytes are ``data`` once (a string's UTF-8 or a binary)."""
        h1 = int32(murmur3_bytes(data, 0))
        h2 = int32(murmur3_bytes(data, h1))
        for i in range(self.depth):
            combined = int32(h1 + i * h2)
            self.table[i, abs(int(math.fmod(combined, self.width)))] += 1  # Java's % keeps the dividend's sign
        self.total += 1

    def merge(self, other: Sketch) -> None:
        """Add ``other``'s counts (a sketch of the same size and coefficients) into this one."""
        if (other.depth, other.width, other.hash_a) != (self.depth, self.width, self.hash_a):
            raise ValueError("Cannot merge count-min sketches of different depth, width or random seed")
        self.table += other.table
        self.total += other.total

    def to_bytes(self) -> bytes:
        """Spark's serialization (see the module doc)."""
        return (_HEADER.pack(_VERSION, self.total, self.depth, self.width)
                + struct.pack(f">{self.depth}q", *self.hash_a) + self.table.astype(">i8").tobytes())

    @classmethod
    def from_bytes(cls, data: bytes) -> Sketch:
        """A sketch from :meth:`to_bytes`' bytes."""
        version, total, depth, width = _HEADER.unpack_from(data)
        if version != _VERSION or len(data) != _HEADER.size + 8 * depth * (width + 1):
            raise ValueError(f"not a count-min sketch of version {_VERSION} ({len(data)} bytes)")
        hash_a = struct.unpack_from(f">{depth}q", data, _HEADER.size)
        cells = np.frombuffer(data, ">i8", depth * width, _HEADER.size + 8 * depth)
        return cls(depth, width, hash_a, total, cells.astype(np.int64).reshape(depth, width))


class CountMinSketchAgg(AggregateFunction):
    """``count_min_sketch(col, eps, confidence, seed)`` (see the module doc)."""

    name = "count_min_sketch"

    def __init__(self, child: Expression, eps: Expression, confidence: Expression, seed: Expression) -> None:
        super().__init__([child, eps, confidence, seed])

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return CountMinSketchAgg(*children)

    def data_type(self) -> DataType:
        return BinaryType()

    @property
    def nullable(self) -> bool:
        return False

    def check_input_types(self) -> None:
        child, eps, confidence, seed = self.children
        dt = child.data_type()
        if not isinstance(dt, (*_INTEGRAL, StringType, BinaryType, NullType)):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           'The first parameter requires the ("INTEGRAL" or "STRING" or "BINARY") type, however '
                           f'"{child.sql()}" has the type {quoted_type(dt)}')
        for position, (expr, wanted) in enumerate(((eps, "DOUBLE"), (confidence, "DOUBLE"), (seed, None)), 2):
            dt = expr.data_type()
            ok = isinstance(dt, DoubleType) if wanted else isinstance(dt, IntegerType | LongType)
            if not ok:
                ordinal = {2: "second", 3: "third"}.get(position, f"{position}th")
                required = f'"{wanted}"' if wanted else '("INT" or "BIGINT")'
                raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                               f"The {ordinal} parameter requires the {required} type, however "
                               f'"{expr.sql()}" has the type {quoted_type(dt)}')
        for name, expr in (("eps", eps), ("confidence", confidence), ("seed", seed)):
            if not expr.foldable:
                shown = "DOUBLE" if name != "seed" else quoted_type(expr.data_type()).strip('"')
                raise mismatch(self, "NON_FOLDABLE_INPUT",
                               f'the input `{name}` should be a foldable "{shown}" expression; however, got '
                               f'"{expr.sql()}"')
        values = self._constants()
        for name, value in zip(("eps", "confidence", "seed"), values):
            if value is None:
                raise mismatch(self, "UNEXPECTED_NULL", f"The {name} must not be null")
        eps_value, confidence_value, _ = values
        if not eps_value > 0:
            raise mismatch(self, "VALUE_OUT_OF_RANGE", "The eps must be between (0.0, 1.7976931348623157E308] "
                           f"(current value = {java_double_str(eps_value)}D)")
        if not 0 < confidence_value < 1:
            raise mismatch(self, "VALUE_OUT_OF_RANGE", "The confidence must be between (0.0, 1.0] "
                           f"(current value = {java_double_str(confidence_value)}D)")

    def _constants(self) -> tuple[Any, Any, Any]:
        eps, confidence, seed = (fold(e) for e in self.children[1:])
        return eps, confidence, seed

    def _empty(self) -> Sketch:
        eps, confidence, seed = self._constants()
        return Sketch.create(eps, confidence, seed)

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("list", None)]

    def merge_aggs(self) -> list[ArrowAgg]:
        return [(LIST_CONCAT, None)]

    def partial_output(self, j: int, buffer: pa.Array, ctx: EvalContext) -> pa.Array:
        # Each group's collected values become its sketch (one per group and partition).
        if isinstance(buffer, pa.ChunkedArray):
            buffer = buffer.combine_chunks()
        out = []
        empty = self._empty()  # coefficients drawn once, not per group
        if isinstance(self.children[0].data_type(), _INTEGRAL):
            # Straight from the lists' Arrow values: a group's longs hashed as one array.
            offsets = buffer.offsets.to_numpy()
            values = buffer.values
            for i in range(len(buffer)):
                sketch = empty.empty_like()
                part = values.slice(offsets[i], offsets[i + 1] - offsets[i]).drop_null()
                sketch.add_longs(part.cast(pa.int64()).to_numpy())
                out.append([sketch.to_bytes()])
        else:
            for group in buffer.to_pylist():
                sketch = empty.empty_like()
                for value in group or ():
                    if value is not None:
                        sketch.add_bytes(value.encode("utf-8") if isinstance(value, str) else bytes(value))
                out.append([sketch.to_bytes()])
        return pa.array(out, pa.list_(pa.binary()))

    def _fold(self, parts: list[bytes] | None, empty: Sketch) -> Sketch:
        sketch = empty.empty_like()
        for part in parts or ():
            if part is not None:
                sketch.merge(Sketch.from_bytes(part))
        return sketch

    def merge_output(self, j: int, buffer: pa.Array, ctx: EvalContext) -> pa.Array:
        # The partial sketches a merge collected, folded into one (a state stays one sketch).
        empty = self._empty()
        folded = [None if parts is None else [self._fold(parts, empty).to_bytes()] for parts in buffer.to_pylist()]
        return pa.array(folded, pa.list_(pa.binary()))

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        empty = self._empty()
        return pa.array([self._fold(parts, empty).to_bytes() for parts in buffers[0].to_pylist()], pa.binary())
