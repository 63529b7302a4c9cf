"""The Kafka tests' fixtures live in :mod:`tests.kafka.fixtures` (loaded by ``tests/conftest.py``).

``kafka_bootstrap`` (session) is a real broker started once per test session (or
``KAFKA_BOOTSTRAP``); ``kafka`` (session) has helpers on it. Both are shared with the
Structured Streaming Kafka tests, so one pytest session starts one broker.
"""
