"""A user function that raises in a stream: its traceback names the user's file and line,
is printed once, and the log names the batch by a readable time.

Each case runs a real script in a subprocess (``local`` runs tasks inline, ``local[2]``
in worker processes, where functions of ``__main__`` travel by value through cloudpickle
and functions of an importable module by reference).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.watched import DEADLINE, ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]

FAILING = '''\
def failing(x):
    if x == 3:
        raise ValueError("no threes here")
    return x
'''

DRIVER = '''\
import sys
from dstream import StreamingContext
from rdd import SparkContext
{define}
sc = SparkContext(sys.argv[1], "tracebacks")
ssc = StreamingContext(sc, 0.2)
ssc.queueStream([sc.parallelize(range(5), 2)]).map(failing).pprint()
ssc.start()
try:
    ssc.awaitTerminationOrTimeout(30)
finally:
    ssc.stop(stopSparkContext=True, stopGraceFully=False)
'''

# The log line of the failed batch: Spark's "Error running job streaming job <ms> ms.0",
# with the time also readable.
BATCH_ERROR = re.compile(
    r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d ERROR JobScheduler: Error running job streaming job "
    r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}) \[(\d+) ms\]\.0 \(pprint\): "
    r"ValueError: no threes here",
    re.MULTILINE,
)


@pytest.mark.parametrize("master", ["local", "local[2]"])
@pytest.mark.parametrize("defined_in", ["__main__", "a module"])
def test_a_failing_batch_prints_the_users_file_and_line_once(
    tmp_path: Path, master: str, defined_in: str
) -> None:
    script = tmp_path / "failing_stream.py"
    if defined_in == "__main__":
        source = DRIVER.format(define=FAILING)
        raising = source.splitlines().index('        raise ValueError("no threes here")')
        where, line = script, raising + 1
    else:
        where, line = tmp_path / "user_functions.py", 3
        where.write_text(FAILING)
        source = DRIVER.format(define="from user_functions import failing\n")
    script.write_text(source)
    run = subprocess.run([sys.executable, str(script), master], cwd=tmp_path, capture_output=True,
                         text=True, timeout=DEADLINE, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 1, run.stderr
    frame = f'File "{where}", line {line}, in failing'
    assert run.stderr.count(frame) == 1, f"expected {frame!r} once in:\n{run.stderr}"
    assert "<dynamic-code>" not in run.stderr
    found = BATCH_ERROR.search(run.stderr)
    assert found, run.stderr
    readable, ms = found.groups()
    from dstream.time import ms_to_datetime

    assert readable == f"{ms_to_datetime(int(ms)):%Y-%m-%d %H:%M:%S}.{int(ms) % 1000:03d}"
    # awaitTermination raised it, uncaught: that traceback is the one printed.
    awaited = source.splitlines().index("    ssc.awaitTerminationOrTimeout(30)") + 1
    assert run.stderr.count(f'File "{script}", line {awaited}, in <module>') == 1, run.stderr
