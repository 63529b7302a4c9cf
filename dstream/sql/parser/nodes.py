"""The syntax tree of Spark SQL expressions and of the SELECT subset.

What this module owns
---------------------
Small immutable dataclasses the parser produces and :mod:`dstream.sql.parser.build`
translates into public DataFrame API calls. The tree is syntax only: names are not
resolved and nothing is typed except literals, which carry Spark's type of the literal
text (``1`` int, ``1L`` bigint, ``1.5`` ``decimal(2,1)``...).

Invariants
----------
* Every node is frozen and hashable, and equal nodes mean the same expression text
  modulo case of keywords and function names (function names are stored lower-case) and
  white space: the query builder matches aggregates and GROUP BY keys by equality.
* Identifiers keep their case (Spark resolves them case-insensitively later).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Expr", "Literal", "Name", "Star", "Unary", "Binary", "Call", "Case", "Cast", "In", "Between",
    "Like", "IsNull", "IsBool", "DistinctFrom", "Subscript", "Field", "Alias", "Lambda", "Over", "SortItem",
    "Table", "SubqueryRef", "Join", "Select", "SetOp", "Relation", "Query", "TableSample", "Pivot",
    "TableArgument", "LateralFunction", "LateralSubquery", "NamedArgument", "ALL_OUTPUT_COLUMNS",
]


@dataclass(frozen=True)
class Literal:
    """A constant: ``value`` (Python int, Decimal, float, str, bool, bytes, None, or the text of
    a DATE/TIMESTAMP literal) and ``type_name``, Spark's simple type string (``int``,
    ``bigint``, ``decimal(2,1)``, ``double``, ``string``, ``void``, ``date``...)."""

    value: Any
    type_name: str


@dataclass(frozen=True)
class Name:
    """A column reference ``a``, ``t.a``, ``s.field``: the parts as written."""

    parts: tuple[str, ...]


@dataclass(frozen=True)
class Star:
    """``*`` or ``t.*`` (``qualifier`` the parts before the star)."""

    qualifier: tuple[str, ...] = ()


@dataclass(frozen=True)
class Unary:
    """A prefix operator: ``-``, ``+``, ``~`` or ``NOT``."""

    op: str
    operand: Expr


@dataclass(frozen=True)
class Binary:
    """An infix operator: arithmetic, ``DIV``, ``||``, bitwise, shifts, comparisons
    (``=`` for both ``=`` and ``==``, ``!=`` for both ``!=`` and ``<>``), ``<=>``, ``AND``, ``OR``."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class Call:
    """A function call ``name(args)`` (``name`` lower-case); ``count(*)`` has the one argument
    ``Star()``; ``distinct`` for ``f(DISTINCT x)``, ``ignore_nulls`` for ``f(x) IGNORE NULLS``,
    ``within_group`` for ``percentile_cont(0.5) WITHIN GROUP (ORDER BY v)``, ``filter`` for
    ``count(*) FILTER (WHERE cond)``."""

    name: str
    args: tuple[Expr, ...] = ()
    distinct: bool = False
    ignore_nulls: bool = False
    within_group: tuple[SortItem, ...] = ()  # f(...) WITHIN GROUP (ORDER BY ...)
    filter: Expr | None = None  # f(...) FILTER (WHERE cond): the rows the aggregate reads
    operator: bool = False  # written as an operator (a << b), which Spark names as written


@dataclass(frozen=True)
class Case:
    """``CASE [operand] WHEN .. THEN .. [ELSE ..] END``."""

    operand: Expr | None
    branches: tuple[tuple[Expr, Expr], ...]
    otherwise: Expr | None


@dataclass(frozen=True)
class Cast:
    """``CAST(x AS type)``, ``TRY_CAST(...)`` (``safe``) or ``x::type``; ``type_name`` is normalised
    DDL text (``int``, ``decimal(10,2)``, ``array<string>``)."""

    operand: Expr
    type_name: str
    safe: bool = False


@dataclass(frozen=True)
class In:
    """``x [NOT] IN (v, ...)``."""

    operand: Expr
    values: tuple[Expr, ...]
    negated: bool = False


@dataclass(frozen=True)
class Between:
    """``x [NOT] BETWEEN low AND high``."""

    operand: Expr
    low: Expr
    high: Expr
    negated: bool = False


