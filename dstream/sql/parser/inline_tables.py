"""``VALUES (...), (...) [AS t(a, b)]``: an inline table, through the public DataFrame API.

What this module owns
---------------------
:func:`inline_table`: each row a one-row select over ``range(1)``, the rows unioned, so the
columns' types widen as ``UNION`` widens them (Spark's inline tables widen the same way).

Invariants
----------
* Every row has the first row's width, and the alias names as many columns: otherwise
  Spark's ``INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH``.
* The rows are unioned in pairs, a balanced tree, never a chain as long as the table: a
  chain of unions is as deep as it is long, and past a few hundred rows that deep a plan
  exceeds Python's recursion limit (the optimizer flattens the tree into one union).
"""

from __future__ import annotations

from typing import Any

from dstream.sql.errors import AnalysisException
from dstream.sql.parser.nodes import InlineTable

__all__ = ["inline_table"]


def inline_table(builder: Any, node: InlineTable) -> Any:
    """The DataFrame of ``node``; ``builder`` is the SQL builder (its session and expressions)."""
    width = len(node.rows[0])
    if any(len(row) != width for row in node.rows):
        raise AnalysisException(
            f"Every row of VALUES must have {width} values (as its first row has); a row has "
            f"{next(len(r) for r in node.rows if len(r) != width)}.", "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH",
            {"expectedNumCols": str(width)})
    names = list(node.columns) or [f"col{i + 1}" for i in range(width)]
    if len(names) != width:
        raise AnalysisException(
            f"VALUES has {width} columns but its alias names {len(names)} ({', '.join(names)}).",
            "INVALID_INLINE_TABLE.NUM_COLUMNS_MISMATCH", {"expectedNumCols": str(width)})
    frames = [builder.session.range(1).select(*[builder.column(e).alias(n) for e, n in zip(row, names)])
              for row in node.rows]
    while len(frames) > 1:
        frames = [frames[i].union(frames[i + 1]) if i + 1 < len(frames) else frames[i]
                  for i in range(0, len(frames), 2)]
    df = frames[0]
    return df.alias(node.alias) if node.alias else df
