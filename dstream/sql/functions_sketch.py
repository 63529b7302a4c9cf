"""The sketch functions of ``dstream.sql.functions``: the HyperLogLog ``hll_sketch_agg``,
``hll_union_agg``, ``hll_union`` and ``hll_sketch_estimate``, and ``count_min_sketch``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the semantics (Apache
DataSketches' HLL sketches, in the bytes Spark writes) are stated in
``expressions.hll_sketches``, those of the count-min sketch (Spark's own, byte for byte) in
``expressions.count_min_sketch``. ``lgConfigK`` and ``allowDifferentLgConfigK`` are constants:
a Python value, or a literal column.

Examples
--------
>>> df = spark.createDataFrame([(1,), (2,), (2,), (3,)], "v int")
>>> df.agg(hll_sketch_estimate(hll_sketch_agg("v")).alias("distinct")).first()[0]
3
"""

from __future__ import annotations

from typing import Any

from .column import Column, expr_of
from .errors import AnalysisException, PySparkTypeError
from .expressions.base import Literal

__all__ = ["count_min_sketch", "hll_sketch_agg", "hll_sketch_estimate", "hll_union", "hll_union_agg"]

ColumnOrName = Column | str


def _constant(value: Any, name: str, kind: type, function: str) -> Any:
    """The Python value of a constant argument: ``value`` itself, or a literal column's."""
    if isinstance(value, Column):
        expr = expr_of(value)
        if not isinstance(expr, Literal):
            raise AnalysisException(
                f'Cannot resolve "{function}" due to data type mismatch: the input `{name}` should be a foldable '
                f'"{"INT" if kind is int else "BOOLEAN"}" expression; however, got "{expr.sql()}".',
                "DATATYPE_MISMATCH.NON_FOLDABLE_INPUT", {"inputName": f"`{name}`"})
        value = expr.value
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        allowed = "int" if kind is int else "bool"
        raise PySparkTypeError(f"Argument `{name}` should be a Column or {allowed}, got {type(value).__name__}.",
                               "NOT_COLUMN_OR_INT" if kind is int else "NOT_COLUMN_OR_BOOL",
                               {"arg_name": name, "arg_type": type(value).__name__})
    return value


def hll_sketch_agg(col: ColumnOrName, lgConfigK: int | Column | None = None) -> Column:  # noqa: N803 - PySpark's name
    """A HyperLogLog sketch of a group's distinct values, as Spark's binary (DataSketches' ``HLL_8``).

    Parameters
    ----------
    col : Column or str
        INT, BIGINT, STRING or BINARY values; nulls and empty strings are skipped.
    lgConfigK : int or Column, optional
        The log2 of the number of registers, from 4 to 21 (default 12): more registers,
        a smaller error and a larger sketch.
    """
    from .expressions.hll_sketches import DEFAULT_LG_K, HllSketchAgg  # noqa: PLC0415 - loaded when used

    k = DEFAULT_LG_K if lgConfigK is None else _constant(lgConfigK, "lgConfigK", int, "hll_sketch_agg")
    return Column(HllSketchAgg(expr_of(col), k))


def hll_union_agg(col: ColumnOrName, allowDifferentLgConfigK: bool | Column | None = None) -> Column:  # noqa: N803
    """The union of a group's sketches, as a sketch.

    Parameters
    ----------
    col : Column or str
        Sketches (binaries from :func:`hll_sketch_agg`); nulls are skipped.
    allowDifferentLgConfigK : bool or Column, optional
        Whether sketches of different ``lgConfigK`` may be united (default false: an error).
    """
    from .expressions.hll_sketches import HllUnionAgg  # noqa: PLC0415

    allow = False if allowDifferentLgConfigK is None else _constant(
        allowDifferentLgConfigK, "allowDifferentLgConfigK", bool, "hll_union_agg")
    return Column(HllUnionAgg(expr_of(col), allow))


def hll_sketch_estimate(col: ColumnOrName) -> Column:
    """The number of distinct values a sketch estimates (a BIGINT; null for null)."""
    from .expressions.hll_sketches import HllSketchEstimate  # noqa: PLC0415

    return Column(HllSketchEstimate(expr_of(col)))


def hll_union(col1: ColumnOrName, col2: ColumnOrName,
              allowDifferentLgConfigK: bool | None = None) -> Column:  # noqa: N803 - PySpark's name
    """The union of two sketches, as a sketch of the smaller ``lgConfigK`` (null if either is null).

    Parameters
    ----------
    col1, col2 : Column or str
        Sketches (binaries from :func:`hll_sketch_agg`).
    allowDifferentLgConfigK : bool, optional
        Whether sketches of different ``lgConfigK`` may be united (default false: an error).
    """
    from .expressions.hll_sketches import HllUnion  # noqa: PLC0415
    from .types import BooleanType  # noqa: PLC0415

    allow = None if allowDifferentLgConfigK is None else expr_of(allowDifferentLgConfigK) \
        if isinstance(allowDifferentLgConfigK, Column) else Literal(
            _constant(allowDifferentLgConfigK, "allowDifferentLgConfigK", bool, "hll_union"), BooleanType())
    return Column(HllUnion(expr_of(col1), expr_of(col2), allow))


def count_min_sketch(col: ColumnOrName, eps: Column | float, confidence: Column | float,
                     seed: Column | int | None = None) -> Column:
    """A count-min sketch of a group's values, as the binary Spark's ``CountMinSketch`` reads.

    Parameters
    ----------
    col : Column or str
        Integral (TINYINT to BIGINT), STRING or BINARY values; nulls are skipped.
    eps : Column or float
        The relative error of a count, a positive DOUBLE: the sketch has ``ceil(2 / eps)``
        counters per row.
    confidence : Column or float
        The probability that a count is within the error, a DOUBLE in (0, 1): the sketch
        has ``ceil(-log2(1 - confidence))`` rows.
    seed : Column or int, optional
        Seeds the rows' hash functions (an INT or BIGINT, narrowed to an int as Spark
        does); a random one, shown in the column's name, when not given.

    Examples
    --------
    >>> spark.range(100).select(hex(count_min_sketch("id", 1.0, 0.3, 2))).first()[0]
    '0000000100000000000000640000000100000002000000005D96391C00000000000000320000000000000032'
    """
    import random  # noqa: PLC0415 - only for a seed not given

    from .column import lit_expr  # noqa: PLC0415
    from .expressions.count_min_sketch import CountMinSketchAgg  # noqa: PLC0415 - loaded when used

    if seed is None:
        seed = random.getrandbits(64) - (1 << 63)  # Spark draws a long: any Java long may show
    return Column(CountMinSketchAgg(expr_of(col), lit_expr(eps), lit_expr(confidence), lit_expr(seed)))
