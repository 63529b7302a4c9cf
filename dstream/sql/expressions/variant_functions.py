"""The VARIANT functions: ``parse_json``, ``variant_get``, ``is_variant_null``, ``schema_of_variant``...

What this module owns
---------------------
* :class:`ParseJson`: JSON text to a variant (``parse_json``; ``try_parse_json`` gives null
  for malformed text where ``parse_json`` raises ``MALFORMED_RECORD_IN_PARSING``).
* :class:`VariantGet`: the part of a variant a path reaches, converted to a type
  (``variant_get``; ``try_variant_get`` gives null where the conversion fails). The path
  must be a constant (``INVALID_VARIANT_GET_PATH`` when it is no path).
* :class:`IsVariantNull`: whether a variant is a variant null (false for an SQL null).
* :class:`SchemaOfVariant` and :class:`SchemaOfVariantAgg`: the SQL type of a variant, of
  all the variants of a group.
* :class:`ToVariantObject`: a struct, a map with string keys or an array of them, as a
  variant of objects and arrays.
* :class:`VariantExplode`: the table function ``variant_explode``: a row per field of an
  object (``pos``, ``key``, ``value``) or element of an array (``key`` null); the values keep
  the input's metadata, as Spark's do. None for a scalar or null (``_outer``: one row of nulls).

The encoding and the conversion rules are :mod:`dstream.sql.variant`'s.

Invariants
----------
* A variant input column is the Arrow extension type of :mod:`dstream.sql.variant.arrow`;
  every function here returns null for an SQL-null input (``is_variant_null`` false).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from ..errors import SparkRuntimeException
from ..types import (
    ArrayType,
    BooleanType,
    DataType,
    IntegerType,
    MapType,
    NullType,
    StringType,
    StructType,
    VariantType,
)
from ..variant.casting import castable_to_variant, variant_target_ok
from .aggregates import _flatten_groups, _ListBased
from .base import EvalContext, Expression, Literal
from .checks import mismatch, quoted_type, require_foldable_path
from .generators import Generator

__all__ = ["ParseJson", "VariantGet", "IsVariantNull", "SchemaOfVariant", "SchemaOfVariantAgg",
           "ToVariantObject", "VariantExplode"]


def _parts(array: pa.Array | pa.ChunkedArray) -> list[Any]:
    from ..variant.arrow import parts  # noqa: PLC0415 - the variant package loads when used

    return parts(array)


def _require_variant(expr: Expression, child: Expression) -> None:
    dt = child.data_type()
    if not isinstance(dt, (VariantType, NullType)):
        raise mismatch(expr, "UNEXPECTED_INPUT_TYPE", f'The first parameter requires the "VARIANT" type, however '
                       f'"{child.sql()}" has the type {quoted_type(dt)}')


class ParseJson(Expression):
    """``parse_json(s)`` / ``try_parse_json(s)`` (see the module doc)."""

    def __init__(self, child: Expression, try_mode: bool = False) -> None:
        self.children = (child,)
        self.try_mode = try_mode

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ParseJson(children[0], self.try_mode)

    def data_type(self) -> DataType:
        return VariantType()

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"{'try_' if self.try_mode else ''}parse_json({self.children[0].sql()})"

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not isinstance(dt, (StringType, NullType)):  # no implicit cast, as Spark
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE", f'The first parameter requires the "STRING" type, however '
                           f'"{self.children[0].sql()}" has the type {quoted_type(dt)}')

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..variant.arrow import variant_array  # noqa: PLC0415 - the variant package loads when used
        from ..variant.parse import MalformedJsonError, parse_json  # noqa: PLC0415

        texts = self.children[0].eval(batch, ctx)
        out: list[tuple[bytes, bytes] | None] = []
        for text in (texts.combine_chunks() if isinstance(texts, pa.ChunkedArray) else texts).to_pylist():
            if text is None:
                out.append(None)
                continue
            try:
                out.append(parse_json(text))
            except MalformedJsonError:
                if not self.try_mode:
                    raise _malformed(text) from None
                out.append(None)
        return variant_array(out)

    def _options(self) -> Any:
        return self.try_mode


def _malformed(text: str) -> SparkRuntimeException:
    # Spark's parse_json names the text as it is (no quotes) and the failing parse mode.
    return SparkRuntimeException(
        f"Malformed records are detected in record parsing: {text}.\nParse Mode: FAILFAST. To process malformed "
        "records as null result, try setting the option 'mode' as 'PERMISSIVE'.",
        "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION", {"badRecord": text, "failFastMode": "FAILFAST"})


def _check_target(expr: Expression, target: DataType) -> None:
    """Spark's analysis check of a type a variant converts to."""
    if not variant_target_ok(target):
        raise mismatch(expr, "CAST_WITHOUT_SUGGESTION",
                       f'cannot cast "VARIANT" to {quoted_type(target)}')


