"""The analyzer: binds the names in a user's expression to the columns of a plan.

What this module owns
---------------------
Turning a :class:`~dstream.sql.expressions.base.Expression` as a Column holds it
(names as text, no types) into a resolved expression over a plan's output: name
lookup (case-insensitive unless ``spark.sql.caseSensitive``; ``alias.col``
qualifiers; ``col.field`` struct access), the checks Spark's ``CheckAnalysis`` makes,
and type coercion (each node's :meth:`~Expression.coerce`). Every DataFrame method
calls :func:`resolve` before it builds a plan node, so a bad reference raises
``AnalysisException`` when the DataFrame is defined, as in PySpark.

Invariants
----------
* A resolved expression contains no :class:`UnresolvedAttribute` or
  :class:`UnresolvedStar`; every :class:`AttributeReference` in it is in the plan's
  output (matched by expression id).
* Errors carry Spark's conditions and texts: ``UNRESOLVED_COLUMN.WITH_SUGGESTION``
  (with up to five similar names), ``AMBIGUOUS_REFERENCE``, ``MISSING_ATTRIBUTES``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..errors import AnalysisException
from ..expressions.base import Alias, AttributeReference, Expression, UnresolvedAttribute, UnresolvedStar
from ..expressions.cast import Cast
from ..expressions.checks import refuse_variant_comparisons
from ..expressions.collection_functions import CreateStruct
from ..expressions.outer_reference import OuterReference
from ..expressions.text_functions import edit_distance
from ..types import StructType

__all__ = ["Resolver", "ensure_named", "quote", "resolve_star", "unique_outputs"]

#: Builds the expression extracting a struct field (supplied by the expressions package).
FieldExtractor = Callable[[Expression, str], Expression]


def quote(name: str) -> str:
    """Spark's quoting of a name in messages: backquotes, inner backquotes doubled."""
    return "`" + name.replace("`", "``") + "`"


def _display(attr: AttributeReference) -> str:
    return f"{quote(attr.qualifier)}.{quote(attr.name)}" if attr.qualifier else quote(attr.name)


