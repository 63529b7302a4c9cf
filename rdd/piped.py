"""RDDPiped: ``RDD.pipe``, each partition streamed through an external command (PySpark's semantics).

What this module owns
---------------------
The task side of ``pipe``: per partition, one process started from ``shlex.split(command)``
(no shell), fed the partition's elements as lines (``str(x)`` without its trailing
newlines, plus ``"\\n"``, UTF-8) by a writer thread while the task reads the command's
output lines (UTF-8, trailing newline removed) as the new partition's elements.

Invariants
----------
* The environment is exactly ``env``: empty when ``env`` is ``None``, as in PySpark (the
  command is still found on the default search path).
* The process never outlives its task: when the task stops reading early (``take``, a
  failure, a cancelled job) the process is killed and reaped.
* With ``checkCode=True`` a non-zero exit status fails the task, after the output the
  command printed before it exited; without it the status is ignored, as in PySpark.
"""

from __future__ import annotations

import functools
import shlex
import subprocess
import threading
from collections.abc import Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rdd.rdd import RDD

__all__ = ["PipeFunctionExitedError", "RDDPiped"]


class PipeFunctionExitedError(RuntimeError):
    """A command given to ``RDD.pipe(..., checkCode=True)`` exited with a non-zero status."""


def _feed(elements: Iterable[Any], stdin: IO[bytes], failures: list[BaseException]) -> None:
    try:
        with stdin:
            for element in elements:
                stdin.write((str(element).rstrip("\n") + "\n").encode("utf-8"))
    except BrokenPipeError:
        pass  # the command stopped reading (``head``): its output so far is the partition
    except BaseException as exc:  # noqa: BLE001 - reported by the reading side, never lost
        failures.append(exc)


def pipe_partition(argv: list[str], env: dict[str, str], check_code: bool,
                   iterator: Iterable[Any]) -> Iterator[str]:
    """The lines ``argv`` prints when fed ``iterator``'s elements (the task function of ``pipe``)."""
    try:
        process = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    except OSError as exc:
        raise OSError(exc.errno, f"RDD.pipe could not start {shlex.join(argv)!r}: {exc.strerror}. Give a "
                                 "command on the default path or its full path (the command gets only the "
                                 "variables in env, so PATH is not inherited)") from exc
    assert process.stdin is not None and process.stdout is not None
    failures: list[BaseException] = []
    writer = threading.Thread(target=_feed, args=(iterator, process.stdin, failures),
                              name="rdd-pipe-writer", daemon=True)
    writer.start()
    finished = False
    try:
        for line in process.stdout:
            yield line.rstrip(b"\n").decode("utf-8")
        writer.join()
        if failures:
            raise failures[0]
        code = process.wait()
        if check_code and code:
            raise PipeFunctionExitedError(f"Pipe function `{shlex.join(argv)}` exited with error code {code}.")
        finished = True
    finally:
        if not finished and process.poll() is None:
            process.kill()
        process.stdout.close()
        process.wait()
        # The writer ends at its next write to the closed pipe; a parent iterator that
        # blocks is not waited for past a few seconds (the thread is a daemon).
        writer.join(None if finished else 5.0)


class RDDPiped:
    """``RDD.pipe``; mixed into :class:`rdd.rdd.RDD`."""

    def pipe(self: RDD[Any], command: str, env: dict[str, str] | None = None,
             checkCode: bool = False) -> RDD[str]:  # noqa: N803 - PySpark's name
        """Return an RDD of the lines ``command`` prints, run once per partition on its elements.

        Parameters
        ----------
        command : str
            The command line, split as a shell would split it (``shlex``), run without a shell.
        env : dict, optional
            The command's whole environment (empty by default, as in PySpark).
        checkCode : bool
            Fail the task when the command exits with a non-zero status.

        Examples
        --------
        >>> sc.parallelize(['1', '2', '', '3']).pipe('cat').collect()
        ['1', '2', '', '3']
        """
        if not isinstance(command, str) or not command.strip():
            raise ValueError(f"pipe needs a command line as a non-empty str, got {command!r}")
        if env is not None and not (isinstance(env, dict)
                                    and all(isinstance(k, str) and isinstance(v, str) for k, v in env.items())):
            raise TypeError(f"pipe's env must be a dict of str to str, got {env!r}")
        task = functools.partial(pipe_partition, shlex.split(command), dict(env or {}), bool(checkCode))
        return self.mapPartitions(task)