class VariantGet(Expression):
    """``variant_get(v, path, type)`` / ``try_variant_get`` (see the module doc).

    Parameters
    ----------
    child : Expression
        The variants.
    path : Expression
        The path (``$.a[0]``): a constant; a literal is checked when the expression is built.
    target : DataType
        The type to convert the part to (``VariantType()`` for the part itself).
    try_mode : bool
        Null instead of ``INVALID_VARIANT_CAST``.
    """

    def __init__(self, child: Expression, path: Expression, target: DataType, try_mode: bool = False) -> None:
        self.children = (child, path)
        self.target = target
        self.try_mode = try_mode
        self._steps = self._parse(path.value) if isinstance(path, Literal) else None

    def _parse(self, path: Any) -> tuple[str | int, ...]:
        from ..variant.paths import invalid_path, parse_path  # noqa: PLC0415 - the variant package loads when used

        function = "try_variant_get" if self.try_mode else "variant_get"
        if not isinstance(path, str):
            raise invalid_path(str(path), function)
        return parse_path(path, function)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return VariantGet(children[0], children[1], self.target, self.try_mode)

    def data_type(self) -> DataType:
        return self.target

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        path = self.children[1]
        shown = path.value if isinstance(path, Literal) else path.sql()
        return f"{'try_' if self.try_mode else ''}variant_get({self.children[0].sql()}, {shown})"

    def check_input_types(self) -> None:
        _require_variant(self, self.children[0])
        require_foldable_path(self, self.children[1])
        _check_target(self, self.target)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..variant import format as vf  # noqa: PLC0415 - the variant package loads when used
        from ..variant.convert import variants_to  # noqa: PLC0415
        from ..variant.paths import follow  # noqa: PLC0415

        variants = _parts(self.children[0].eval(batch, ctx))
        steps = self._steps
        if steps is None:
            path = self.children[1].eval(batch, ctx)
            steps = self._parse(path[0].as_py() if len(path) else "$")
        found: list[Any] = []
        for pair in variants:
            if pair is None:
                found.append(None)
                continue
            keys = vf.metadata_keys(pair[1])
            at = follow(pair[0], keys, steps)
            found.append(None if at is None else (pair[0], keys, at))
        return variants_to(found, self.target, self.try_mode, ctx.time_zone)

    def _options(self) -> Any:
        return (self.target.simpleString(), self.try_mode)


class IsVariantNull(Expression):
    """``is_variant_null(v)``: true for a variant null only."""

    def __init__(self, child: Expression) -> None:
        self.children = (child,)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return IsVariantNull(children[0])

    def data_type(self) -> DataType:
        return BooleanType()

    @property
    def nullable(self) -> bool:
        return False

    def sql(self) -> str:
        return f"is_variant_null({self.children[0].sql()})"

    def check_input_types(self) -> None:
        _require_variant(self, self.children[0])

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return pa.array([p is not None and p[0][:1] == b"\x00" for p in _parts(self.children[0].eval(batch, ctx))],
                        pa.bool_())


class SchemaOfVariant(Expression):
    """``schema_of_variant(v)``: the SQL type of each variant (``OBJECT<a: BIGINT>``)."""

    def __init__(self, child: Expression) -> None:
        self.children = (child,)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return SchemaOfVariant(children[0])

    def data_type(self) -> DataType:
        return StringType()

    def sql(self) -> str:
        return f"schema_of_variant({self.children[0].sql()})"

    def check_input_types(self) -> None:
        _require_variant(self, self.children[0])

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..variant.schema import schema_of, type_text  # noqa: PLC0415 - the variant package loads when used

        return pa.array([None if p is None else type_text(schema_of(*p))
                         for p in _parts(self.children[0].eval(batch, ctx))], pa.string())


