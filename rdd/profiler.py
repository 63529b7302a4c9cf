"""Python profiles of RDD tasks: ``spark.python.profile``, ``show_profiles`` and ``dump_profiles``.

What this module owns
---------------------
PySpark's :class:`Profiler` and :class:`BasicProfiler` (``from rdd import BasicProfiler``),
and :class:`ContextProfiles`, the ``SparkContext`` side: with ``spark.python.profile`` true
when the context starts, every task runs under ``cProfile`` in its executor and its
statistics travel back in one accumulator of the context, keyed by the id of the RDD the
task computes (the last RDD of its stage: the pipeline of narrow transformations the task
runs, as PySpark profiles each of its Python RDDs). ``sc.show_profiles()`` prints them
(``Profile of RDD<id=N>``, then ``pstats`` sorted by internal then cumulative time),
``sc.dump_profiles(path)`` writes ``rdd_<N>.pstats`` files; at exit the profiles not
shown yet are shown, or dumped into ``spark.python.profile.dump`` when it is set.

A ``profiler_cls`` given to the context presents the statistics (its ``show`` and
``dump``); the statistics themselves are always ``cProfile``'s, taken by the engine.

Invariants
----------
* Without ``spark.python.profile`` nothing is profiled and the tasks pay nothing (the
  executor looks for one job property).
* Statistics of the same RDD from several tasks and jobs add up (``pstats``' own rule).
"""

from __future__ import annotations

import atexit
import os
import pstats
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .accumulators import AccumulatorParam
from .errors import SparkError
from .executor.task_runner import PROFILE_PROPERTY

if TYPE_CHECKING:
    from .accumulators import Accumulator
    from .conf import SparkConf

__all__ = ["BasicProfiler", "CollectedStats", "ContextProfiles", "ProfileStatsParam", "Profiler", "add_stats",
           "print_profile"]

StatsByRdd = dict[int, dict[Any, Any]]
PROFILE_KEY = "spark.python.profile"
DUMP_KEY = "spark.python.profile.dump"


def _add_entry(first: tuple[Any, ...], second: tuple[Any, ...]) -> tuple[Any, ...]:
    """Two ``cProfile`` entries of a function, ``(cc, nc, tt, ct, callers)``, added (as ``pstats`` adds them)."""
    callers = dict(first[4])
    for caller, counts in second[4].items():
        known = callers.get(caller)
        callers[caller] = counts if known is None else tuple(x + y for x, y in zip(known, counts))
    return (first[0] + second[0], first[1] + second[1], first[2] + second[2], first[3] + second[3], callers)


def add_stats(into: dict[Any, Any], stats: dict[Any, Any]) -> dict[Any, Any]:
    """``stats`` (``cProfile``'s raw statistics) added into ``into``, which is returned."""
    for func, entry in stats.items():
        into[func] = _add_entry(into[func], entry) if func in into else entry
    return into


class ProfileStatsParam(AccumulatorParam[StatsByRdd]):
    """Merges ``{id: cProfile stats}`` dicts (by RDD id here, by UDF id in the UDF profiler)."""

    def zero(self, value: StatsByRdd) -> StatsByRdd:
        return {}

    def addInPlace(self, value1: StatsByRdd, value2: StatsByRdd) -> StatsByRdd:  # noqa: N802 - PySpark's name
        for key, stats in value2.items():
            value1[key] = add_stats(dict(value1.get(key, {})), stats)
        return value1


class CollectedStats:
    """What ``pstats.Stats`` loads: an object with ``create_stats`` and ``stats`` (collected ones)."""

    def __init__(self, stats: dict[Any, Any]) -> None:
        self.stats = dict(stats)

    def create_stats(self) -> None:
        pass


