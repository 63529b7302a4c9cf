"""The profiler of Python UDFs: ``spark.sql.pyspark.udf.profiler`` and ``spark.profile``.

What this module owns
---------------------
With ``spark.sql.pyspark.udf.profiler`` set to ``perf`` when a query runs, each Python
UDF and pandas UDF of the query runs its calls under ``cProfile`` in the tasks, and the
statistics travel back to the driver in one accumulator per SparkContext, keyed by the
UDF's id. ``spark.profile`` (:class:`Profile`) shows them as PySpark 4 does (a header
``Profile of UDF<id=N>``, then ``pstats`` sorted by internal then cumulative time), dumps
them as ``udf_<id>_perf.pstats`` files, renders them with a given renderer, and clears
them.

Invariants
----------
* Nothing is profiled unless the setting is ``perf`` when the action starts: the UDFs
  then pay one profiler switch per call, otherwise nothing.
* Statistics of the same UDF from several tasks and actions add up (``pstats``' own
  rule), until ``clear``.
* ``memory`` (PySpark's line-by-line memory profiler) needs the ``memory_profiler``
  package, which is not a dependency: it is refused with that reason when a query runs.
"""

from __future__ import annotations

import cProfile
import os
import pstats
import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdd.engine_api import CollectedStats, ProfileStatsParam, print_profile

from .errors import PySparkValueError

if TYPE_CHECKING:
    from rdd import Accumulator, SparkContext

__all__ = ["PROFILER_KEY", "Profile", "profiled_call", "profiler_for"]

PROFILER_KEY = "spark.sql.pyspark.udf.profiler"
#: ``EvalContext.extras`` key of the accumulator a profiled query's UDFs add to.
EXTRAS_KEY = "udf_profiler"

StatsByUdf = dict[int, dict[Any, Any]]

_lock = threading.Lock()
# SparkContext -> its accumulator. Weak keys: a context's id may be reused by the next one
# once it is collected, and that one must not add to an accumulator it never registered.
_accumulators: weakref.WeakKeyDictionary[SparkContext, Accumulator[StatsByUdf]] = weakref.WeakKeyDictionary()


def _accumulator(sc: SparkContext) -> Accumulator[StatsByUdf]:
    with _lock:
        acc = _accumulators.get(sc)
        if acc is None:
            acc = _accumulators[sc] = sc.accumulator({}, ProfileStatsParam())
        return acc


def profiler_for(sc: SparkContext, setting: str | None) -> Accumulator[StatsByUdf] | None:
    """The accumulator a query's UDFs profile into, or ``None`` when ``setting`` is unset."""
    if setting is None or setting.strip().lower() in ("", "none"):
        return None
    mode = setting.strip().lower()
    if mode == "perf":
        return _accumulator(sc)
    if mode == "memory":
        raise PySparkValueError(
            f"{PROFILER_KEY}=memory profiles UDFs line by line with the memory_profiler package, which dstreams "
            "does not install: use 'perf' (cProfile), or unset it.", "MEMORY_PROFILER_NOT_INSTALLED", {})
    raise PySparkValueError(f"{PROFILER_KEY} must be 'perf' or 'memory', got {setting!r}.", "VALUE_NOT_ALLOWED",
                            {"arg_name": PROFILER_KEY, "allowed_values": "perf, memory"})


def profiled_call(extras: dict[str, Any], udf_id: int, func: Callable[..., Any]) -> tuple[Callable[..., Any],
                                                                                          Callable[[], None]]:
    """``func`` as the UDF calls it, and what to call when the batch is done (adds the statistics)."""
    acc = extras.get(EXTRAS_KEY)
    if acc is None:
        return func, lambda: None
    profiler = cProfile.Profile()

    def call(*args: Any) -> Any:
        profiler.enable()
        try:
            return func(*args)
        finally:
            profiler.disable()

    def done() -> None:
        profiler.create_stats()
        acc.add({udf_id: profiler.stats})  # set by create_stats

    return call, done


