"""Expression syntax trees to Columns, through the public API of ``dstream.sql.functions`` only.

What this module owns
---------------------
:func:`to_column`: each node of :mod:`.nodes` becomes the public call a PySpark user would
write — ``F.col``, ``F.lit``, ``F.when``, ``getattr(fns, name)`` for functions, Column
operators and methods (``.cast``, ``.isin``, ``.between``, ``.like``, ``.eqNullSafe``,
``.getItem``, ``.alias``...). Lambda arguments of higher-order functions become Python
functions of the same arity, as ``F.transform`` and friends take them.

Invariants
----------
* The functions module is an argument (``F``), never imported: ``dstream.sql.functions``
  imports this package, and the import graph must stay acyclic.
* Function arguments PySpark takes as plain Python values (``substring(s, 1, 3)``'s
  positions, ``date_format``'s pattern...) are passed as values when the SQL argument is a
  literal; every other argument is passed as a Column (a string literal becomes
  ``F.lit``, never a column name).
* Unknown functions raise ``AnalysisException`` with condition ``UNRESOLVED_ROUTINE``.
"""

from __future__ import annotations

import datetime
import inspect
import re
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from dstream.sql.errors import AnalysisException
from dstream.sql.expressions.conditional import If
from dstream.sql.expressions.predicates import SqlBetween
from dstream.sql.parser.agg_filter import filtered_aggregate
from dstream.sql.parser.lexer import unsupported_in_sql
from dstream.sql.parser.like_any import QUANTIFIED_LIKES, quantified_like
from dstream.sql.parser.literals import typed_literal_name
from dstream.sql.parser.nodes import (
    Alias,
    Between,
    Binary,
    Call,
    Case,
    Cast,
    DistinctFrom,
    Exists,
    Expr,
    Field,
    In,
    InSubquery,
    IsBool,
    IsNull,
    Lambda,
    Like,
    Literal,
    Name,
    Over,
    SortItem,
    Star,
    Subquery,
    Subscript,
    Unary,
)
from dstream.sql.parser.spark_names import OPERATOR_NAMES, SHOWN_AS_CALLED, named_as_called
from dstream.sql.parser.special_aggregates import distinct_aggregate, within_group

__all__ = ["to_column", "to_sort", "quote_name", "unresolved_routine", "AGGREGATES"]

#: SQL functions that aggregate (a SELECT using one outside a lambda is an aggregation).
AGGREGATES = frozenset({
    "count", "sum", "avg", "mean", "min", "max", "first", "last", "first_value", "last_value", "any_value",
    "collect_list", "collect_set", "array_agg", "stddev", "stddev_samp", "stddev_pop", "std", "variance",
    "var_samp", "var_pop", "count_distinct", "countdistinct", "approx_count_distinct", "sum_distinct",
    "percentile_approx", "approx_percentile", "percentile", "median", "mode", "bool_and", "bool_or", "every",
    "some", "any", "count_if", "max_by", "min_by", "corr", "covar_pop", "covar_samp", "skewness", "kurtosis",
    "product", "bit_and", "bit_or", "bit_xor", "try_sum", "try_avg", "string_agg", "listagg", "grouping",
    "grouping_id", "regr_count", "regr_avgx", "regr_avgy", "regr_slope", "regr_intercept", "regr_r2",
    "regr_sxx", "regr_sxy", "regr_syy", "histogram_numeric", "bitmap_construct_agg", "bitmap_or_agg",
    "schema_of_variant_agg", "hll_sketch_agg", "hll_union_agg", "count_min_sketch",
})

# SQL names PySpark spells differently; tried when ``F`` has no function of the SQL name.
_ALIASES = {
    "map": "create_map", "ucase": "upper", "lcase": "lower", "char_length": "length",
    "character_length": "length", "ceiling": "ceil", "power": "pow", "mean": "avg", "std": "stddev",
    "stddev_samp": "stddev", "var_samp": "variance", "substr": "substring", "day": "dayofmonth",
    "some": "bool_or", "any": "bool_or", "every": "bool_and", "ln": "log", "printf": "format_string",
    "sign": "signum", "nvl": "coalesce", "ifnull": "coalesce", "first_value": "first", "last_value": "last",
    "array_agg": "collect_list", "date_diff": "datediff", "dateadd": "date_add", "position": "locate",
    "regexp": "rlike", "countdistinct": "count_distinct", "approx_percentile": "percentile_approx",
    "random": "rand",
}

