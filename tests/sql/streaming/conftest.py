"""Fixtures of the Structured Streaming tests.

The Kafka broker fixtures are the ones of ``tests/kafka/conftest.py`` (``kafka_bootstrap``:
the session's real broker, or ``KAFKA_BOOTSTRAP``; ``kafka``: helpers on it), re-exported
so the Kafka source and sink tests use the same broker setup with no copy of it. When
both folders run in one pytest session each folder's fixture starts its own broker.
"""

from __future__ import annotations

from tests.kafka.conftest import kafka, kafka_bootstrap

__all__ = ["kafka", "kafka_bootstrap"]
