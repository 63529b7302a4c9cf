"""Spark's HyperLogLog sketch functions: ``hll_sketch_agg``, ``hll_union_agg``, ``hll_union`` and
``hll_sketch_estimate``.

What this module owns
---------------------
The two aggregates and the two scalar expressions. A sketch is an Apache DataSketches HLL
sketch (the library Spark calls), exchanged as a BINARY in the library's *updatable*
serialization with target type ``HLL_8``, as Spark writes it: a sketch made here is one
Spark reads, and the other way round.

* ``hll_sketch_agg(v, lgConfigK=12)`` adds a group's non-null INT, BIGINT, STRING or
  BINARY values to a sketch of ``2^lgConfigK`` registers (``lgConfigK`` a constant in
  [4, 21], else ``HLL_INVALID_LG_K`` when the query runs). The library skips empty
  strings and empty binaries, as Spark's does.
* Partial aggregation makes one sketch per group and partition, from the values in row
  order; merging folds the partial sketches, in partition order, into an empty sketch of
  the function's ``lgConfigK``: each step a union of that ``lgConfigK`` whose result is
  taken as ``HLL_8``. These are Spark's update and merge, so the bytes are Spark's for the
  same partitions (a union with an empty sketch gives the other's bytes back).
* ``hll_union_agg(sketch, allowDifferentLgConfigK=false)`` folds a group's non-null
  sketches into a union made with the first one's ``lgConfigK``; a later sketch of another
  ``lgConfigK`` is ``HLL_UNION_DIFFERENT_LG_K`` unless allowed. Over no sketch: the empty
  sketch of ``lgConfigK`` 12.
* ``hll_union(a, b, allowDifferentLgConfigK=false)``: the union, of the smaller
  ``lgConfigK``, of two sketches (null if either is null).
* ``hll_sketch_estimate(sketch)``: the estimate rounded half up to a BIGINT (null for null).
* Bytes that are no sketch are ``HLL_INVALID_INPUT_SKETCH_BUFFER``. They are checked here
  before the library reads them: its reader trusts the counts in a sketch's header, and a
  wrong count makes it read past the bytes (a crash of the process, not an error). For the
  same reason a sketch of target type ``HLL_4`` is read only while it is still a list or a
  set of coupons (Spark writes ``HLL_8``; other tools may write ``HLL_4``).
* A BINARY value is added by its bytes through the library's string update, which hashes a
  string's UTF-8 bytes: bytes that are not UTF-8 cannot be added, and say so (the Python
  binding has no update for raw bytes).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..errors import SparkRuntimeException
from ..types import BinaryType, BooleanType, DataType, IntegerType, LongType, NullType, StringType
from .aggregate_base import AggregateFunction, ArrowAgg
from .aggregates import LIST_CONCAT
from .base import EvalContext, Expression, Literal
from .checks import mismatch, quoted_type

__all__ = ["DEFAULT_LG_K", "HllSketchAgg", "HllSketchEstimate", "HllUnion", "HllUnionAgg"]

#: Spark's default ``lgConfigK`` (4096 registers, a relative error of about 1.6%).
DEFAULT_LG_K = 12
MIN_LG_K, MAX_LG_K = 4, 21

_LIST, _SET, _HLL = 0, 1, 2
_FAMILY = 7
_EMPTY_FLAG, _COMPACT_FLAG, _BIG_ENDIAN_FLAG = 4, 8, 1
#: Header bytes of each mode (the library's "preamble ints" times 4).
_HEADER = {_LIST: 8, _SET: 12, _HLL: 40}


def _library() -> Any:
    import datasketches  # noqa: PLC0415 - a compiled module, loaded with the first sketch

    return datasketches


def check_lg_k(lg_k: int, function: str) -> None:
    """Spark's ``HLL_INVALID_LG_K`` for an ``lgConfigK`` out of [4, 21]."""
    if not MIN_LG_K <= lg_k <= MAX_LG_K:
        raise SparkRuntimeException(
            f"Invalid call to `{function}`; the `lgConfigK` value must be between {MIN_LG_K} and {MAX_LG_K}, "
            f"inclusive: {lg_k}.", "HLL_INVALID_LG_K", {"function": f"`{function}`", "min": str(MIN_LG_K),
                                                          "max": str(MAX_LG_K), "value": str(lg_k)})


