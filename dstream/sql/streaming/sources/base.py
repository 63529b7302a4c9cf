"""What a streaming source is: offsets, and the rows between two of them.

What this module owns
---------------------
:class:`Source` (a started source: the end offset of the next batch, the rows of an
offset range, commit and stop), :class:`SourceProvider` (a format's schema and the
factory of its sources) and the registry of providers by format name
(:func:`register_source`, ``SOURCES``; :mod:`..formats` looks formats up).

Invariants
----------
* An offset is a JSON value (number, string, list or object): it is written as one
  line of ``offsets/N`` before batch N runs and read back on restart.
* ``get_batch(start, end, output)`` is deterministic: the rows of ``(start, end]`` are
  the same after a restart, so a re-run batch reads what the crashed run read.
* ``get_batch`` returns a batch (non-streaming) plan whose ``output()`` is exactly
  ``output``: same attributes, same order, so every node above resolves unchanged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..progress import offset_text
from ..registry import FormatRegistry

if TYPE_CHECKING:
    from ...expressions.base import AttributeReference
    from ...plan.logical import LogicalPlan
    from ...session import SparkSession
    from ...types import StructType

__all__ = ["SOURCES", "Offset", "Source", "SourceProvider", "register_source"]

#: An offset: what one line of ``offsets/N`` holds for a source.
Offset = Any


class Source:
    """A started source of one streaming query."""

    #: What progress reports show as the source's ``description``.
    description: str = "Source"

    def latest_offset(self, start: Offset | None, limited: bool) -> Offset | None:
        """The end offset of the next batch starting after ``start``.

        With ``limited`` the batch holds at most the source's read limit
        (``maxFilesPerTrigger``, ``maxOffsetsPerTrigger``...); without it, everything
        available. ``None`` means no data ever; ``start`` means nothing new.
        """
        raise NotImplementedError

    def get_batch(self, start: Offset | None, end: Offset, output: list[AttributeReference]) -> LogicalPlan:
        """A batch plan over the rows of ``(start, end]`` with exactly ``output`` as its columns."""
        raise NotImplementedError

    def commit(self, end: Offset) -> None:
        """Data up to ``end`` is processed for good: the source may discard it."""

    def stop(self) -> None:
        """Release what the source holds (sockets, clients, threads)."""

    def prepare_for_available_now(self) -> None:
        """Fix the offset ``Trigger.AvailableNow`` stops at: what is available now."""

    def reports_latest_offset(self) -> Offset | None:
        """The offset available at the source (for progress ``latestOffset``); ``None`` if unknown."""
        return None

    def offset_text(self, offset: Offset | None) -> str:
        """An offset as progress shows it: compact JSON, ``"None"`` where there is none (as PySpark)."""
        return offset_text(offset)


class SourceProvider:
    """A format of ``spark.readStream.format(name)``."""

    def schema(self, session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> StructType:
        """The rows' schema (``user_schema`` is what ``.schema(...)`` gave, if anything)."""
        raise NotImplementedError

    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> Source:
        """A source for one run of a query; ``metadata_path`` is its private log directory."""
        raise NotImplementedError


SOURCES: FormatRegistry[SourceProvider] = FormatRegistry("sources")


def register_source(name: str, factory: Callable[[], SourceProvider]) -> None:
    """Make ``spark.readStream.format(name)`` use the providers ``factory`` makes."""
    SOURCES.register(name, factory)
