"""The checkpoint's metadata logs: one file per batch id, written once, atomically.

What this module owns
---------------------
:class:`MetadataLog`, the write-once log behind ``offsets/``, ``commits/``, a file
source's ``sources/<i>/`` and a file sink's ``_spark_metadata/``, and the three logs
built on it: :class:`OffsetSeqLog` (the write-ahead log: what each batch reads),
:class:`CommitLog` (which batches finished) and :class:`CompactibleFileLog` (lists of
files, folded into a ``K.compact`` file every ``compact_interval`` batches so that a
reader opens a few files, not one per batch).

Invariants
----------
* A log file is ``v1`` on its first line, then the body; a reader refuses a version
  above the one it knows (a checkpoint written by a newer release), naming it.
* ``add(N, ...)`` never overwrites: it returns ``False`` when ``N`` is already there,
  and the file appears complete or not at all (written under a hidden temporary name,
  then hard-linked into place, which fails if the name exists). Two
  writers racing for one id are reported as a concurrent update, never merged.
* Batch ids are contiguous; "latest" is the largest id on disk.
* Compaction: batch ``K`` is a compaction batch when ``(K + 1) % interval == 0``; its
  ``K.compact`` file holds every entry of the batches up to ``K``. An existing log
  keeps the interval its compact files were written with, whatever the setting says.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .spare_files import FilePreparer, SpareFile

__all__ = ["CommitLog", "CompactibleFileLog", "ConcurrentUpdateError", "MetadataLog", "OffsetSeq",
           "OffsetSeqLog", "UnsupportedLogVersionError"]

_VERSION = 1
_NAME = re.compile(r"^(\d+)(\.compact)?$")


class ConcurrentUpdateError(RuntimeError):
    """Another writer created the same log file: two queries share one checkpoint."""


class UnsupportedLogVersionError(RuntimeError):
    """A log file was written by a newer release than this one."""


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=False)


class MetadataLog:
    """Write-once files ``<path>/<batch id>`` holding ``v1`` and a text body.

    Parameters
    ----------
    path : str
        The log's directory (created if missing).
    preparer : FilePreparer, optional
        With one, the log's next file is created ahead, in the background (see
        :mod:`.spare_files`): for the logs written on every batch.
    """

    def __init__(self, path: str, preparer: FilePreparer | None = None) -> None:
        self.path = path
        os.makedirs(path, exist_ok=True)
        self._spare = None if preparer is None else SpareFile(path, preparer)
        #: Every batch below this id is known to be purged (a full listing happens once).
        self._purged_below: int | None = None

    def _file(self, batch_id: int) -> str:
        return os.path.join(self.path, str(batch_id))

    def add(self, batch_id: int, body: str) -> bool:
        """Write ``body`` as batch ``batch_id``; ``False`` (nothing written) if it exists."""
        if batch_id < 0:
            raise ValueError(f"batch id must be >= 0, got {batch_id}")
        return self._write(self._file(batch_id), body)

    def _write(self, target: str, body: str) -> bool:
        if os.path.exists(target):
            return False
        spare = self._spare.take() if self._spare is not None else None
        tmp = spare or os.path.join(self.path, f".{os.path.basename(target)}.{uuid.uuid4().hex}.tmp")
        # No fsync: like Spark's checkpoints on a local file system, the log survives a
        # crash of the process (the rename is atomic), not a crash of the machine; an
        # fsync per file would cost more than a small micro-batch does.
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(f"v{_VERSION}\n{body}")
        try:
            os.link(tmp, target)
        except FileExistsError:
            raise ConcurrentUpdateError(
                f"Multiple streaming queries are concurrently using {self.path}: another writer created "
                f"{target} first. Stop the other query (or use another checkpointLocation).") from None
        finally:
            os.unlink(tmp)
            if self._spare is not None:
                self._spare.refill()
        return True

    def close(self) -> None:
        """Remove the log's spare file, if it has one (see :mod:`.spare_files`)."""
        if self._spare is not None:
            self._spare.close()

    def _read(self, file: str) -> str:
        with open(file, encoding="utf-8") as f:
            text = f.read()
        first, _, body = text.partition("\n")
        if not first.startswith("v") or not first[1:].isdigit():
            raise ValueError(f"Log file {file} is corrupted: its first line {first!r} is not a version (v1)")
        version = int(first[1:])
        if version > _VERSION:
            raise UnsupportedLogVersionError(
                f"UnsupportedLogVersion: maximum supported log version is v{_VERSION}, but encountered "
                f"v{version} in {file}. The log file was produced by a newer version of dstreams and cannot "
                f"be read by this version. Please upgrade.")
        return body

    def get(self, batch_id: int) -> str | None:
        """The body of batch ``batch_id``, or ``None`` if there is none."""
        file = self._file(batch_id)
        return self._read(file) if os.path.exists(file) else None

    def batch_ids(self) -> list[int]:
        """Every batch id on disk, ascending."""
        ids = []
        for name in os.listdir(self.path):
            m = _NAME.match(name)
            if m:
                ids.append(int(m.group(1)))
        return sorted(set(ids))

    def get_latest(self) -> tuple[int, str] | None:
        """``(id, body)`` of the latest batch, or ``None`` for an empty log."""
        ids = self.batch_ids()
        if not ids:
            return None
        body = self.get(ids[-1])
        assert body is not None
        return ids[-1], body

    def purge(self, threshold: int) -> None:
        """Delete the files of batches below ``threshold``."""
        if threshold <= 0:
            return
        if self._purged_below is None:
            for name in os.listdir(self.path):
                m = _NAME.match(name)
                if m and int(m.group(1)) < threshold and not m.group(2):
                    os.unlink(os.path.join(self.path, name))
        else:
            # Called once a batch: only the ids that fell below the threshold since.
            for batch_id in range(self._purged_below, threshold):
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(os.path.join(self.path, str(batch_id)))
        self._purged_below = max(threshold, self._purged_below or 0)


