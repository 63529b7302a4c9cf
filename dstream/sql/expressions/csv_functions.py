"""``from_csv``, ``to_csv`` and ``schema_of_csv``: one CSV record in a string column.

What this module owns
---------------------
:class:`FromCsv`, :class:`ToCsv` and :func:`csv_schema_text`, on the CSV reader's and
writer's own rules (``io.csvfmt``, ``io.strconv``, ``io.writer``), so a record reads and
writes here as it does in a CSV file, with the same options (``sep``, ``quote``,
``escape``, ``nullValue``, ``timestampFormat``...).

Invariants
----------
* ``from_csv`` parses each value as one record of ``schema``'s fields: a field that does
  not parse, or is missing, is null (PERMISSIVE, the default; extra fields are ignored);
  ``mode`` FAILFAST raises on the first malformed record; a null value gives null.
* ``to_csv`` writes a struct as one line (no header): fields as the CSV writer writes
  them, quoted only where needed, a null field empty.
* ``schema_of_csv`` infers a literal record's field types as the reader infers a file's,
  fields named ``_c0``, ``_c1``...: Spark's DDL, ``STRUCT<_c0: INT, _c1: STRING>``.
* What ``to_csv`` writes, ``from_csv`` reads back, except an empty string (written ``""``,
  read as null) and a field's surrounding spaces (the reader trims them).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from ..types import DataType, StringType, StructType
from .base import EvalContext, Expression
from .cast import cast_to
from .interval_cast import intervals_as_text, intervals_from_text, text_type

__all__ = ["FromCsv", "ToCsv", "csv_schema_text"]


def _tokens(value: str, opts: Any) -> list[str | None]:
    """One record's fields, split as the CSV reader splits a line (null where the nullValue)."""
    from ..io.csvfmt import split_record  # noqa: PLC0415 - the io package loads when used

    if opts.quote != "\0" and opts.escape not in ("\0", opts.quote):
        fields = split_record(value, opts)
    else:
        reader = csv.reader([value], delimiter=opts.sep, quotechar=opts.quote if opts.quote != "\0" else None,
                            doublequote=True)
        fields = list(next(reader, []))
    return [None if f == opts.null_value else f for f in fields]


class FromCsv(Expression):
    """``from_csv(s, schema, options)`` (see the module doc)."""

    def __init__(self, child: Expression, schema: StructType, options: dict[str, str] | None = None) -> None:
        self.children = (child,)
        self.schema = schema
        self.options = dict(options or {})

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return FromCsv(children[0], self.schema, self.options)

    def data_type(self) -> DataType:
        return self.schema

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"from_csv({self.children[0].sql()})"

    def coerce(self) -> Expression:
        child = cast_to(self.children[0], StringType())
        return self if child is self.children[0] else FromCsv(child, self.schema, self.options)

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only
        from ..io.csvfmt import CsvOptions, malformed_error  # noqa: PLC0415 - the io package loads when used
        from ..io.strconv import parse_column  # noqa: PLC0415

        opts = CsvOptions.of({"timeZone": ctx.time_zone, **self.options})
        values = self.children[0].eval(batch, ctx)
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        texts = values.to_pylist()
        fields = [pa.field(f.name, to_arrow_type(text_type(f.dataType))) for f in self.schema.fields]
        rows = [[] if t is None else _tokens(t, opts) for t in texts]
        short = [t is not None and len(r) < len(fields) for t, r in zip(texts, rows)]
        arrays, bad = [], pa.array(short, pa.bool_())
        for i, fld in enumerate(fields):
            strings = pa.array([r[i] if i < len(r) else None for r in rows], pa.string())
            array, failed = parse_column(strings, fld.type, opts.parse)
            arrays.append(array.cast(fld.type))
            if failed is not None:
                bad = pc.or_(bad, pc.fill_null(failed, False))
        if opts.mode == "FAILFAST" and pc.any(bad).as_py():
            raise malformed_error(texts[pc.index(bad, True).as_py()] or "")
        struct = pa.StructArray.from_arrays(arrays, fields=fields) if fields else pa.nulls(len(texts), pa.struct([]))
        struct = intervals_from_text(struct, self.schema)  # an interval's text as the schema's interval
        return pc.if_else(values.is_null(), pa.scalar(None, struct.type), struct)

    def _options(self) -> Any:
        return (self.schema.simpleString(), tuple(sorted(self.options.items())))


class ToCsv(Expression):
    """``to_csv(struct, options)`` (see the module doc)."""

    def __init__(self, child: Expression, options: dict[str, str] | None = None) -> None:
        self.children = (child,)
        self.options = dict(options or {})

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return ToCsv(children[0], self.options)

    def data_type(self) -> DataType:
        return StringType()

    @property
    def nullable(self) -> bool:
        return True

    def sql(self) -> str:
        return f"to_csv({self.children[0].sql()})"

    def check_input_types(self) -> None:
        from .checks import mismatch, quoted_type  # noqa: PLC0415 - light import

        dt = self.children[0].data_type()
        if not isinstance(dt, StructType):
            raise mismatch(self, "UNEXPECTED_INPUT_TYPE", f'the parameter requires the "STRUCT" type, however '
                           f'"{self.children[0].sql()}" has the type {quoted_type(dt)}')

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        from ..io.writer import csv_lines  # noqa: PLC0415 - the io package loads when used

        structs, _ = intervals_as_text(self.children[0].eval(batch, ctx), self.children[0].data_type())
        names = [structs.type.field(i).name for i in range(structs.type.num_fields)]
        table = pa.Table.from_arrays(structs.flatten(), names=names)
        lines = csv_lines(table, {"timeZone": ctx.time_zone, **self.options})
        return pc.if_else(structs.is_null(), pa.scalar(None, pa.string()), pa.array(lines, pa.string()))

    def _options(self) -> Any:
        return tuple(sorted(self.options.items()))


def csv_schema_text(record: str, options: dict[str, str] | None = None) -> str:
    """``schema_of_csv(record)``: the DDL of the record's inferred field types (``_c0``...)."""
    from ..arrow_convert import from_arrow_type  # noqa: PLC0415 - light import
    from ..io.csvfmt import CsvOptions  # noqa: PLC0415 - the io package loads when used
    from ..io.strconv import infer_column  # noqa: PLC0415

    opts = CsvOptions.of(dict(options or {}))
    fields = _tokens(record, opts)
    parts = []
    for i, text in enumerate(fields):
        inferred = infer_column(pa.array([text], pa.string()), opts.parse)
        dt = StringType() if pa.types.is_null(inferred) else from_arrow_type(inferred)
        parts.append(f"_c{i}: {dt.simpleString().upper()}")
    return f"STRUCT<{', '.join(parts)}>"
