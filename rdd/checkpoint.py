"""RDD checkpointing: write marked RDDs' partitions to files and cut their lineage.

``rdd.checkpoint()`` only marks the node. After the next job that computes it, the
context runs one more job for every marked node in that job's lineage: it writes
``part-NNNNN`` pickle files (each under ``part-NNNNN.tmp-<writer pid>``, then renamed),
and :func:`finish` writes the pickled partitioner and ``_manifest`` (the number of
partitions and each part's size in bytes), then switches the node to read from those
files, with its parents forgotten, so the lineage, and what is pickled into later
tasks, stops growing.

Layout: ``<dir given to setCheckpointDir>/local-<start ms>-<driver pid>/rdd-<id>/``.
Reading a directory back (:func:`read_checkpoint_dir`) checks it against its manifest,
so a missing or truncated part file is an error naming that file, not a wrong count
of partitions or a truncated pickle in some later task.

Leftovers of crashes are removed by the next successful checkpoint (:func:`finish`):
temporary part files whose writer process is gone, and the run directories of drivers
that are gone, except the ones this context read checkpoints from (a recovered
stream still reads them). A file or directory of a live process is never touched.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import re
import shutil
from collections.abc import Callable, Collection, Iterator
from typing import Any

from .errors import CheckpointError
from .nodes.base import LineageNode
from .nodes.checkpointed import CheckpointedNode, part_file
from .serialization.serializer import dumps_data

_BATCH = 1024
MANIFEST = "_manifest"
_TMP_PART = re.compile(r"^part-\d+\.tmp-(\d+)$")
_RUN_DIR = re.compile(r"^local-\d+-(\d+)$")

log = logging.getLogger(__name__)


def marked_nodes(node: LineageNode) -> list[LineageNode]:
    """Marked, not yet checkpointed nodes in ``node``'s lineage, ancestors first."""
    found: list[LineageNode] = []
    seen: set[int] = set()

    def visit(current: LineageNode) -> None:
        if current.id in seen or current.checkpointed is not None:
            return
        seen.add(current.id)
        for dep in current.dependencies:
            visit(dep.parent)
        if current.checkpoint_dir is not None:
            found.append(current)

    visit(node)
    return found


def lineage_depth(node: LineageNode) -> int:
    """Nodes on the longest dependency path from ``node`` to a source or a checkpoint.

    Pickling a stage and computing a partition both recurse once or more per node on
    that path, so this is what must stay bounded (an RDD marked but not yet written
    still counts its whole lineage: the job that computes it pickles it).
    """
    # Keyed by object: a node and the CheckpointedNode that replaced its lineage share an id.
    depth: dict[int, int] = {}
    stack: list[tuple[LineageNode, bool]] = [(node, False)]
    while stack:
        current, expanded = stack.pop()
        if id(current) in depth:
            continue
        parents = [dep.parent for dep in current.dependencies]
        if expanded:
            depth[id(current)] = 1 + max((depth[id(p)] for p in parents), default=0)
            continue
        stack.append((current, True))
        stack.extend((p, False) for p in parents if id(p) not in depth)
    return depth[id(node)]


def write_partition(directory: str) -> Callable[[Iterator[Any]], int]:
    """The task function writing one part file; it returns the file's size in bytes."""
    def write(records: Iterator[Any]) -> int:
        from .runtime.task_context import TaskContext
        tctx: TaskContext | None = TaskContext.get()
        index = tctx.partitionId() if tctx is not None else 0
        path = part_file(directory, index)
        tmp = f"{path}.tmp-{os.getpid()}"
        with open(tmp, "wb") as f:
            batch: list[Any] = []
            for record in records:
                batch.append(record)
                if len(batch) >= _BATCH:
                    pickle.dump(batch, f, protocol=5)
                    batch = []
            if batch:
                pickle.dump(batch, f, protocol=5)
            size = f.tell()
        os.replace(tmp, path)
        return size
    return write


