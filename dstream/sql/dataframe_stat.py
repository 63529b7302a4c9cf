"""DataFrame statistics, samples and random splits: ``sample``, ``randomSplit``, ``sampleBy``, ``corr``, ``cov``,
``approxQuantile``, ``crosstab`` and the ``stat`` accessor (PySpark's ``DataFrameStatFunctions``).

What this module owns
---------------------
:class:`StatMethods`, a base of :class:`~dstream.sql.dataframe.DataFrame`, and
:class:`DataFrameStatFunctions`. The statistics are aggregations of the public API
(``corr``, ``covar_samp``, ``percentile_approx``); ``randomSplit`` is one ``Sample`` per
split over the same random stream; ``sampleBy`` and ``crosstab`` read rows on the driver
side of a job (``sampleBy`` in the tasks, ``crosstab`` from a grouped count).

Invariants
----------
* ``randomSplit``: with the same seed and input, every row is in exactly one split.
* ``sampleBy``: a stratum missing from ``fractions`` is not sampled (fraction 0), as Spark's.
* ``approxQuantile`` ignores nulls and NaN; an input without values gives ``[]`` per column.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .errors import IllegalArgumentException, PySparkTypeError, PySparkValueError
from .plan.logical import Sample

if TYPE_CHECKING:
    from .dataframe import DataFrame
    from .row import Row

__all__ = ["DataFrameStatFunctions", "StatMethods"]


def _keep_strata(column: str, fractions: dict[Any, float], seed: int, index: int,
                 rows: Iterator[Row]) -> Iterator[Row]:
    from .kernels.xorshift import XORShiftRandom  # noqa: PLC0415 - loaded in the task

    rng = XORShiftRandom(seed + index)  # Spark's rand(seed): one draw per row, in order
    for row in rows:
        if rng.next_double() < fractions.get(row[column], 0.0):
            yield row


def _add_item(counter: dict[Any, int], key: Any, count: int, size: int) -> None:
    """Spark's ``FreqItemCounter.add``: at most ``size`` keys; a new key past that lowers them all."""
    if key in counter:
        counter[key] += count
    elif len(counter) < size:
        counter[key] = count
    else:
        low = min(counter.values()) if counter else 0
        if count >= low:
            counter[key] = count
            for k in [k for k, v in counter.items() if v <= low]:
                del counter[k]
            for k in counter:
                counter[k] -= low
        else:
            for k in counter:
                counter[k] -= count


def _count_items(n_cols: int, size: int, rows: Iterator[Row]) -> Iterator[list[dict[Any, int]]]:
    counters: list[dict[Any, int]] = [{} for _ in range(n_cols)]
    for row in rows:
        for i in range(n_cols):
            _add_item(counters[i], row[i], 1, size)
    yield counters


def _merge_counters(mine: list[dict[Any, int]], theirs: list[dict[Any, int]], size: int) -> list[dict[Any, int]]:
    for counter, other in zip(mine, theirs):
        for key, count in other.items():
            _add_item(counter, key, count, size)
    return mine


