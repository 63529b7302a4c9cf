"""Table functions of SQL's FROM that are not built in: registered Python UDTFs, and lateral calls.

What this module owns
---------------------
:func:`udtf_relation` (``FROM my_udtf(args)``, ``TABLE(...)`` arguments with their
``PARTITION BY``/``WITH SINGLE PARTITION``/``ORDER BY``) and :func:`lateral_function`
(``FROM t, LATERAL f(t.col)``, for a UDTF or a generator such as ``explode``).

Invariants
----------
* A lateral call keeps every column of its left side, then adds the function's; its
  alias qualifies the function's columns (``f.col``), as a LATERAL VIEW's table does.
"""

from __future__ import annotations

import sys
from typing import Any

from dstream.sql.errors import AnalysisException
from dstream.sql.parser.columns import to_sort
from dstream.sql.parser.nodes import Call, Expr, LateralFunction, Literal, NamedArgument, TableArgument, TableFunction

__all__ = ["lateral_function", "scalar_arguments", "table_function", "udtf_relation"]


def scalar_arguments(node: TableFunction) -> tuple[Expr, ...]:
    """The arguments of a built-in table function (``range``, ``explode``...), which take no ``TABLE(...)``."""
    scalars = tuple(a for a in node.args if not isinstance(a, (TableArgument, NamedArgument)))
    if len(scalars) != len(node.args):
        raise AnalysisException(
            f"The table function {node.name} takes no TABLE(...) or named (name => value) argument: only Python "
            "UDTFs registered with spark.udtf.register do. Pass it columns or values in order.",
            "UNSUPPORTED_FEATURE", {"feature": f"TABLE or named argument of {node.name}"})
    return scalars


def _udtf_module() -> Any:
    # Looked up, not imported: the UDTF module parses the names analyze() returns with this
    # parser. It is loaded with the functions module, which every SQL builder calls.
    return sys.modules["dstream.sql.udtf"]


def _table_argument(builder: Any, arg: TableArgument) -> Any:
    df = builder.relation(arg.relation)
    partition_by = [builder.column(e) for e in arg.partition_by]
    return _udtf_module().TableArg(df, partition_by, [to_sort(i, builder.fns) for i in arg.order_by], arg.single)


def udtf_relation(builder: Any, node: TableFunction, left: Any = None) -> Any:
    """The DataFrame of the call ``node`` when it names a registered UDTF (``left``: a lateral call), else None."""
    udtf = _udtf_module()
    function = udtf.registered_udtf(builder.session, node.name)
    if function is None:
        return None
    def value(a: Expr | TableArgument) -> Any:
        return _table_argument(builder, a) if isinstance(a, TableArgument) else builder.column(a)

    first_named = next((i for i, a in enumerate(node.args) if isinstance(a, NamedArgument)), len(node.args))
    named_args = [a for a in node.args[first_named:] if isinstance(a, NamedArgument)]
    if len(named_args) != len(node.args) - first_named:
        name = named_args[0].name
        raise AnalysisException(
            f"Cannot invoke routine `{node.name}` because it contains positional argument(s) following the named "
            f"argument assigned to `{name}`; please rearrange them so the positional arguments come first and then "
            "retry the query again.", "UNEXPECTED_POSITIONAL_ARGUMENT",
            {"routineName": f"`{node.name}`", "parameterName": f"`{name}`"})
    seen = [a.name.lower() for a in named_args]
    twice = next((a.name for i, a in enumerate(named_args) if a.name.lower() in seen[:i]), None)
    if twice is not None:
        raise AnalysisException(
            f"Call to routine `{node.name}` is invalid because it includes multiple argument assignments to the "
            f"same parameter name `{twice}`; name each parameter once.",
            "DUPLICATE_ROUTINE_PARAMETER_ASSIGNMENT.DOUBLE_NAMED_ARGUMENT_REFERENCE",
            {"routineName": f"`{node.name}`", "parameterName": f"`{twice}`"})
    args = [value(a) for a in node.args[:first_named] if not isinstance(a, NamedArgument)]
    named = {a.name: value(a.value) for a in named_args}
    return udtf.udtf_frame(builder.session, function, args, left, node.columns, named)


def lateral_function(builder: Any, node: LateralFunction) -> Any:
    """``relation, LATERAL f(args) [alias[(cols)]]``: each row of the relation with the rows ``f`` makes of it."""
    left = builder.relation(node.relation)
    call = node.function
    df = udtf_relation(builder, call, left)
    if df is None:  # a generator: explode(t.a)...
        generated = builder.column(Call(call.name, scalar_arguments(call)))
        if call.columns:
            generated = generated.alias(*call.columns)
        df = left.select("*", generated)
    if call.alias:
        builder.lateral_tables[call.alias.lower()] = tuple(df.columns[len(left.columns):])
    return df


def table_function(builder: Any, node: TableFunction, generators: frozenset[str]) -> Any:
    """``range(...)`` (``spark.range``'s rows), a generator's rows (``explode``, ``inline``, ``stack``...; their
    names ``generators``) or a registered UDTF's."""
    udtf = udtf_relation(builder, node)
    if udtf is not None:
        return udtf.alias(node.alias) if node.alias else udtf
    args = scalar_arguments(node)
    if node.name == "range":
        values = []
        for arg in args:
            if not (isinstance(arg, Literal) and isinstance(arg.value, int) and not isinstance(arg.value, bool)):
                raise AnalysisException(
                    "range(...) in FROM takes integer literals: range(end), range(start, end[, step[, "
                    "numPartitions]]).", "TABLE_VALUED_FUNCTION_REQUIRED_METADATA_INVALID", {"name": "range"})
            values.append(arg.value)
        if not 1 <= len(values) <= 4:
            raise AnalysisException(f"range takes 1 to 4 arguments, got {len(values)}.",
                                    "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", {"functionName": "`range`"})
        df = builder.session.range(*values)
    elif node.name in ("variant_explode", "variant_explode_outer"):  # table functions only, not in functions
        if len(args) != 1:
            raise AnalysisException(f"{node.name} takes one variant, got {len(args)} arguments.",
                                    "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", {"functionName": f"`{node.name}`"})
        df = getattr(builder.session.tvf, node.name)(builder.column(args[0]))
        if node.columns:
            df = df.toDF(*node.columns)
    elif node.name in generators:
        generated = builder.column(Call(node.name, args))
        if node.columns:
            generated = generated.alias(*node.columns)
        df = builder.session.range(1).select(generated)
    else:
        raise AnalysisException(
            f"Could not resolve the table-valued function {node.name}: here range and the generators "
            f"({', '.join(sorted(generators))}) are.", "UNRESOLVABLE_TABLE_VALUED_FUNCTION", {"name": node.name})
    if node.columns and node.name == "range":
        df = df.toDF(*node.columns)
    return df.alias(node.alias) if node.alias else df