def _invalid(function: str) -> SparkRuntimeException:
    return SparkRuntimeException(
        f"Invalid call to `{function}`; only valid HLL sketch buffers are supported as inputs (such as those "
        "produced by the `hll_sketch_agg` function).", "HLL_INVALID_INPUT_SKETCH_BUFFER",
        {"function": f"`{function}`"})


def _well_formed(data: bytes) -> bool:
    """Whether ``data``'s header is an HLL sketch's and its counts fit in ``data``."""
    if len(data) < 8 or data[1] != 1 or data[2] != _FAMILY or not MIN_LG_K <= data[3] <= MAX_LG_K:
        return False
    flags, mode, target = data[5], data[7] & 3, (data[7] >> 2) & 3
    if flags & _BIG_ENDIAN_FLAG or mode not in _HEADER or target > 2 or data[0] * 4 != _HEADER[mode]:
        return False
    if flags & _EMPTY_FLAG:
        return mode == _LIST and data[6] == 0
    if len(data) < _HEADER[mode]:
        return False
    if mode == _HLL:
        # HLL_4 registers are not read: a damaged one sends the library's reader to an
        # exception table it then reads out of bounds. Spark writes HLL_8 only.
        k = 1 << data[3]
        return target != 0 and len(data) >= _HEADER[mode] + (k if target == 2 else k * 3 // 4 + 1)
    count = data[6] if mode == _LIST else struct.unpack_from("<i", data, 8)[0]
    slots = count if flags & _COMPACT_FLAG else 1 << data[4]
    return 0 <= count <= slots and data[4] <= 26 and len(data) >= _HEADER[mode] + 4 * slots


def read_sketch(data: Any, function: str) -> Any:
    """The sketch serialized in ``data``; ``HLL_INVALID_INPUT_SKETCH_BUFFER`` naming ``function``."""
    raw = bytes(data)
    if not _well_formed(raw):
        raise _invalid(function)
    try:
        return _library().hll_sketch.deserialize(raw)
    except (ValueError, RuntimeError, IndexError, MemoryError):  # what the library raises for a bad sketch
        raise _invalid(function) from None


def empty_sketch(lg_k: int) -> Any:
    lib = _library()
    return lib.hll_sketch(lg_k, lib.tgt_hll_type.HLL_8)


def union_of(sketches: Sequence[Any], lg_max_k: int, serialized: Sequence[bytes] | None = None) -> Any:
    """The ``HLL_8`` result of a union of ``lg_max_k`` over ``sketches``, in order (``serialized``:
    their bytes, when the caller read them from bytes)."""
    lib = _library()
    union = lib.hll_union(lg_max_k)
    for i, sketch in enumerate(sketches):
        union = unite(union, sketch, None if serialized is None else serialized[i])
    return union.get_result(lib.tgt_hll_type.HLL_8)


def _hll_mode(data: bytes) -> bool:
    """Whether a serialized sketch holds registers (HLL mode), not a list or set of coupons."""
    return len(data) > 7 and data[7] & 3 == _HLL


def _settled(union: Any) -> Any:
    """A new union holding ``union``'s result (same registers, its estimator state rebuilt)."""
    lib = _library()
    result = union.get_result(lib.tgt_hll_type.HLL_8)
    fresh = lib.hll_union(result.lg_config_k)
    fresh.update(result)
    return fresh


def unite(union: Any, sketch: Any, data: bytes | None = None) -> Any:
    """``union`` updated with ``sketch`` (serialized as ``data``, or serialized here if its mode is
    needed): the union to use next.

    A sketch of another ``lgConfigK`` in HLL mode brings registers of another size, and the
    union's registers go down to the smaller size. datasketches-cpp (5.2 and the releases
    before it) leaves a union's estimator state stale after such a step, and the next update
    then overwrites what the union held. So the union shrinks by taking its own result into
    a union of the smaller size, and after such a step the union is rebuilt from its result
    (the same registers; the state the library rebuilds when it reads a sketch).
    """
    resized = (sketch.lg_config_k != union.lg_config_k
               and _hll_mode(data if data is not None else sketch.serialize_updatable()))
    if resized and sketch.lg_config_k < union.lg_config_k:
        lib = _library()
        smaller = lib.hll_union(sketch.lg_config_k)
        smaller.update(union.get_result(lib.tgt_hll_type.HLL_8))
        union = _settled(smaller)
    union.update(sketch)
    return _settled(union) if resized else union


def _add(sketch: Any, value: Any, function: str) -> None:
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError:
            shown = value[:16].hex().upper() + ("..." if len(value) > 16 else "")
            raise SparkRuntimeException(
                f"`{function}` cannot add the binary value X'{shown}': binary values are hashed here through the "
                "sketch library's string update, which takes UTF-8 text, and these bytes are not UTF-8. Aggregate "
                "an integer or string key instead (hex(col) gives one, with a sketch other than Spark's over the "
                "raw bytes).", "UNSUPPORTED_FEATURE.HLL_BINARY_NOT_UTF8", {"function": f"`{function}`"}) from None
    sketch.update(value)


def _binaries(values: list[Any]) -> pa.Array:
    return pa.array(values, pa.list_(pa.binary()))


class _SketchAggregate(AggregateFunction):
    """A sketch aggregate of one input and one constant option (shown in its name).

    Partial aggregation collects each group's values (Arrow's ``list``) and
    :meth:`partial_output` turns them into one sketch per group; a merge concatenates the
    partial sketches and :meth:`merge_output` folds them into one, in order.
    """

    def __init__(self, child: Expression, option: Any) -> None:
        super().__init__([child])
        self.option = option

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return type(self)(children[0], self.option)

    def sql(self) -> str:
        shown = str(self.option).lower() if isinstance(self.option, bool) else self.option
        return f"{self.name}({self.children[0].sql()}, {shown})"

    def _options(self) -> Any:
        return (self.name, self.option)

    def data_type(self) -> DataType:
        return BinaryType()

    @property
    def nullable(self) -> bool:
        return False

    def partial_aggs(self) -> list[ArrowAgg]:
        return [("list", None)]

    def merge_aggs(self) -> list[ArrowAgg]:
        return [(LIST_CONCAT, None)]

    def fold(self, values: list[Any]) -> Any | None:
        """The sketch of a group's collected values (partial) or partial sketches (merge);
        ``None`` when there is nothing to fold and no sketch stands for nothing."""
        raise NotImplementedError

    def merge_output(self, j: int, buffer: pa.Array, ctx: EvalContext) -> pa.Array:
        out: list[Any] = []
        for parts in buffer.to_pylist():
            folded = None if parts is None else self.fold(parts)
            out.append(None if parts is None else [] if folded is None else [folded.serialize_updatable()])
        return _binaries(out)

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        out = []
        for parts in buffers[0].to_pylist():
            folded = self.fold(parts or [])
            out.append((folded if folded is not None else empty_sketch(DEFAULT_LG_K)).serialize_updatable())
        return pa.array(out, pa.binary())


class HllSketchAgg(_SketchAggregate):
    """``hll_sketch_agg(v, lgConfigK)`` (see the module doc)."""

    name = "hll_sketch_agg"

    def __init__(self, child: Expression, lg_config_k: int = DEFAULT_LG_K) -> None:
        super().__init__(child, lg_config_k)

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not isinstance(dt, IntegerType | LongType | StringType | BinaryType | NullType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE",
                           'The first parameter requires the ("INT" or "BIGINT" or "STRING" or "BINARY") type, '
                           f'however "{self.children[0].sql()}" has the type {quoted_type(dt)}')

    def partial_output(self, j: int, buffer: pa.Array, ctx: EvalContext) -> pa.Array:
        check_lg_k(self.option, self.name)
        out = []
        for values in buffer.to_pylist():
            sketch = empty_sketch(self.option)
            for value in values or ():
                if value is not None:
                    _add(sketch, value, self.name)
            out.append([sketch.serialize_updatable()])
        return _binaries(out)

    def fold(self, values: list[Any]) -> Any:
        # Spark's merge: the buffer starts empty, and each partial sketch is united into it.
        check_lg_k(self.option, self.name)
        folded = empty_sketch(self.option)
        for part in values:
            if part is not None:
                folded = union_of([folded, read_sketch(part, self.name)], folded.lg_config_k)
        return folded


class HllUnionAgg(_SketchAggregate):
    """``hll_union_agg(sketch, allowDifferentLgConfigK)`` (see the module doc)."""

    name = "hll_union_agg"

    def __init__(self, child: Expression, allow_different_lg_k: bool = False) -> None:
        super().__init__(child, allow_different_lg_k)

    def check_input_types(self) -> None:
        _require_binary(self, self.children[0], "first")

    def partial_output(self, j: int, buffer: pa.Array, ctx: EvalContext) -> pa.Array:
        return self.merge_output(j, buffer, ctx)

    def fold(self, values: list[Any]) -> Any | None:
        """The union of the sketches in ``values`` (``None`` when there is none: the union is
        made with the first sketch's ``lgConfigK``, and over no sketch the result is the
        empty sketch of ``lgConfigK`` 12)."""
        lib = _library()
        union: Any = None
        for part in values:
            if part is None:
                continue
            sketch = read_sketch(part, self.name)
            if union is None:
                union = lib.hll_union(sketch.lg_config_k)
            elif union.lg_config_k != sketch.lg_config_k and not self.option:
                raise different_lg_k(union.lg_config_k, sketch.lg_config_k, self.name)
            union = unite(union, sketch, bytes(part))
        return None if union is None else union.get_result(lib.tgt_hll_type.HLL_8)


def different_lg_k(first: int, second: int, function: str) -> SparkRuntimeException:
    """Spark's ``HLL_UNION_DIFFERENT_LG_K``."""
    return SparkRuntimeException(
        f"Sketches have different `lgConfigK` values: {first} and {second}. Set the `allowDifferentLgConfigK` "
        f"parameter to true to call `{function}` with different `lgConfigK` values.", "HLL_UNION_DIFFERENT_LG_K",
        {"left": str(first), "right": str(second), "function": f"`{function}`"})


def _require_binary(expr: Expression, child: Expression, position: str) -> None:
    dt = child.data_type()
    if not isinstance(dt, BinaryType | NullType):
        raise mismatch(expr, "UNEXPECTED_INPUT_TYPE", f'The {position} parameter requires the "BINARY" type, '
                       f'however "{child.sql()}" has the type {quoted_type(dt)}')


def _column(values: Any) -> list[Any]:
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    return values.to_pylist()


class HllSketchEstimate(Expression):
    """``hll_sketch_estimate(sketch)``: the sketch's estimate as a BIGINT."""

    def __init__(self, child: Expression) -> None:
        self.children = (child,)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return HllSketchEstimate(children[0])

    def data_type(self) -> DataType:
        return LongType()

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"hll_sketch_estimate({self.children[0].sql()})"

    def check_input_types(self) -> None:
        _require_binary(self, self.children[0], "first")

    def coerce(self) -> Expression:
        self.check_input_types()
        return self

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        out = []
        for data in _column(self.children[0].eval(batch, ctx)):
            # Java's Math.round: half up.
            out.append(None if data is None else
                       math.floor(read_sketch(data, "hll_sketch_estimate").get_estimate() + 0.5))
        return pa.array(out, pa.int64())


class HllUnion(Expression):
    """``hll_union(a, b, allowDifferentLgConfigK)``: the union of two sketches, as a sketch."""

    def __init__(self, left: Expression, right: Expression, allow: Expression | None = None) -> None:
        self.children = (left, right, allow if allow is not None else Literal(False, BooleanType()))

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return HllUnion(children[0], children[1], children[2])

    def data_type(self) -> DataType:
        return BinaryType()

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"hll_union({', '.join(c.sql() for c in self.children)})"

    def check_input_types(self) -> None:
        _require_binary(self, self.children[0], "first")
        _require_binary(self, self.children[1], "second")
        allow = self.children[2]
        if not isinstance(allow.data_type(), BooleanType | NullType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE", 'The third parameter requires the "BOOLEAN" type, '
                           f'however "{allow.sql()}" has the type {quoted_type(allow.data_type())}')

    def coerce(self) -> Expression:
        self.check_input_types()
        return self

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        lefts, rights, allows = (_column(c.eval(batch, ctx)) for c in self.children)
        n = batch.num_rows
        lefts, rights, allows = (v if len(v) == n else v * n for v in (lefts, rights, allows))
        out: list[Any] = []
        for left, right, allow in zip(lefts, rights, allows):
            if left is None or right is None:
                out.append(None)
                continue
            a, b = read_sketch(left, "hll_union"), read_sketch(right, "hll_union")
            if not allow and a.lg_config_k != b.lg_config_k:
                raise different_lg_k(a.lg_config_k, b.lg_config_k, "hll_union")
            out.append(union_of([a, b], min(a.lg_config_k, b.lg_config_k), [bytes(left), bytes(right)])
                       .serialize_updatable())
        return pa.array(out, pa.binary())

