"""Every ``python`` block of docs/streaming.md runs as the program it claims to be.

Each block is saved as a script and run in a fresh directory with the project on
``PYTHONPATH``. The socket programs expect ``nc -lk 9999``; here a sample line server on
a free port stands in, and ``9999`` in the block is replaced by that port. A block must
exit with status 0 (143 for the one that sends itself SIGTERM) and print no traceback;
some blocks are also checked for what they say they print. The getOrCreate block is run
twice: the second run must recover instead of creating a context.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "streaming.md"
DEADLINE = 90.0

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def guide_blocks() -> list[str]:
    return re.findall(r"^```python\n(.*?)^```$", GUIDE.read_text(), flags=re.DOTALL | re.MULTILINE)


BLOCKS = guide_blocks()


def block_id(code: str) -> str:
    for marker in ("getOrCreate", "SIGTERM", "binaryRecordsStream", "textFileStream",
                   "Receiver)", "backpressure", "queueStream", "socketTextStream"):
        if marker in code:
            return marker.strip(")").lower()
    return "block"


@pytest.fixture(scope="module")
def sample_port() -> int:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        from _live import SampleLineServer
    finally:
        sys.path.remove(str(ROOT / "examples"))
    server = SampleLineServer(lines_per_second=200)
    yield server.port
    server.stop()


def run_block(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    script = cwd / "prog.py"
    script.write_text(code)
    # TMPDIR: the programs' mkdtemp() scratch directories stay under the test's directory.
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1", TMPDIR=str(cwd))
    return subprocess.run(
        [sys.executable, str(script)], check=False, cwd=cwd, env=env, capture_output=True, text=True,
        timeout=DEADLINE,
    )


def test_the_guide_has_its_programs() -> None:
    ids = [block_id(code) for code in BLOCKS]
    for wanted in ("queuestream", "sockettextstream", "textfilestream", "binaryrecordsstream",
                   "receiver", "backpressure", "getorcreate", "sigterm"):
        assert wanted in ids, f"docs/streaming.md lost its {wanted} program"


@pytest.mark.parametrize("code", BLOCKS, ids=[block_id(c) for c in BLOCKS])
def test_guide_program_runs(code: str, tmp_path: Path, sample_port: int) -> None:
    code = code.replace("9999", str(sample_port))
    result = run_block(code, tmp_path)
    expected = 143 if "SIGTERM" in code else 0
    assert result.returncode == expected, result.stderr[-3000:]
    assert "Traceback" not in result.stderr, result.stderr[-3000:]
    out = result.stdout
    kind = block_id(code)
    if kind in ("queuestream", "textfilestream", "sockettextstream", "receiver", "sigterm"):
        assert "Time: " in out
    if kind == "textfilestream":
        assert "('hello', 2)" in out
    if kind == "binaryrecordsstream":
        assert "499500" in out
    if kind == "sockettextstream":
        assert "('the', " in out
    if kind == "backpressure":
        assert "records, processed in" in out
    if kind == "sigterm":
        assert "SIGTERM received: stopping the StreamingContext gracefully" in result.stderr
    if kind == "getorcreate":
        assert "creating a new context" in out
        assert list((tmp_path / "guide-counts").glob("*.txt")), "no batch output"
        again = run_block(code, tmp_path)
        assert again.returncode == 0, again.stderr[-3000:]
        assert "Traceback" not in again.stderr, again.stderr[-3000:]
        assert "creating a new context" not in again.stdout, "the second run did not recover"