# Argument positions PySpark takes as Python values (e.g. ``substring(col, pos: int, len: int)``);
# "rest" marks every position from the last listed one on.
_VALUE_ARGS: dict[str, tuple[int, ...]] = {
    "substring": (1, 2), "substring_index": (1, 2), "regexp_extract": (1, 2), "regexp_replace": (1, 2),
    "split": (1, 2), "date_format": (1,), "to_date": (1,), "to_timestamp": (1,), "unix_timestamp": (1,),
    "from_unixtime": (1,), "to_utc_timestamp": (1,), "from_utc_timestamp": (1,), "round": (1,), "bround": (1,),
    "lpad": (1, 2), "rpad": (1, 2), "concat_ws": (0,), "format_number": (1,), "format_string": (0,),
    "repeat": (1,), "instr": (1,), "locate": (0, 2), "date_add": (1,), "date_sub": (1,), "add_months": (1,),
    "trunc": (1,), "date_trunc": (0,), "translate": (1, 2), "get_json_object": (1,), "from_json": (1,),
    "array_contains": (1,), "array_position": (1,), "array_remove": (1,), "element_at": (1,),
    "sort_array": (1,), "slice": (1, 2), "array_join": (1, 2), "array_repeat": (1,), "first": (1,),
    "last": (1,), "first_value": (1,), "last_value": (1,), "any_value": (1,), "lag": (1, 2), "lead": (1, 2),
    "nth_value": (1, 2), "ntile": (0,),
    "percentile_approx": (1, 2), "approx_count_distinct": (1,), "percentile": (1,), "sha2": (1,),
    "shiftleft": (1,), "shiftright": (1,), "shiftrightunsigned": (1,), "conv": (1, 2), "rand": (0,),
    "randn": (0,), "months_between": (2,), "window": (1, 2, 3), "decode": (1,), "encode": (1,),
    "levenshtein": (2,), "overlay": (2, 3), "next_day": (1,), "json_tuple": (1,), "from_csv": (1,),
    "schema_of_csv": (0,), "histogram_numeric": (1,), "from_xml": (1,), "schema_of_xml": (0,),
    "variant_get": (2,), "try_variant_get": (2,),
}
_VALUE_REST = frozenset({"json_tuple"})

# SQL's cast functions: ``int(x)`` is ``CAST(x AS INT)``.
_CAST_FUNCTIONS = {
    "int": "int", "integer": "int", "bigint": "bigint", "smallint": "smallint", "tinyint": "tinyint",
    "float": "float", "double": "double", "string": "string", "boolean": "boolean", "binary": "binary",
    "date": "date", "timestamp": "timestamp", "decimal": "decimal(10,0)",
}

# Names on a functions module that are not SQL functions.
_NOT_SQL = frozenset({"col", "column", "lit", "expr", "udf", "pandas_udf", "udtf", "broadcast", "call_function",
                      "call_udf", "when", "asc", "desc", "asc_nulls_first", "asc_nulls_last",
                      "desc_nulls_first", "desc_nulls_last",
                      # partition transforms: DataFrameWriterV2.partitionedBy only
                      "years", "months", "days", "hours", "bucket", "partitioning",
                      # PySpark functions that Spark's SQL does not resolve (UNRESOLVED_ROUTINE in
                      # PySpark 4.0.1): SQL spells them count(DISTINCT ...), map, ~, negative...
                      "bitwise_not", "count_distinct", "create_map", "listagg_distinct", "negate", "product",
                      "string_agg_distinct", "sum_distinct", "timestamp_add", "timestamp_diff"})

