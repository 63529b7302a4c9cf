"""A real Kafka broker for the tests, the example test and the benchmark.

What this module owns
---------------------
:class:`ScriptBroker` drives ``scripts/kafka/kafka-maven.sh`` (jar cache, KRaft format,
fast-start JVM, free ports) in a private work directory, and :func:`wait_usable` checks
that a broker — ours or the one ``KAFKA_BOOTSTRAP`` names — answers a Kafka client.

Failure policy: a broker that does not come up is an error that carries the script's
output and the tail of the broker log (:class:`BrokerStartError`); the fixture turns it
into a test failure. There is no skip path.

A broker started here is stopped by :meth:`ScriptBroker.stop`; if the Python process is
killed first, the script's watchdog (``KAFKA_OWNER_PID``) stops it within a second.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "kafka" / "kafka-maven.sh"

#: First run: Maven downloads ~45 MB of jars (about 45 s here); later runs use the cache.
FETCH_TIMEOUT_S = 600
#: From launch to a broker answering ApiVersions (measured 2.5-5 s on 2 shared cores).
START_TIMEOUT_S = 90
#: How long a broker named by KAFKA_BOOTSTRAP may take to answer.
CONNECT_TIMEOUT_S = 30


class BrokerStartError(RuntimeError):
    """The test broker could not be started or reached; the message has its log."""


def _tail(path: Path, lines: int = 80) -> str:
    try:
        text = path.read_text(errors="replace").splitlines()
    except OSError as exc:
        return f"(no broker log at {path}: {exc.strerror})"
    return "\n".join(text[-lines:])


class ScriptBroker:
    """One broker started by ``kafka-maven.sh`` in its own temporary work directory.

    Attributes
    ----------
    bootstrap : str or None
        ``127.0.0.1:<port>`` once started.
    start_seconds : float or None
        Wall time of the ``start`` command (format + JVM launch + readiness), jar
        download excluded.
    """

    def __init__(self, fast_start: bool = True) -> None:
        self.work_dir = Path(tempfile.mkdtemp(prefix="dstreams-kafka-"))
        self.fast_start = fast_start
        self.bootstrap: str | None = None
        self.start_seconds: float | None = None

    @property
    def log_path(self) -> Path:
        return self.work_dir / "kafka.log"

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(KAFKA_WORK_DIR=str(self.work_dir), KAFKA_OWNER_PID=str(os.getpid()),
                   KAFKA_START_TIMEOUT=str(START_TIMEOUT_S), KAFKA_PORT="auto", KAFKA_CONTROLLER_PORT="auto",
                   KAFKA_FAST_START="1" if self.fast_start else "0")
        return env

    def _run(self, command: str, timeout: float) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["bash", str(SCRIPT), command], env=self._env(), capture_output=True, text=True,
                              timeout=timeout, check=False)

    def fetch(self) -> None:
        """Fill the jar cache (a no-op when it is complete)."""
        try:
            done = self._run("fetch", FETCH_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise BrokerStartError(f"fetching the Kafka jars took more than {FETCH_TIMEOUT_S} s "
                                   f"({SCRIPT} fetch); is Maven Central reachable?") from None
        if done.returncode != 0:
            raise BrokerStartError(f"fetching the Kafka jars failed ({SCRIPT} fetch, exit {done.returncode}):\n"
                                   f"{done.stderr}")

    def start(self) -> str:
        """Start the broker and return its bootstrap address.

        Raises
        ------
        BrokerStartError
            With the script's output and the broker log's tail.
        """
        self.fetch()
        started = time.monotonic()
        try:
            done = self._run("start", START_TIMEOUT_S + 30)
        except subprocess.TimeoutExpired:
            self.stop()
            raise BrokerStartError(f"the Kafka broker did not start within {START_TIMEOUT_S + 30} s.\n"
                                   f"--- broker log ({self.log_path}) ---\n{_tail(self.log_path)}") from None
        self.start_seconds = time.monotonic() - started
        if done.returncode != 0 or not done.stdout.strip():
            log = _tail(self.log_path)
            self.stop()
            raise BrokerStartError(
                f"the Kafka broker failed to start ({SCRIPT} start, exit {done.returncode}).\n"
                f"--- script output ---\n{done.stderr.strip()}\n--- broker log ({self.log_path}) ---\n{log}")
        self.bootstrap = done.stdout.strip().splitlines()[-1]
        return self.bootstrap

    def stop(self) -> None:
        """Stop the broker (by the PID the script recorded) and remove its data."""
        try:
            self._run("stop", 60)
        finally:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def log_tail(self, lines: int = 80) -> str:
        """The last ``lines`` lines of the broker log."""
        return _tail(self.log_path, lines)


def wait_usable(bootstrap: str, timeout_s: float) -> float:
    """Wait until a Kafka client can list topics on ``bootstrap``; return the seconds waited.

    Raises
    ------
    BrokerStartError
        If it does not within ``timeout_s``.
    """
    from kafka import KafkaAdminClient

    started = time.monotonic()
    deadline = started + timeout_s
    last: BaseException | None = None
    while time.monotonic() < deadline:
        admin = None
        try:
            admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=5000,
                                     bootstrap_timeout_ms=max(1000, int((deadline - time.monotonic()) * 1000)))
            admin.list_topics()
            return time.monotonic() - started
        except Exception as exc:  # noqa: BLE001 - retried until the deadline, then reported
            last = exc
            time.sleep(0.2)
        finally:
            if admin is not None:
                admin.close()
    raise BrokerStartError(f"no Kafka broker answered at {bootstrap} within {timeout_s} s "
                           f"(last error: {type(last).__name__}: {last})")
