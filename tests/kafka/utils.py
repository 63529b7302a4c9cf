"""KafkaTestUtils: set up topics and records on the test broker (Spark's KafkaTestUtils idea).

Every helper waits for the broker's acknowledgement, so a test that produced records
can compute ranges at once. Topic names are unique per call, so tests never see each
other's records on the shared session broker.
"""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pytest

_names = itertools.count()

#: kafka-python 3.0 loads its protocol schemas with importlib.resources APIs that Python
#: 3.11 deprecates; the warnings are the library's, not ours (one per message type).
KAFKA_PYTHON_WARNINGS = [
    pytest.mark.filterwarnings("ignore:read_text is deprecated:DeprecationWarning"),
    pytest.mark.filterwarnings("ignore:open_text is deprecated:DeprecationWarning"),
]


def _bytes(x: Any) -> bytes | None:
    if x is None or isinstance(x, bytes):
        return x
    return str(x).encode("utf-8")


class KafkaTestUtils:
    """Admin and producer helpers bound to one broker."""

    def __init__(self, bootstrap: str) -> None:
        from kafka import KafkaAdminClient, KafkaProducer

        self.bootstrap = bootstrap
        self._run = uuid.uuid4().hex[:6]
        self.admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=15000)
        self.producer = KafkaProducer(bootstrap_servers=bootstrap, acks="all", linger_ms=2, max_block_ms=15000)

    def close(self) -> None:
        self.producer.close(timeout=5)
        self.admin.close()

    # -- settings ------------------------------------------------------------------------
    def params(self, **extra: Any) -> dict[str, Any]:
        """``kafkaParams`` for this broker; ``extra`` keys use ``_`` for ``.``."""
        out: dict[str, Any] = {"bootstrap.servers": self.bootstrap}
        out.update({k.replace("_", "."): v for k, v in extra.items()})
        return out

    # -- topics --------------------------------------------------------------------------
    def new_topic(self, partitions: int = 3, prefix: str = "t") -> str:
        """Create a fresh topic with ``partitions`` partitions and return its name."""
        name = f"{prefix}-{self._run}-{next(_names)}"
        self.admin.create_topics({name: {"num_partitions": partitions, "replication_factor": 1}},
                                 timeout_ms=15000, wait_for_metadata=True)
        return name

    def add_partitions(self, topic: str, total: int) -> None:
        from kafka import KafkaProducer
        from kafka.admin import NewPartitions

        self.admin.create_partitions({topic: NewPartitions(total)}, timeout_ms=15000)
        # The session producer's metadata does not know the new partitions yet: replace it.
        self.producer.close(timeout=5)
        self.producer = KafkaProducer(bootstrap_servers=self.bootstrap, acks="all", linger_ms=2, max_block_ms=15000)
        deadline = time.monotonic() + 15
        while len(self.producer.partitions_for(topic) or ()) < total and time.monotonic() < deadline:
            time.sleep(0.1)

    def unused_topic(self) -> str:
        """A topic name that does not exist."""
        return f"missing-{self._run}-{next(_names)}"

    # -- records -------------------------------------------------------------------------
    def send(self, topic: str, values: Iterable[Any], partition: int | None = None,
             keys: Iterable[Any] | None = None) -> list[tuple[int, int]]:
        """Produce ``values`` (with ``keys``) and return their ``(partition, offset)``."""
        futures = []
        key_list = list(keys) if keys is not None else None
        for i, value in enumerate(values):
            key = key_list[i] if key_list is not None else None
            futures.append(self.producer.send(topic, value=_bytes(value), key=_bytes(key), partition=partition))
        self.producer.flush(timeout=30)
        return [(md.partition, md.offset) for md in (f.get(timeout=30) for f in futures)]

    def send_raw(self, topic: str, value: bytes, partition: int, key: bytes | None = None) -> int:
        return self.producer.send(topic, value=value, key=key, partition=partition).get(timeout=30).offset

    def fill(self, topic: str, per_partition: Mapping[int, int], prefix: str = "v") -> dict[int, list[str]]:
        """Write ``n`` records ``f"{prefix}-{p}-{i}"`` to each partition ``p``; return them."""
        out = {}
        for p, n in per_partition.items():
            values = [f"{prefix}-{p}-{i}" for i in range(n)]
            self.send(topic, values, partition=p, keys=[f"k{i}" for i in range(n)])
            out[p] = values
        return out

    # -- offsets -------------------------------------------------------------------------
    def _tps(self, topic: str) -> list[Any]:
        from kafka import TopicPartition

        parts = self.admin.describe_topics([topic])[0]["partitions"]
        return [TopicPartition(topic, p["partition_index"]) for p in parts]

    def end_offsets(self, topic: str) -> dict[int, int]:
        from kafka import KafkaConsumer

        c = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=None, enable_auto_commit=False)
        try:
            return {tp.partition: o for tp, o in c.end_offsets(self._tps(topic), timeout_ms=15000).items()}
        finally:
            c.close()

    def delete_records(self, topic: str, partition: int, before: int) -> None:
        """Move the log start of a partition to ``before`` (as retention would)."""
        from kafka import TopicPartition

        self.admin.delete_records({TopicPartition(topic, partition): before}, timeout_ms=15000)

    def committed(self, group: str, topic: str) -> dict[int, int]:
        """The group's committed offsets on ``topic`` (partitions without one left out)."""
        from kafka import KafkaConsumer

        c = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=group, enable_auto_commit=False)
        try:
            out = {}
            for tp in self._tps(topic):
                o = c.committed(tp, timeout_ms=15000)
                if o is not None:
                    out[tp.partition] = o
            return out
        finally:
            c.close(autocommit=False)

    def wait_committed(self, group: str, topic: str, expected: Mapping[int, int], timeout_s: float = 15) -> dict:
        deadline = time.monotonic() + timeout_s
        got: dict[int, int] = {}
        while time.monotonic() < deadline:
            got = self.committed(group, topic)
            if got == dict(expected):
                return got
            time.sleep(0.1)
        return got

    def read_all(self, topic: str) -> list[tuple[int, int, bytes | None, bytes | None]]:
        """Every record of ``topic`` as ``(partition, offset, key, value)``, read with a plain consumer."""
        from kafka import KafkaConsumer

        c = KafkaConsumer(bootstrap_servers=self.bootstrap, group_id=None, enable_auto_commit=False,
                          fetch_max_wait_ms=50)
        try:
            tps = self._tps(topic)
            c.assign(tps)
            c.seek_to_beginning(*tps)
            ends = c.end_offsets(tps, timeout_ms=15000)
            out = []
            deadline = time.monotonic() + 30
            while any(c.position(tp) < ends[tp] for tp in tps) and time.monotonic() < deadline:
                for records in c.poll(timeout_ms=200).values():
                    out.extend((r.partition, r.offset, r.key, r.value) for r in records)
            return sorted(out)
        finally:
            c.close()