_EXTRACT_FIELDS = {
    "YEAR": "year", "YEARS": "year", "Y": "year", "MONTH": "month", "MONTHS": "month", "MON": "month",
    "DAY": "dayofmonth", "DAYS": "dayofmonth", "D": "dayofmonth", "HOUR": "hour", "HOURS": "hour", "H": "hour",
    "MINUTE": "minute", "MINUTES": "minute", "MIN": "minute", "M": "minute", "SECOND": "second",
    "SECONDS": "second", "S": "second", "SEC": "second", "QUARTER": "quarter", "QTR": "quarter",
    "WEEK": "weekofyear", "WEEKS": "weekofyear", "W": "weekofyear", "DAYOFWEEK": "dayofweek", "DOW": "dayofweek",
    "DOY": "dayofyear", "DAYOFYEAR": "dayofyear",
}

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def quote_name(part: str) -> str:
    """One name part as ``F.col`` reads it: backquoted unless it is a plain identifier."""
    return part if _PLAIN_NAME.fullmatch(part) else "`" + part.replace("`", "``") + "`"


def unresolved_routine(name: str) -> AnalysisException:
    """Spark's ``UNRESOLVED_ROUTINE`` for a function name neither SQL nor ``call_function`` knows."""
    return AnalysisException(
        f"Cannot resolve routine `{name}` on search path [`system`.`builtin`, `system`.`session`]. "
        "Verify the spelling of the function name; the functions of dstream.sql.functions are the ones "
        "that can be called by name.",
        "UNRESOLVED_ROUTINE", {"routineName": f"`{name}`", "searchPath": "[`system`.`builtin`, `system`.`session`]"})


def _check_arity(name: str, func: Callable[..., Any], count: int) -> None:
    """Spark's ``WRONG_NUM_ARGS`` when ``func`` cannot take ``count`` arguments (not Python's TypeError)."""
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return  # no signature to read: the call itself decides
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    low = sum(p.default is p.empty for p in positional)
    high = len(positional)
    if low <= count <= high:
        return
    wanted = str(low) if low == high else f"[{low}, {high}]"
    raise AnalysisException(
        f"The `{name}` requires {wanted} parameters but the actual number is {count}. Call {name} with "
        f"{low if low == high else f'{low} to {high}'} arguments.", "WRONG_NUM_ARGS.WITHOUT_SUGGESTION",
        {"functionName": f"`{name}`", "expectedNum": wanted, "actualNum": str(count)})


