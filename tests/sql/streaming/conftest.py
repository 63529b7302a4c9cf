"""Fixtures of the Structured Streaming tests: a session (local, UTC), and no query left running.

The Kafka broker fixtures (``kafka_bootstrap``, ``kafka``) come from ``tests/conftest.py``,
shared with ``tests/kafka``: one broker per test session.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from dstream.sql import SparkSession


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
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
