"""The streaming formats by name, built-in ones included: what ``format(...)`` looks up.

What this module owns
---------------------
:func:`source_provider`, :func:`sink_provider` and :func:`source_formats`, over the
registries of :mod:`.sources.base` and :mod:`.sinks.base`. Importing this module imports
every built-in source and sink module, each of which registers its formats; the
registries' own modules import none of them (a provider module imports its registry).
"""

from __future__ import annotations

from .sinks import builtin as _sinks  # noqa: F401 - registers the built-in sinks
from .sinks.base import SINKS, SinkProvider
from .sources import builtin as _sources  # noqa: F401 - registers the built-in sources
from .sources.base import SOURCES, SourceProvider

__all__ = ["sink_provider", "source_formats", "source_provider"]


def source_provider(name: str) -> SourceProvider:
    """The provider of ``readStream.format(name)``; an ``AnalysisException`` naming the known ones if none."""
    return SOURCES.provider(name)


def sink_provider(name: str) -> SinkProvider:
    """The provider of ``writeStream.format(name)``; an ``AnalysisException`` naming the known ones if none."""
    return SINKS.provider(name)


def source_formats() -> list[str]:
    """The registered source format names."""
    return SOURCES.names()