def _write_file(directory: str, name: str, payload: bytes) -> None:
    tmp = os.path.join(directory, f"{name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(payload)
    os.replace(tmp, os.path.join(directory, name))


def finish(node: LineageNode, sizes: list[int], keep: Collection[str] = ()) -> None:
    """Switch ``node`` to its checkpoint files and drop its parents, then clean up what
    crashed writers left (``keep``: run directories not to remove, being read)."""
    directory = node.checkpoint_dir
    assert directory is not None
    count = node.num_partitions
    if node.partitioner is not None:
        _write_file(directory, "_partitioner", dumps_data(node.partitioner))
    _write_file(directory, MANIFEST, json.dumps({"partitions": count, "sizes": sizes}).encode())
    node.checkpointed = CheckpointedNode(directory, count, node.partitioner, node_id=node.id)
    forget_parents(node)
    remove_leftovers(directory, keep)


def process_is_alive(pid: int) -> bool:
    """Whether process ``pid`` runs (this one does): the writer of a ``.tmp-<pid>`` file."""
    if pid <= 0:
        return False  # os.kill would signal a process group; no writer has such a pid
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's live process
    except OverflowError:
        return False  # no process can have this pid
    return True


def remove_leftovers(directory: str, keep: Collection[str] = ()) -> None:
    """Remove what crashed writers left next to a checkpoint just written to ``directory``:
    its temporary part files whose writer is gone, and the run directories of drivers
    that are gone (a ``local-<ms>-<pid>`` sibling of this run's directory, not in ``keep``)."""
    for name in os.listdir(directory):
        found = _TMP_PART.match(name)
        if found and not process_is_alive(int(found.group(1))):
            _remove(os.path.join(directory, name))
    run_dir = os.path.dirname(directory)
    root = os.path.dirname(run_dir)
    if not _RUN_DIR.match(os.path.basename(run_dir)):
        return  # not a directory of setCheckpointDir's layout: nothing else is ours
    for name in os.listdir(root):
        found = _RUN_DIR.match(name)
        path = os.path.join(root, name)
        if (found and path != run_dir and path not in keep
                and not process_is_alive(int(found.group(1)))):
            _remove(path)


def _remove(path: str) -> None:
    log.info("removing %s, left by a checkpoint writer that is gone", path)
    if os.path.isdir(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


def forget_parents(node: LineageNode) -> None:
    """Release references to parent nodes so the driver does not keep old lineage alive."""
    node._deps = []
    for key, value in list(vars(node).items()):
        if isinstance(value, LineageNode) and key != "checkpointed":
            setattr(node, key, None)
        elif isinstance(value, list) and value and all(isinstance(v, LineageNode) for v in value):
            setattr(node, key, [])


def read_checkpoint_dir(directory: str) -> CheckpointedNode:
    """A node reading a checkpoint directory written by :func:`write_partition` + :func:`finish`."""
    count = verify_checkpoint_dir(directory)
    partitioner = None
    marker = os.path.join(directory, "_partitioner")
    if os.path.exists(marker):
        with open(marker, "rb") as f:
            payload = f.read()
        partitioner = pickle.loads(payload) if payload else None
    return CheckpointedNode(directory, count, partitioner)


def verify_checkpoint_dir(directory: str) -> int:
    """Check an RDD checkpoint directory against its manifest; return its partition count.

    Every part file the manifest lists must exist with the size it was written with,
    so a deleted or truncated part is found before any task reads it.

    Raises
    ------
    CheckpointError
        Naming the directory or the damaged file and what is wrong with it.
    """
    if not os.path.isdir(directory):
        raise CheckpointError(f"RDD checkpoint directory {directory} does not exist (deleted, "
                              "or written by another machine)")
    try:
        with open(os.path.join(directory, MANIFEST), "rb") as f:
            manifest = json.loads(f.read())
        count, sizes = int(manifest["partitions"]), [int(n) for n in manifest["sizes"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CheckpointError(
            f"RDD checkpoint directory {directory} has no readable {MANIFEST} (the checkpoint "
            f"was not completed, or was damaged): {type(exc).__name__}: {exc}") from exc
    if len(sizes) != count:
        raise CheckpointError(f"the {MANIFEST} of RDD checkpoint directory {directory} is "
                              f"damaged: {count} partitions but {len(sizes)} sizes")
    for index, expected in enumerate(sizes):
        path = part_file(directory, index)
        try:
            actual = os.path.getsize(path)
        except OSError:
            raise CheckpointError(f"RDD checkpoint file {path} is missing: the checkpoint has "
                                  f"{count} partitions") from None
        if actual != expected:
            raise CheckpointError(f"RDD checkpoint file {path} is damaged: {actual} bytes, it "
                                  f"was written with {expected} (truncated or overwritten)")
    return count
