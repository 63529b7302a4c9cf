"""``dstream.sql.functions``: PySpark's ``pyspark.sql.functions``.

What this module owns
---------------------
The column builders of the DataFrame API: ``col``, ``lit``, ``expr``, ``when``,
``coalesce``, the generators (``explode``...), complex values (``struct``, ``array``,
``element_at``...), ``window``/``session_window``, ``udf``, ``broadcast``, and, re-exported,
the aggregates (:mod:`functions_agg`) and the string, math and datetime functions
(:mod:`functions_scalar`). ``__all__`` lists every public function.

Invariants
----------
* Every function returns a ``Column`` whose expression is unresolved until a DataFrame
  uses it; column parameters accept a ``Column`` or a column name.
* ``expr`` parses with :func:`dstream.sql.parser.parse_expression`, handing it this
  module: the parser builds columns only through these public functions.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import functions_partitioning as partitioning  # PySpark 4's functions.partitioning
from .column import Column, column_of, expr_of, lit_expr, to_expr
from .errors import PySparkTypeError
from .expressions.base import Expression, Literal
from .expressions.cast import TypedLiteral
from .expressions.collection_functions import (
    ArrayContains,
    CreateArray,
    CreateStruct,
    ElementAt,
    FromJson,
    Size,
    ToJson,
)
from .expressions.conditional import CaseWhen, Coalesce, NullIf, Nvl
from .expressions.function_registry import registered_names
from .expressions.generators import Explode, PosExplode
from .expressions.operators import Abs, Add, Divide, Multiply, Subtract, TryEval
from .expressions.predicates import IsNaN, IsNull
from .expressions.scalar_functions import ScalarFunction
from .expressions.windows import SessionWindow, TimeWindow, duration_us, positive_duration_us
from .functions_agg import *  # noqa: F403 - the aggregates are part of this module's surface
from .functions_agg import __all__ as _agg_all
from .functions_agg_more import *  # noqa: F403 - the other aggregates are part of this module's surface
from .functions_agg_more import __all__ as _agg_more_all
from .functions_aliases import *  # noqa: F403 - PySpark 4's other names are part of this module's surface
from .functions_aliases import __all__ as _aliases_all
from .functions_arrays import *  # noqa: F403 - the array functions are part of this module's surface
from .functions_arrays import __all__ as _arrays_all
from .functions_arrays_more import *  # noqa: F403 - the element-wise array functions are part of this module's surface
from .functions_arrays_more import __all__ as _arrays_more_all
from .functions_bitwise import *  # noqa: F403 - the bit functions are part of this module's surface
from .functions_bitwise import __all__ as _bitwise_all
from .functions_checks import *  # noqa: F403 - the checking and tolerant functions are part of this module's surface
from .functions_checks import __all__ as _checks_all
from .functions_csv import *  # noqa: F403 - the CSV text functions are part of this module's surface
from .functions_csv import __all__ as _csv_all
from .functions_datetime import *  # noqa: F403 - the datetime functions are part of this module's surface
from .functions_datetime import __all__ as _datetime_all
from .functions_datetime_more import *  # noqa: F403 - the newer datetime functions are part of this module's surface
from .functions_datetime_more import __all__ as _datetime_more_all
from .functions_epoch import *  # noqa: F403 - the epoch functions are part of this module's surface
from .functions_epoch import __all__ as _epoch_all
from .functions_generators import *  # noqa: F403 - the generators are part of this module's surface
from .functions_generators import __all__ as _generators_all
from .functions_higher_order import *  # noqa: F403 - the higher-order functions are part of this module's surface
from .functions_higher_order import __all__ as _higher_order_all
from .functions_json import *  # noqa: F403 - the JSON text functions are part of this module's surface
from .functions_json import __all__ as _json_all
from .functions_map import *  # noqa: F403 - the map functions are part of this module's surface
from .functions_map import __all__ as _map_all
from .functions_math import *  # noqa: F403 - the math functions are part of this module's surface
from .functions_math import __all__ as _math_all
from .functions_misc import *  # noqa: F403 - the assorted functions are part of this module's surface
from .functions_misc import __all__ as _misc_all
from .functions_more import *  # noqa: F403 - the newer string, URL and session functions are part of this surface
from .functions_more import __all__ as _more_all
from .functions_pandas_udf import PandasUDFType, pandas_udf  # noqa: F401 - re-exported (listed in __all__)
from .functions_partition import *  # noqa: F403 - the partition-dependent functions are part of this module's surface
from .functions_partition import __all__ as _partition_all
from .functions_regex import *  # noqa: F403 - the pattern functions are part of this module's surface
from .functions_regex import __all__ as _regex_all
from .functions_scalar import *  # noqa: F403 - the scalar functions are part of this module's surface
from .functions_scalar import __all__ as _scalar_all
from .functions_sketch import *  # noqa: F403 - the HyperLogLog sketch functions are part of this module's surface
from .functions_sketch import __all__ as _sketch_all
from .functions_stats import *  # noqa: F403 - the statistical aggregates are part of this module's surface
from .functions_stats import __all__ as _stats_all
from .functions_text import *  # noqa: F403 - the string functions are part of this module's surface
from .functions_text import __all__ as _text_all
from .functions_udf import UserDefinedFunction, udf  # noqa: F401 - re-exported (listed in __all__)
from .functions_variant import *  # noqa: F403 - the VARIANT functions are part of this module's surface
from .functions_variant import __all__ as _variant_all
from .functions_window import *  # noqa: F403 - the window functions are part of this module's surface
from .functions_window import __all__ as _window_all
from .functions_xml import *  # noqa: F403 - the XML text functions are part of this module's surface
from .functions_xml import __all__ as _xml_all
from .functions_xpath import *  # noqa: F403 - the XPath functions are part of this module's surface
from .functions_xpath import __all__ as _xpath_all
from .parser.columns import unresolved_routine
from .types import DataType, StringType, _parse_datatype_string, _without_char_varchar
from .udtf import udtf  # noqa: F401 - re-exported (listed in __all__)

# PySpark 4's deprecated spellings of the partition transforms (functions.partitioning's).
years = partitioning.deprecated("years")
months = partitioning.deprecated("months")
days = partitioning.deprecated("days")
hours = partitioning.deprecated("hours")
bucket = partitioning.deprecated("bucket")

__all__ = sorted([
    "abs", "array", "array_contains", "asc", "broadcast", "call_function", "coalesce", "col", "column", "desc",
    "element_at",
    "explode", "explode_outer", "expr", "from_json", "ifnull", "isnan", "isnull", "lit", "named_struct", "nullif",
    "nvl", "posexplode", "posexplode_outer", "session_window", "size", "struct", "to_json", "try_add",
    "try_divide", "try_multiply", "try_subtract", "udf", "udtf", "UserDefinedFunction", "when", "window", "pandas_udf",
    "PandasUDFType", "years", "months", "days", "hours", "bucket",
    *_agg_all, *_agg_more_all, *_aliases_all, *_arrays_all, *_arrays_more_all, *_bitwise_all, *_checks_all, *_csv_all,
    *_datetime_all,
    *_datetime_more_all, *_epoch_all, *_generators_all,
    *_higher_order_all, *_json_all, *_map_all, *_math_all, *_misc_all, *_more_all, *_partition_all, *_regex_all,
    *_scalar_all, *_sketch_all, *_stats_all, *_text_all, *_variant_all, *_window_all, *_xml_all, *_xpath_all,
])

ColumnOrName = Column | str


def col(col: str) -> Column:
    """The column of that name (``"a"``, ``"t.a"``, ``"s.field"``, ``"*"``).

    Parameters
    ----------
    col : str
        The name.
    """
    if not isinstance(col, str):
        raise PySparkTypeError(f"Argument `col` should be a str, got {type(col).__name__}.", "NOT_STR",
                               {"arg_name": "col", "arg_type": type(col).__name__})
    return Column(expr_of(col))


column = col


def lit(col: Any) -> Column:
    """A constant column (a ``Column`` is returned as it is).

    Parameters
    ----------
    col : Any
        A bool, int, float, str, Decimal, date, datetime, timedelta, bytes, list or None.
    """
    return col if isinstance(col, Column) else Column(lit_expr(col))


def _typed_literal(value: Any, type_name: str, display: str | None = None) -> Column:
    """A typed literal of the SQL parser: ``value`` typed ``type_name`` (``1L``, ``INTERVAL '1' HOUR``).

    With ``display`` (``DATE '2024-01-02'``), ``value`` is the literal's text, cast to the type.
    """
    dtype = _parse_datatype_string(type_name)
    if display is not None:
        return Column(TypedLiteral(Literal(value, StringType()), dtype, display=display))
    return Column(Literal(value, dtype))


def expr(str: str) -> Column:  # noqa: A002 - PySpark's name
    """The column an SQL expression string describes (``"a + 1 AS b"``).

    Parameters
    ----------
    str : str
        The expression.
    """
    from .udf_registration import sql_column  # noqa: PLC0415 - loads with the first expression

    result = sql_column(str)
    assert isinstance(result, Column)
    return result


def when(condition: Column, value: Any) -> Column:
    """``CASE WHEN condition THEN value``; chain ``.when`` and ``.otherwise``.

    Parameters
    ----------
    condition : Column
        A boolean column.
    value : Any
        The value (a Column or a Python value).
    """
    if not isinstance(condition, Column):
        raise PySparkTypeError(f"Argument `condition` should be a Column, got "
                               f"{type(condition).__name__}.", "NOT_COLUMN",
                               {"arg_name": "condition", "arg_type": type(condition).__name__})
    return Column(CaseWhen([(condition.expr, to_expr(value))]))


def coalesce(*cols: ColumnOrName) -> Column:
    """The first non-null value.

    Parameters
    ----------
    *cols : Column or str
        The candidates, in order.
    """
    return Column(Coalesce([expr_of(c) for c in cols]))


def nvl(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """``col1`` unless it is null, then ``col2``.

    Parameters
    ----------
    col1, col2 : Column or str
        The columns.
    """
    return Column(Nvl([expr_of(col1), expr_of(col2)]))


def ifnull(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """:func:`nvl` by its other name (the column is named ``ifnull(...)``, as in Spark).

    Parameters
    ----------
    col1, col2 : Column or str
        The columns.
    """
    node = Nvl([expr_of(col1), expr_of(col2)])
    node.name = "ifnull"
    return Column(node)


def nullif(col1: ColumnOrName, col2: ColumnOrName) -> Column:
    """Null where ``col1 = col2``, else ``col1``.

    Parameters
    ----------
    col1, col2 : Column or str
        The columns.
    """
    return Column(NullIf(expr_of(col1), expr_of(col2)))


def isnull(col: ColumnOrName) -> Column:
    """True where the value is null.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(IsNull(expr_of(col)))