@dataclass(frozen=True)
class Like:
    """``x [NOT] LIKE|ILIKE|RLIKE pattern [ESCAPE 'c']`` (``kind`` is the upper-case keyword;
    ``REGEXP`` is stored as ``RLIKE``)."""

    kind: str
    operand: Expr
    pattern: Expr
    negated: bool = False
    escape: str | None = None


@dataclass(frozen=True)
class IsNull:
    """``x IS [NOT] NULL``."""

    operand: Expr
    negated: bool = False


@dataclass(frozen=True)
class IsBool:
    """``x IS [NOT] TRUE|FALSE|UNKNOWN`` (``value`` None for UNKNOWN)."""

    operand: Expr
    value: bool | None
    negated: bool = False


@dataclass(frozen=True)
class DistinctFrom:
    """``a IS [NOT] DISTINCT FROM b``."""

    left: Expr
    right: Expr
    negated: bool = False


@dataclass(frozen=True)
class Subscript:
    """``x[index]``: an array element (0-based) or a map value."""

    operand: Expr
    index: Expr


@dataclass(frozen=True)
class Field:
    """``(expr).name``: a struct field of something that is not a plain name."""

    operand: Expr
    name: str


@dataclass(frozen=True)
class Alias:
    """``expr [AS] name`` or ``expr AS (n1, n2)``."""

    operand: Expr
    names: tuple[str, ...]


@dataclass(frozen=True)
class Lambda:
    """``x -> body`` or ``(x, y) -> body``, an argument of a higher-order function."""

    params: tuple[str, ...]
    body: Expr


@dataclass(frozen=True)
class SortItem:
    """An ORDER BY item; ``nulls_first`` None means Spark's default for the direction."""

    operand: Expr
    ascending: bool = True
    nulls_first: bool | None = None


#: ``ORDER BY ALL`` over ``SELECT *``: every output column, in order. The parser cannot count
#: a star's columns, so the builder expands this operand once the select's output is known.
ALL_OUTPUT_COLUMNS = Call("__all_output_columns")


@dataclass(frozen=True)
class Over:
    """``call OVER (PARTITION BY .. ORDER BY .. frame)``; ``frame`` is ``(kind, lower, upper)``
    (``"rows"``/``"range"``, bounds as offsets from the current row, ``None`` unbounded) or ``None``."""

    call: Call
    partition_by: tuple[Expr, ...] = ()
    order_by: tuple[SortItem, ...] = ()
    frame: tuple[str, int | datetime.timedelta | None, int | datetime.timedelta | None] | None = None
    window: str | None = None  # OVER w: a window of the query's WINDOW clause (its specification not in place)


@dataclass(frozen=True)
class Subquery:
    """``(SELECT ...)`` as a value (a scalar subquery); ``query`` is a :data:`Query`."""

    query: Any


@dataclass(frozen=True)
class InSubquery:
    """``x [NOT] IN (SELECT ...)``."""

    operand: Expr
    query: Any
    negated: bool = False


@dataclass(frozen=True)
class Exists:
    """``EXISTS (SELECT ...)``."""

    query: Any


Expr = (Literal | Name | Star | Unary | Binary | Call | Case | Cast | In | Between | Like | IsNull | IsBool
        | DistinctFrom | Subscript | Field | Alias | Lambda | Over | Subquery | InSubquery | Exists)


@dataclass(frozen=True)
class Table:
    """A table or temporary view by name, with an optional alias."""

    parts: tuple[str, ...]
    alias: str | None = None


@dataclass(frozen=True)
class SubqueryRef:
    """``(SELECT ...) [AS] alias`` in FROM."""

    query: Query
    alias: str | None = None


@dataclass(frozen=True)
class Join:
    """``left [how] JOIN right ON cond | USING (cols)``; ``how`` as DataFrame.join spells it
    (``inner``, ``left``, ``right``, ``full``, ``left_semi``, ``left_anti``, ``cross``)."""

    left: Relation
    right: Relation
    how: str
    condition: Expr | None = None
    using: tuple[str, ...] = ()
    natural: bool = False  # NATURAL JOIN: USING the columns both sides have


