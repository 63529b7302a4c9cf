"""Durability of file writes shared by checkpoints and the write-ahead log."""

from __future__ import annotations

import os


def fsync_directory(directory: str) -> None:
    """Make a new or renamed file's directory entry durable (sync the directory).

    Best effort: a file system that cannot open or sync a directory is left as is.
    """
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
