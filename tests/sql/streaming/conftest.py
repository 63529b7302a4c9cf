"""Fixtures of the Structured Streaming tests: a session (local, UTC), and no query left running.

The Kafka broker fixtures (``kafka_bootstrap``, ``kafka``) come from ``tests/conftest.py``,
shared with ``tests/kafka``: one broker per test session.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dstream.sql import SparkSession
from tests.conftest import ContextPool, stop_active_context


@pytest.fixture(scope="module")
def spark(context_pool: ContextPool) -> Iterator[SparkSession]:
    # A fresh `local` context: not the suite's shared one, whatever master that has now.
    context_pool.evict(reason="the streaming tests start a session of their own")
    leftover = SparkSession.getActiveSession()
    if leftover is not None:
        leftover.stop()
    stop_active_context()
    session = SparkSession.builder.master("local").appName("test-structured-streaming").getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    yield session
    session.stop()


@pytest.fixture(autouse=True)
def _no_query_left(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test stops the queries it started, even when it fails."""
    yield
    if "spark" in request.fixturenames:
        session = request.getfixturevalue("spark")
        for query in session.streams.active:
            query.stop()
        session.streams.resetTerminated()