class StatMethods:
    """Statistics, samples and random splits of a DataFrame (see the module doc)."""

    def observe(self, observation: Any, *exprs: Any) -> DataFrame:
        """The same rows, with named aggregate metrics computed over them by the actions that run them.

        Parameters
        ----------
        observation : Observation or str
            Where to read the metrics: ``observation.get`` after an action; with a name, a
            streaming query reports them in its progress' ``observedMetrics``.
        *exprs : Column
            Named aggregates (``F.count(F.lit(1)).alias("rows")``).
        """
        from .observation import CollectMetrics, MetricsCollector, Observation, check_metrics  # noqa: PLC0415

        df: Any = self
        if isinstance(observation, Observation):
            name = observation.name
        elif isinstance(observation, str) and observation:
            name = observation
        else:
            raise PySparkTypeError(
                f"Argument `observation` should be an Observation or a non-empty str, got {observation!r}.",
                "NOT_OBSERVATION_OR_STR", {"arg_name": "observation", "arg_type": type(observation).__name__})
        metrics = [df._resolve(e) for e in exprs]
        check_metrics(name, metrics)
        collector = MetricsCollector(name, metrics, first_only=isinstance(observation, Observation))
        if isinstance(observation, Observation):
            observation._attach(collector)
        return df._new(CollectMetrics(collector, df._plan))

    def sample(self, withReplacement: Any = None, fraction: Any = None,  # noqa: N803 - PySpark's names
               seed: int | None = None) -> DataFrame:
        """A random sample of about ``fraction`` of the rows (with replacement: a row repeated a
        Poisson number of times)."""
        df: DataFrame = self  # type: ignore[assignment]
        if isinstance(withReplacement, float):
            # PySpark's sample(0.5) and sample(0.5, 42): the fraction first, then the seed.
            if fraction is not None:
                seed = int(fraction)
            withReplacement, fraction = False, withReplacement  # noqa: N806 - PySpark's names
        elif not (withReplacement is None or isinstance(withReplacement, bool)):
            raise PySparkValueError(f"withReplacement must be a bool, got {withReplacement!r}.",
                                    "NOT_BOOL", {"arg_name": "withReplacement",
                                                 "arg_type": type(withReplacement).__name__})
        if isinstance(fraction, int) and not isinstance(fraction, bool):
            fraction = float(fraction)
        if not isinstance(fraction, float) or not 0 <= fraction:
            raise PySparkValueError(f"fraction must be a non-negative float, got {fraction!r}.",
                                    "INVALID_PARAMETER_VALUE", {"fraction": str(fraction)})
        if not withReplacement and fraction > 1.0:
            raise IllegalArgumentException(
                f"requirement failed: Sampling fraction ({fraction}) must be on interval [0, 1] without "
                "replacement (sample with withReplacement=True to draw rows more than once).")
        return df._new(Sample(float(fraction), bool(withReplacement),
                              seed if seed is not None else random.randrange(1 << 31), df._plan))

    def randomSplit(self, weights: list[float], seed: int | None = None) -> list[DataFrame]:  # noqa: N802
        """Split the rows at random into DataFrames whose sizes follow ``weights``.

        Parameters
        ----------
        weights : list of float
            Relative sizes (nonnegative, positive sum).
        seed : int, optional
            Seed of the split; the same seed over the same input gives the same split.
        """
        df: DataFrame = self  # type: ignore[assignment]
        weights = list(weights)
        if not weights or any(isinstance(w, bool) or not isinstance(w, (int, float)) or not w >= 0 for w in weights):
            raise PySparkValueError(f"Weights must be nonnegative numbers, got {weights!r}.", "VALUE_NOT_POSITIVE",
                                    {"arg_name": "weights", "arg_value": str(weights)})
        total = float(sum(weights))
        if not total > 0:
            raise PySparkValueError(f"Sum of weights must be positive, got {weights!r}.", "VALUE_NOT_POSITIVE",
                                    {"arg_name": "weights", "arg_value": str(weights)})
        seed = random.randrange(1 << 31) if seed is None else int(seed)
        bounds = [0.0, *itertools.accumulate(w / total for w in weights)]
        bounds[-1] = 1.0
        # As Spark: each partition sorted by its orderable columns first, so the rows meet their
        # draws in the same order whatever order they came in (the splits stay disjoint and stable).
        from .expressions.hash_functions import contains_map  # noqa: PLC0415 - light import

        keys = [f.name for f in df.schema.fields if not contains_map(f.dataType)]  # maps cannot be sorted
        source = df.sortWithinPartitions(*[df[k] for k in keys]) if keys else df
        return [df._new(Sample(upper, False, seed, source._plan, lower)) for lower, upper in zip(bounds, bounds[1:])]

    def sampleBy(self, col: Any, fractions: dict[Any, float], seed: int | None = None) -> DataFrame:  # noqa: N802
        """A stratified sample: each row kept with the fraction of its value of ``col``.

        Parameters
        ----------
        col : str or Column
            The stratum column (a name here).
        fractions : dict
            Stratum -> fraction in [0, 1]; strata not listed are not sampled.
        seed : int, optional
            Seed of the sample.
        """
        df: DataFrame = self  # type: ignore[assignment]
        name = col if isinstance(col, str) else df.select(col).columns[0]
        if not isinstance(fractions, dict):
            raise PySparkValueError(f"fractions must be a dict of stratum to fraction, got {fractions!r}.",
                                    "NOT_DICT", {"arg_name": "fractions", "arg_type": type(fractions).__name__})
        bad = {k: v for k, v in fractions.items() if isinstance(v, bool) or not isinstance(v, (int, float))
               or not 0 <= v <= 1}
        if bad:
            raise PySparkValueError(f"Fractions must be in [0, 1], got {bad!r}.", "INVALID_PARAMETER_VALUE",
                                    {"fractions": str(bad)})
        source = df if isinstance(col, str) else df.withColumn(name, col)
        seed = random.randrange(1 << 31) if seed is None else int(seed)
        keep = functools.partial(_keep_strata, name, {k: float(v) for k, v in fractions.items()}, seed)
        return df.sparkSession.createDataFrame(source.rdd.mapPartitionsWithIndex(keep), source.schema)

    def corr(self, col1: str, col2: str, method: str | None = None) -> float:
        """Pearson's correlation of two numeric columns, as PySpark's ``DataFrame.corr``.

        Unlike SQL's ``corr``, every row counts, a null as 0.0 (Spark's statistics read the
        columns as doubles, nulls included). Without any spread (no rows, one row, a constant
        column) the result is NaN; for two rows or more under ANSI it is Spark's
        ``DIVIDE_BY_ZERO``.
        """
        if method not in (None, "pearson"):
            raise PySparkValueError(f"Currently only the calculation of the Pearson Correlation coefficient is "
                                    f"supported, got method={method!r}.", "VALUE_NOT_PEARSON",
                                    {"arg_name": "method", "arg_value": str(method)})
        from . import functions as F  # noqa: N812, PLC0415 - functions imports the DataFrame

        value = self._as_stat_columns(col1, col2, F.corr)
        return math.nan if value is None else float(value)

    def cov(self, col1: str, col2: str) -> float:
        """The sample covariance of two numeric columns, as PySpark's ``DataFrame.cov``: every row
        counts, a null as 0.0; 0.0 over fewer than two rows."""
        from . import functions as F  # noqa: N812, PLC0415

        value = self._as_stat_columns(col1, col2, F.covar_samp)
        return 0.0 if value is None else float(value)

    def _as_stat_columns(self, col1: str, col2: str, aggregate: Any) -> Any:
        from . import functions as F  # noqa: N812, PLC0415

        df: DataFrame = self  # type: ignore[assignment]
        x, y = (F.coalesce(F.col(c).cast("double"), F.lit(0.0)) for c in (col1, col2))
        return df.agg(aggregate(x, y)).first()[0]  # type: ignore[index]

    def approxQuantile(self, col: Any, probabilities: list[float],  # noqa: N802
                       relativeError: float) -> list[float] | list[list[float]]:  # noqa: N803
        """The quantiles of one column (a list) or of several (a list of lists), nulls and NaN ignored.

        Parameters
        ----------
        col : str or list of str
            The numeric column(s).
        probabilities : list of float
            Each in [0, 1].
        relativeError : float
            Spark's accuracy (>= 0); the answer here is exact (a value of the column).
        """
        from . import functions as F  # noqa: N812, PLC0415

        df: DataFrame = self  # type: ignore[assignment]
        if isinstance(relativeError, bool) or not isinstance(relativeError, (int, float)) or relativeError < 0:
            raise PySparkValueError(f"relativeError must be a number >= 0, got {relativeError!r}.",
                                    "NEGATIVE_VALUE", {"arg_name": "relativeError", "arg_value": str(relativeError)})
        names = [col] if isinstance(col, str) else list(col)
        probs = [float(p) for p in probabilities]
        out: list[list[float]] = []
        for name in names:
            number = F.col(name).cast("double")
            kept = df.select(number.alias("v")).where(F.col("v").isNotNull() & ~F.isnan("v"))
            got = kept.agg(F.percentile_approx("v", probs)).first()[0]  # type: ignore[index]
            out.append([] if got is None else list(got))
        return out[0] if isinstance(col, str) else out

    def crosstab(self, col1: str, col2: str) -> DataFrame:
        """Pair counts as a table: a row per value of ``col1``, a column per value of ``col2``.

        The first column is ``<col1>_<col2>``; values are shown as strings (null as ``"null"``),
        the other columns sorted; a pair that never occurs counts 0.
        """
        from .formatting import format_value  # noqa: PLC0415
        from .types import LongType, StringType, StructField, StructType  # noqa: PLC0415

        df: DataFrame = self  # type: ignore[assignment]
        pairs = df.groupBy(col1, col2).count()
        types = [f.dataType for f in pairs.schema.fields[:2]]
        zone = df.sparkSession.conf.time_zone()
        counts = pairs._execution().collect(zone)  # wall times of the session zone, as printed

        def text(v: Any, i: int) -> str:  # Scala's toString of the value, as Spark's crosstab shows it
            return "null" if v is None else format_value(v, types[i], zone)

        columns = sorted({text(r[1], 1) for r in counts})
        table: dict[str, dict[str, int]] = {}
        for r in counts:
            table.setdefault(text(r[0], 0), {})[text(r[1], 1)] = r[2]
        schema = StructType([StructField(f"{col1}_{col2}", StringType(), False)]
                            + [StructField(c, LongType(), False) for c in columns])
        rows = [(key, *(found.get(c, 0) for c in columns)) for key, found in table.items()]
        return df.sparkSession.createDataFrame(rows, schema)

    def freqItems(self, cols: Any, support: float | None = None) -> DataFrame:  # noqa: N802 - PySpark's name
        """Frequent items of ``cols``, by Spark's one-pass algorithm (Karp et al.): every value that
        is in more than ``support`` of the rows is listed, and others may be too (false positives,
        as in Spark). One row, a column ``<col>_freqItems`` of arrays per column.

        Parameters
        ----------
        cols : list or tuple of str
            The columns.
        support : float, optional
            The frequency threshold, in ``[1e-4, 1]`` (default ``0.01``).

        Examples
        --------
        >>> df = spark.createDataFrame([(1, 11), (1, 11), (3, 10), (4, 8), (4, 8)], ["c1", "c2"])
        >>> sorted(df.freqItems(["c1", "c2"]).first().c1_freqItems)
        [1, 3, 4]
        """
        from .types import ArrayType, StructField, StructType  # noqa: PLC0415

        df: DataFrame = self  # type: ignore[assignment]
        if not isinstance(cols, list | tuple) or not all(isinstance(c, str) for c in cols):
            raise PySparkTypeError(f"freqItems takes a list or tuple of column names, got {cols!r}.",
                                   "NOT_LIST_OR_TUPLE", {"arg_name": "cols", "arg_type": type(cols).__name__})
        support = 0.01 if support is None else support
        if not 1e-4 <= support <= 1.0:
            raise PySparkValueError(f"Support must be in [1e-4, 1], but got {support}.", "VALUE_NOT_BETWEEN",
                                    {"arg_name": "support", "min": "1e-4", "max": "1"})
        size = int(1 / support)
        picked = df.select(*cols)
        empty: list[dict[Any, int]] = [{} for _ in cols]
        merged = functools.reduce(
            lambda a, b: _merge_counters(a, b, size),
            picked.rdd.mapPartitions(functools.partial(_count_items, len(cols), size)).collect(), empty)
        schema = StructType([StructField(f"{c}_freqItems", ArrayType(f.dataType, True), False)
                             for c, f in zip(cols, picked.schema.fields)])
        return df.sparkSession.createDataFrame([tuple(list(m) for m in merged)], schema)

    @property
    def stat(self) -> DataFrameStatFunctions:
        """PySpark's ``df.stat``: the statistics functions of this DataFrame."""
        return DataFrameStatFunctions(self)  # type: ignore[arg-type]