class Resolver:
    """Resolves expressions against the output of one plan.

    Parameters
    ----------
    output : sequence of AttributeReference
        The columns names may refer to.
    case_sensitive : bool
        ``spark.sql.caseSensitive``.
    extract_field : callable
        ``(struct_expr, field_name) -> Expression`` for ``col.field`` names.
    extra : sequence of AttributeReference, optional
        Columns not in the output that may still be referenced (a Sort may use columns
        its child's child has; Spark adds them to the projection and removes them after).
    """

    def __init__(self, output: Sequence[AttributeReference], case_sensitive: bool = False,
                 extract_field: FieldExtractor | None = None,
                 extra: Sequence[AttributeReference] = ()) -> None:
        self.output = list(output)
        self.extra = list(extra)
        self.case_sensitive = case_sensitive
        self.extract_field = extract_field
        self._ids = {a.expr_id for a in self.output} | {a.expr_id for a in self.extra}

    def _same(self, a: str, b: str) -> bool:
        return a == b if self.case_sensitive else a.lower() == b.lower()

    def resolve(self, expr: Expression) -> Expression:
        """``expr`` with every name bound, implicit casts added and types checked.

        Aliases below the top are removed, as Spark's ``CleanupAliases`` does: only a
        column's own alias names it.
        """
        if not isinstance(expr, UnresolvedStar):
            expr = expr.transform_down(self._expand_star_arguments)
        resolved = expr.transform_up(self._resolve_node)
        if isinstance(resolved, Alias):
            inner = _strip_aliases(resolved.child)
            return resolved if inner is resolved.child else resolved.with_children([inner])
        return _strip_aliases(resolved)

    def _expand_star_arguments(self, node: Expression) -> Expression | None:
        # struct("*"), array(*), concat_ws(",", *)...: as Spark, a star among a function's
        # arguments stands for every column (of its qualifier) in their place.
        if not any(isinstance(c, UnresolvedStar) for c in node.children):
            return None
        expanded: list[Expression] = []
        for child in node.children:
            if isinstance(child, UnresolvedStar):
                expanded.extend(resolve_star(child, self.output, self.case_sensitive, self.extract_field))
            else:
                expanded.append(child)
        return node.with_children(expanded)

    def _resolve_node(self, node: Expression) -> Expression | None:
        if isinstance(node, UnresolvedAttribute):
            return self.resolve_name(node.parts)
        if isinstance(node, UnresolvedStar):
            raise AnalysisException(
                f"Invalid usage of '*' in expression {node.sql()!r}: use it directly in select().",
                "INVALID_USAGE_OF_STAR_OR_REGEX", {"elem": "'*'"})
        if isinstance(node, AttributeReference):
            if node.expr_id not in self._ids:
                self._missing(node)
            return None
        if isinstance(node, OuterReference):
            node.data_type()  # raises: outer() is taken only by the table functions of a lateral join
        if not node.resolved:
            return None
        coerced = node.coerce()
        coerced.check_input_types()
        refuse_variant_comparisons(coerced)
        return coerced if coerced is not node else None

    def _missing(self, attr: AttributeReference) -> None:
        # The column belongs to another DataFrame: Spark's MISSING_ATTRIBUTES, unless a
        # column of the same name exists here (then the user meant that one).
        available = ", ".join(f"{a.name}#{a.expr_id}" for a in self.output)
        raise AnalysisException(
            f"Resolved attribute(s) {attr.name}#{attr.expr_id} missing from {available} in operator. "
            f"The column comes from another DataFrame: refer to it by name (col({attr.name!r})) or through "
            "this DataFrame (df[...]).",
            "MISSING_ATTRIBUTES.RESOLVED_ATTRIBUTE_APPEAR_IN_OPERATION",
            {"missingAttributes": f"{attr.name}#{attr.expr_id}", "input": available})

    def resolve_name(self, parts: Sequence[str]) -> Expression:
        """The column (and struct fields) a dotted name refers to."""
        # Spark binds a name to the output first; the child's columns (``extra``) are only
        # a fallback for a name the output lacks (ResolveMissingReferences), so an alias
        # reusing a child's name (``select((i * 2).alias("i")).orderBy("i")``) is not ambiguous.
        unique = self._candidates(self.output, parts)
        if not unique:
            have = {o.expr_id for o in self.output}
            unique = self._candidates([a for a in self.extra if a.expr_id not in have], parts)
        if not unique:
            self._unresolved(parts)
        if len(unique) > 1:
            shown = ", ".join(_display(a) for a, _ in unique.values())
            name = ".".join(quote(p) for p in parts)
            raise AnalysisException(
                f"Reference {name} is ambiguous, could be: [{shown}].",
                "AMBIGUOUS_REFERENCE", {"name": name, "referenceNames": f"[{shown}]"})
        attr, rest = next(iter(unique.values()))
        result: Expression = attr
        for field in rest:
            if self.extract_field is None:
                self._unresolved(parts)
            assert self.extract_field is not None
            result = self.extract_field(result, field)
        # ``col("s.x")`` is named ``x``, as in Spark (``col("s")["x"]`` stays ``s.x``).
        return Alias(result, rest[-1]) if rest else result

    def _candidates(self, pool: Sequence[AttributeReference],
                    parts: Sequence[str]) -> dict[int, tuple[AttributeReference, list[str]]]:
        """The columns of ``pool`` a dotted name may mean (by id), each with its struct fields left."""
        candidates: list[tuple[AttributeReference, list[str]]] = []
        if len(parts) > 1:
            for attr in pool:
                if attr.qualifier is not None and self._same(attr.qualifier, parts[0]) \
                        and self._same(attr.name, parts[1]):
                    candidates.append((attr, list(parts[2:])))
        if not candidates:
            for attr in pool:
                if self._same(attr.name, parts[0]):
                    candidates.append((attr, list(parts[1:])))
        return {a.expr_id: (a, rest) for a, rest in candidates}

    def _unresolved(self, parts: Sequence[str]) -> None:
        name = ".".join(quote(p) for p in parts)
        # Spark drops the qualifier all the columns share when the name has one part.
        shared = len(parts) == 1 and len({a.qualifier for a in self.output}) == 1
        names = [quote(a.name) if shared else _display(a) for a in self.output]
        if not names:  # nothing to suggest (SELECT a with no FROM): Spark's message ends there
            raise AnalysisException(
                f"A column, variable, or function parameter with name {name} cannot be resolved. ",
                "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION", {"objectName": name})
        # Spark ranks the quoted names by their edit distance to the name as written (case and
        # all): "`ts`" is farther from "k2" than "`v`" is.
        written = ".".join(parts)
        ranked = sorted(names, key=lambda n: (edit_distance(n, written), n))[:5]
        suggestion = "[" + ", ".join(ranked) + "]"
        raise AnalysisException(
            f"A column, variable, or function parameter with name {name} cannot be resolved. "
            f"Did you mean one of the following? {suggestion}.",
            "UNRESOLVED_COLUMN.WITH_SUGGESTION", {"objectName": name, "proposal": suggestion})


