"""The Kafka broker fixtures: one real broker per test session, shared by every folder.

``tests/conftest.py`` imports them, so the Kafka tests and the Structured Streaming
Kafka tests use the same broker.

``kafka_bootstrap`` (session)
    ``KAFKA_BOOTSTRAP`` if set (any real broker; it must answer within
    :data:`tests.kafka.broker.CONNECT_TIMEOUT_S`), else a broker started once by
    ``scripts/kafka/kafka-maven.sh`` on 127.0.0.1 with free ports and stopped at the end
    of the session. A broker that cannot be started or reached makes every Kafka test
    fail with the broker's log in the message: there is no skip.
``kafka`` (session)
    :class:`tests.kafka.utils.KafkaTestUtils` on that broker (topics, records, offsets).

The broker's start time is printed in the terminal summary (``kafka broker: ...``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator

import pytest

from tests.kafka.broker import CONNECT_TIMEOUT_S, BrokerStartError, ScriptBroker, wait_usable
from tests.kafka.utils import KafkaTestUtils

_report: list[str] = []

__all__ = ["kafka", "kafka_bootstrap", "report_lines"]


@pytest.fixture(scope="session")
def kafka_bootstrap() -> Iterator[str]:
    """The bootstrap address of the session's Kafka broker."""
    given = os.environ.get("KAFKA_BOOTSTRAP", "").strip()
    failure = None
    if given:
        try:
            waited = wait_usable(given, CONNECT_TIMEOUT_S)
        except BrokerStartError as exc:
            failure = f"KAFKA_BOOTSTRAP={given} is set but unusable: {exc}"
        if failure is not None:  # outside the except block: the message alone, no chained traceback
            pytest.fail(failure, pytrace=False)
        _report.append(f"kafka broker: KAFKA_BOOTSTRAP={given} (answered after {waited:.1f} s)")
        yield given
        return
    broker = ScriptBroker()
    started = time.monotonic()
    try:
        bootstrap = broker.start()
        wait_usable(bootstrap, CONNECT_TIMEOUT_S)
    except BrokerStartError as exc:
        failure = str(exc)
    if failure is not None:
        broker.stop()
        pytest.fail(failure, pytrace=False)
    total = time.monotonic() - started
    _report.append(f"kafka broker: {bootstrap} started by scripts/kafka/kafka-maven.sh in "
                   f"{broker.start_seconds:.1f} s (format + JVM + ready), usable after {total:.1f} s "
                   "(jar cache check included)")
    try:
        yield bootstrap
    finally:
        stopped = time.monotonic()
        broker.stop()
        _report.append(f"kafka broker: stopped in {time.monotonic() - stopped:.1f} s")


@pytest.fixture(scope="session")
def kafka(kafka_bootstrap: str) -> Iterator[KafkaTestUtils]:
    """Helpers to create topics and produce/inspect records on the session broker."""
    utils = KafkaTestUtils(kafka_bootstrap)
    try:
        yield utils
    finally:
        utils.close()


def report_lines() -> list[str]:
    """What the terminal summary prints about the broker."""
    return list(_report)
