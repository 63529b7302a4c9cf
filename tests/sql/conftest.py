"""The default ``spark`` of the DataFrame tests: a session in UTC on a fresh ``local`` context.

A test module that needs other settings (a time zone, a shared module-wide session)
defines its own ``spark`` fixture, which takes precedence.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from rdd import SparkContext

from dstream.sql import SparkSession


@pytest.fixture
def spark(sc: SparkContext) -> Iterator[SparkSession]:
    session = SparkSession(sc, [("spark.sql.session.timeZone", "UTC")])
    try:
        yield session
    finally:
        session.stop()
