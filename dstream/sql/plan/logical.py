"""The logical plan: what a DataFrame computes, as a tree of relational operators.

What this module owns
---------------------
One class per relational operator (Spark's ``LogicalPlan`` nodes): the leaves that
produce data (:class:`LocalRelation`, :class:`RangeRelation`, :class:`RDDRelation`,
:class:`FileRelation`) and the operators above them (:class:`Project`,
:class:`Filter`, :class:`Aggregate`, :class:`Join`, :class:`Sort`, :class:`Limit`,
:class:`Union`, :class:`Deduplicate`, :class:`Generate`, :class:`SubqueryAlias`,
:class:`Repartition`, :class:`Sample`). A DataFrame is a session and one of these
trees.

Invariants
----------
* Plans are immutable and hold *resolved* expressions only: the DataFrame methods
  resolve names before they build a node, so a bad column fails at definition.
* :meth:`LogicalPlan.output` lists the attributes a node produces, in order; every
  attribute has an expression id unique to the column it names, so rewrites (the
  optimizer) can move expressions between nodes without renaming anything.
* ``describe()`` is the node's line in ``explain()``'s tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..expressions.base import Alias, AttributeReference, Expression
from ..variant.casting import contains_variant, set_operation_error

__all__ = [
    "Aggregate",
    "Deduplicate",
    "FileRelation",
    "Filter",
    "Generate",
    "Join",
    "Limit",
    "LocalRelation",
    "LogicalPlan",
    "Project",
    "RDDRelation",
    "RangeRelation",
    "Repartition",
    "Sample",
    "Sort",
    "SubqueryAlias",
    "Union",
    "named_output",
]


def named_output(expr: Expression) -> AttributeReference:
    """The attribute a projected expression produces (an alias's, or the column itself)."""
    if isinstance(expr, AttributeReference):
        return expr
    if isinstance(expr, Alias):
        return expr.to_attribute()
    raise TypeError(f"not a named expression: {expr!r}")


def _exprs_text(exprs: Sequence[Expression]) -> str:
    return ", ".join(_expr_text(e) for e in exprs)


def _expr_text(expr: Expression) -> str:
    if isinstance(expr, AttributeReference):
        return repr(expr)
    if isinstance(expr, Alias):
        return f"{_expr_text(expr.child)} AS {expr.name}#{expr.expr_id}"
    text = repr(expr)
    return text


class LogicalPlan:
    """A relational operator. Subclasses set ``children`` and implement :meth:`output`."""

    children: tuple[LogicalPlan, ...] = ()
    #: Structured Streaming marks the plans of streaming DataFrames.
    is_streaming: bool = False
    #: A unary node whose output is its child's rows and columns (a marker or a measure):
    #: the optimizer prunes columns through it as through a filter.
    passes_rows_through: bool = False
    #: A node whose rows come from a stream (an unstarted streaming relation, or the rows
    #: a micro-batch read from its source).
    stream_input: bool = False

    def filter_barrier(self) -> frozenset[int] | None:
        """The columns (ids) a filter may not read to be pushed below this unary node;
        ``None``: filters stay above it."""
        return None

    def output(self) -> list[AttributeReference]:
        """The columns this node produces, in order."""
        raise NotImplementedError

    def expressions(self) -> list[Expression]:
        """The expressions held by this node (not its children's)."""
        return []

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        """This node over other children."""
        if not children and not self.children:
            return self
        raise NotImplementedError(f"{type(self).__name__}.with_children")

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        """This node with each of its expressions replaced by ``fn(expr)``."""
        return self

    def transform_up(self, rule: Callable[[LogicalPlan], LogicalPlan | None]) -> LogicalPlan:
        """Rewrite bottom-up: ``rule`` returns a replacement or ``None`` to keep a node."""
        new_children = [c.transform_up(rule) for c in self.children]
        node = self
        if any(n is not o for n, o in zip(new_children, self.children)):
            node = self.with_children(new_children)
        replaced = rule(node)
        return node if replaced is None else replaced

    def walk(self) -> Iterator[LogicalPlan]:
        """This node and every node below, parents first."""
        yield self
        for child in self.children:
            yield from child.walk()

    def describe(self) -> str:
        """The node's line in ``explain()``."""
        return type(self).__name__

    def tree_string(self) -> str:
        """The plan as Spark prints it: one node a line, children indented under ``+-``."""
        lines: list[str] = []
        self._tree_lines(lines, "", "")
        return "\n".join(lines)

    def _tree_lines(self, lines: list[str], first: str, rest: str) -> None:
        lines.append(first + self.describe())
        for i, child in enumerate(self.children):
            last = i == len(self.children) - 1
            child._tree_lines(lines, rest + ("+- " if last else ":- "), rest + ("   " if last else ":  "))

    @property
    def child(self) -> LogicalPlan:
        return self.children[0]


class LeafPlan(LogicalPlan):
    """A node that produces data: no children."""

    def __init__(self, output: Sequence[AttributeReference]) -> None:
        self._output = list(output)

    def output(self) -> list[AttributeReference]:
        return list(self._output)


class LocalRelation(LeafPlan):
    """Rows held on the driver as one Arrow table (``createDataFrame`` of a list).

    ``table``'s columns are named by the expression ids of ``output``.
    """

    def __init__(self, output: Sequence[AttributeReference], table: Any) -> None:
        super().__init__(output)
        self.table = table

    def describe(self) -> str:
        return f"LocalRelation [{_exprs_text(self._output)}]"


class RangeRelation(LeafPlan):
    """``spark.range(start, end, step, numPartitions)``: one ``id`` bigint column."""

    def __init__(self, output: Sequence[AttributeReference], start: int, end: int, step: int,
                 num_slices: int | None) -> None:
        super().__init__(output)
        self.start, self.end, self.step, self.num_slices = start, end, step, num_slices

    def describe(self) -> str:
        return f"Range ({self.start}, {self.end}, step={self.step}, splits={self.num_slices})"


class RDDRelation(LeafPlan):
    """An RDD of rows (``createDataFrame(rdd)``), converted to Arrow batches once per partition."""

    def __init__(self, output: Sequence[AttributeReference], rdd: Any, schema: Any) -> None:
        super().__init__(output)
        self.rdd = rdd
        self.schema = schema

    def describe(self) -> str:
        return f"LogicalRDD [{_exprs_text(self._output)}], false"


class FileRelation(LeafPlan):
    """Files read through a format (``spark.read.csv(...)``).

    ``pushed_filters`` (the reader's filter language) and ``required`` (the expression
    ids of the columns to read, ``None`` for all) are filled in by the optimizer.
    """

    def __init__(self, output: Sequence[AttributeReference], format_name: str, files: Sequence[str],
                 options: dict[str, str], schema: Any, pushed_filters: Sequence[Any] = (),
                 required: Sequence[int] | None = None, metadata: AttributeReference | None = None) -> None:
        super().__init__(output)
        self.format_name = format_name
        self.files = list(files)
        self.options = dict(options)
        self.schema = schema
        self.pushed_filters = list(pushed_filters)
        self.required = None if required is None else list(required)
        #: The hidden ``_metadata`` column (Spark's file metadata): in the output only once a
        #: query refers to it (``required`` lists it).
        self.metadata = metadata

    def output(self) -> list[AttributeReference]:
        if self.required is None:
            return list(self._output)
        keep = set(self.required)
        return [a for a in self.all_output() if a.expr_id in keep]

    def all_output(self) -> list[AttributeReference]:
        """Every column of the files, pruned or not, and the hidden ``_metadata`` last."""
        return list(self._output) + ([self.metadata] if self.metadata is not None else [])

    def with_scan(self, pushed_filters: Sequence[Any] | None = None,
                  required: Sequence[int] | None = None) -> FileRelation:
        """This scan with other pushed filters or columns."""
        return FileRelation(self._output, self.format_name, self.files, self.options, self.schema,
                            self.pushed_filters if pushed_filters is None else pushed_filters,
                            self.required if required is None else required, self.metadata)

    def with_metadata(self, metadata: AttributeReference | None) -> FileRelation:
        """This scan with ``metadata`` as its hidden ``_metadata`` column."""
        return FileRelation(self._output, self.format_name, self.files, self.options, self.schema,
                            self.pushed_filters, self.required, metadata)

    def describe(self) -> str:
        text = f"Relation [{_exprs_text(self.output())}] {self.format_name}"
        if self.pushed_filters:
            text += f", PushedFilters: {self.pushed_filters}"
        return text


class UnaryPlan(LogicalPlan):
    """A node with one child."""

    def __init__(self, child: LogicalPlan) -> None:
        self.children = (child,)

    def output(self) -> list[AttributeReference]:
        return self.child.output()


class Project(UnaryPlan):
    """``select``: each expression an attribute or an alias."""

    def __init__(self, exprs: Sequence[Expression], child: LogicalPlan) -> None:
        super().__init__(child)
        self.exprs = list(exprs)

    def output(self) -> list[AttributeReference]:
        return [named_output(e) for e in self.exprs]

    def expressions(self) -> list[Expression]:
        return list(self.exprs)

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Project(self.exprs, children[0])

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        return Project([fn(e) for e in self.exprs], self.child)

    def describe(self) -> str:
        return f"Project [{_exprs_text(self.exprs)}]"


class Filter(UnaryPlan):
    """``where``/``filter``: rows whose condition is true (null counts as false)."""

    def __init__(self, condition: Expression, child: LogicalPlan) -> None:
        super().__init__(child)
        self.condition = condition

    def expressions(self) -> list[Expression]:
        return [self.condition]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Filter(self.condition, children[0])

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        return Filter(fn(self.condition), self.child)

    def describe(self) -> str:
        return f"Filter {_expr_text(self.condition)}"


class Aggregate(UnaryPlan):
    """``groupBy(...).agg(...)``: ``aggregates`` are named expressions over the grouping
    expressions and aggregate functions."""

    def __init__(self, grouping: Sequence[Expression], aggregates: Sequence[Expression],
                 child: LogicalPlan) -> None:
        super().__init__(child)
        self.grouping = list(grouping)
        self.aggregates = list(aggregates)

    def output(self) -> list[AttributeReference]:
        return [named_output(e) for e in self.aggregates]

    def expressions(self) -> list[Expression]:
        return self.grouping + self.aggregates

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Aggregate(self.grouping, self.aggregates, children[0])

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        return Aggregate([fn(e) for e in self.grouping], [fn(e) for e in self.aggregates], self.child)

    def describe(self) -> str:
        return f"Aggregate [{_exprs_text(self.grouping)}], [{_exprs_text(self.aggregates)}]"


#: Join types by their canonical names (``df.join(how=...)`` accepts Spark's aliases).
JOIN_TYPES = ("inner", "left_outer", "right_outer", "full_outer", "left_semi", "left_anti", "cross")


class Join(LogicalPlan):
    """A join of two plans.

    ``how`` is one of :data:`JOIN_TYPES`. ``condition`` is the resolved join condition
    (``None`` for a cross join). ``using`` holds the pairs of key attributes of a join
    on column names (``on="k"``): those keys appear once in the output, taken from the
    side that has them (coalesced for a full outer join). The sides' own keys left out
    stay reachable by qualifier (:meth:`hidden`, Spark's hidden output); ``exposed`` are
    the ones a projection above reads, appended to the output.
    """

    def __init__(self, left: LogicalPlan, right: LogicalPlan, how: str, condition: Expression | None,
                 using: Sequence[tuple[AttributeReference, AttributeReference]] = (),
                 using_output: Sequence[AttributeReference] = (),
                 exposed: Sequence[AttributeReference] = ()) -> None:
        self.children = (left, right)
        self.how = how
        self.condition = condition
        self.using = list(using)
        self.using_output = list(using_output)
        self.exposed = list(exposed)

    @property
    def left(self) -> LogicalPlan:
        return self.children[0]

    @property
    def right(self) -> LogicalPlan:
        return self.children[1]

    def _sides(self) -> tuple[list[AttributeReference], list[AttributeReference]]:
        """Both sides' columns, nullable where the join type adds null rows."""
        left, right = self.left.output(), self.right.output()
        if self.how in ("right_outer", "full_outer"):
            left = [a.with_nullability(True) for a in left]
        if self.how in ("left_outer", "full_outer"):
            right = [a.with_nullability(True) for a in right]
        return left, right

    def hidden(self) -> list[AttributeReference]:
        """A USING join's side keys its output leaves out (``y.k`` after ``x.join(y, "k")``)."""
        if not self.using or self.how in ("left_semi", "left_anti"):
            return []
        keys = {a.expr_id for pair in self.using for a in pair} - {a.expr_id for a in self.using_output}
        left, right = self._sides()
        return [a for a in left + right if a.expr_id in keys]

    def output(self) -> list[AttributeReference]:
        if self.how in ("left_semi", "left_anti"):
            # A USING semi/anti join lists its keys first, as every USING join (Spark's order).
            keys = {a.expr_id for a in self.using_output}
            return list(self.using_output) + [a for a in self.left.output() if a.expr_id not in keys]
        left, right = self._sides()
        if not self.using:
            return left + right
        used = {a.expr_id for pair in self.using for a in pair}
        exposed = {a.expr_id for a in self.exposed}
        return (list(self.using_output) + [a for a in left if a.expr_id not in used]
                + [a for a in right if a.expr_id not in used] + [a for a in self.hidden() if a.expr_id in exposed])

    def expressions(self) -> list[Expression]:
        return [] if self.condition is None else [self.condition]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Join(children[0], children[1], self.how, self.condition, self.using, self.using_output, self.exposed)

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        cond = None if self.condition is None else fn(self.condition)
        return Join(self.left, self.right, self.how, cond, self.using, self.using_output, self.exposed)

    def describe(self) -> str:
        text = f"Join {self.how.replace('_', '')}" if self.how != "inner" else "Join Inner"
        if self.using:
            text += ", using [" + ", ".join(a.name for a, _ in self.using) + "]"
        elif self.condition is not None:
            text += ", " + _expr_text(self.condition)
        return text


class Sort(UnaryPlan):
    """``orderBy``/``sortWithinPartitions``: ``orders`` are ``SortOrder`` expressions."""

    def __init__(self, orders: Sequence[Expression], is_global: bool, child: LogicalPlan) -> None:
        super().__init__(child)
        self.orders = list(orders)
        self.is_global = is_global

    def expressions(self) -> list[Expression]:
        return list(self.orders)

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Sort(self.orders, self.is_global, children[0])

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        return Sort([fn(e) for e in self.orders], self.is_global, self.child)

    def describe(self) -> str:
        return f"Sort [{_exprs_text(self.orders)}], {str(self.is_global).lower()}"


class Limit(UnaryPlan):
    """``limit(n)``: the first ``n`` rows (in the child's order)."""

    def __init__(self, n: int, child: LogicalPlan, offset: int = 0) -> None:
        super().__init__(child)
        self.n = n
        self.offset = offset

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Limit(self.n, children[0], self.offset)

    def describe(self) -> str:
        return f"GlobalLimit {self.n}" + (f", offset {self.offset}" if self.offset else "")


class Union(LogicalPlan):
    """``union`` (by position; ``unionByName`` reorders first): all rows of all children."""

    def __init__(self, children: Sequence[LogicalPlan]) -> None:
        self.children = tuple(children)

    def output(self) -> list[AttributeReference]:
        # Each child's output once: asked per column, a chain of unions (reduce(DataFrame.union,
        # frames), the rows of VALUES) cost (columns + 1) ** depth calls.
        outputs = [c.output() for c in self.children]
        first = outputs[0]
        nullable = [any(out[i].nullable for out in outputs) for i in range(len(first))]
        return [a.with_nullability(n) for a, n in zip(first, nullable)]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Union(children)

    def describe(self) -> str:
        return "Union false, false"


class Deduplicate(UnaryPlan):
    """``dropDuplicates(subset)``: one row for each distinct value of ``keys`` (the first seen)."""

    def __init__(self, keys: Sequence[AttributeReference], child: LogicalPlan) -> None:
        super().__init__(child)
        self.keys = list(keys)
        for key in self.keys:
            if contains_variant(key.data_type()):
                raise set_operation_error(key.name, key.data_type())

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Deduplicate(self.keys, children[0])

    def describe(self) -> str:
        return f"Deduplicate [{_exprs_text(self.keys)}]"


class Generate(UnaryPlan):
    """``explode`` and friends: each input row repeated once per generated value.

    ``generator`` produces ``generator_output`` columns; the child's columns that are
    still needed (``required``, expression ids; ``None`` for all) come along.
    """

    def __init__(self, generator: Expression, outer: bool, generator_output: Sequence[AttributeReference],
                 child: LogicalPlan, required: Sequence[int] | None = None) -> None:
        super().__init__(child)
        self.generator = generator
        self.outer = outer
        self.generator_output = list(generator_output)
        self.required = None if required is None else list(required)

    def child_output(self) -> list[AttributeReference]:
        """The child's columns kept beside the generated ones."""
        out = self.child.output()
        if self.required is None:
            return out
        keep = set(self.required)
        return [a for a in out if a.expr_id in keep]

    def output(self) -> list[AttributeReference]:
        return self.child_output() + self.generator_output

    def expressions(self) -> list[Expression]:
        return [self.generator]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Generate(self.generator, self.outer, self.generator_output, children[0], self.required)

    def map_expressions(self, fn: Callable[[Expression], Expression]) -> LogicalPlan:
        return Generate(fn(self.generator), self.outer, self.generator_output, self.child, self.required)

    def describe(self) -> str:
        outputs = _exprs_text(self.generator_output)
        return f"Generate {_expr_text(self.generator)}, {str(self.outer).lower()}, [{outputs}]"


class SubqueryAlias(UnaryPlan):
    """``df.alias("a")``: the child's columns, reachable as ``a.col``."""

    def __init__(self, alias: str, child: LogicalPlan) -> None:
        super().__init__(child)
        self.alias = alias

    def output(self) -> list[AttributeReference]:
        return [a.with_qualifier(self.alias) for a in self.child.output()]

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return SubqueryAlias(self.alias, children[0])

    def describe(self) -> str:
        return f"SubqueryAlias {self.alias}"


class Repartition(UnaryPlan):
    """``repartition``/``coalesce``: ``keys`` empty means round robin (or no shuffle)."""

    def __init__(self, num_partitions: int, shuffle: bool, keys: Sequence[Expression], child: LogicalPlan,
                 by_range: bool = False) -> None:
        super().__init__(child)
        self.num_partitions = num_partitions
        self.shuffle = shuffle
        self.keys = list(keys)
        #: ``repartitionByRange``: the keys are orderings, partitions hold key ranges in order.
        self.by_range = by_range

    def expressions(self) -> list[Expression]:
        return list(self.keys)

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Repartition(self.num_partitions, self.shuffle, self.keys, children[0], self.by_range)

    def describe(self) -> str:
        return f"Repartition {self.num_partitions}, {str(self.shuffle).lower()}"


class Sample(UnaryPlan):
    """``sample(withReplacement, fraction, seed)``; with a ``lower`` bound, one split of ``randomSplit``.

    Without replacement a row is kept when its draw falls in ``[lower, fraction)``: the
    splits of one ``randomSplit`` draw the same stream, so each row is in exactly one.
    """

    def __init__(self, fraction: float, with_replacement: bool, seed: int, child: LogicalPlan,
                 lower: float = 0.0) -> None:
        super().__init__(child)
        self.fraction = fraction
        self.with_replacement = with_replacement
        self.seed = seed
        self.lower = lower

    def with_children(self, children: Sequence[LogicalPlan]) -> LogicalPlan:
        return Sample(self.fraction, self.with_replacement, self.seed, children[0], self.lower)

    def describe(self) -> str:
        return f"Sample {self.lower}, {self.fraction}, {str(self.with_replacement).lower()}, {self.seed}"