class Profiler:
    """The base of RDD profilers (PySpark's developer API): ``profile``, ``stats``, ``show``, ``dump``.

    Parameters
    ----------
    ctx : SparkContext
        The context whose profiles this profiler presents.
    """

    def __init__(self, ctx: Any) -> None:
        self._raw: dict[Any, Any] = {}

    def profile(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``func`` under the profiler and return its result."""
        raise NotImplementedError

    def stats(self) -> pstats.Stats | None:
        """The collected statistics."""
        raise NotImplementedError

    def show(self, id: int) -> None:  # noqa: A002 - PySpark's name
        """Print the statistics of RDD ``id``."""
        raise NotImplementedError

    def dump(self, id: int, path: str) -> None:  # noqa: A002 - PySpark's name
        """Write the statistics of RDD ``id`` under the directory ``path``."""
        raise NotImplementedError


class BasicProfiler(Profiler):
    """The default profiler: ``cProfile`` statistics, shown and dumped as PySpark's."""

    def profile(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Run ``func`` under ``cProfile``, adding its statistics to this profiler's."""
        import cProfile  # noqa: PLC0415 - only when profiling

        profiler = cProfile.Profile()
        try:
            return profiler.runcall(func, *args, **kwargs)
        finally:
            profiler.create_stats()
            add_stats(self._raw, profiler.stats)  # set by create_stats

    def stats(self) -> pstats.Stats | None:
        """The statistics as a ``pstats.Stats`` (``None`` when there are none)."""
        if not self._raw:
            return None
        stats = pstats.Stats(CollectedStats(self._raw))  # type: ignore[arg-type]  # a profile-like object
        stats.strip_dirs()
        return stats

    def show(self, id: int) -> None:  # noqa: A002 - PySpark's name
        """Print ``Profile of RDD<id=N>`` and the statistics, sorted by internal then cumulative time."""
        stats = self.stats()
        if stats:
            print_profile(f"RDD<id={id}>", stats)

    def dump(self, id: int, path: str) -> None:  # noqa: A002 - PySpark's name
        """Write the statistics to ``path/rdd_<id>.pstats`` (``pstats.Stats`` reads it)."""
        os.makedirs(path, exist_ok=True)
        stats = self.stats()
        if stats:
            stats.dump_stats(os.path.join(path, f"rdd_{id}.pstats"))


def print_profile(subject: str, stats: pstats.Stats) -> None:
    """Print PySpark's ``Profile of <subject>`` banner, then ``stats`` by internal, then cumulative time."""
    print("=" * 60)
    print(f"Profile of {subject}")
    print("=" * 60)
    stats.sort_stats("time", "cumulative").print_stats()


def _not_enabled() -> SparkError:
    return SparkError(
        "[INCORRECT_CONF_FOR_PROFILE] `spark.python.profile` or `spark.python.profile.memory` configuration must be "
        "set to `true` to enable Python profile: set spark.python.profile=true in the SparkConf the context is made "
        "with.")


class ContextProfiles:
    """``SparkContext``'s ``show_profiles`` and ``dump_profiles``; mixed into :class:`rdd.context.SparkContext`."""

    _profile_accumulator: Accumulator[StatsByRdd] | None
    _profiler_cls: type[Profiler]
    _profiles_shown: set[int]
    _profiles_exit_hook: bool

    def _start_profiles(self, conf: SparkConf, profiler_cls: type[Profiler] | None) -> None:
        """Make the profiles' accumulator if ``spark.python.profile`` is on (the constructor calls this)."""
        self._profiler_cls = profiler_cls or BasicProfiler
        self._profiles_shown = set()
        self._profiles_exit_hook = False
        self._profile_accumulator = None
        if conf.getBoolean(PROFILE_KEY, False):
            self._profile_accumulator = self.accumulator({}, ProfileStatsParam())  # type: ignore[attr-defined]

    def _profile_properties(self, properties: dict[str, str]) -> dict[str, str]:
        """A job's properties, with the accumulator its tasks profile into when profiling is on."""
        acc = self._profile_accumulator
        if acc is None:
            return properties
        if not self._profiles_exit_hook:
            self._profiles_exit_hook = True
            dump = self._conf.get(DUMP_KEY, None)  # type: ignore[attr-defined]
            _register_exit(self, dump)
        properties[PROFILE_PROPERTY] = str(acc.aid)
        return properties

    def _profilers(self) -> list[tuple[int, Profiler]]:
        acc = self._profile_accumulator
        if acc is None:
            raise _not_enabled()
        out = []
        for rdd_id, stats in sorted(acc.value.items()):
            profiler = self._profiler_cls(self)
            profiler._raw = dict(stats)
            out.append((rdd_id, profiler))
        return out

    def show_profiles(self) -> None:
        """Print the profiles of the RDDs computed since the last :meth:`dump_profiles`
        (each once: a profile shown is not shown again)."""
        for rdd_id, profiler in self._profilers():
            if rdd_id not in self._profiles_shown:
                profiler.show(rdd_id)
                self._profiles_shown.add(rdd_id)

    def dump_profiles(self, path: str) -> None:
        """Write each RDD's profile to ``path/rdd_<id>.pstats``, then forget them.

        Parameters
        ----------
        path : str
            A directory (made if missing).
        """
        for rdd_id, profiler in self._profilers():
            profiler.dump(rdd_id, path)
        acc = self._profile_accumulator
        assert acc is not None
        acc.value = {}
        self._profiles_shown.clear()


def _register_exit(sc: ContextProfiles, dump: str | None) -> None:
    # As PySpark: what is left is shown (or dumped) when the interpreter exits.
    def at_exit() -> None:
        try:
            if dump:
                sc.dump_profiles(dump)
            else:
                sc.show_profiles()
        except Exception:  # noqa: BLE001 - nothing to report to at exit
            pass

    atexit.register(at_exit)