def assert_contiguous(batches: Sequence[Sequence[Any]], start: Mapping[tuple[str, int], int],
                      end: Mapping[tuple[str, int], int]) -> None:
    """Assert per-partition ranges chain from ``start`` to ``end`` with no gap or overlap."""
    position = dict(start)
    for number, ranges in enumerate(batches):
        seen = set()
        for r in ranges:
            key = (r.topic, r.partition)
            assert key not in seen, f"batch {number}: two ranges for {key}: {ranges}"
            seen.add(key)
            assert r.fromOffset == position[key], f"batch {number}: {r} does not start at {position[key]}"
            position[key] = r.untilOffset
        assert seen == set(start), f"batch {number} covers {sorted(seen)}, expected {sorted(start)}"
    assert position == dict(end), f"ranges end at {position}, expected {dict(end)}"


def pool_statistics(ctx: Any, params: Mapping[str, Any]) -> dict[int, Any]:
    """The client-pool figures of ``params`` from every process that runs tasks, by pid."""
    from dstream.kafka.clients import statistics
    from dstream.kafka.params import parse_kafka_params

    config = parse_kafka_params(params)
    processes = 1 if ctx.master == "local" else 2
    seen: dict[int, Any] = {}
    for _ in range(20):  # tiny tasks land on any idle worker: ask until each answered
        for s in ctx.parallelize(range(8), 8).map(lambda _: statistics(config)).collect():
            seen[s.pid] = s
        if len(seen) >= processes:
            break
    assert len(seen) == processes, f"could not reach every worker: {seen}"
    return seen