class DataFrameStatFunctions:
    """``df.stat``: ``corr``, ``cov``, ``approxQuantile``, ``crosstab``, ``sampleBy`` of one DataFrame."""

    def __init__(self, df: DataFrame) -> None:
        self.df = df

    def corr(self, col1: str, col2: str, method: str | None = None) -> float:
        """See :meth:`StatMethods.corr`."""
        return self.df.corr(col1, col2, method)

    def cov(self, col1: str, col2: str) -> float:
        """See :meth:`StatMethods.cov`."""
        return self.df.cov(col1, col2)

    def approxQuantile(self, col: Any, probabilities: list[float],  # noqa: N802
                       relativeError: float) -> list[float] | list[list[float]]:  # noqa: N803
        """See :meth:`StatMethods.approxQuantile`."""
        return self.df.approxQuantile(col, probabilities, relativeError)

    def crosstab(self, col1: str, col2: str) -> DataFrame:
        """See :meth:`StatMethods.crosstab`."""
        return self.df.crosstab(col1, col2)

    def freqItems(self, cols: Any, support: float | None = None) -> DataFrame:  # noqa: N802 - PySpark's name
        """See :meth:`StatMethods.freqItems`."""
        return self.df.freqItems(cols, support)

    def sampleBy(self, col: Any, fractions: dict[Any, float], seed: int | None = None) -> DataFrame:  # noqa: N802
        """See :meth:`StatMethods.sampleBy`."""
        return self.df.sampleBy(col, fractions, seed)