class _Builder:
    """Translates one tree against a functions module; ``env`` maps lambda variables to Columns."""

    def __init__(self, functions: ModuleType, env: Mapping[str, Any],
                 subquery: Callable[[Any], Any] | None = None) -> None:
        self.fns = functions
        self.env = env
        self.subquery = subquery  # the Column of a scalar subquery (given by the query builder)

    def function(self, name: str) -> Callable[..., Any]:
        """The public function SQL ``name`` calls (lower-case), or UNRESOLVED_ROUTINE."""
        public = getattr(self.fns, "__all__", None)
        for candidate in (name, _ALIASES.get(name)):
            if candidate is None or candidate.startswith("_") or candidate in _NOT_SQL:
                continue
            if public is not None and candidate not in public:
                continue
            func = getattr(self.fns, candidate, None)
            if func is None or inspect.isclass(func) or not callable(func):
                continue
            module = getattr(func, "__module__", None)
            # Names the functions module imported for itself (typing.cast...) are no SQL functions.
            if not isinstance(module, str) or module.startswith("dstream.sql"):
                return func
        call_function = getattr(self.fns, "call_function", None)
        if call_function is not None and name not in _NOT_SQL:
            return lambda *cols: call_function(name, *cols)
        raise unresolved_routine(name)

    def literal(self, node: Literal) -> Any:
        fns = self.fns
        typed = getattr(fns, "_sql_literal", None)
        if typed is not None:  # the functions module may build literals of any type directly
            return typed(node.value, node.type_name)
        if node.type_name in ("date", "timestamp", "timestamp_ntz"):
            # The text cast as the session casts it, named as Spark names the literal.
            return fns._typed_literal(node.value, node.type_name, typed_literal_name(node.value, node.type_name))
        if node.type_name.startswith("interval") or node.type_name in ("smallint", "tinyint", "float", "bigint"):
            # Typed with its own type (INTERVAL '01' HOUR, 1L): named by its value, as in Spark.
            return fns._typed_literal(node.value, node.type_name)
        return fns.lit(node.value)

    def build(self, node: Expr) -> Any:
        """The Column of ``node``."""
        fns = self.fns
        if isinstance(node, Literal):
            return self.literal(node)
        if isinstance(node, Name):
            head = node.parts[0].lower()
            if head in self.env:
                column = self.env[head]
                for part in node.parts[1:]:
                    column = column.getField(part)
                return column
            return fns.col(".".join(quote_name(p) for p in node.parts))
        if isinstance(node, Star):
            return fns.col(".".join([quote_name(p) for p in node.qualifier] + ["*"]))
        if isinstance(node, Unary):
            operand = self.build(node.operand)
            if node.op == "NOT":
                return ~operand
            if node.op == "-":
                return -operand
            if node.op == "~":
                return self.function("bitwise_not")(operand)
            return self.function("positive")(operand)  # named (+ x), as in Spark
        if isinstance(node, Binary):
            return self.binary(node)
        if isinstance(node, Call):
            return self.call(node)
        if isinstance(node, Over):
            return self.over(node)
        if isinstance(node, Case):
            return self.case(node)
        if isinstance(node, Cast):
            operand = self.build(node.operand)
            return operand.try_cast(node.type_name) if node.safe else operand.cast(node.type_name)
        if isinstance(node, In):
            result = self.build(node.operand).isin(*[self.build(v) for v in node.values])
            return ~result if node.negated else result
        if isinstance(node, Between):
            result = self.build(node.operand).between(self.build(node.low), self.build(node.high))
            result = type(result)(SqlBetween(*result.expr.children))  # named between(v, lo, hi), as in Spark
            return ~result if node.negated else result
        if isinstance(node, Like):
            return self.like(node)
        if isinstance(node, IsNull):
            operand = self.build(node.operand)
            return operand.isNotNull() if node.negated else operand.isNull()
        if isinstance(node, IsBool):
            operand = self.build(node.operand)
            if node.value is None:
                return operand.isNotNull() if node.negated else operand.isNull()
            result = operand.eqNullSafe(fns.lit(node.value))
            return ~result if node.negated else result
        if isinstance(node, DistinctFrom):
            result = self.build(node.left).eqNullSafe(self.build(node.right))
            return result if node.negated else ~result
        if isinstance(node, Subscript):
            index = node.index
            key = index.value if isinstance(index, Literal) else self.build(index)
            return self.build(node.operand).getItem(key)
        if isinstance(node, Field):
            return self.build(node.operand).getField(node.name)
        if isinstance(node, Alias):
            return self.build(node.operand).alias(*node.names)
        if isinstance(node, Lambda):
            raise unsupported_in_sql("A lambda function outside a higher-order function's arguments")
        if isinstance(node, Subquery):
            if self.subquery is None:
                raise unsupported_in_sql("A subquery in an expression string (use spark.sql)")
            return self.subquery(node)
        if isinstance(node, InSubquery | Exists):
            if self.subquery is None:
                raise unsupported_in_sql("IN (subquery) or EXISTS in an expression string (use spark.sql)")
            return self.subquery(node)  # a WHERE's predicate under OR or NOT: its existence join's value
        raise TypeError(f"not an expression node: {node!r}")

    def binary(self, node: Binary) -> Any:
        left, right = self.build(node.left), self.build(node.right)
        op = node.op
        simple: dict[str, Callable[[Any, Any], Any]] = {
            "+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b, "/": lambda a, b: a / b,
            "%": lambda a, b: a % b, "=": lambda a, b: a == b, "!=": lambda a, b: a != b,
            "<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
            "AND": lambda a, b: a & b, "OR": lambda a, b: a | b, "<=>": lambda a, b: a.eqNullSafe(b),
            "&": lambda a, b: a.bitwiseAND(b), "|": lambda a, b: a.bitwiseOR(b), "^": lambda a, b: a.bitwiseXOR(b),
        }
        if op in simple:
            return simple[op](left, right)
        if op == "||":
            return self.function("concat")(left, right)
        if op == "DIV":
            return self.call(Call("div", (node.left, node.right)))
        shift = {"<<": "shiftleft", ">>": "shiftright", ">>>": "shiftrightunsigned"}[op]
        return self.call(Call(shift, (node.left, node.right), operator=True))

    def case(self, node: Case) -> Any:
        fns = self.fns
        operand = None if node.operand is None else self.build(node.operand)
        result = None
        for condition, value in node.branches:
            test = self.build(condition)
            if operand is not None:
                test = operand == test
            result = fns.when(test, self.build(value)) if result is None else result.when(test, self.build(value))
        assert result is not None  # the parser requires one WHEN at least
        return result if node.otherwise is None else result.otherwise(self.build(node.otherwise))

    def like(self, node: Like) -> Any:
        fns = self.fns
        operand = self.build(node.operand)
        pattern = node.pattern
        if isinstance(pattern, Literal) and isinstance(pattern.value, str) and node.escape is None:
            method = {"LIKE": "like", "ILIKE": "ilike", "RLIKE": "rlike"}[node.kind]
            result = getattr(operand, method)(pattern.value)
        else:
            args = [operand, self.build(pattern)]
            if node.escape is not None:
                args.append(fns.lit(node.escape))
            result = self.function(node.kind.lower())(*args)
        return ~result if node.negated else result

    def lambda_function(self, node: Lambda) -> Callable[..., Any]:
        """A Python function of ``len(node.params)`` Columns, as higher-order functions take."""
        params = [p.lower() for p in node.params]

        def run(*cols: Any) -> Any:
            return _Builder(self.fns, {**self.env, **dict(zip(params, cols))}).build(node.body)

        arity = len(params)
        function: Callable[..., Any]
        if arity == 1:
            function = lambda x: run(x)  # noqa: E731 - the arity is what the caller inspects
        elif arity == 2:
            function = lambda x, y: run(x, y)  # noqa: E731
        elif arity == 3:
            function = lambda x, y, z: run(x, y, z)  # noqa: E731
        else:
            raise unsupported_in_sql(f"A lambda function of {arity} arguments")
        # SQL names its parameters: they name the column (x, not x_12).
        setattr(function, "lambda_names", tuple(node.params))  # noqa: B010 - an attribute of a function object
        return function

    def argument(self, name: str, index: int, node: Expr) -> Any:
        if isinstance(node, Lambda):
            return self.lambda_function(node)
        positions = _VALUE_ARGS.get(name, ())
        wants_value = index in positions or (name in _VALUE_REST and positions and index >= positions[-1])
        if wants_value and isinstance(node, Literal) and not node.type_name.startswith("interval"):
            return node.value  # an interval's value alone (months, a timedelta) would lose its type
        return self.build(node)

    def call(self, node: Call) -> Any:
        fns = self.fns
        name, args = node.name, node.args
        if node.filter is not None:
            return filtered_aggregate(self, node, name in AGGREGATES)
        if name == "count" and args == (Star(),):
            return fns.count(fns.lit(1))
        if node.within_group:
            return self.within_group(node)
        if node.distinct:
            return self.distinct_aggregate(node)
        if name in _CAST_FUNCTIONS and len(args) == 1:
            return self.build(args[0]).cast(_CAST_FUNCTIONS[name])
        if name in ("if", "iff") and len(args) == 3:
            parts = [self.build(a) for a in args]
            if name == "if":  # Spark's If, named (IF(c, a, b)); iff is CASE WHEN
                return type(parts[0])(If(*[p.expr for p in parts]))
            return fns.when(parts[0], parts[1]).otherwise(parts[2])
        if name == "decode" and len(args) > 2:
            return _decode_case([self.build(a) for a in args])
        if name == "mod" and len(args) == 2:
            return named_as_called(self.build(args[0]) % self.build(args[1]), "mod")
        if name == "extract" and not hasattr(fns, "extract") and isinstance(args[0], Literal):
            field = str(args[0].value).upper()
            if field not in _EXTRACT_FIELDS:
                raise unsupported_in_sql(f"EXTRACT({field} FROM ...)")
            return self.function(_EXTRACT_FIELDS[field])(self.build(args[1]))
        if name == "div" and len(args) == 2:  # a div b (and div(a, b)): no PySpark function has it
            from ..expressions.operators import IntegralDivide  # noqa: PLC0415 - SQL-only operator

            left, right = self.build(args[0]), self.build(args[1])
            return type(left)(IntegralDivide(left.expr, right.expr))
        if node.ignore_nulls:
            return self.ignoring_nulls(node)
        if name in QUANTIFIED_LIKES:
            return quantified_like(self, node)
        if name in ("trim", "ltrim", "rtrim") and len(args) == 2:
            args = (args[1], args[0])  # SQL's trim(chars, s) is TRIM(chars FROM s); PySpark's is trim(s, chars)
        if name in ("substring", "substr") and len(args) == 2:
            # SQL's two-argument form runs to the end; Spark names it with the length it fills in.
            args = (*args, Literal(2**31 - 1, "int"))
        if name == "count_min_sketch" and len(args) == 3:  # PySpark draws a seed; SQL asks for one
            raise AnalysisException(
                "Cannot invoke routine `count_min_sketch` because the parameter named `seed` is required, but the "
                "routine call did not supply a value. Please update the routine call to supply an argument value "
                "(either positionally at index 3 or by name) and retry the query again.",
                "REQUIRED_PARAMETER_NOT_FOUND", {"routineName": "`count_min_sketch`", "parameterName": "`seed`"})
        func = self.function(name)
        if name in ("rand", "randn", "random") and not args:
            seeded = func()
            return type(seeded)(type(seeded.expr)(seeded.expr.seed, hide_seed=True))
        target = name if getattr(self.fns, name, None) is func else _ALIASES.get(name, name)
        values = [self.argument(target, i, a) for i, a in enumerate(args)]
        _check_arity(name, func, len(values))
        if name in SHOWN_AS_CALLED or name in OPERATOR_NAMES and node.operator:
            return named_as_called(func(*values), OPERATOR_NAMES[name] if node.operator else name)
        return func(*values)

    def within_group(self, node: Call) -> Any:
        """``f(...) WITHIN GROUP (ORDER BY k)`` (see :mod:`.special_aggregates`)."""
        return within_group(self, node)

    def ignoring_nulls(self, node: Call) -> Any:
        """``f(x, ...) IGNORE NULLS``: the functions that take it as an argument get it so; ``lag``
        and ``lead`` (whose PySpark functions do not take it) get their expression's variant."""
        name, args = node.name, node.args
        flag = Literal(True, "boolean")
        if name in ("first", "last", "first_value", "last_value", "any_value") and len(args) == 1:
            return self.call(Call(name, (*args, flag)))
        if name == "nth_value" and len(args) == 2:
            return self.call(Call(name, (*args, flag)))
        if name in ("lag", "lead"):
            column = self.call(Call(name, args))
            return type(column)(column.expr.ignoring_nulls())
        raise AnalysisException(
            f"Function {name} does not support IGNORE NULLS; it is for first, last, first_value, last_value, "
            "any_value, nth_value, lag and lead.", "INVALID_PARAMETER_VALUE.IGNORE_NULLS", {"functionName": name})

    def over(self, node: Over) -> Any:
        from ..window import Window  # noqa: PLC0415 - the window API is only needed for OVER

        if node.call.filter is not None:
            raise AnalysisException("Window aggregate function with filter predicate is not supported yet; "
                                    "aggregate CASE WHEN cond THEN v END over the window instead.",
                                    "_LEGACY_ERROR_TEMP_1030", {})
        if node.call.distinct:  # Spark: a window aggregates every row of its frame, DISTINCT is refused
            shown = f"{node.call.name}(DISTINCT ...) OVER (...)"
            raise AnalysisException(f'Distinct window functions are not supported: "{shown}".',
                                    "DISTINCT_WINDOW_FUNCTION_UNSUPPORTED", {"windowExpr": shown})

        spec = Window.partitionBy(*[self.build(e) for e in node.partition_by]).orderBy(
            *[to_sort(item, self.fns, self.build(item.operand)) for item in node.order_by])
        if node.frame is not None:
            kind, lower, upper = node.frame
            start = Window.unboundedPreceding if lower is None else lower
            end = Window.unboundedFollowing if upper is None else upper
            if isinstance(start, datetime.timedelta) or isinstance(end, datetime.timedelta):
                if kind == "rows":
                    raise AnalysisException(
                        "A ROWS frame counts rows: its offsets cannot be INTERVALs. Use RANGE BETWEEN INTERVAL ... "
                        "over a timestamp or date ordering.",
                        "DATATYPE_MISMATCH.SPECIFIED_WINDOW_FRAME_UNACCEPTED_TYPE",
                        {"sqlExpr": "ROWS BETWEEN INTERVAL"})
                spec = spec.interval_range(lower, upper)  # SQL only: PySpark's rangeBetween takes numbers
            else:
                spec = spec.rowsBetween(start, end) if kind == "rows" else spec.rangeBetween(start, end)
        return self.call(node.call).over(spec)

    def distinct_aggregate(self, node: Call) -> Any:
        """``f(DISTINCT ...)`` (see :mod:`.special_aggregates`)."""
        return distinct_aggregate(self, node)


