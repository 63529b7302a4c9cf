"""The manifest of a directory a streaming file sink writes, as readers see it.

What this module owns
---------------------
* :func:`has_manifest` and :func:`manifest_files`: a streaming file sink writes its part
  files straight into its output directory and lists them in ``_spark_metadata/<batch id>``
  only once the batch's job is over. A file of a failed attempt therefore sits in the
  directory without being in the manifest, and a reader that follows the manifest (the
  batch reader, the file stream source) sees every batch exactly once.
* :func:`path_to_uri` and :func:`uri_to_path`: the ``file:///...`` form of the paths the
  manifest and the file source's log hold.

Invariants
----------
* Read-only, and independent of the streaming package that writes the log. A log file is
  ``v1`` on its first line, then one JSON object per line; ``K.compact`` holds every entry up
  to batch ``K``, so a reader takes the newest compact file and the plain files after it.
* An entry with ``"action": "delete"`` removes its path from the listing.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
from urllib.parse import unquote, urlparse

__all__ = ["MANIFEST_DIR", "has_manifest", "manifest_files", "path_to_uri", "uri_to_path"]

#: The name of the manifest directory inside a file sink's output directory.
MANIFEST_DIR = "_spark_metadata"

_VERSION = 1
_NAME = re.compile(r"^(\d+)(\.compact)?$")


def path_to_uri(path: str) -> str:
    """``file:///abs/path`` of a local path (percent-encoded as a URI)."""
    return pathlib.Path(os.path.abspath(path)).as_uri()


def uri_to_path(uri: str) -> str:
    """The local path of ``file:///x``, ``file:/x`` or a plain path."""
    if uri.startswith("file:"):
        return unquote(urlparse(uri).path)
    return uri


def has_manifest(directory: str) -> bool:
    """Whether ``directory`` is the output of a streaming file sink (it has ``_spark_metadata/``)."""
    return os.path.isdir(os.path.join(directory, MANIFEST_DIR))


def _read_log_file(file: str) -> list[dict]:
    with open(file, encoding="utf-8") as handle:
        first, _, body = handle.read().partition("\n")
    if not re.fullmatch(r"v\d+", first):
        raise ValueError(f"Manifest file {file} is corrupted: its first line {first!r} is not a version (v1).")
    if int(first[1:]) > _VERSION:
        raise ValueError(
            f"UnsupportedLogVersion: maximum supported log version is v{_VERSION}, but encountered {first} in "
            f"{file}. The log file was produced by a newer version of dstreams and cannot be read by this "
            "version. Please upgrade.")
    return [json.loads(line) for line in body.split("\n") if line.strip()]


def manifest_files(directory: str) -> list[str]:
    """The data files the manifest of ``directory`` lists, as absolute local paths, in log order.

    Parameters
    ----------
    directory : str
        A file sink's output directory (see :func:`has_manifest`).
    """
    log_dir = os.path.join(directory, MANIFEST_DIR)
    ids: dict[int, bool] = {}
    for name in os.listdir(log_dir):
        match = _NAME.match(name)
        if match:
            batch = int(match.group(1))
            ids[batch] = ids.get(batch, False) or bool(match.group(2))
    compacts = [i for i, compact in ids.items() if compact]
    start = max(compacts) if compacts else -1
    files: dict[str, None] = {}
    for batch in sorted(i for i in ids if i >= start):
        name = f"{batch}.compact" if batch == start else str(batch)
        for entry in _read_log_file(os.path.join(log_dir, name)):
            path = uri_to_path(str(entry["path"]))
            if entry.get("action", "add") == "delete":
                files.pop(path, None)
            else:
                files[path] = None
    return list(files)
