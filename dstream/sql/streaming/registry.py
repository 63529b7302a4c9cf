"""Formats by name: the one registry shape behind ``readStream.format`` and ``writeStream.format``.

What this module owns
---------------------
:class:`FormatRegistry`: providers registered under case-insensitive names, and the
lookup that names the known formats when a name is missing. The built-in providers
register themselves when their modules are imported (:mod:`.formats` imports them
before any lookup).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

from ..errors import AnalysisException

__all__ = ["FormatRegistry"]

P = TypeVar("P")


class FormatRegistry(Generic[P]):
    """Providers of one kind (sources or sinks) by format name.

    Parameters
    ----------
    kind : str
        What the providers make, for the error message (``"sources"``, ``"sinks"``).
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._factories: dict[str, Callable[[], P]] = {}

    def register(self, name: str, factory: Callable[[], P]) -> None:
        """Make format ``name`` use the providers ``factory`` makes."""
        self._factories[name.lower()] = factory

    def names(self) -> list[str]:
        """The registered format names."""
        return sorted(self._factories)

    def provider(self, name: str) -> P:
        """The provider of format ``name``; an ``AnalysisException`` naming the known ones if none."""
        factory = self._factories.get(name.lower())
        if factory is None:
            raise AnalysisException(
                f"[DATA_SOURCE_NOT_FOUND] Failed to find the data source: {name}. Streaming {self.kind} available: "
                f"{', '.join(sorted(self._factories))}.")
        return factory()
