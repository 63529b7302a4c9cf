"""Fixtures of the Structured Streaming tests: a session (local, UTC), one on ``local[2]``, and no
query left running.

The Kafka broker fixtures (``kafka_bootstrap``, ``kafka``) come from ``tests/conftest.py``,
shared with ``tests/kafka``: one broker per test session.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dstream.sql import SparkSession
from tests.conftest import ContextPool, stop_active_context


def fresh_session(context_pool: ContextPool, master: str, app: str) -> SparkSession:
    """A session on a new context of ``master``: not the suite's shared one, nor a leftover."""
    context_pool.evict(reason="the streaming tests start a session of their own")
    leftover = SparkSession.getActiveSession()
    if leftover is not None:
        leftover.stop()
    stop_active_context()
    return SparkSession.builder.master(master).appName(app).getOrCreate()


@pytest.fixture(scope="module")
def spark(context_pool: ContextPool) -> Iterator[SparkSession]:
    session = fresh_session(context_pool, "local", "test-structured-streaming")
    session.conf.set("spark.sql.session.timeZone", "UTC")
    yield session
    session.stop()


@pytest.fixture(scope="module")
def spark2(context_pool: ContextPool, request: pytest.FixtureRequest) -> Iterator[SparkSession]:
    """A session on ``local[2]``: two worker processes, for tests of what workers hold."""
    session = fresh_session(context_pool, "local[2]", f"test-{request.module.__name__.rsplit('.', 1)[-1]}")
    yield session
    for query in session.streams.active:
        query.stop()
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
