"""Files shipped with ``SparkContext.addFile`` / ``addPyFile`` / ``addArchive``, and ``SparkFiles``.

What this module owns
---------------------
* The directory ``<context local dir>/userFiles``: ``addFile`` copies a file (or, with
  ``recursive=True``, a directory) into it under its own name, ``addArchive`` unpacks an
  archive into a directory named after the archive, ``addPyFile`` copies a ``.py``,
  ``.zip`` or ``.egg`` and puts it on ``sys.path``.
* ``SparkFiles.get(name)`` / ``getRootDirectory()``: the path of a shipped file in the
  process that asks, the driver or a worker (PySpark's API).
* :func:`sync_python_path`: before a worker unpickles a new stage (whose functions may
  import a module shipped with ``addPyFile``), the directory and each shipped archive
  are put on the worker's ``sys.path``.

Invariants
----------
* Every process of a context sees the same ``userFiles`` directory: it lives in the
  context's local directory, which the workers share (they run on the driver's machine;
  a Ray executor on another node does not see it, and ``SparkFiles.get`` names the path
  it looked for when the file is missing there).
* A name is shipped once: adding another path under a name already shipped raises;
  adding the same path again does nothing, as in Spark.
* Files are copied when added: changing the original later does not change what tasks read.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading

from .runtime import environment

__all__ = ["SparkFiles", "add_archive", "add_file", "root_directory", "sync_python_path"]

ROOT_NAME = "userFiles"
PYTHON_SUFFIXES = (".py", ".zip", ".egg")
_ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz", ".jar")

_lock = threading.Lock()
_synced: dict[str, float] = {}  # userFiles directory -> the mtime its entries were put on sys.path at


def root_directory(local_dir: str) -> str:
    """The ``userFiles`` directory of a context whose local directory is ``local_dir``."""
    return os.path.join(local_dir, ROOT_NAME)


def _target(local_dir: str, source: str, shipped: dict[str, str], name: str,
            others: dict[str, str]) -> str | None:
    """Where ``source`` goes under ``name``; ``None`` when that exact source is already there.

    ``others`` holds the names shipped the other way (files vs archives): one directory
    serves both, so a name is taken once across them.
    """
    known = shipped.get(name)
    if known is not None and known == source:
        return None
    if known is None and name in others:
        raise ValueError(f"The name {name} is already shipped from {others[name]} (as a file or an archive, "
                         f"which share one directory), so {source} cannot be; rename one of them to ship both")
    if known is not None:
        raise ValueError(f"File {name} was already registered with a different path (registered: {known}, "
                         f"new: {source}); rename one of them to ship both")
    root = root_directory(local_dir)
    os.makedirs(root, exist_ok=True)
    return os.path.join(root, name)


def add_file(local_dir: str, path: str, recursive: bool, shipped: dict[str, str],
             others: dict[str, str]) -> str | None:
    """Copy ``path`` into the ``userFiles`` directory; record it in ``shipped`` (name -> source).

    Returns the copy's path, or ``None`` when the same path was shipped before.
    """
    source = os.path.abspath(os.path.expanduser(path))
    if os.path.isdir(source):
        if not recursive:
            raise ValueError(f"addFile does not support directories when recursive is not set: {path!r} is a "
                             "directory; pass recursive=True to ship it with its contents")
    elif not os.path.isfile(source):
        raise FileNotFoundError(f"addFile: {path!r} does not exist (looked for {source}); give the path of an "
                                "existing file")
    name = os.path.basename(source.rstrip(os.sep))
    target = _target(local_dir, source, shipped, name, others)
    if target is None:
        return None
    import shutil  # here: the workers import this module, and they never copy (see sync_python_path)

    if os.path.isdir(source):
        shutil.copytree(source, target)
    else:
        shutil.copyfile(source, target)
    shipped[name] = source
    return target


def add_archive(local_dir: str, path: str, shipped: dict[str, str], others: dict[str, str]) -> str | None:
    """Unpack the archive ``path`` into ``userFiles/<archive name>/``; record it in ``shipped``."""
    source = os.path.abspath(os.path.expanduser(path))
    if not os.path.isfile(source):
        raise FileNotFoundError(f"addArchive: {path!r} does not exist (looked for {source}); give the path of an "
                                "existing archive")
    name = os.path.basename(source)
    if not name.lower().endswith(_ARCHIVE_SUFFIXES):
        raise ValueError(f"addArchive: {path!r} is not an archive this can unpack; use one of "
                         f"{', '.join(_ARCHIVE_SUFFIXES)}")
    target = _target(local_dir, source, shipped, name, others)
    if target is None:
        return None
    import shutil

    unpack_format = "zip" if name.lower().endswith((".zip", ".jar")) else None
    shutil.unpack_archive(source, target, unpack_format)
    shipped[name] = source
    return target


def sync_python_path(local_dir: str) -> None:
    """Put the ``userFiles`` directory and the ``.zip``/``.egg`` files in it on ``sys.path``.

    Cheap when nothing was added since the last call: one ``stat`` of the directory.
    """
    root = root_directory(local_dir)
    try:
        mtime = os.stat(root).st_mtime
    except FileNotFoundError:
        return
    with _lock:
        if _synced.get(root) == mtime:
            return
        entries = [root] + sorted(os.path.join(root, n) for n in os.listdir(root)
                                  if n.endswith((".zip", ".egg")))
        for entry in entries:
            if entry not in sys.path:
                sys.path.insert(1, entry)  # after the script's own directory, as PySpark does
        importlib.invalidate_caches()
        _synced[root] = mtime


class SparkFiles:
    """Paths of the files shipped with ``SparkContext.addFile`` (PySpark's ``SparkFiles``).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "lookup.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("100")
    >>> sc.addFile(path)
    >>> def read(_):
    ...     with open(SparkFiles.get("lookup.txt")) as f:
    ...         return int(f.read())
    >>> sc.parallelize([1, 2], 2).map(read).collect()
    [100, 100]
    """

    def __init__(self) -> None:
        raise TypeError("SparkFiles has only class methods: call SparkFiles.get(name) or "
                        "SparkFiles.getRootDirectory()")

    @classmethod
    def getRootDirectory(cls) -> str:  # noqa: N802 - PySpark's name
        """The directory holding the shipped files, in this process (driver or worker)."""
        return root_directory(environment.current().local_dir)

    @classmethod
    def get(cls, filename: str) -> str:
        """The absolute path of the file shipped as ``filename`` (its base name)."""
        return os.path.join(cls.getRootDirectory(), filename)
