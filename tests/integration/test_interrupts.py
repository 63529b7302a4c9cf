"""Ctrl-C, process-group SIGTERM and stop() while work runs: quiet, prompt, nothing left.

A terminal sends Ctrl-C to the whole foreground process group, and supervisors often
SIGTERM a group: the worker processes get the signal too. Each driver here runs in a
process group of its own and is signalled through the group:

- Ctrl-C while the workers are still starting (importing): the example exits 0, with
  no traceback, no ``KeyboardInterrupt`` and no replacement worker started.
- SIGTERM to the group once batches run: exit 0 (the examples' documented status),
  same quiet output; the workers survive the signal so the graceful stop can use them.
- A graceful stop waiting for queued slow batches says so; a second Ctrl-C stops at
  once (exit 130) and still leaves no process.
- ``ssc.stop()`` and ``sys.exit()`` while a batch runs a task that sleeps: the driver
  returns/exits within the deadline and leaves no process.
- ``make run`` on a pseudo-terminal, then Ctrl-C: exit status 0, not make's 130.

"No process left" is checked on the whole process group through ``/proc``.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.integration.examples_runner import DEADLINE, ROOT, Example
from tests.integration.watched import WatchedProcess

pytestmark = [pytest.mark.integration, pytest.mark.slow]

QUIET_FORBIDDEN = ("Traceback", "KeyboardInterrupt", "replacement")


def assert_quiet(stderr: str) -> None:
    for word in QUIET_FORBIDDEN:
        assert word not in stderr, f"{word!r} in stderr:\n{stderr[-3000:]}"


def assert_group_gone(process: WatchedProcess) -> None:
    deadline = time.monotonic() + DEADLINE
    while process.group_members():
        assert time.monotonic() < deadline, f"{process.group_members()} outlived the driver"
        threading.Event().wait(0.05)


def wait_for_children(process: WatchedProcess, count: int) -> list[int]:
    deadline = time.monotonic() + DEADLINE
    while len(process.children()) < count:
        assert process.proc.poll() is None, process.stderr[-3000:]
        assert time.monotonic() < deadline, "the workers never started"
        threading.Event().wait(0.005)
    return process.children()


@pytest.mark.parametrize("signum, moment", [(signal.SIGINT, "while the workers start"),
                                             (signal.SIGTERM, "once batches run")])
def test_a_signal_to_the_process_group_stops_the_example_quietly(signum: int, moment: str) -> None:
    example = Example("network_wordcount.py", "--batch-interval", "0.5", own_group=True)
    try:
        if moment == "while the workers start":
            wait_for_children(example, 2)  # just started: they are still importing
        else:
            example.wait_line(lambda line: line.startswith("Time: "), "a first batch")
        example.signal_group(signum)
        rc = example.wait()
    finally:
        example.kill()
    assert rc == 0, example.stderr[-3000:]
    assert f"{signal.Signals(signum).name} received: stopping gracefully" in example.stderr
    assert_quiet(example.stderr)
    assert_group_gone(example)


def test_graceful_stop_says_what_it_waits_for_and_a_second_ctrl_c_stops_now() -> None:
    app = WatchedProcess("tests.integration.slow_batches_app", [], {"PYTHONUNBUFFERED": "1"},
                         "the driver", own_group=True)
    try:
        app.wait_line(lambda line: line.startswith("batch "), "a first batch")
        app.signal_group(signal.SIGINT)
        line = app.wait_line(lambda x: x.startswith("stopping: waiting for"), "the waiting message",
                             stderr=True)
        match = re.fullmatch(r"stopping: waiting for (\d+) queued batches "
                             r"\(Ctrl-C again to stop now\)", line)
        assert match and int(match.group(1)) >= 1, line
        app.signal_group(signal.SIGINT)
        rc = app.wait()
    finally:
        app.kill()
    assert rc == 130, app.stderr[-3000:]
    assert "stopped now" in app.stderr
    assert "Traceback" not in app.stderr, app.stderr[-3000:]
    assert_group_gone(app)


@pytest.mark.parametrize("mode, status", [("stop", 0), ("exit", 3)])
def test_ssc_stop_and_sys_exit_while_a_batch_task_sleeps(tmp_path: Path, mode: str,
                                                         status: int) -> None:
    app = WatchedProcess("tests.integration.slow_batches_app", [mode, str(tmp_path)],
                         {"PYTHONUNBUFFERED": "1"}, "the driver", own_group=True)
    try:
        rc = app.wait(DEADLINE)
    finally:
        app.kill()
    assert rc == status, app.stderr[-3000:]
    assert os.listdir(tmp_path), "no task had started: the test proves nothing"
    if mode == "stop":
        assert "stopped" in app.lines
    assert "Traceback" not in app.stderr, app.stderr[-3000:]
    assert_group_gone(app)


def session_members(sid: int) -> list[int]:
    """Live processes of session ``sid`` (field 6 of ``/proc/<pid>/stat``)."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] not in ("Z", "X") and int(fields[3]) == sid:
            found.append(int(entry))
    return found


def test_make_run_then_ctrl_c_in_a_terminal_exits_0() -> None:
    """``make run`` on a real pseudo-terminal; Ctrl-C is typed as a user would."""
    pid, fd = pty.fork()
    if pid == 0:  # the child: a session whose controlling terminal is the pty
        os.chdir(ROOT)
        os.execvp("make", ["make", "-s", "run", "RUN_ARGS=--batch-interval 0.5"])
    output = b""
    try:
        deadline = time.monotonic() + DEADLINE
        while b"Time: " not in output:
            assert time.monotonic() < deadline, output[-3000:]
            if select.select([fd], [], [], 0.1)[0]:
                output += os.read(fd, 65536)
        os.write(fd, b"\x03")  # the terminal turns it into SIGINT to its foreground group
        while True:
            assert time.monotonic() < deadline + DEADLINE, output[-3000:]
            if select.select([fd], [], [], 0.1)[0]:
                try:
                    chunk = os.read(fd, 65536)
                except OSError:  # EIO: every process holding the terminal is gone
                    break
                if not chunk:
                    break
                output += chunk
        _, status = os.waitpid(pid, 0)
        while session_members(pid):
            assert time.monotonic() < deadline + DEADLINE, f"{session_members(pid)} outlived make"
            threading.Event().wait(0.05)
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)  # the session's group, if anything is left of it
        except ProcessLookupError:
            pass
        os.close(fd)
    text = output.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 0, text[-3000:]
    assert "SIGINT received: stopping gracefully" in text
    assert "Traceback" not in text and "Interrupt" not in text, text[-3000:]
