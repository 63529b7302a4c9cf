"""The engine's log reaches stderr in Spark's format, at WARN unless ``setLogLevel`` says
otherwise, and stands aside when the application configures logging itself.

The drivers run in subprocesses: pytest configures logging in its own process (its
capture handlers sit on the root logger), which is exactly the case where the default
output must stay silent.
"""

from __future__ import annotations

import logging
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.watched import DEADLINE, ROOT

pytestmark = [pytest.mark.integration, pytest.mark.slow]

DRIVER = '''\
import logging
import sys
import threading

from dstream import StreamingContext, StreamingListener
from rdd import SparkContext

if sys.argv[2] == "app-logging":
    logging.basicConfig(format="APP %(levelname)s %(name)s %(message)s")


class TwoBatches(StreamingListener):
    def __init__(self):
        self.done = threading.Event()
        self.count = 0

    def onBatchCompleted(self, batchCompleted):
        self.count += 1
        if self.count >= 2:
            self.done.set()


sc = SparkContext("local", "logs")
if sys.argv[1] != "default":
    sc.setLogLevel(sys.argv[1])
ssc = StreamingContext(sc, 0.2)
ssc.queueStream([sc.parallelize(range(7)), sc.parallelize(range(3))]).count().pprint()
listener = TwoBatches()
ssc.addStreamingListener(listener)
ssc.start()
ssc.start()  # Spark: "WARN StreamingContext: StreamingContext has already been started"
ok = listener.done.wait(30)
ssc.stop(stopSparkContext=True, stopGraceFully=False)
sys.exit(0 if ok else 3)
'''

STAMP = r"\d\d/\d\d/\d\d \d\d:\d\d:\d\d"
WARNING = re.compile(rf"^{STAMP} WARN StreamingContext: StreamingContext has already been started$",
                     re.MULTILINE)
BATCH = re.compile(rf"^{STAMP} INFO JobScheduler: Finished batch "
                   r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} \[\d+ ms\]: \d+ records, "
                   r"processing time \d+\.\d{3} s, scheduling delay \d+\.\d{3} s$",
                   re.MULTILINE)
JOB = re.compile(rf"^{STAMP} INFO JobScheduler: Finished job streaming job \d{{4}}-\d\d-\d\d "
                 r"\d\d:\d\d:\d\d\.\d{3} \[\d+ ms\]\.0 \(pprint\) in \d+\.\d{3} s$", re.MULTILINE)


def run_driver(tmp_path: Path, level: str, logging_setup: str = "none") -> str:
    script = tmp_path / "log_driver.py"
    script.write_text(DRIVER)
    run = subprocess.run([sys.executable, str(script), level, logging_setup], cwd=tmp_path,
                         capture_output=True, text=True, timeout=DEADLINE,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0, run.stderr
    return run.stderr


def test_warnings_reach_stderr_in_sparks_format_by_default(tmp_path: Path) -> None:
    stderr = run_driver(tmp_path, "default")
    assert len(WARNING.findall(stderr)) == 1, stderr
    assert " INFO " not in stderr


def test_set_log_level_info_shows_a_line_per_batch_and_per_job(tmp_path: Path) -> None:
    stderr = run_driver(tmp_path, "INFO")
    assert len(BATCH.findall(stderr)) >= 2, stderr
    assert len(JOB.findall(stderr)) >= 2, stderr
    assert WARNING.search(stderr), stderr


def test_set_log_level_error_hides_warnings(tmp_path: Path) -> None:
    stderr = run_driver(tmp_path, "error")
    assert "WARN" not in stderr and "INFO" not in stderr, stderr


def test_an_application_logging_configuration_is_used_instead_not_as_well(tmp_path: Path) -> None:
    stderr = run_driver(tmp_path, "INFO", "app-logging")
    assert stderr.count("StreamingContext has already been started") == 1, stderr
    assert "APP WARNING dstream.context StreamingContext has already been started" in stderr
    assert "APP INFO dstream.scheduler.job_scheduler Finished batch " in stderr
    assert not WARNING.search(stderr) and not BATCH.search(stderr), stderr


@pytest.mark.parametrize("bad", ["VERBOSE", "warning", "", "INFO "])
def test_a_bad_level_is_refused_with_sparks_message_and_the_level_kept(sc, bad: str) -> None:
    before = logging.getLogger("dstream").level
    with pytest.raises(ValueError) as excinfo:
        sc.setLogLevel(bad)
    assert str(excinfo.value) == (f"requirement failed: Supplied level {bad} did not match one of: "
                                  "ALL,DEBUG,ERROR,FATAL,INFO,OFF,TRACE,WARN")
    assert logging.getLogger("dstream").level == before


def test_set_log_level_takes_sparks_levels_in_any_case(sc) -> None:
    before = logging.getLogger("rdd").level
    try:
        sc.setLogLevel("trace")
        rdd_logger = logging.getLogger("rdd")
        assert rdd_logger.isEnabledFor(5) and not rdd_logger.isEnabledFor(1)
        sc.setLogLevel("All")
        assert logging.getLogger("dstream").isEnabledFor(1)
    finally:
        logging.getLogger("rdd").setLevel(before)
        logging.getLogger("dstream").setLevel(before)
