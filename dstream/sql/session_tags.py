"""Operation tags and interrupts of a session: ``addTag``, ``interruptTag``, ``interruptAll``...

What this module owns
---------------------
:class:`SessionTags`, mixed into ``SparkSession``: PySpark 4's operation tags on Spark
Classic. Each action of a DataFrame (``collect``, ``count``, ``show``, ``toPandas``, a
write...) is an *operation* with an id (a number, counted per process from 0, as Spark's SQL
execution ids); its jobs carry job tags (``spark.job.tags``):

* ``spark-session-<session uuid>``: every operation of the session;
* ``spark-session-<uuid>-execution-root-id-<operation id>``: that operation;
* ``spark-session-<uuid>-<tag>`` for each tag the calling thread added with :meth:`addTag`.

:meth:`interruptAll`, :meth:`interruptTag` and :meth:`interruptOperation` cancel the running
and waiting jobs of the matching operations (as ``sc.cancelJobsWithTag``) and return their
operation ids as strings; the actions raise the cancellation in their own threads.

Invariants
----------
* Tags are per thread (a thread starts with none) and per session; a tag is a non-empty
  string without ``,`` (Spark's ``IllegalArgumentException`` otherwise).
* Any thread may interrupt: :meth:`interruptTag` finds the operations of every thread that
  tagged them (Spark Classic looks the tag up among the calling thread's own tags).
* An operation inside another (a subquery collected while planning) is part of the outer
  one: it gets no id of its own.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rdd.engine_api import cancel_jobs_with_tag

from .errors import IllegalArgumentException

if TYPE_CHECKING:
    from rdd import SparkContext

__all__ = ["SessionTags"]

#: Operation ids, per process (Spark's SQL execution ids count per JVM).
_OPERATION_IDS = itertools.count()
_ROOT_ID = "-execution-root-id-"


class _TagState(threading.local):
    def __init__(self) -> None:
        self.tags: set[str] = set()
        self.in_operation = False


def _checked(tag: object) -> str:
    if not isinstance(tag, str):
        raise IllegalArgumentException(f"Spark job tag must be a string, got {tag!r}.")
    # Spark's messages, without an error condition (a plain IllegalArgumentException there).
    if "," in tag:
        raise IllegalArgumentException("Spark job tag cannot contain ','.")
    if not tag:
        raise IllegalArgumentException("Spark job tag cannot be an empty string.")
    return tag


class SessionTags:
    """The operation tags and interrupts of ``SparkSession`` (see the module doc)."""

    _sc: SparkContext

    def _tag_state(self) -> tuple[str, _TagState]:
        state = self.__dict__.get("_session_tag_state")
        if state is None:
            state = self.__dict__.setdefault("_session_tag_state", (str(uuid.uuid4()), _TagState()))
        return state

    def _job_tag(self, tag: str | None = None) -> str:
        session_id, _ = self._tag_state()
        return f"spark-session-{session_id}" + ("" if tag is None else f"-{tag}")

    def addTag(self, tag: str) -> None:  # noqa: N802 - PySpark's name
        """Tag the operations this thread starts in this session from now on.

        Parameters
        ----------
        tag : str
            Not empty, without ``,``; :meth:`interruptTag` cancels the operations carrying it.
        """
        self._tag_state()[1].tags.add(_checked(tag))

    def removeTag(self, tag: str) -> None:  # noqa: N802 - PySpark's name
        """Stop tagging this thread's operations with ``tag`` (nothing happens if it was not added).

        Parameters
        ----------
        tag : str
            Not empty, without ``,``.
        """
        self._tag_state()[1].tags.discard(_checked(tag))

    def getTags(self) -> set[str]:  # noqa: N802 - PySpark's name
        """The tags this thread's operations get."""
        return set(self._tag_state()[1].tags)

    def clearTags(self) -> None:  # noqa: N802 - PySpark's name
        """Stop tagging this thread's operations."""
        self._tag_state()[1].tags.clear()

    def interruptAll(self) -> list[str]:  # noqa: N802 - PySpark's name
        """Cancel every running operation of this session; the ids of those interrupted."""
        return self._interrupt(self._job_tag(), "as part of cancellation of all jobs")

    def interruptTag(self, tag: str) -> list[str]:  # noqa: N802 - PySpark's name
        """Cancel the running operations of this session tagged ``tag``; the ids of those interrupted.

        Parameters
        ----------
        tag : str
            A tag given to :meth:`addTag` (by any thread).
        """
        return self._interrupt(self._job_tag(_checked(tag)), f"part of cancelled job tags {tag}")

    def interruptOperation(self, op_id: str) -> list[str]:  # noqa: N802 - PySpark's name
        """Cancel the operation ``op_id`` of this session if it runs; its id if it was interrupted.

        Parameters
        ----------
        op_id : str
            An operation id, a number in string form.
        """
        try:
            number = int(op_id)
        except (TypeError, ValueError):
            raise IllegalArgumentException("executionId must be a number in string form.") from None
        return self._interrupt(self._job_tag() + f"{_ROOT_ID}{number}", "")

    def _interrupt(self, job_tag: str, reason: str) -> list[str]:
        prefix = self._job_tag() + _ROOT_ID
        found: dict[str, None] = {}
        for tags in cancel_jobs_with_tag(self._sc, job_tag, reason):
            for tag in tags:
                if tag.startswith(prefix):
                    found[tag[len(prefix):]] = None
        return list(found)

    @contextmanager
    def _operation(self) -> Iterator[None]:
        """Run the body as one operation of this session: its jobs carry the operation's tags."""
        _, state = self._tag_state()
        if state.in_operation:
            yield
            return
        sc = self._sc
        before = sc.getJobTags()
        wanted = {self._job_tag(), self._job_tag() + f"{_ROOT_ID}{next(_OPERATION_IDS)}",
                  *(self._job_tag(tag) for tag in state.tags)}
        added = wanted - before
        for tag in added:
            sc.addJobTag(tag)
        state.in_operation = True
        try:
            yield
        finally:
            state.in_operation = False
            for tag in added:
                sc.removeJobTag(tag)
