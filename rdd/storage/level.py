"""StorageLevel: where and how a persisted RDD's partitions are kept (PySpark names).

Also :data:`MEMORY_ONLY_SHARING_IMMUTABLE`, the engine's own variant of ``MEMORY_ONLY``
(not PySpark's): equal to ``MEMORY_ONLY`` and shown as it, it lets the block manager keep
a block whose records are all immutable built-in values as the objects themselves.
"""

from __future__ import annotations


class StorageLevel:
    """Flags for controlling the storage of an RDD.

    Each level records whether to use memory, whether to drop to disk when memory is
    full, whether to keep data serialized, and how many replicas to keep (always 1
    here: there is one machine).
    """

    DISK_ONLY: StorageLevel
    DISK_ONLY_2: StorageLevel
    DISK_ONLY_3: StorageLevel
    MEMORY_ONLY: StorageLevel
    MEMORY_ONLY_2: StorageLevel
    MEMORY_AND_DISK: StorageLevel
    MEMORY_AND_DISK_2: StorageLevel
    MEMORY_AND_DISK_DESER: StorageLevel
    OFF_HEAP: StorageLevel
    NONE: StorageLevel

    def __init__(self, useDisk: bool, useMemory: bool, useOffHeap: bool, deserialized: bool,
                 replication: int = 1) -> None:
        self.useDisk = useDisk
        self.useMemory = useMemory
        self.useOffHeap = useOffHeap
        self.deserialized = deserialized
        self.replication = replication

    def _key(self) -> tuple:
        return (self.useDisk, self.useMemory, self.useOffHeap, self.deserialized, self.replication)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StorageLevel) and other._key() == self._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "StorageLevel({}, {}, {}, {}, {})".format(*self._key())

    def __str__(self) -> str:
        parts = []
        parts.append("Disk " if self.useDisk else "")
        parts.append("Memory " if self.useMemory else "")
        parts.append("OffHeap " if self.useOffHeap else "")
        parts.append("Deserialized " if self.deserialized else "Serialized ")
        parts.append(f"{self.replication}x Replicated")
        return "".join(parts)

    @property
    def is_valid(self) -> bool:
        return self.useDisk or self.useMemory or self.useOffHeap

    #: Whether a memory block of immutable records may be kept unserialized (see
    #: :data:`MEMORY_ONLY_SHARING_IMMUTABLE`).
    shares_immutable = False


class _SharingImmutableLevel(StorageLevel):
    """A serialized memory level whose immutable blocks are kept as objects.

    Equal to the level it is built like (same flags), so ``rdd.persist(MEMORY_ONLY)`` on
    an RDD that already has it is no change of level, and it reports itself as that level:
    what a reader sees is the same either way, since no reader can change an immutable
    record (only its memory footprint and the serialize/decode time differ).
    """

    shares_immutable = True


StorageLevel.DISK_ONLY = StorageLevel(True, False, False, False)
StorageLevel.DISK_ONLY_2 = StorageLevel(True, False, False, False, 2)
StorageLevel.DISK_ONLY_3 = StorageLevel(True, False, False, False, 3)
StorageLevel.MEMORY_ONLY = StorageLevel(False, True, False, False)
StorageLevel.MEMORY_ONLY_2 = StorageLevel(False, True, False, False, 2)
StorageLevel.MEMORY_AND_DISK = StorageLevel(True, True, False, False)
StorageLevel.MEMORY_AND_DISK_2 = StorageLevel(True, True, False, False, 2)
StorageLevel.MEMORY_AND_DISK_DESER = StorageLevel(True, True, False, True)
StorageLevel.OFF_HEAP = StorageLevel(True, True, True, False, 1)
StorageLevel.NONE = StorageLevel(False, False, False, False)

#: The engine's level for blocks it reads back often in the same worker (a windowed
#: stream's reduced batches and windows, the state of ``updateStateByKey``): a block whose
#: records are immutable built-in values (``rdd.storage.immutable``) is kept as the list
#: of records, with no serialize on store and no decode on each read; any other block is
#: serialized as ``MEMORY_ONLY`` keeps it, so a reader that changes a record in place
#: (a reduce function that extends a list) never changes the cached block.
MEMORY_ONLY_SHARING_IMMUTABLE: StorageLevel = _SharingImmutableLevel(False, True, False, False)