@dataclass(frozen=True)
class InlineTable:
    """``VALUES (a, b), (c, d) [AS] alias[(col, ...)]``: rows of expressions (``col1``... unless named)."""

    rows: tuple[tuple[Expr, ...], ...]
    alias: str | None = None
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableFunction:
    """``name(args) [AS] alias[(col, ...)]`` in FROM: ``range(10)``, or a generator (``explode(...)``)."""

    name: str
    args: tuple[Expr | TableArgument | NamedArgument, ...]
    alias: str | None = None
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableArgument:
    """``TABLE(t)`` / ``TABLE(query)`` passed to a table function, with ``PARTITION BY (e, ...)`` or
    ``WITH SINGLE PARTITION`` and ``ORDER BY`` items: the rows it gives the function, one at a time."""

    relation: Relation
    partition_by: tuple[Expr, ...] = ()
    single: bool = False
    order_by: tuple[SortItem, ...] = ()


@dataclass(frozen=True)
class NamedArgument:
    """``name => value``, an argument of a table function passed by name."""

    name: str
    value: Expr | TableArgument


@dataclass(frozen=True)
class LateralFunction:
    """``relation, LATERAL f(args) [AS] alias[(col, ...)]``: each row of ``relation`` followed by
    the rows the table function ``f`` makes from it (its arguments may name its columns)."""

    relation: Relation
    function: TableFunction


@dataclass(frozen=True)
class LateralSubquery:
    """``relation, LATERAL (SELECT ...) [AS] alias`` or ``relation [INNER|CROSS] JOIN LATERAL (...)
    alias [ON cond]``: each row of ``relation`` followed by the rows the subquery makes from it
    (its expressions may name ``relation``'s columns)."""

    relation: Relation
    subquery: SubqueryRef
    condition: Expr | None = None
    how: str = "inner"


@dataclass(frozen=True)
class LateralView:
    """``relation LATERAL VIEW [OUTER] generator(args) table [AS] col, ...``: each row joined with
    the rows its generator makes (``columns`` empty: the generator's own names)."""

    relation: Relation
    generator: Call
    outer: bool
    table: str
    columns: tuple[str, ...] = ()


@dataclass(frozen=True)
class TableSample:
    """``relation TABLESAMPLE (n PERCENT | n ROWS) [REPEATABLE (seed)]``: ``percent`` (0 to 100)
    or ``rows`` set."""

    relation: Relation
    percent: float | None = None
    rows: int | None = None
    seed: int | None = None


@dataclass(frozen=True)
class Pivot:
    """``relation PIVOT (agg [AS a], ... FOR column IN (value [AS v], ...))``: one column per
    value (and aggregate), grouped by the relation's other columns."""

    relation: Relation
    aggregates: tuple[Expr, ...]
    column: str
    values: tuple[Expr, ...]


Relation = (Table | SubqueryRef | Join | LateralView | LateralSubquery | InlineTable | TableFunction | TableSample
            | Pivot | LateralFunction)


@dataclass(frozen=True)
class Select:
    """One SELECT block of the supported subset."""

    items: tuple[Expr, ...]
    relation: Relation | None = None
    distinct: bool = False
    where: Expr | None = None
    group_by: tuple[Expr, ...] = ()
    having: Expr | None = None
    order_by: tuple[SortItem, ...] = ()
    limit: int | None = None
    windows: tuple[tuple[str, Over], ...] = ()  # WINDOW name AS (spec): the spec as an Over of no call
    offset: int | None = None  # OFFSET n: the rows skipped before LIMIT counts


@dataclass(frozen=True)
class SetOp:
    """``left UNION|INTERSECT|EXCEPT [ALL|DISTINCT] right`` (``op`` ``union``, ``intersect`` or
    ``except``), with the ORDER BY and LIMIT that follow the last block applying to the whole
    result."""

    op: str
    left: Query
    right: Query
    distinct: bool = True
    order_by: tuple[SortItem, ...] = ()
    limit: int | None = None
    offset: int | None = None


@dataclass(frozen=True)
class With:
    """``WITH name [(col, ...)] AS (query), ... body``: named queries the body (and each later
    one) may read as tables."""

    ctes: tuple[tuple[str, tuple[str, ...], Select | SetOp], ...]
    body: Select | SetOp


Query = Select | SetOp | With
