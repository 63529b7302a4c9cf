"""Write-ahead logs: msgpack-framed, checksummed, rolling segment files.

Two logs use it: the receivers' block log (``<checkpoint>/receivedData/<streamId>``,
written before a block counts as stored, when
``spark.streaming.receiver.writeAheadLog.enable`` is true) and the block tracker's event
log (``<checkpoint>/receivedBlockMetadata``, whenever a checkpoint directory is set).
"""

from __future__ import annotations

from dstream.wal.errors import WALCorruptionError, WriteAheadLogError
from dstream.wal.log import FileBasedWriteAheadLog, RecordHandle

__all__ = ["FileBasedWriteAheadLog", "RecordHandle", "WALCorruptionError", "WriteAheadLogError"]