class Profile:
    """The UDF profiles of a session's SparkContext (``spark.profile``), as PySpark 4's."""

    def __init__(self, sc: SparkContext) -> None:
        self._sc = sc

    def _results(self) -> StatsByUdf:
        return dict(_accumulator(self._sc).value)

    def _stats(self, udf_id: int) -> pstats.Stats | None:
        stats = self._results().get(udf_id)
        # Files by their base names, as PySpark shows them.
        return None if stats is None else pstats.Stats(CollectedStats(stats)).strip_dirs()  # type: ignore[arg-type]

    def _ids(self, id: int | None) -> list[int]:  # noqa: A002 - PySpark's name
        return [id] if id is not None else sorted(self._results())

    @staticmethod
    def _check_type(type: str | None) -> None:  # noqa: A002 - PySpark's name
        if type not in (None, "perf", "memory"):
            raise PySparkValueError(f"type must be 'perf' or 'memory', got {type!r}.", "VALUE_NOT_ALLOWED",
                                    {"arg_name": "type", "allowed_values": "perf, memory"})

    def show(self, id: int | None = None, *, type: str | None = None) -> None:  # noqa: A002 - PySpark's names
        """Print the profile of UDF ``id`` (every UDF's by default); ``type`` ``"perf"`` or ``"memory"``."""
        self._check_type(type)
        if type == "memory":
            return  # no memory profiles are ever collected here (see the module doc)
        for udf_id in self._ids(id):
            stats = self._stats(udf_id)
            if stats is None:
                continue
            print_profile(f"UDF<id={udf_id}>", stats)

    def dump(self, path: str, id: int | None = None, *, type: str | None = None) -> None:  # noqa: A002
        """Write each profile to ``path/udf_<id>_perf.pstats`` (``pstats`` reads it back)."""
        self._check_type(type)
        if type == "memory":
            return
        for udf_id in self._ids(id):
            stats = self._stats(udf_id)
            if stats is None:
                continue
            os.makedirs(path, exist_ok=True)
            stats.dump_stats(os.path.join(path, f"udf_{udf_id}_perf.pstats"))

    def render(self, id: int, *, type: str | None = None,  # noqa: A002 - PySpark's names
               renderer: str | Callable[[pstats.Stats], Any] | None = None) -> Any:
        """``renderer(stats)`` of UDF ``id``'s profile (a function of ``pstats.Stats``); ``None`` if none.

        PySpark's default renderer, ``"flameprof"``, needs the flameprof package.
        """
        self._check_type(type)
        stats = self._stats(id) if type != "memory" else None
        if stats is None:
            return None
        if renderer is None or renderer == "flameprof":
            try:
                import flameprof  # noqa: PLC0415 - optional, as in PySpark
            except ImportError as exc:
                raise PySparkValueError("Rendering a profile as a flame graph needs the 'flameprof' package: "
                                        "pip install flameprof, or give renderer=a function of pstats.Stats.",
                                        "PACKAGE_NOT_INSTALLED", {"package_name": "flameprof",
                                                                  "minimum_version": "0.4"}) from exc
            return flameprof.render(self._results()[id], renderer=None)
        if not callable(renderer):
            raise PySparkValueError(f"renderer must be 'flameprof' or a function of pstats.Stats, got {renderer!r}.",
                                    "VALUE_NOT_ALLOWED", {"arg_name": "renderer", "allowed_values": "flameprof"})
        return renderer(stats)

    def clear(self, id: int | None = None, *, type: str | None = None) -> None:  # noqa: A002 - PySpark's names
        """Forget the profile of UDF ``id`` (every profile by default)."""
        self._check_type(type)
        if type == "memory":
            return
        acc = _accumulator(self._sc)
        kept = {} if id is None else {k: v for k, v in acc.value.items() if k != id}
        acc.value = kept