@dataclass
class OffsetSeq:
    """What batch N reads: one offset per source (``None`` before a source has data) and the
    batch's metadata (``batchWatermarkMs``, ``batchTimestampMs``, the pinned ``conf``)."""

    offsets: list[Any]
    batch_watermark_ms: int = 0
    batch_timestamp_ms: int = 0
    conf: dict[str, str] = field(default_factory=dict)

    def to_text(self) -> str:
        meta = {"batchWatermarkMs": self.batch_watermark_ms, "batchTimestampMs": self.batch_timestamp_ms,
                "conf": self.conf}
        lines = [_dumps(meta)] + ["-" if o is None else _dumps(o) for o in self.offsets]
        return "\n".join(lines)

    @classmethod
    def from_text(cls, text: str) -> OffsetSeq:
        lines = text.split("\n")
        meta = json.loads(lines[0]) if lines and lines[0] else {}
        offsets = [None if line == "-" else json.loads(line) for line in lines[1:]]
        return cls(offsets, int(meta.get("batchWatermarkMs", 0)), int(meta.get("batchTimestampMs", 0)),
                   dict(meta.get("conf", {})))


class OffsetSeqLog(MetadataLog):
    """``offsets/``: written before batch N runs, so a restart re-runs exactly batch N."""

    def add_offsets(self, batch_id: int, seq: OffsetSeq) -> bool:
        return self.add(batch_id, seq.to_text())

    def get_offsets(self, batch_id: int) -> OffsetSeq | None:
        body = self.get(batch_id)
        return None if body is None else OffsetSeq.from_text(body)

    def latest_offsets(self) -> tuple[int, OffsetSeq] | None:
        latest = self.get_latest()
        return None if latest is None else (latest[0], OffsetSeq.from_text(latest[1]))


