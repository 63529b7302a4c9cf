"""Running a logical plan: optimize, plan physically, execute, bring results back.

What this module owns
---------------------
:class:`QueryExecution`, Spark's object of the same name: for one DataFrame, the
optimized logical plan, the physical plan chosen for it, the text ``explain()``
prints, and the actions' result paths (an Arrow table on the driver; rows; a local
iterator partition by partition).

Invariants
----------
* Settings are read when the action runs (``spark.conf.set`` between two actions
  applies to the second).
* Results keep the DataFrame's column names, duplicates included (``k`` twice after
  a join on an expression).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from .arrow_convert import arrow_to_rows, check_collectable
from .execution.collect import collect_batches, to_arrow_table
from .execution.context import QueryContext
from .execution.planner import plan_physical
from .expressions.base import EvalContext
from .plan.logical import LogicalPlan
from .plan.optimizer import optimize
from .row import Row
from .timezones import python_time_zone
from .udf_profiler import EXTRAS_KEY, PROFILER_KEY, profiler_for

if TYPE_CHECKING:
    from rdd import RDD

    from .session import SparkSession

__all__ = ["QueryExecution"]


class QueryExecution:
    """The execution of one logical plan in one session."""

    def __init__(self, session: SparkSession, plan: LogicalPlan) -> None:
        self.session = session
        self.analyzed = plan
        self._optimized: LogicalPlan | None = None

    @property
    def optimized(self) -> LogicalPlan:
        """The plan after the optimizer's rules."""
        if self._optimized is None:
            conf = self.session.conf
            self._optimized = optimize(self.analyzed, EvalContext(ansi=conf.ansi_enabled(), time_zone=conf.time_zone()))
        return self._optimized

    def context(self) -> QueryContext:
        """The settings of this run (read now, from the session)."""
        conf = self.session.conf
        sc = self.session.sparkContext
        partitions = conf.shuffle_partitions()
        if conf.adaptive_coalesce() and conf.get("spark.sql.shuffle.partitions") == "200":
            # AQE would coalesce Spark's 200 default partitions into a few well-sized
            # ones; with no sizes to measure before the shuffle, use the cores.
            partitions = max(1, sc.defaultParallelism)
        eval_ctx = EvalContext(ansi=conf.ansi_enabled(), time_zone=conf.time_zone(),
                               now_us=time.time_ns() // 1000)
        profiler = profiler_for(sc, conf.get(PROFILER_KEY, None))
        if profiler is not None:
            eval_ctx.extras[EXTRAS_KEY] = profiler
        return QueryContext(sc=sc, eval_ctx=eval_ctx, shuffle_partitions=partitions,
                            broadcast_threshold=conf.broadcast_threshold(), conf=conf.getAll())

    def physical(self, qctx: QueryContext | None = None) -> Any:
        """The physical plan."""
        return plan_physical(self.optimized, qctx or self.context())

    def to_rdd(self) -> RDD[pa.RecordBatch]:
        """The RDD of record batches computing this plan."""
        qctx = self.context()
        return self.physical(qctx).execute(qctx)

    def to_arrow(self, check: bool = True) -> pa.Table:
        """Every row, as one Arrow table with the DataFrame's column names (one operation of the session).

        With ``check``, a column PySpark cannot hand to Arrow (a year-month interval) is refused first.
        """
        if check:
            check_collectable(self._output_types(), to_arrow=True)
        with self.session._operation():
            qctx = self.context()
            return to_arrow_table(self.physical(qctx), qctx)

    def collect(self, time_zone: str | None = None, check: bool = True) -> list[Row]:
        """Every row, as PySpark's ``collect()`` returns them.

        Naive datetimes are wall times in ``time_zone``; by default the machine's zone, as
        PySpark's ``collect()`` gives them (``show()`` and ``toPandas()`` pass the session's).
        With ``check`` (all but ``show()``), a column PySpark cannot collect (a year-month
        interval) is refused before the job runs.
        """
        if check:
            check_collectable(self._output_types())
        return arrow_to_rows(self.to_arrow(check=False), time_zone or python_time_zone())

    def rows_rdd(self, names: list[str]) -> RDD[Row]:
        """``DataFrame.rdd``: the rows as ``Row`` objects named ``names``, converted from Arrow in the tasks
        (a year-month interval is refused there, when the rows are made, as PySpark refuses it)."""
        types = self._output_types()
        tz = python_time_zone()

        def to_rows(batches: Iterator[pa.RecordBatch]) -> Iterator[Row]:
            check_collectable(types)
            for batch in batches:
                yield from arrow_to_rows(pa.Table.from_batches([batch]).rename_columns(names), tz)

        return self.to_rdd().mapPartitions(to_rows)

    def _output_types(self) -> list[Any]:
        return [a.data_type() for a in self.optimized.output()]

    def local_iterator(self) -> Iterator[Row]:
        """The rows partition by partition (one job per partition)."""
        qctx = self.context()
        physical = self.physical(qctx)
        rdd = physical.execute(qctx)
        names = [a.name for a in physical.output]
        tz = python_time_zone()
        check_collectable(self._output_types())
        for index in range(rdd.getNumPartitions()):
            with self.session._operation():
                batches = rdd.context.runJob(rdd, lambda it: list(it), [index])
            if batches:
                table = pa.Table.from_batches(batches).rename_columns(names)
                yield from arrow_to_rows(table, tz)

    def batches(self) -> list[pa.RecordBatch]:
        """The record batches of every partition, in partition order (columns named by id)."""
        with self.session._operation():
            qctx = self.context()
            return collect_batches(self.physical(qctx), qctx)

    def explain_text(self, mode: str) -> str:
        """What ``explain(mode)`` prints."""
        if mode.lower() not in _EXPLAIN_MODES:
            from .errors import IllegalArgumentException  # noqa: PLC0415 - rare path

            raise IllegalArgumentException(f"Unknown explain mode: {mode}. Accepted explain modes are "
                                           f"{', '.join(repr(m) for m in _EXPLAIN_MODES)}.")
        physical = self.physical().tree_string()
        if mode.lower() in ("simple", "formatted", "codegen"):  # no generated code, one layout here
            return f"== Physical Plan ==\n{physical}\n"
        return (f"== Parsed Logical Plan ==\n{self.analyzed.tree_string()}\n\n"
                f"== Analyzed Logical Plan ==\n{self.analyzed.tree_string()}\n\n"
                f"== Optimized Logical Plan ==\n{self.optimized.tree_string()}\n\n"
                f"== Physical Plan ==\n{physical}\n")


#: Spark's explain modes; ``formatted`` and ``codegen`` print what ``simple`` does, ``cost``
#: what ``extended`` does (there are no statistics nor generated code to show).
_EXPLAIN_MODES = ("simple", "extended", "codegen", "cost", "formatted")
