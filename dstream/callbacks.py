"""Adapting user batch functions that may or may not take the batch time.

What this module owns
---------------------
PySpark lets ``transform``, ``transformWith`` and ``foreachRDD`` take a function of the
RDDs only (``func(rdd)``) or of the batch time first (``func(time, rdd)``), telling them
apart by their number of arguments. :func:`batch_function` does that detection once, at
graph construction, and returns a function of ``(time_ms, *rdds)`` for the engine. The
``datetime`` for the user is only built when the function asks for it.

Detection rule (``n`` = number of RDD arguments): a function whose required positional
parameters number ``n + 1`` gets the time; ``n`` required gets no time; fewer required
(defaults or ``*args``) gets the time if it can take ``n + 1`` positional arguments, as
PySpark's ``co_argcount`` test does. Anything else is a ``TypeError`` at registration,
not a failure in the first batch.

:func:`returns_rdd` wraps a user ``transform`` function so that a result that is not an
RDD fails its batch with a message naming the function's API and the batch time.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from rdd import RDD

from dstream.time import ms_to_datetime

__all__ = ["batch_function", "returns_rdd", "takes_time"]


def takes_time(func: Callable[..., Any], n_rdds: int, what: str) -> bool:
    """Return whether ``func`` wants the batch time before its ``n_rdds`` RDD arguments."""
    if not callable(func):
        raise TypeError(f"{what} expects a function, got {func!r} of type {type(func).__name__}")
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        # Builtins without a signature: assume the RDD-only form.
        return False
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    required = sum(1 for p in positional if p.default is p.empty)
    var_positional = any(p.kind is p.VAR_POSITIONAL for p in params)
    if required == n_rdds + 1:
        return True
    if required == n_rdds:
        return False
    if required < n_rdds and (var_positional or len(positional) >= n_rdds):
        return var_positional or len(positional) >= n_rdds + 1
    rdds = "rdd" if n_rdds == 1 else ", ".join(f"rdd{i + 1}" for i in range(n_rdds))
    raise TypeError(
        f"{what} expects a function of ({rdds}) or (time, {rdds}), i.e. {n_rdds} or "
        f"{n_rdds + 1} positional arguments; {getattr(func, '__name__', func)!r} takes "
        f"{required} required positional argument(s)"
    )


def batch_function(func: Callable[..., Any], n_rdds: int, what: str) -> Callable[..., Any]:
    """Return ``func`` as a function of ``(time_ms, *rdds)``.

    Parameters
    ----------
    func
        The user's function, of the RDDs or of ``(time, *rdds)``.
    n_rdds
        How many RDDs it receives.
    what
        The API name, for error messages (``"foreachRDD"``).
    """
    if takes_time(func, n_rdds, what):

        def with_time(time_ms: int, *rdds: Any) -> Any:
            return func(ms_to_datetime(time_ms), *rdds)

        return with_time

    def without_time(time_ms: int, *rdds: Any) -> Any:
        return func(*rdds)

    return without_time


def returns_rdd(what: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Wrap a batch function of ``(time_ms, *rdds)`` so a non-RDD result raises ``TypeError``."""

    def checked(time_ms: int, *rdds: Any) -> Any:
        result = fn(time_ms, *rdds)
        if not isinstance(result, RDD):
            raise TypeError(
                f"the function given to {what}() returned {result!r} (type "
                f"{type(result).__name__}) for the batch of {ms_to_datetime(time_ms)}; it "
                "must return an RDD, for example rdd.map(...) or sc.emptyRDD()"
            )
        return result

    return checked
