"""The text source: one ``value`` string row per line, or per file with ``wholetext``.

What this module owns
---------------------
:class:`TextFormat`: lines end at ``\\n``, ``\\r\\n`` or ``\\r`` (or exactly ``lineSep``);
the final line terminator makes no empty row; bytes that are not UTF-8 read as U+FFFD.

Invariants
----------
* The schema is always ``value string``; splitting into byte ranges is allowed unless
  ``wholetext`` or a ``lineSep`` other than ``\\n`` is set.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from dstream.sql.io.base import FileFormat, Filter
from dstream.sql.io.files import FileSplit, option, option_bool, read_line_range

__all__ = ["TextFormat", "split_lines"]


def split_lines(data: bytes, line_sep: str | None = None) -> pa.Array:
    """The lines of ``data`` as a string array (no row for the text after the last terminator if empty)."""
    if not data:
        return pa.array([], pa.string())
    if not line_sep and b"\r" in data:
        # Spark's default separators are \n, \r\n and \r: make them all \n, then split on a
        # literal (a regex split of a whole file is several times slower).
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    sep = line_sep or "\n"
    try:
        # Arrow validates the UTF-8 in C; building the array from a decoded str would
        # encode the whole text again, one Python object at a time.
        whole = pa.array([data], pa.binary()).cast(pa.string())
    except pa.ArrowInvalid:
        whole = pa.array([data.decode("utf-8", errors="replace")], pa.string())
    lines = pc.split_pattern(whole, sep)
    ends = data.endswith(sep.encode("utf-8"))
    flat = lines.flatten()
    return flat.slice(0, len(flat) - 1) if ends else flat


class TextFormat(FileFormat):
    """Plain text (``spark.read.text``): a ``value`` column."""

    name = "text"
    title = "Text"
    extension = "txt"

    def splittable_with(self, options: Mapping[str, Any]) -> bool:
        """Whole-text reads and custom separators read each file in one split."""
        return not option_bool(options, "wholetext") and option(options, "lineSep") in (None, "\n")

    def _infer_data_schema(self, files: Sequence[str], options: Mapping[str, Any]) -> pa.Schema:
        return pa.schema([pa.field("value", pa.string())])

    def _read_data(self, split: FileSplit, schema: pa.Schema, columns: Sequence[str], options: Mapping[str, Any],
                   filters: Sequence[Filter] | None) -> Iterator[pa.RecordBatch]:
        data = read_line_range(split)
        if option_bool(options, "wholetext"):
            values = pa.array([data.decode("utf-8", errors="replace")], pa.string())
        else:
            values = split_lines(data, option(options, "lineSep"))
        arrays = [values if f.name == "value" else pa.nulls(len(values), f.type) for f in schema]
        yield pa.RecordBatch.from_arrays([a.cast(f.type) for a, f in zip(arrays, schema)], schema=schema)
