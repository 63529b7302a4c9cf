"""The text ``DataFrame.show()`` prints: Spark's ``showString``, table and vertical layouts.

What this module owns
---------------------
``show_string(rows, schema, n, truncate, vertical, time_zone)`` turns up to ``n + 1``
collected rows into exactly the string Spark's ``Dataset.showString`` builds; PySpark's
``show()`` hands that string to ``print()``, which adds the newline that leaves a blank
line after the table. PySpark 4 prints no blank line after the ``only showing top n
rows`` footer: the footer is the string's last line, without a newline of its own.

Rules reproduced
----------------
* Cells are ``formatting.format_value`` strings with ``\\n \\r \\t \\f \\b \\v \\a`` escaped
  as two characters (header names too, so a cell never breaks the grid).
* ``truncate > 0``: a cell longer than ``truncate`` characters keeps its first
  ``truncate - 3`` plus ``...`` (only its first ``truncate`` when ``truncate < 4``); cells
  are right-aligned. ``truncate == 0``: no truncation, left-aligned. Header names are never
  truncated.
* Column width is the widest cell or header in display width, at least 3. A character is
  two columns wide when it is East Asian Wide or Fullwidth, or outside the Basic
  Multilingual Plane (Spark counts Java ``char``s, two for those).
* Vertical: ``-RECORD i`` lines padded with ``-`` to ``name width + value width + 5``, then
  `` name | value `` lines, both sides left-aligned; no rows prints ``(0 rows)``.
* More rows than ``n``: footer ``only showing top n rows`` (``row`` when n is 1).

Invariants
----------
Pure: depends only on its arguments; the returned string ends with ``\\n`` unless it
ends with the footer.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Any

from dstream.sql.formatting import format_value
from dstream.sql.types import StructType

__all__ = ["show_string", "display_width", "escape_meta_characters"]

_MIN_COLUMN_WIDTH = 3

_META_ESCAPES = str.maketrans(
    {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\f": "\\f", "\b": "\\b", "\v": "\\v", "\a": "\\a"}
)


def escape_meta_characters(text: str) -> str:
    """Spark's ``escapeMetaCharacters``: control characters that would break the grid become ``\\n`` etc."""
    return text.translate(_META_ESCAPES)


def _char_width(ch: str) -> int:
    if ord(ch) > 0xFFFF or unicodedata.east_asian_width(ch) in ("W", "F"):
        return 2
    return 1


def display_width(text: str) -> int:
    """Columns ``text`` takes in Spark's layout (East Asian wide/fullwidth characters count two).

    Parameters
    ----------
    text : str
        One cell, already escaped.

    Returns
    -------
    int
        The width Spark pads against.
    """
    if text.isascii():
        return len(text)
    return sum(_char_width(ch) for ch in text)


def _truncate_cell(text: str, truncate: int) -> str:
    if 0 < truncate < len(text):
        # Spark shows no ellipsis when there is no room for one plus a character.
        if truncate < 4:
            return text[:truncate]
        return text[: truncate - 3] + "..."
    return text


def _pad(text: str, width: int, left: bool, fill: str = " ") -> str:
    padding = fill * (width - display_width(text))
    return padding + text if left else text + padding


def _table(header: list[str], body: list[list[str]], truncate: int) -> list[str]:
    widths = [_MIN_COLUMN_WIDTH] * len(header)
    for row in [header, *body]:
        for i, cell in enumerate(row):
            widths[i] = max(widths[i], display_width(cell))
    right_aligned = truncate > 0
    sep = "+" + "+".join("-" * w for w in widths) + "+\n"

    def line(row: list[str]) -> str:
        return "|" + "|".join(_pad(cell, widths[i], right_aligned) for i, cell in enumerate(row)) + "|\n"

    return [sep, line(header), sep, *(line(row) for row in body), sep]


def _vertical(header: list[str], body: list[list[str]]) -> list[str]:
    name_width = max([_MIN_COLUMN_WIDTH, *(display_width(name) for name in header)])
    value_width = max([_MIN_COLUMN_WIDTH, *(display_width(cell) for row in body for cell in row)])
    out: list[str] = []
    for i, row in enumerate(body):
        out.append(_pad(f"-RECORD {i}", name_width + value_width + 5, False, "-") + "\n")
        lines = (
            f" {_pad(name, name_width, False)} | {_pad(cell, value_width, False)} " for name, cell in zip(header, row)
        )
        out.append("\n".join(lines) + "\n")
    return out


def show_string(
    rows: Sequence[Sequence[Any]],
    schema: StructType,
    n: int = 20,
    truncate: int = 20,
    vertical: bool = False,
    time_zone: str = "UTC",
) -> str:
    """Spark's ``showString``: what ``df.show(n, truncate, vertical)`` prints, minus print's own newline.

    Parameters
    ----------
    rows : sequence of tuples
        The first ``n + 1`` rows of the DataFrame (fewer if it has fewer), values as
        ``arrow_to_rows`` gives them; the extra row only tells that more rows exist.
    schema : StructType
        The DataFrame's schema: field names head the columns, field types format the cells.
    n : int
        Rows to show (negative counts as 0).
    truncate : int
        Longest cell shown in full; 0 shows everything left-aligned. ``True``/``False`` mean
        20/0 as in ``DataFrame.show``.
    vertical : bool
        One ``-RECORD i`` block per row instead of a table.
    time_zone : str
        The session time zone (for aware timestamps).

    Returns
    -------
    str
        The layout, ending with ``\\n`` (but not after the footer); ``DataFrame.show``
        passes it to ``print``.
    """
    if isinstance(truncate, bool):
        truncate = 20 if truncate else 0
    n = max(n, 0)
    fields = schema.fields
    has_more = len(rows) > n
    header = [escape_meta_characters(f.name) for f in fields]
    body = [
        [
            _truncate_cell(escape_meta_characters(format_value(value, f.dataType, time_zone)), truncate)
            for value, f in zip(row, fields)
        ]
        for row in rows[:n]
    ]
    parts = _vertical(header, body) if vertical else _table(header, body, truncate)
    if vertical and not body:
        parts.append("(0 rows)\n")
    elif has_more:
        parts.append(f"only showing top {n} {'row' if n == 1 else 'rows'}")
    return "".join(parts)
