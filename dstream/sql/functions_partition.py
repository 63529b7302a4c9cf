"""Functions of ``dstream.sql.functions`` whose value depends on where a row is evaluated:
``spark_partition_id``, ``monotonically_increasing_id``, ``rand``, ``randn``, ``uniform`` and
``randstr``.

What this module owns
---------------------
The public builders, with PySpark's names and parameters; the expressions are
``expressions.partition_functions``'s. A seed left out is drawn once, when the column is
made, and shows in its name (``rand(4217...)``), as Spark does (``uniform`` and ``randstr``
hide a drawn seed: ``uniform(1, 2)``).
"""

from __future__ import annotations

import random
from typing import Any

from .column import Column, to_expr
from .errors import PySparkTypeError
from .expressions.base import Expression, Literal
from .expressions.partition_functions import MonotonicallyIncreasingId, Rand, Randn, SparkPartitionId
from .expressions.random_functions import RandomString, Uniform

__all__ = ["monotonically_increasing_id", "rand", "randn", "randstr", "spark_partition_id", "uniform"]


def spark_partition_id() -> Column:
    """The index of the partition each row is in (non-deterministic: it depends on the
    partitioning).

    Examples
    --------
    >>> spark.range(4, numPartitions=2).select("id", spark_partition_id().alias("p")).collect()
    [Row(id=0, p=0), Row(id=1, p=0), Row(id=2, p=1), Row(id=3, p=1)]
    """
    return Column(SparkPartitionId())


def monotonically_increasing_id() -> Column:
    """Ids that are unique and increase within each partition: the partition index in
    the upper 31 bits and the row's position in its partition in the lower 33.

    They are not consecutive: they depend on the partitioning, as Spark's do.

    Examples
    --------
    >>> spark.range(4, numPartitions=2).select(monotonically_increasing_id().alias("i")).collect()
    [Row(i=0), Row(i=1), Row(i=8589934592), Row(i=8589934593)]
    """
    return Column(MonotonicallyIncreasingId())


def _seed(seed: int | None) -> int:
    if seed is None:
        return random.randrange(-(1 << 63), 1 << 63)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise PySparkTypeError(f"Argument `seed` should be an int, got {type(seed).__name__}.",
                               "NOT_INT", {"arg_name": "seed", "arg_type": type(seed).__name__})
    return seed


def rand(seed: int | None = None) -> Column:
    """Random doubles drawn uniformly from [0, 1), independently for each row.

    Parameters
    ----------
    seed : int, optional
        The seed; each partition draws from a generator seeded with ``seed + partition``,
        so the same seed and partitioning give the same values. Without one, a seed is
        drawn once, now.

    Examples
    --------
    >>> df = spark.range(3, numPartitions=1).select(rand(42).alias("r"))
    >>> df.columns, all(0.0 <= row.r < 1.0 for row in df.collect())
    (['r'], True)
    >>> spark.range(1).select(rand(42)).columns
    ['rand(42)']
    """
    return Column(Rand(_seed(seed)))


def randn(seed: int | None = None) -> Column:
    """Random doubles drawn from the standard normal distribution, independently for each row.

    Parameters
    ----------
    seed : int, optional
        As for :func:`rand`.

    Examples
    --------
    >>> spark.range(1).select(randn(7)).columns
    ['randn(7)']
    """
    return Column(Randn(_seed(seed)))


def _argument(value: Any) -> Expression:
    """A bound or length: a Column's expression, a Python number as a literal (as PySpark's ``lit``)."""
    return value.expr if isinstance(value, Column) else to_expr(value)


def _seed_argument(seed: Any) -> tuple[int, bool]:
    """The seed of ``uniform``/``randstr`` (a literal Column or an int) and whether it was given."""
    if seed is None:
        return _seed(None), False
    if isinstance(seed, Column):
        if not isinstance(seed.expr, Literal) or not isinstance(seed.expr.value, int):
            raise PySparkTypeError(f"Argument `seed` should be an int literal, got {seed.expr.sql()}.",
                                   "NOT_INT", {"arg_name": "seed", "arg_type": type(seed.expr).__name__})
        return int(seed.expr.value), True
    return _seed(seed), True


def uniform(min: Any, max: Any, seed: Any = None) -> Column:  # noqa: A002 - PySpark's names
    """A random number between ``min`` and ``max`` per row, of their type (Spark 4's ``uniform``).

    Parameters
    ----------
    min, max : Column or number
        Constant bounds (``lit(10)`` or ``10``).
    seed : Column or int, optional
        The seed (a literal); drawn once, and not shown in the name, without it.

    Examples
    --------
    >>> spark.range(0, 2, 1, 1).select(uniform(0, 100, 42).alias("u")).collect()
    [Row(u=61), Row(u=50)]
    """
    value, shown = _seed_argument(seed)
    return Column(Uniform([_argument(min), _argument(max)], value, shown))


def randstr(length: Any, seed: Any = None) -> Column:
    """A random string of ``length`` characters from ``0-9a-zA-Z`` per row (Spark 4's ``randstr``).

    Parameters
    ----------
    length : Column or int
        The constant length.
    seed : Column or int, optional
        The seed (a literal); drawn once, and not shown in the name, without it.

    Examples
    --------
    >>> spark.range(0, 1, 1, 1).select(randstr(5, 0).alias("s")).first().s
    'ceV0P'
    """
    value, shown = _seed_argument(seed)
    return Column(RandomString([_argument(length)], value, shown))
