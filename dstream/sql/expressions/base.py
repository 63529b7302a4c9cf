"""The expression tree: the nodes every Column wraps and every operator evaluates.

What this module owns
---------------------
The base class :class:`Expression` and the leaf and naming nodes every other
expression module builds on: :class:`AttributeReference` (a resolved column, known by
its *expression id*), :class:`UnresolvedAttribute` and :class:`UnresolvedStar` (names
a DataFrame call has not resolved yet), :class:`Literal`, :class:`Alias`, and the
:class:`EvalContext` an operator hands to :meth:`Expression.eval`.

Invariants
----------
* Expressions are immutable; rewriting one (:meth:`Expression.transform_up`) builds
  new nodes and shares unchanged subtrees.
* A resolved expression knows its Spark type (:meth:`Expression.data_type`) and its
  nullability without looking at data. Unresolved nodes raise if asked.
* Columns are matched by expression id, never by name: two columns called ``k`` on
  the two sides of a join stay distinct, and inside a running query each column of a
  record batch is named :func:`column_key` of its expression id.
* :meth:`Expression.eval` takes a ``pyarrow.RecordBatch`` whose columns are named by
  :func:`column_key` and returns a ``pyarrow.Array`` of the batch's length.
* :meth:`Expression.sql` is Spark's generated name (``(a + 1)``, ``CAST(a AS INT)``):
  it is the column name a DataFrame shows for an unaliased expression.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pyarrow as pa

from ..types import DataType, NullType

__all__ = [
    "Alias",
    "AttributeReference",
    "EvalContext",
    "Expression",
    "LeafExpression",
    "Literal",
    "UnresolvedAttribute",
    "UnresolvedStar",
    "column_key",
    "fold",
    "is_deterministic",
    "new_expr_id",
    "with_new_children",
]

_ids = itertools.count(1)
_ids_lock = threading.Lock()


def new_expr_id() -> int:
    """A fresh expression id (unique within this driver process)."""
    with _ids_lock:
        return next(_ids)


def with_new_children(expr: Any, children: Sequence[Any]) -> Any:
    """A shallow copy of ``expr`` over other children: for nodes whose options are plain attributes."""
    clone = object.__new__(type(expr))
    clone.__dict__.update(expr.__dict__)
    clone.children = tuple(children)
    return clone


def column_key(expr_id: int) -> str:
    """The name of the record-batch column holding attribute ``expr_id`` while a query runs."""
    return f"#{expr_id}"


@dataclass(frozen=True)
class EvalContext:
    """What evaluation needs besides the data: the session's settings at action time.

    Attributes
    ----------
    ansi : bool
        ``spark.sql.ansi.enabled``: overflow, division by zero and bad casts raise.
    time_zone : str
        ``spark.sql.session.timeZone``: the zone of wall-clock times.
    now_us : int
        ``current_timestamp()`` in microseconds since the epoch, fixed for the query.
    extras : dict
        Per-query values an expression node may need (broadcast lookups...).
    """

    ansi: bool = True
    time_zone: str = "UTC"
    now_us: int = 0
    extras: dict[str, Any] = field(default_factory=dict)


class Expression:
    """A node of the expression tree (Spark's ``Expression``).

    Subclasses set :attr:`children` and implement :meth:`data_type`, :meth:`sql` and,
    if they can be evaluated row-wise, :meth:`eval`.
    """

    children: tuple[Expression, ...] = ()
    #: Whether the same input always gives the same output (``rand()`` does not).
    deterministic: ClassVar[bool] = True

    # -- structure ----------------------------------------------------------------

    def with_children(self, children: Sequence[Expression]) -> Expression:
        """This node with other children (same kind, same options)."""
        if not children and not self.children:
            return self
        raise NotImplementedError(f"{type(self).__name__}.with_children")

    def transform_up(self, rule: Callable[[Expression], Expression | None]) -> Expression:
        """Rewrite bottom-up: ``rule`` returns a replacement or ``None`` to keep a node."""
        new_children = [c.transform_up(rule) for c in self.children]
        node = self
        if any(n is not o for n, o in zip(new_children, self.children)):
            node = self.with_children(new_children)
        replaced = rule(node)
        return node if replaced is None else replaced

    def transform_down(self, rule: Callable[[Expression], Expression | None]) -> Expression:
        """Rewrite top-down; a replaced node's new children are visited too."""
        replaced = rule(self)
        node = self if replaced is None else replaced
        new_children = [c.transform_down(rule) for c in node.children]
        if any(n is not o for n, o in zip(new_children, node.children)):
            node = node.with_children(new_children)
        return node

    def walk(self) -> Iterator[Expression]:
        """This node and all its descendants, parents first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def references(self) -> set[int]:
        """Expression ids of the attributes this expression reads."""
        return {e.expr_id for e in self.walk() if isinstance(e, AttributeReference)}

    # -- analysis -----------------------------------------------------------------

    @property
    def resolved(self) -> bool:
        """Whether every name below is bound to an attribute and the types check."""
        return all(c.resolved for c in self.children)

    @property
    def foldable(self) -> bool:
        """Whether the value is known without data (constant folding may evaluate it)."""
        return bool(self.children) and self.deterministic and all(c.foldable for c in self.children)

    def data_type(self) -> DataType:
        """The Spark type of the values (resolved expressions only)."""
        raise NotImplementedError(f"{type(self).__name__}.data_type")

    @property
    def nullable(self) -> bool:
        """Whether the value may be null."""
        return any(c.nullable for c in self.children)

    def sql(self) -> str:
        """Spark's text for this expression: the name of an unaliased column."""
        raise NotImplementedError(f"{type(self).__name__}.sql")

    def check_input_types(self) -> None:
        """Raise ``AnalysisException`` (``DATATYPE_MISMATCH``) if the children's types do not fit."""

    def coerce(self) -> Expression:
        """This node with implicit casts inserted so the children's types fit (Spark's type coercion)."""
        return self

    # -- evaluation ---------------------------------------------------------------

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        """The values for every row of ``batch``, as an array of ``len(batch)`` values."""
        raise NotImplementedError(f"{type(self).__name__} cannot be evaluated row by row")

    def semantic_key(self) -> Any:
        """A hashable value equal for semantically equal expressions (ids, not names)."""
        return (type(self).__name__, self._options(), tuple(c.semantic_key() for c in self.children))

    def _options(self) -> Any:
        """The non-child fields that distinguish two nodes of this kind."""
        return ()

    def __repr__(self) -> str:
        try:
            return self.sql()
        except NotImplementedError:
            return type(self).__name__


def is_deterministic(expr: Expression) -> bool:
    """Whether ``expr`` and everything in it give the same value for the same input (no ``rand()``,
    ``uuid()``, non-deterministic UDF...): what may be folded, moved, or aggregated."""
    return all(type(e).deterministic for e in expr.walk())


class LeafExpression(Expression):
    """An expression without children."""

    @property
    def foldable(self) -> bool:
        return False

    @property
    def nullable(self) -> bool:
        return True


class AttributeReference(LeafExpression):
    """A resolved column: name, type, nullability, and the expression id that identifies it.

    ``qualifier`` is the DataFrame alias (``df.alias("a")``) the column may be named
    through, as ``a.k``. ``metadata`` is the column's ``StructField.metadata`` (Spark's:
    kept by projections and renames, set by ``alias(metadata=...)``); it is never part of
    the column's identity.
    """

    def __init__(self, name: str, dtype: DataType, nullable: bool = True, expr_id: int | None = None,
                 qualifier: str | None = None, metadata: dict[str, Any] | None = None) -> None:
        self.name = name
        self.dtype = dtype
        self._nullable = nullable
        self.expr_id = new_expr_id() if expr_id is None else expr_id
        self.qualifier = qualifier
        self.metadata = metadata or {}

    def data_type(self) -> DataType:
        return self.dtype

    @property
    def nullable(self) -> bool:
        return self._nullable

    def sql(self) -> str:
        return self.name

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return batch.column(column_key(self.expr_id))

    def with_name(self, name: str) -> AttributeReference:
        """The same column under another name (same id)."""
        return AttributeReference(name, self.dtype, self._nullable, self.expr_id, self.qualifier, self.metadata)

    def with_qualifier(self, qualifier: str | None) -> AttributeReference:
        """The same column reachable through another DataFrame alias."""
        return AttributeReference(self.name, self.dtype, self._nullable, self.expr_id, qualifier, self.metadata)

    def with_nullability(self, nullable: bool) -> AttributeReference:
        """The same column, nullable or not (outer joins make a side nullable)."""
        return AttributeReference(self.name, self.dtype, nullable, self.expr_id, self.qualifier, self.metadata)

    def new_instance(self) -> AttributeReference:
        """A copy with a fresh id (one side of a self-join)."""
        return AttributeReference(self.name, self.dtype, self._nullable, None, self.qualifier, self.metadata)

    def semantic_key(self) -> Any:
        return ("attr", self.expr_id)

    def __repr__(self) -> str:
        return f"{self.name}#{self.expr_id}"


class UnresolvedAttribute(LeafExpression):
    """A column named by the user (``col("a")``, ``df.a``, ``"t.a"``), not yet bound.

    ``plan_id`` is set when the column came from a particular DataFrame (``df["a"]``,
    ``df.a``): the name then resolves only among that DataFrame's columns, which is
    how ``df1.k == df2.k`` picks a side in a join.
    """

    def __init__(self, parts: Sequence[str], plan_id: int | None = None) -> None:
        self.parts = tuple(parts)
        self.plan_id = plan_id

    @classmethod
    def quoted(cls, name: str, plan_id: int | None = None) -> UnresolvedAttribute:
        """Parse a column name string: dots separate parts, backquotes quote them."""
        return cls(split_name(name), plan_id)

    @property
    def resolved(self) -> bool:
        return False

    def data_type(self) -> DataType:
        raise NotImplementedError("an unresolved column has no type yet")

    def sql(self) -> str:
        return ".".join(self.parts)

    def _options(self) -> Any:
        return (self.parts, self.plan_id)


class UnresolvedStar(LeafExpression):
    """``*`` or ``t.*``: every column (of one alias), expanded by the analyzer."""

    def __init__(self, qualifier: str | None = None, plan_id: int | None = None, pattern: str | None = None,
                 columns: Sequence[AttributeReference] | None = None) -> None:
        self.qualifier = qualifier
        self.plan_id = plan_id
        #: ``colRegex``: only the columns whose whole name matches this regular expression.
        self.pattern = pattern
        #: ``df["*"]``: the columns of that DataFrame (by id), wherever the star is used.
        self.columns = None if columns is None else tuple(columns)

    @property
    def resolved(self) -> bool:
        return False

    def sql(self) -> str:
        if self.pattern is not None:
            return f"`{self.pattern}`"
        return f"{self.qualifier}.*" if self.qualifier else "*"


class Literal(LeafExpression):
    """A constant of a known Spark type (``lit(1)``, ``lit(None)``)."""

    def __init__(self, value: Any, dtype: DataType) -> None:
        self.value = value
        self.dtype = dtype

    @property
    def foldable(self) -> bool:
        return True

    @property
    def nullable(self) -> bool:
        return self.value is None

    def data_type(self) -> DataType:
        return self.dtype

    def sql(self) -> str:
        from ..formatting import format_value  # noqa: PLC0415 - leaf module, no cycle

        if self.value is None:
            return "NULL"
        # Spark's Literal.sql for these types names the type: DATE '2024-01-02', X'0A'.
        kind = self.dtype.typeName()
        if kind == "binary":
            return "X'" + bytes(self.value).hex().upper() + "'"
        text = format_value(self.value, self.dtype, "UTC")
        prefix = {"date": "DATE", "timestamp": "TIMESTAMP", "timestamp_ntz": "TIMESTAMP_NTZ"}.get(kind)
        return f"{prefix} '{text}'" if prefix else text

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return literal_array(self.value, self.dtype, batch.num_rows)

    def _options(self) -> Any:
        return (repr(self.value), self.dtype.simpleString())


def fold(expr: Expression, ctx: EvalContext | None = None) -> Any:
    """The Python value of a foldable expression (a literal, possibly cast)."""
    one_row = pa.RecordBatch.from_pydict({"#": pa.nulls(1)})
    return expr.eval(one_row, ctx or EvalContext())[0].as_py()


def literal_array(value: Any, dtype: DataType, length: int) -> pa.Array:
    """``length`` copies of a Python value as an Arrow array of ``dtype``."""
    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - keep the import light
    from ..execution.arrays import constant  # noqa: PLC0415 - the one "n copies" primitive

    return constant(length, None if isinstance(dtype, NullType) else value, to_arrow_type(dtype))


class Alias(Expression):
    """``expr.alias(name)``: names a computed column and gives it an expression id."""

    def __init__(self, child: Expression, name: str, expr_id: int | None = None,
                 metadata: dict[str, Any] | None = None) -> None:
        self.children = (child,)
        self.name = name
        self.expr_id = new_expr_id() if expr_id is None else expr_id
        self.metadata = metadata

    @property
    def child(self) -> Expression:
        return self.children[0]

    def with_children(self, children: Sequence[Expression]) -> Expression:
        return Alias(children[0], self.name, self.expr_id, self.metadata)

    def data_type(self) -> DataType:
        return self.child.data_type()

    @property
    def nullable(self) -> bool:
        return self.child.nullable

    def sql(self) -> str:
        return self.name

    def eval(self, batch: pa.RecordBatch, ctx: EvalContext) -> pa.Array:
        return self.child.eval(batch, ctx)

    def to_attribute(self) -> AttributeReference:
        """The column this alias produces, as downstream operators reference it.

        Its metadata is the alias's own, else (Spark's rule) that of the column it renames.
        """
        metadata = self.metadata
        if metadata is None and isinstance(self.child, AttributeReference | Alias):
            metadata = self.child.metadata if isinstance(self.child, AttributeReference) else \
                self.child.to_attribute().metadata
        return AttributeReference(self.name, self.data_type(), self.nullable, self.expr_id, metadata=metadata)

    def _options(self) -> Any:
        return (self.name,)


def split_name(name: str) -> tuple[str, ...]:
    """``"a.b"`` -> ``("a", "b")``; backquotes quote dots (```a.b``` is one part)."""
    parts: list[str] = []
    current: list[str] = []
    quoted = False
    i = 0
    while i < len(name):
        ch = name[i]
        if ch == "`":
            if quoted and i + 1 < len(name) and name[i + 1] == "`":
                current.append("`")
                i += 2
                continue
            quoted = not quoted
        elif ch == "." and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
        i += 1
    parts.append("".join(current))
    return tuple(parts)