def _decode_case(parts: list[Any]) -> Any:
    """SQL's ``decode(e, s1, r1, [s2, r2, ...] [default])``: the result of the first search equal
    to ``e`` (nulls equal, ``<=>``), else the default or null; named as called, as Spark's."""
    from dstream.sql.expressions.conditional import CaseWhen  # noqa: PLC0415 - SQL only
    from dstream.sql.expressions.predicates import EqualNullSafe  # noqa: PLC0415

    exprs = [p.expr for p in parts]
    pairs = [(EqualNullSafe(exprs[0], exprs[i]), exprs[i + 1]) for i in range(1, len(exprs) - 1, 2)]
    default = exprs[-1] if len(exprs) % 2 == 0 else None
    shown = f"decode({', '.join(e.sql() for e in exprs)})"
    return type(parts[0])(CaseWhen(pairs, default, shown))


def to_column(node: Expr, functions: ModuleType, env: Mapping[str, Any] | None = None,
              subquery: Callable[[Any], Any] | None = None) -> Any:
    """The Column of an expression tree, built with the public API of ``functions``.

    Parameters
    ----------
    node : Expr
        A tree from :func:`~dstream.sql.parser.expression.parse_expression_ast`.
    functions : module
        ``dstream.sql.functions`` (passed in: this package must not import it).
    env : mapping, optional
        Lambda variables in scope, lower-case name -> Column.
    subquery : callable, optional
        The Column of a scalar subquery node (``spark.sql`` gives one; elsewhere a
        subquery is refused).

    Returns
    -------
    Column
        The expression, aliased when the tree is an :class:`~.nodes.Alias`.

    Raises
    ------
    AnalysisException
        ``UNRESOLVED_ROUTINE`` for an unknown function, ``UNSUPPORTED_FEATURE`` for syntax the
        public API cannot express.
    """
    return _Builder(functions, env or {}, subquery).build(node)


def to_sort(item: SortItem, functions: ModuleType, column: Any = None) -> Any:
    """The sort Column of an ORDER BY item (``column`` overrides the item's expression).

    Spark's defaults: ascending sorts put nulls first, descending ones last.
    """
    col = to_column(item.operand, functions) if column is None else column
    nulls_first = item.ascending if item.nulls_first is None else item.nulls_first
    if item.ascending:
        return col.asc_nulls_first() if nulls_first else col.asc_nulls_last()
    return col.desc_nulls_first() if nulls_first else col.desc_nulls_last()
