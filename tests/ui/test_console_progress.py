"""The console progress bar, drawn on a real terminal (a pty) by a real driver process.

A subprocess runs a job whose stage lasts a few seconds with its stderr on the slave
side of a pseudo-terminal; the test reads the master side until the process exits
(with a deadline) and checks Spark's ``[Stage N:==>  (done + running) / total]`` lines
and the clearing of the line at the end.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rdd.ui.console_progress import render

DEADLINE_S = 60.0
ROOT = Path(__file__).resolve().parents[2]

DRIVER = textwrap.dedent("""
    import sys, time
    from rdd import SparkConf, SparkContext
    conf = SparkConf().set("spark.ui.enabled", "false").set("spark.ui.showConsoleProgress", "{show}")
    sc = SparkContext("{master}", "progress", conf=conf)
    def slow(x):
        time.sleep(0.25)
        return x
    assert sc.parallelize(range(8), 8).map(slow).count() == 8
    sys.stderr.write("JOB-DONE\\n")
    sc.stop()
""")


def run_driver(master: str, show: bool, on_tty: bool) -> str:
    """Run the driver; return what it wrote on stderr."""
    script = DRIVER.format(master=master, show="true" if show else "false")
    env = dict(os.environ, COLUMNS="80", PYTHONPATH=str(ROOT))
    if not on_tty:
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                              timeout=DEADLINE_S, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        return done.stderr
    master_fd, slave_fd = pty.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=slave_fd, env=env, cwd=ROOT)
    finally:
        os.close(slave_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + DEADLINE_S
    try:
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"the driver did not finish within {DEADLINE_S} s: {b''.join(chunks)!r}"
            ready, _, _ = select.select([master_fd], [], [], min(remaining, 0.5))
            if ready:
                try:
                    data = os.read(master_fd, 65536)
                except OSError:  # EIO: every writer of the slave side is gone
                    break
                if not data:
                    break
                chunks.append(data)
            elif proc.poll() is not None:
                break
        assert proc.wait(timeout=max(1.0, deadline - time.monotonic())) == 0, b"".join(chunks).decode()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master_fd)
    return b"".join(chunks).decode("utf-8", "replace")


BAR = re.compile(r"\r\[Stage 0:[=> ]*\((\d+) \+ (\d+)\) / 8\]")


@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_the_bar_is_drawn_on_a_terminal_then_cleared(master: str) -> None:
    out = run_driver(master, show=True, on_tty=True)
    bars = BAR.findall(out)
    assert bars, f"no progress bar drawn: {out!r}"
    done = [int(d) for d, _ in bars]
    assert done == sorted(done), "the completed count went backwards"
    running = {int(r) for _, r in bars}
    assert running <= ({1} if master == "local" else {1, 2})
    width = max(len(m.group(0)) - 1 for m in BAR.finditer(out))
    assert width == 80
    before_done = out[: out.index("JOB-DONE")]
    assert before_done.endswith("\r" + " " * 80 + "\r"), "the line was not cleared when the stage ended"


def test_nothing_is_drawn_when_stderr_is_not_a_terminal() -> None:
    out = run_driver("local", show=True, on_tty=False)
    assert "[Stage" not in out and "JOB-DONE" in out


def test_nothing_is_drawn_when_the_setting_is_off() -> None:
    out = run_driver("local", show=False, on_tty=True)
    assert "[Stage" not in out and "JOB-DONE" in out


def test_render_matches_sparks_format() -> None:
    # 40 columns - 9 (header) - 13 (tail) = 18 for the bar; 18 * 2 // 8 = 4 done.
    assert render([(3, 8, 2, 2)], 40) == "[Stage 3:====>              (2 + 2) / 8]"
    assert len(render([(3, 8, 2, 2)], 40)) == 40
    two = render([(1, 4, 4, 0), (2, 4, 0, 1)], 60)
    assert two.startswith("[Stage 1:") and "[Stage 2:>" in two and len(two) == 60
    assert render([(1, 10, 0, 0)], 10) == "[Stage 1:(0 + 0) / 10]"  # no room for a bar
