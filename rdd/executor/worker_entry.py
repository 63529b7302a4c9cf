"""Entry point of an ``exec`` worker: ``main([FD, ID, DIR, PID])``, run by the launcher's
``python -c`` program (``rdd.executor.launcher``); ``python -m rdd.executor.worker_entry FD
ID DIR PID`` runs it too, by hand."""

from __future__ import annotations

import sys

from .fd_connection import FdConnection
from .worker import worker_main


def main(argv: list[str]) -> None:
    fd, executor_id, local_dir, parent_pid = argv
    worker_main(FdConnection(int(fd)), executor_id, local_dir, int(parent_pid), [], {})


if __name__ == "__main__":
    main(sys.argv[1:])