def resolve_star(star: UnresolvedStar, output: Sequence[AttributeReference], case_sensitive: bool,
                 extract_field: FieldExtractor | None = None) -> list[Expression]:
    """The columns ``*``, ``alias.*``, ``struct_col.*`` or a ``colRegex`` stands for.

    As in Spark, a qualifier naming a table alias wins; otherwise it is resolved as a
    (possibly qualified or nested) column, which must be a struct: its fields become columns.
    """
    if star.columns is not None:
        ids = {a.expr_id for a in star.columns}
        return [a for a in output if a.expr_id in ids]
    if star.pattern is not None:
        import re  # noqa: PLC0415 - only colRegex needs it

        flags = 0 if case_sensitive else re.IGNORECASE
        return [a for a in output if re.fullmatch(star.pattern, a.name, flags)]
    if star.qualifier is None:
        return list(output)
    same = (lambda a, b: a == b) if case_sensitive else (lambda a, b: a.lower() == b.lower())
    cols: list[Expression] = [a for a in output if a.qualifier is not None and same(a.qualifier, star.qualifier)]
    if not cols and extract_field is not None:
        cols = _struct_fields(star, output, case_sensitive, extract_field)
    if not cols:
        raise AnalysisException(
            f"Cannot resolve {quote(star.qualifier)}.* given input columns "
            f"{', '.join(quote(a.name) for a in output)}.",
            "CANNOT_RESOLVE_STAR_EXPAND",
            {"targetString": quote(star.qualifier), "columns": ", ".join(quote(a.name) for a in output)})
    return cols


def _struct_fields(star: UnresolvedStar, output: Sequence[AttributeReference], case_sensitive: bool,
                   extract_field: FieldExtractor) -> list[Expression]:
    """The fields of the struct column ``star.qualifier`` names, one column each (none if no column has that name)."""
    assert star.qualifier is not None
    parts = UnresolvedAttribute.quoted(star.qualifier).parts
    try:
        target = Resolver(output, case_sensitive, extract_field).resolve_name(parts)
    except AnalysisException as exc:
        if exc.getCondition() == "UNRESOLVED_COLUMN.WITH_SUGGESTION":
            return []  # neither a table nor a column: CANNOT_RESOLVE_STAR_EXPAND
        raise
    if isinstance(target, Alias):
        target = target.child
    dtype = target.data_type()
    if not isinstance(dtype, StructType):
        raise AnalysisException(
            f"Can only star expand struct data types. Attribute: `List({', '.join(parts)})`. "
            f"{star.qualifier!r} is of type {dtype.simpleString()}: select the column itself, not {star.sql()!r}.",
            "_LEGACY_ERROR_TEMP_1050", {"attributes": f"List({', '.join(parts)})"})
    return [Alias(extract_field(target, f.name), f.name) for f in dtype.fields]


def _strip_aliases(expr: Expression) -> Expression:
    """``expr`` without aliases, except those naming the fields of a ``struct(...)``."""
    if isinstance(expr, Alias):
        return _strip_aliases(expr.child)
    if isinstance(expr, CreateStruct):
        # struct(a.alias("x")) is a struct with a field x: the alias is the field's name.
        kids = [c.with_children([_strip_aliases(c.child)]) if isinstance(c, Alias) else _strip_aliases(c)
                for c in expr.children]
    else:
        kids = [_strip_aliases(c) for c in expr.children]
    if all(k is c for k, c in zip(kids, expr.children)):
        return expr
    return expr.with_children(kids)


def ensure_named(expr: Expression) -> AttributeReference | Alias:
    """An attribute or alias: other expressions are named by their Spark text.

    A cast of a column at the top keeps the column's name (``col("a").cast("int")`` is
    ``a``), as Spark names it.
    """
    if isinstance(expr, AttributeReference | Alias):
        return expr
    if isinstance(expr, Cast) and isinstance(expr.children[0], AttributeReference):
        return Alias(expr, expr.children[0].name)
    return Alias(expr, expr.sql())


def unique_outputs(exprs: Sequence[Expression]) -> list[Expression]:
    """Named expressions whose output ids are distinct: a column selected twice gets a new id
    the second time (operators address columns by id)."""
    seen: set[int] = set()
    out: list[Expression] = []
    for expr in exprs:
        named = ensure_named(expr)
        if named.expr_id in seen:
            named = Alias(named.child if isinstance(named, Alias) else named, named.name)
        seen.add(named.expr_id)
        out.append(named)
    return out