class CommitLog(MetadataLog):
    """``commits/``: written when batch N is over, with the watermark batch N+1 uses."""

    def add_commit(self, batch_id: int, next_watermark_ms: int) -> bool:
        return self.add(batch_id, _dumps({"nextBatchWatermarkMs": next_watermark_ms}))

    def next_watermark(self, batch_id: int) -> int | None:
        body = self.get(batch_id)
        if body is None:
            return None
        return int(json.loads(body or "{}").get("nextBatchWatermarkMs", 0))

    def latest_id(self) -> int | None:
        ids = self.batch_ids()
        return ids[-1] if ids else None


class CompactibleFileLog(MetadataLog):
    """A log of file entries (JSON objects, one a line) compacted every ``compact_interval`` batches.

    Parameters
    ----------
    path : str
        The log's directory.
    compact_interval : int
        Spark's ``...log.compactInterval`` (10); an existing log keeps the interval it has.
    """

    def __init__(self, path: str, compact_interval: int = 10) -> None:
        super().__init__(path)
        if compact_interval < 1:
            raise ValueError(f"compactInterval must be at least 1, got {compact_interval}")
        compacts = self._compact_ids()
        # The first compaction happened at interval - 1: a log keeps its own interval.
        self.compact_interval = compacts[0] + 1 if compacts else compact_interval
        #: The entries of the batches this object added, the latest ``compact_interval`` of
        #: them (Spark's file entry cache): a source reads its batch's files right after
        #: logging them, and reading the file back cost more than the rest of its planning.
        self._added: dict[int, list[dict[str, Any]]] = {}

    def _compact_ids(self) -> list[int]:
        return sorted(int(m.group(1)) for name in os.listdir(self.path)
                      if (m := _NAME.match(name)) and m.group(2))

    def is_compaction(self, batch_id: int) -> bool:
        return (batch_id + 1) % self.compact_interval == 0

    def _file(self, batch_id: int) -> str:
        name = f"{batch_id}.compact" if self.is_compaction(batch_id) else str(batch_id)
        return os.path.join(self.path, name)

    def add_entries(self, batch_id: int, entries: Sequence[dict[str, Any]]) -> bool:
        """Log ``entries`` as batch ``batch_id`` (folding every earlier entry in on a compaction batch)."""
        if os.path.exists(self._file(batch_id)):
            return False
        own = list(entries)
        rows = self.all_entries(upto=batch_id - 1) + own if self.is_compaction(batch_id) else own
        if not self.add(batch_id, "\n".join(_dumps(r) for r in rows)):
            return False
        self._added[batch_id] = own
        if len(self._added) > self.compact_interval:
            del self._added[min(self._added)]
        return True

    def added_entries(self, batch_id: int) -> list[dict[str, Any]] | None:
        """The entries batch ``batch_id`` added, if this object logged it recently (else ``None``: read the files)."""
        own = self._added.get(batch_id)
        return None if own is None else list(own)

    def entries(self, batch_id: int) -> list[dict[str, Any]] | None:
        """The entries stored in batch ``batch_id``'s file (all entries so far for a compact file)."""
        body = self.get(batch_id)
        return None if body is None else _parse_lines(body)

    def all_entries(self, upto: int | None = None) -> list[dict[str, Any]]:
        """Every entry of batches ``<= upto`` (all batches when ``None``): the latest compact file, then later files."""
        ids = [i for i in self.batch_ids() if upto is None or i <= upto]
        if not ids:
            return []
        compacts = [i for i in ids if self.is_compaction(i) and os.path.exists(self._file(i))]
        start = compacts[-1] if compacts else None
        rows: list[dict[str, Any]] = []
        if start is not None:
            rows.extend(self.entries(start) or [])
        for i in ids:
            if start is None or i > start:
                rows.extend(self.entries(i) or [])
        return rows

    def purge_before_compaction(self, batch_ids: Iterable[int] = ()) -> None:
        """Delete plain files older than the latest compact file (they are folded into it)."""
        compacts = self._compact_ids()
        if compacts:
            super().purge(compacts[-1])


def _parse_lines(body: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in body.split("\n") if line.strip()]
