"""``spark.read.json(rdd)``, ``.csv(rdd)`` and ``.xml(rdd)``: DataFrames parsed from an RDD of strings.

What this module owns
---------------------
:func:`read_string_rdd`: the reader entry points PySpark offers over an RDD of strings
(JSON records, CSV lines, XML records), with the file readers' options, inference and corrupt-record
handling. The strings stay in the engine: inference runs one job whose tasks each infer
their partition (the driver merges the partial schemas), and the rows are parsed in the
tasks of the DataFrame's own plan, one partition of the RDD per partition of the DataFrame.

Invariants
----------
* Each JSON string is one record, whatever line breaks it holds; blank strings are skipped.
* Each XML string is one record: the element it holds is the row, whatever its tag.
* Each CSV string is one line. With ``header``, the first non-blank, non-comment line names
  the columns and every line equal to it is dropped (Spark's rule for a Dataset of lines,
  not only the first line of each partition).
* An element that is not a ``str`` is read as ``str(element)``, as PySpark encodes it.
* ``multiLine``, ``encoding`` and ``lineSep`` describe files; over strings they do not apply.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from .arrow_convert import from_arrow_schema, to_arrow_schema
from .expressions.base import column_key
from .io.csvfmt import CsvFormat, CsvOptions
from .io.files import option_bool
from .io.jsonfmt import JsonFormat, merge_json_types, records_of_texts
from .io.strconv import merge_types
from .io.xml_infer import infer_records, merge_xml_types
from .io.xml_records import XmlOptions
from .io.xmlfmt import records_of_strings, xml_inferred_schema, xml_rows
from .local_data import attributes_of
from .plan.arrow_rdd import ArrowRDDRelation
from .types import StructType

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .session import SparkSession

__all__ = ["read_string_rdd"]

# Options about files and their bytes: over decoded strings, one per record, they mean nothing.
_FILE_ONLY = frozenset({"multiline", "encoding", "charset", "linesep"})


def _texts(items: Iterable[Any]) -> Iterator[str]:
    for item in items:
        yield item if isinstance(item, str) else str(item)


def _named(keys: list[str], batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        yield pa.RecordBatch.from_arrays(batch.columns, names=keys)


# --------------------------------------------------------------------------- JSON (in tasks)
def _json_infer(options: Mapping[str, str], items: Iterable[Any]) -> Iterator[tuple[pa.DataType, bool]]:
    yield JsonFormat().infer_records(records_of_texts(_texts(items)), options)


def _json_read(schema: pa.Schema, options: Mapping[str, str], keys: list[str],
               items: Iterable[Any]) -> Iterator[pa.RecordBatch]:
    texts = list(_texts(items))
    fmt = JsonFormat()
    if all(len(t.splitlines()) <= 1 for t in texts):
        # One line per record: JSON Lines, which pyarrow parses in one go when the types allow.
        yield from _named(keys, fmt.read_bytes("\n".join(texts).encode("utf-8"), schema, options))
    else:
        yield from _named(keys, fmt.read_records(records_of_texts(texts), schema, options))


# --------------------------------------------------------------------------- CSV (in tasks)
def _csv_lines(options: Mapping[str, str], header_line: str | None, items: Iterable[Any]) -> Iterator[str]:
    """The lines that are records: no blank or comment line, no copy of the header line."""
    comment = CsvOptions.of(options).comment
    for line in _texts(items):
        if not line.strip() or (comment and line.startswith(comment)) or line == header_line:
            continue
        yield line


def _csv_infer(options: Mapping[str, str], header_line: str | None, width: int,
               items: Iterable[Any]) -> Iterator[list[pa.DataType]]:
    data = "\n".join(_csv_lines(options, header_line, items)).encode("utf-8")
    yield CsvFormat().infer_types(data, width, False, options)


def _csv_read(schema: pa.Schema, options: Mapping[str, str], header_line: str | None, keys: list[str],
              items: Iterable[Any]) -> Iterator[pa.RecordBatch]:
    data = "\n".join(_csv_lines(options, header_line, items)).encode("utf-8")
    yield from _named(keys, CsvFormat().read_bytes(data, schema, options, False))


# --------------------------------------------------------------------------- XML (in tasks)
def _xml_infer(options: Mapping[str, str], items: Iterable[Any]) -> Iterator[tuple[pa.DataType, bool]]:
    opts = XmlOptions.of(options)
    yield infer_records(records_of_strings(_texts(items), opts), opts)


def _xml_read(schema: pa.Schema, options: Mapping[str, str], keys: list[str],
              items: Iterable[Any]) -> Iterator[pa.RecordBatch]:
    opts = XmlOptions.of(options)
    rows = xml_rows(records_of_strings(_texts(items), opts), schema, opts)
    yield from _named(keys, [pa.RecordBatch.from_pylist(rows, schema=schema)])


def _xml_schema(rdd: Any, options: Mapping[str, str]) -> pa.Schema:
    opts = XmlOptions.of(options)
    merged: pa.DataType = pa.struct([])
    corrupt = False
    for found, bad in rdd.mapPartitions(functools.partial(_xml_infer, options)).collect():
        merged, corrupt = merge_xml_types(merged, found, opts.value_tag), corrupt or bad
    return xml_inferred_schema(merged, corrupt, opts)


# --------------------------------------------------------------------------- driver
def _json_schema(rdd: Any, options: Mapping[str, str]) -> pa.Schema:
    merged: pa.DataType = pa.struct([])
    corrupt = False
    for found, bad in rdd.mapPartitions(functools.partial(_json_infer, options)).collect():
        merged, corrupt = merge_json_types(merged, found), corrupt or bad
    return JsonFormat().inferred_schema(merged, corrupt, options)


def _csv_schema(rdd: Any, options: Mapping[str, str], first: str | None) -> pa.Schema:
    if first is None:
        return pa.schema([])
    names = CsvFormat.header_names(first, options)
    if not option_bool(options, "inferSchema"):
        return pa.schema([pa.field(n, pa.string()) for n in names])
    types: list[pa.DataType] = [pa.null()] * len(names)
    header_line = first if CsvOptions.of(options).header else None
    for found in rdd.mapPartitions(functools.partial(_csv_infer, options, header_line, len(names))).collect():
        types = [merge_types(t, u) for t, u in zip(types, found)]
    return CsvFormat.inferred_schema(names, types)


def read_string_rdd(session: SparkSession, fmt: str, rdd: Any, schema: StructType | None,
                    options: Mapping[str, str]) -> DataFrame:
    """The DataFrame ``spark.read.json(rdd)`` / ``spark.read.csv(rdd)`` returns.

    Parameters
    ----------
    session : SparkSession
        The reading session.
    fmt : str
        ``"json"`` (each string one JSON record), ``"csv"`` (each string one line) or ``"xml"``
        (each string one XML record).
    rdd : RDD
        The strings.
    schema : StructType or None
        The user's schema; ``None`` infers one with a job over ``rdd``.
    options : mapping
        The reader's options (lower-case keys, string values).
    """
    opts = {k: v for k, v in options.items() if k not in _FILE_ONLY}
    opts.setdefault("timezone", session.conf.time_zone())
    header_line: str | None = None
    if fmt == "csv":
        header = CsvOptions.of(opts).header
        # The first line names the columns (or counts them); a job reads only as far as it.
        first = rdd.mapPartitions(functools.partial(_csv_lines, opts, None)).take(1) if header or schema is None else []
        header_line = first[0] if first and header else None
        arrow = _csv_schema(rdd, opts, first[0] if first else None) if schema is None else to_arrow_schema(schema)
    elif fmt == "xml":
        arrow = _xml_schema(rdd, opts) if schema is None else to_arrow_schema(schema)
    else:
        arrow = _json_schema(rdd, opts) if schema is None else to_arrow_schema(schema)
    struct = from_arrow_schema(arrow) if schema is None else schema
    attrs = attributes_of(struct)
    keys = [column_key(a.expr_id) for a in attrs]
    read = (functools.partial(_csv_read, arrow, opts, header_line, keys) if fmt == "csv"
            else functools.partial(_xml_read, arrow, opts, keys) if fmt == "xml"
            else functools.partial(_json_read, arrow, opts, keys))
    return session._new_dataframe(ArrowRDDRelation(attrs, rdd.mapPartitions(read), "LogicalRDD"))