def isnan(col: ColumnOrName) -> Column:
    """True where the value is NaN (false for null).

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return Column(IsNaN(expr_of(col)))


def abs(col: ColumnOrName) -> Column:  # noqa: A001 - PySpark's name
    """The absolute value.

    Parameters
    ----------
    col : Column or str
        The numbers.
    """
    return Column(Abs(expr_of(col)))


def _try(name: str, node: Callable[[Expression, Expression], Expression], left: ColumnOrName,
         right: ColumnOrName) -> Column:
    return Column(TryEval(node(expr_of(left), expr_of(right)), name))


def try_add(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left + right``, null on overflow.

    Parameters
    ----------
    left, right : Column or str
        The operands.
    """
    return _try("try_add", Add, left, right)


def try_subtract(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left - right``, null on overflow.

    Parameters
    ----------
    left, right : Column or str
        The operands.
    """
    return _try("try_subtract", Subtract, left, right)


def try_multiply(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left * right``, null on overflow.

    Parameters
    ----------
    left, right : Column or str
        The operands.
    """
    return _try("try_multiply", Multiply, left, right)


def try_divide(left: ColumnOrName, right: ColumnOrName) -> Column:
    """``left / right``, null when dividing by zero.

    Parameters
    ----------
    left, right : Column or str
        The operands.
    """
    return _try("try_divide", Divide, left, right)


def asc(col: ColumnOrName) -> Column:
    """Ascending order of a column.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return column_of(col).asc()


def desc(col: ColumnOrName) -> Column:
    """Descending order of a column.

    Parameters
    ----------
    col : Column or str
        The column.
    """
    return column_of(col).desc()


def explode(col: ColumnOrName) -> Column:
    """One row per element of an array (column ``col``) or entry of a map (``key``, ``value``).

    Parameters
    ----------
    col : Column or str
        The array or map.
    """
    return Column(Explode(expr_of(col)))


def explode_outer(col: ColumnOrName) -> Column:
    """Like :func:`explode`, but a null or empty collection gives one row of nulls.

    Parameters
    ----------
    col : Column or str
        The array or map.
    """
    return Column(Explode(expr_of(col), outer=True))


def posexplode(col: ColumnOrName) -> Column:
    """Like :func:`explode`, with the position (``pos``) first.

    Parameters
    ----------
    col : Column or str
        The array or map.
    """
    return Column(PosExplode(expr_of(col)))


def posexplode_outer(col: ColumnOrName) -> Column:
    """Like :func:`posexplode`, keeping rows with a null or empty collection.

    Parameters
    ----------
    col : Column or str
        The array or map.
    """
    return Column(PosExplode(expr_of(col), outer=True))


def _columns(cols: tuple[Any, ...]) -> list[Expression]:
    if len(cols) == 1 and isinstance(cols[0], (list, set, tuple)):
        cols = tuple(cols[0])
    return [expr_of(c) for c in cols]


def struct(*cols: Any) -> Column:
    """A struct of the columns (fields named as the columns).

    Parameters
    ----------
    *cols : Column or str
        The fields (or one list of them).
    """
    return Column(CreateStruct(_columns(cols)))


def named_struct(*cols: Any) -> Column:
    """A struct from name, value pairs: ``named_struct(lit("x"), col("a"), ...)``.

    Parameters
    ----------
    *cols : Column or str
        Alternating names (literal strings) and values.
    """
    names, values = [], []
    for i in range(0, len(cols), 2):
        name = cols[i]
        names.append(name if isinstance(name, str) else name.expr.value)
        values.append(expr_of(cols[i + 1]))
    return Column(CreateStruct(values, names))


def array(*cols: Any) -> Column:
    """An array of the columns' values.

    Parameters
    ----------
    *cols : Column or str
        The elements (or one list of them).
    """
    return Column(CreateArray(_columns(cols)))


def size(col: ColumnOrName) -> Column:
    """The number of elements of an array or map.

    Parameters
    ----------
    col : Column or str
        The arrays or maps.
    """
    return Column(Size(expr_of(col)))


def element_at(col: ColumnOrName, extraction: Any) -> Column:
    """The array element at a 1-based position (negative from the end), or a map's value of a key.

    Parameters
    ----------
    col : Column or str
        The arrays or maps.
    extraction : Any
        The position or key.
    """
    return Column(ElementAt(expr_of(col), to_expr(extraction)))


def array_contains(col: ColumnOrName, value: Any) -> Column:
    """Whether the array holds ``value``.

    Parameters
    ----------
    col : Column or str
        The arrays.
    value : Any
        The value to look for.
    """
    return Column(ArrayContains(expr_of(col), to_expr(value)))


def from_json(col: ColumnOrName, schema: DataType | str, options: dict[str, str] | None = None) -> Column:
    """JSON text parsed into ``schema`` (a DataType or a DDL string).

    Parameters
    ----------
    col : Column or str
        The JSON strings.
    schema : DataType or str
        The type of the result.
    options : dict, optional
        JSON options (``mode``...).
    """
    dt = _without_char_varchar(_parse_datatype_string(schema) if isinstance(schema, str) else schema)
    return Column(FromJson(expr_of(col), dt, options))


def to_json(col: ColumnOrName, options: dict[str, str] | None = None) -> Column:
    """A struct, map or array as JSON text.

    Parameters
    ----------
    col : Column or str
        The values.
    options : dict, optional
        JSON options.
    """
    return Column(ToJson(expr_of(col), options))


def window(timeColumn: ColumnOrName, windowDuration: str, slideDuration: str | None = None,  # noqa: N803 - PySpark's name
           startTime: str | None = None) -> Column:  # noqa: N803 - PySpark's name
    """The event-time window(s) of each row: a struct ``window`` of ``start`` and ``end``.

    Parameters
    ----------
    timeColumn : Column or str
        The event time.
    windowDuration : str
        The window length (``"10 minutes"``).
    slideDuration : str, optional
        The distance between window starts (default: tumbling windows).
    startTime : str, optional
        The offset of window starts from the epoch.
    """
    length = duration_us(windowDuration)
    slide = length if slideDuration is None else duration_us(slideDuration)
    start = 0 if startTime is None else duration_us(startTime)
    return Column(TimeWindow(expr_of(timeColumn), length, slide, start))


def session_window(timeColumn: ColumnOrName, gapDuration: str | Column) -> Column:  # noqa: N803 - PySpark's name
    """The session window of each row (``[time, time + gap)``, merged by the aggregation).

    Parameters
    ----------
    timeColumn : Column or str
        The event time.
    gapDuration : str or Column
        The inactivity gap closing a session: one duration (``"10 minutes"``), or a string
        Column giving each row its own (``F.when(col("user") == "a", "5 seconds").otherwise(
        "1 minute")``); rows whose gap is null, unreadable or not positive are left out (a fixed gap
        that is not a positive interval leaves every row out, as in Spark).
    """
    if isinstance(gapDuration, Column):
        if isinstance(gapDuration.expr, Literal) and isinstance(gapDuration.expr.value, str):
            gapDuration = gapDuration.expr.value  # noqa: N806 - PySpark's name
        else:
            return Column(SessionWindow(expr_of(timeColumn), 0, gapDuration.expr))
    gap = positive_duration_us(gapDuration) if isinstance(gapDuration, str) else None
    if gap is None:
        # As Spark: a gap that is not a positive interval ('0 seconds', 'abc') gives no session,
        # so the rows are left out, as with a per-row gap.
        return Column(SessionWindow(expr_of(timeColumn), 0, Literal(gapDuration, StringType())))
    return Column(SessionWindow(expr_of(timeColumn), gap))


def broadcast(df: Any) -> Any:
    """Mark a DataFrame to be broadcast in joins (a hint; the DataFrame is returned).

    Parameters
    ----------
    df : DataFrame
        The small side of a join.
    """
    df._hint_broadcast = True
    return df


def call_function(funcName: str, *cols: ColumnOrName) -> Column:  # noqa: N803 - PySpark's name
    """Call a function of this module, or any registered SQL function, by name.

    Parameters
    ----------
    funcName : str
        The function's name (``"sqrt"``, ``"sum"``, ``"regexp_count"``), any case.
    cols : Column or str
        Its arguments (a ``str`` is a column name).
    """
    if not isinstance(funcName, str):
        raise PySparkTypeError(f"Argument `funcName` should be a str, got {type(funcName).__name__}.", "NOT_STR",
                               {"arg_name": "funcName", "arg_type": type(funcName).__name__})
    columns = [c if isinstance(c, Column) else col(c) for c in cols]
    name = funcName.lower()
    builder = globals().get(name) if name in __all__ and name not in ("call_function", "col", "column") else None
    if callable(builder):
        return builder(*columns)
    if name in ("from_avro", "to_avro"):  # SQL functions of Spark's Avro module
        from .avro.functions import sql_call  # noqa: PLC0415 - Avro is loaded when used

        return sql_call(name, columns)
    if name not in registered_names():
        raise unresolved_routine(funcName)
    return Column(ScalarFunction(name, [c.expr for c in columns]))

