"""What the batch facade (session, DataFrame) calls of Structured Streaming, in one place.

The session imports this module on first use of ``readStream``, ``streams``,
``writeStream`` or a streaming DataFrame method; nothing of the streaming engine is
imported by batch programs.
"""

from __future__ import annotations

from .groups_with_state import groups_with_state
from .pandas_state import apply_in_pandas_with_state
from .query import streams_of
from .readwriter import DataStreamReader, DataStreamWriter
from .state import group_state_exec as _group_state_exec  # noqa: F401 - plans mapGroupsWithState in batch queries
from .state import transform_with_state_exec as _tws_exec  # noqa: F401 - plans transformWithState in batch queries
from .stateful_api import drop_duplicates_within_watermark, with_watermark
from .transform_with_state import transform_with_state_in_pandas

__all__ = ["DataStreamReader", "DataStreamWriter", "apply_in_pandas_with_state", "drop_duplicates_within_watermark",
           "groups_with_state", "streams_of", "transform_with_state_in_pandas", "with_watermark"]