class SchemaOfVariantAgg(_ListBased):
    """``schema_of_variant_agg(v)``: the merged SQL type of a group's variants (``VOID`` for none)."""

    name = "schema_of_variant_agg"

    def check_input_types(self) -> None:
        _require_variant(self, self.children[0])

    def partial_input(self, j: int, values: pa.Array) -> pa.Array:
        from ..variant.schema import schema_of  # noqa: PLC0415 - the variant package loads when used

        # Each row's type tree, as text: equal trees collapse in the partial distinct.
        return pa.array([None if p is None else repr(schema_of(*p)) for p in _parts(values)], pa.string())

    def finish(self, buffers: list[pa.Array], ctx: EvalContext) -> pa.Array:
        import ast  # noqa: PLC0415 - only the finish reads the trees back

        from ..variant.schema import VOID, merge, type_text  # noqa: PLC0415

        groups, values = _flatten_groups(buffers[0])
        merged: list[Any] = [VOID] * len(buffers[0])
        for group, text in zip(groups.to_pylist(), values.to_pylist()):
            if text is not None:
                merged[group] = merge(merged[group], ast.literal_eval(text))
        return pa.array([type_text(t) for t in merged], pa.string())

    def data_type(self) -> DataType:
        return StringType()

    @property
    def nullable(self) -> bool:
        return False


class ToVariantObject(Expression):
    """``to_variant_object(x)``: a struct, string-keyed map or array of them as a variant."""

    def __init__(self, child: Expression) -> None:
        self.children = (child,)

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ToVariantObject(children[0])

    def data_type(self) -> DataType:
        return VariantType()

    def sql(self) -> str:
        return f"to_variant_object({self.children[0].sql()})"

    def check_input_types(self) -> None:
        dt = self.children[0].data_type()
        if not isinstance(dt, (StructType, MapType, ArrayType)) or not castable_to_variant(dt, objects=True):
            raise mismatch(self, "CAST_WITHOUT_SUGGESTION", f'cannot cast {quoted_type(dt)} to "VARIANT"')

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..variant.convert import variant_of_values  # noqa: PLC0415 - the variant package loads when used

        values = self.children[0].eval(batch, ctx)
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        return variant_of_values(values, self.children[0].data_type())


class VariantExplode(Generator):
    """``variant_explode(v)`` / ``variant_explode_outer(v)`` (see the module doc)."""

    def __init__(self, child: Expression, outer: bool = False) -> None:
        self.children = (child,)
        self.outer = outer

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return VariantExplode(children[0], self.outer)

    def sql(self) -> str:
        return f"variant_explode{'_outer' if self.outer else ''}({self.children[0].sql()})"

    def check_input_types(self) -> None:
        _require_variant(self, self.children[0])

    def output_fields(self) -> list[tuple[str, DataType, bool]]:
        return [("pos", IntegerType(), self.outer), ("key", StringType(), True), ("value", VariantType(), self.outer)]

    def generate(self, batch: pa.RecordBatch, ctx: EvalContext) -> tuple[pa.Array, list[pa.Array]]:
        from ..variant import format as vf  # noqa: PLC0415 - the variant package loads when used
        from ..variant.arrow import variant_array  # noqa: PLC0415

        parents: list[int] = []
        positions: list[int | None] = []
        keys: list[str | None] = []
        values: list[tuple[bytes, bytes] | None] = []
        for row, pair in enumerate(_parts(self.children[0].eval(batch, ctx))):
            found: list[tuple[str | None, int]] = []
            if pair is not None:
                value, metadata = pair
                basic, _ = vf.type_info(value, 0)
                if basic == vf.OBJECT:
                    names = vf.metadata_keys(metadata)
                    found = [(names[k], at) for k, at in vf.object_fields(value, 0)]
                elif basic == vf.ARRAY:
                    found = [(None, at) for at in vf.array_elements(value, 0)]
            for i, (key, at) in enumerate(found):
                parents.append(row)
                positions.append(i)
                keys.append(key)
                values.append((value[at:vf.value_end(value, at)], metadata))  # the input's metadata, as Spark
            if not found and self.outer:
                parents.append(row)
                positions.append(None)
                keys.append(None)
                values.append(None)
        return pa.array(parents, pa.int64()), [pa.array(positions, pa.int32()), pa.array(keys, pa.string()),
                                               variant_array(values)]

    def _options(self) -> Any:
        return self.outer
