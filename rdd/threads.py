"""Threads that start with their parent's job settings: PySpark's ``InheritableThread`` and
``inheritable_thread_target``.

What this module owns
---------------------
A context's local properties (job group, description, scheduler pool, job tags) belong to
the thread that set them, as in PySpark's pinned thread mode (its default): a plain
``threading.Thread`` starts with none. :class:`InheritableThread` copies the starting
thread's properties into the new thread when :meth:`~InheritableThread.start` runs;
:func:`inheritable_thread_target` wraps a function with the properties as they are when
it wraps it. With a ``session``, the session's operation tags (``spark.addTag``) are
copied as well.

Invariants
----------
* Only copies: a change the child makes does not reach its parent, nor the parent's later
  changes the child.
* Without an active context there is nothing to copy, and the thread runs as a plain one.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["InheritableThread", "inheritable_thread_target"]


def _snapshot(session: Any = None) -> tuple[dict[str, str] | None, set[str] | None]:
    from .context import SparkContext  # noqa: PLC0415 - the context imports this module's users

    sc = SparkContext._active_spark_context
    properties = dict(sc._properties()) if sc is not None else None
    tags = set(session.getTags()) if session is not None and hasattr(session, "getTags") else None
    return properties, tags


def _restore(properties: dict[str, str] | None, tags: set[str] | None, session: Any) -> None:
    from .context import SparkContext  # noqa: PLC0415

    sc = SparkContext._active_spark_context
    if sc is not None and properties is not None:
        sc._local_properties.props = dict(properties)
    if session is not None and tags is not None:
        session.clearTags()
        for tag in tags:
            session.addTag(tag)


def _wrapped(f: Callable[..., Any], properties: dict[str, str] | None, tags: set[str] | None,
             session: Any) -> Callable[..., Any]:
    @functools.wraps(f)
    def run(*args: Any, **kwargs: Any) -> Any:
        _restore(properties, tags, session)
        return f(*args, **kwargs)
    return run


def inheritable_thread_target(f: Callable[..., Any] | Any = None) -> Callable[..., Any]:
    """``f`` wrapped to run with the job settings of the thread that wraps it.

    Parameters
    ----------
    f : callable or SparkSession
        The thread's target; or a session, to get a decorator that also copies its
        operation tags (``@inheritable_thread_target(spark)``).

    Examples
    --------
    >>> sc.setJobGroup("nightly", "nightly report")
    >>> @inheritable_thread_target
    ... def work():
    ...     return sc.getLocalProperty("spark.jobGroup.id")
    >>> threading.Thread(target=work).start()  # its jobs are in the group "nightly"
    """
    if f is not None and hasattr(f, "getTags"):
        session = f

        def decorate(target: Callable[..., Any]) -> Callable[..., Any]:
            return _wrapped(target, *_snapshot(session), session)
        return decorate
    if f is None:
        raise TypeError("inheritable_thread_target needs the thread's target (or a session)")
    return _wrapped(f, *_snapshot(), None)


class InheritableThread(threading.Thread):
    """A ``threading.Thread`` whose target runs with the job settings of the thread that started it.

    Parameters
    ----------
    target : callable
        What the thread runs.
    *args, **kwargs
        ``threading.Thread``'s other arguments (``args``, ``kwargs``, ``name``, ``daemon``).
    session : SparkSession, optional
        Its operation tags are copied too.
    """

    def __init__(self, target: Callable[..., Any], *args: Any, session: Any = None, **kwargs: Any) -> None:
        self._inherit_target = target
        self._inherit_session = session
        self._inherited: tuple[dict[str, str] | None, set[str] | None] = (None, None)

        def run_inherited(*a: Any, **k: Any) -> Any:
            _restore(*self._inherited, self._inherit_session)
            return self._inherit_target(*a, **k)
        super().__init__(*args, target=run_inherited, **kwargs)  # type: ignore[misc]  # PySpark passes args on so

    def start(self) -> None:
        """Take the starting thread's settings, then start."""
        self._inherited = _snapshot(self._inherit_session)
        super().start()
