"""Write-ahead log errors (under :class:`dstream.errors.StreamingError`)::

StreamingError
└── WriteAheadLogError        a log file cannot be written or read (also an OSError
    │                         when the cause is the file system)
    └── WALCorruptionError    a record inside a segment fails its checksum or its
                              framing, somewhere other than a torn tail
"""

from __future__ import annotations

from dstream.errors import StreamingError

__all__ = ["WALCorruptionError", "WriteAheadLogError"]


class WriteAheadLogError(StreamingError):
    """A write-ahead log segment could not be written or read."""


class WALCorruptionError(WriteAheadLogError):
    """A record in a write-ahead log segment is damaged (bad checksum or framing)."""
