"""The driver's view of Kafka offsets: look-ups, commits and the per-batch range plan.

What this module owns
---------------------
* :class:`OffsetClient` — the one consumer the driver keeps per stream (or per
  ``createRDD`` call). It never reads records: it discovers partitions, asks for the
  earliest and latest offsets, reads and commits consumer-group offsets. Every call
  holds a lock, because the generator thread (ranges), the job thread (``commitAsync``)
  and the stopping thread (``stop``) all use it and kafka-python consumers are not
  thread-safe.
* :class:`CommitQueue` — ``commitAsync``: commits run on their own thread, in order,
  and are drained when the stream stops.
* :func:`plan_untils` — Spark's ``maxMessagesPerPartition`` + ``clamp``: how far each
  partition may advance in one batch, given the per-partition rate cap, the backpressure
  estimate (spread over partitions in proportion to their lag) and the per-partition
  minimum. Pure, so the arithmetic is tested without a broker.
* :func:`check_ranges` — ``createRDD``'s driver-side validation: every range must lie
  inside what the broker holds, else the error names the partition and the offsets
  before any task starts.
"""

from __future__ import annotations

import logging
import math
import queue
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

from dstream.kafka.clients import close_quietly, connect
from dstream.kafka.errors import OffsetsOutOfRangeError, UnknownTopicError
from dstream.kafka.params import KafkaConfig
from dstream.kafka.structs import OffsetRange, TopicAndPartition

__all__ = ["CommitQueue", "OffsetClient", "check_ranges", "plan_untils"]

logger = logging.getLogger(__name__)

K = TypeVar("K")

#: How long ``stop`` waits for queued commits before closing the consumer.
COMMIT_DRAIN_TIMEOUT_S = 5.0
#: Seconds to wait for a topic created on demand to have leaders for its partitions.
TOPIC_CREATE_TIMEOUT_MS = 10_000
#: Timeout of one offset or metadata request from the driver.
REQUEST_TIMEOUT_MS = 10_000

CommitCallback = Callable[[dict[TopicAndPartition, int], BaseException | None], Any]


class OffsetClient:
    """The driver's Kafka consumer for offset look-ups and commits (never reads records)."""

    def __init__(self, config: KafkaConfig) -> None:
        self._config = config
        self._consumer: Any = None
        self._lock = threading.RLock()

    # -- lifecycle -------------------------------------------------------------------
    def open(self) -> None:
        """Connect (bounded by the connect budget; see :func:`dstream.kafka.clients.connect`)."""
        with self._lock:
            if self._consumer is None:
                self._consumer = connect("consumer", self._config.driver_consumer())

    def close(self) -> None:
        """Close the consumer (idempotent)."""
        with self._lock:
            consumer, self._consumer = self._consumer, None
        if consumer is not None:
            close_quietly(consumer)

    def __enter__(self) -> OffsetClient:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _client(self) -> Any:
        if self._consumer is None:
            raise RuntimeError("the Kafka offset client is not open (the stream was not started or was stopped)")
        return self._consumer

    # -- metadata ----------------------------------------------------------------------
    def partitions(self, topics: Iterable[str]) -> list[TopicAndPartition]:
        """Return every partition of ``topics``, sorted; create missing topics if allowed.

        Raises
        ------
        UnknownTopicError
            If a topic does not exist and ``allow.auto.create.topics`` is not set.
        """
        out: list[TopicAndPartition] = []
        with self._lock:
            consumer = self._client()
            for topic in topics:
                ids = consumer.partitions_for_topic(topic)
                if not ids:
                    ids = self._create_or_fail(topic)
                out.extend(TopicAndPartition(topic, p) for p in ids)
        return sorted(out)

    def _create_or_fail(self, topic: str) -> set[int]:
        if not self._config.allow_auto_create:
            raise UnknownTopicError(
                f"Kafka topic {topic!r} does not exist on {self._config.bootstrap}; create it first, or set "
                "'allow.auto.create.topics': 'true' in kafkaParams to create it with the broker's defaults",
                topic,
            )
        from kafka.errors import TopicAlreadyExistsError

        admin = connect("admin", self._config.admin())
        try:
            try:
                admin.create_topics([topic], timeout_ms=TOPIC_CREATE_TIMEOUT_MS, wait_for_metadata=True)
                logger.info("created Kafka topic %r (allow.auto.create.topics)", topic)
            except TopicAlreadyExistsError:
                pass  # created meanwhile by someone else: fine
        finally:
            close_quietly(admin)
        deadline = time.monotonic() + TOPIC_CREATE_TIMEOUT_MS / 1000
        while time.monotonic() < deadline:
            ids = self._client().partitions_for_topic(topic)
            if ids:
                return set(ids)
            time.sleep(0.1)
        raise UnknownTopicError(f"Kafka topic {topic!r} was created but its partitions did not appear in the "
                                f"metadata of {self._config.bootstrap} within {TOPIC_CREATE_TIMEOUT_MS} ms", topic)

    # -- offsets -----------------------------------------------------------------------
    def earliest(self, tps: Sequence[TopicAndPartition]) -> dict[TopicAndPartition, int]:
        """Return the log start offset of each partition."""
        return self._list(tps, "beginning_offsets")

    def latest(self, tps: Sequence[TopicAndPartition]) -> dict[TopicAndPartition, int]:
        """Return the log end offset (the next offset to be written) of each partition."""
        return self._list(tps, "end_offsets")

    def _list(self, tps: Sequence[TopicAndPartition], method: str) -> dict[TopicAndPartition, int]:
        if not tps:
            return {}
        from kafka import TopicPartition

        wanted = {TopicPartition(tp.topic, tp.partition): tp for tp in tps}
        with self._lock:
            got = getattr(self._client(), method)(list(wanted), timeout_ms=REQUEST_TIMEOUT_MS)
        return {wanted[k]: int(v) for k, v in got.items()}

    def committed(self, tps: Sequence[TopicAndPartition]) -> dict[TopicAndPartition, int]:
        """Return the group's committed offsets (partitions without one are left out)."""
        if self._config.group_id is None:
            return {}
        from kafka import TopicPartition

        out = {}
        with self._lock:
            consumer = self._client()
            for tp in tps:
                offset = consumer.committed(TopicPartition(tp.topic, tp.partition), timeout_ms=REQUEST_TIMEOUT_MS)
                if offset is not None and offset >= 0:
                    out[tp] = int(offset)
        return out

    def commit(self, offsets: Mapping[TopicAndPartition, int]) -> None:
        """Commit ``offsets`` (the next offsets to read) for the group, waiting for the answer."""
        from kafka import TopicPartition
        from kafka.structs import OffsetAndMetadata

        payload = {TopicPartition(tp.topic, tp.partition): OffsetAndMetadata(offset, "", -1)
                   for tp, offset in offsets.items()}
        with self._lock:
            self._client().commit(offsets=payload, timeout_ms=REQUEST_TIMEOUT_MS)


class CommitQueue:
    """``commitAsync`` for one stream: commits run on a small thread, in call order.

    kafka-python's own ``commit_async`` only completes (and calls back) when the
    consumer is polled again, which the driver's consumer never is; a thread doing
    synchronous commits gives prompt commits, real completion and callbacks. Requests
    queued together are merged (the highest offset per partition wins) into one commit.
    ``close`` drains what is queued, bounded by :data:`COMMIT_DRAIN_TIMEOUT_S`.
    """

    _STOP = object()

    def __init__(self, client: OffsetClient) -> None:
        self._client = client
        self._queue: queue.Queue[Any] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def submit(self, offsets: Mapping[TopicAndPartition, int], callback: CommitCallback | None) -> None:
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="kafka-offset-committer", daemon=True)
                self._thread.start()
        self._queue.put((dict(offsets), callback))

    def close(self) -> None:
        with self._lock:
            thread, self._thread = self._thread, None
        if thread is None:
            return
        self._queue.put(self._STOP)
        thread.join(COMMIT_DRAIN_TIMEOUT_S)
        if thread.is_alive():
            logger.warning("Kafka offset commits were still running %.0f s after the stream stopped",
                           COMMIT_DRAIN_TIMEOUT_S)

    def _run(self) -> None:
        stopping = False
        while not stopping:
            items = [self._queue.get()]
            while True:
                try:
                    items.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            requests = [item for item in items if item is not self._STOP]
            stopping = len(requests) != len(items)
            if not requests:
                continue
            merged: dict[TopicAndPartition, int] = {}
            for offsets, _ in requests:
                for tp, offset in offsets.items():
                    merged[tp] = max(offset, merged.get(tp, offset))
            error: BaseException | None = None
            try:
                self._client.commit(merged)
            except Exception as exc:  # noqa: BLE001 - reported to the callbacks and the log
                error = exc
                logger.warning("committing Kafka offsets %s failed: %s", merged, exc)
            for offsets, callback in requests:
                if callback is None:
                    continue
                try:
                    callback(offsets, error)
                except Exception:  # noqa: BLE001 - a user callback must not stop commits
                    logger.exception("a commitAsync callback raised")


def check_ranges(client: OffsetClient, ranges: Sequence[OffsetRange]) -> None:
    """Fail before any task runs if a range is not inside what the broker holds.

    Raises
    ------
    UnknownTopicError
        If a range's topic or partition does not exist.
    OffsetsOutOfRangeError
        If a range starts before the log start or ends after the log end.
    """
    topics = sorted({r.topic for r in ranges})
    existing = set(client.partitions(topics))
    for r in ranges:
        if r.topicPartition() not in existing:
            raise UnknownTopicError(
                f"partition {r.partition} of Kafka topic {r.topic!r} does not exist (the topic has partitions "
                f"{sorted(tp.partition for tp in existing if tp.topic == r.topic)})", r.topic)
    tps = sorted({r.topicPartition() for r in ranges})
    earliest, latest = client.earliest(tps), client.latest(tps)
    for r in ranges:
        tp = r.topicPartition()
        low, high = earliest[tp], latest[tp]
        if r.count() and (r.fromOffset < low or r.untilOffset > high):
            raise OffsetsOutOfRangeError(
                f"offset range [{r.fromOffset}, {r.untilOffset}) of {r.topic}-{r.partition} is not available: the "
                f"broker holds [{low}, {high}) (records before {low} were removed by retention or deleteRecords; "
                f"offsets from {high} on are not written yet)",
                r.topic, r.partition, r.fromOffset, r.untilOffset, low, high)


def plan_untils(current: Mapping[K, int], latest: Mapping[K, int], batch_s: float, *,
                max_rate_per_partition: float = 0.0, min_rate_per_partition: int = 1,
                stream_rate: float | None = None) -> dict[K, int]:
    """Return each partition's ``untilOffset`` for the next batch.

    Parameters
    ----------
    current, latest
        Next offset to read and log end offset, per partition.
    batch_s
        Batch interval in seconds.
    max_rate_per_partition
        ``spark.streaming.kafka.maxRatePerPartition`` (records/s; 0 = no cap).
    min_rate_per_partition
        ``spark.streaming.kafka.minRatePerPartition``: records a capped partition may
        always read per batch (keeps a starved partition moving; Spark's default 1).
    stream_rate
        The backpressure estimate for the whole stream (records/s), if any. It is split
        over partitions in proportion to their lag, each share capped by
        ``max_rate_per_partition``.

    Returns
    -------
    dict
        ``min(latest, current + cap)`` per partition; ``latest`` when nothing caps.
    """
    lags = {tp: max(0, latest[tp] - current[tp]) for tp in current}
    limits: dict[K, float] | None = None
    if stream_rate is not None and stream_rate > 0:
        total = sum(lags.values())
        limits = {}
        for tp, lag in lags.items():
            share = lag / total * stream_rate if total else 0.0
            limits[tp] = min(share, max_rate_per_partition) if max_rate_per_partition > 0 else share
    elif max_rate_per_partition > 0:
        limits = {tp: float(max_rate_per_partition) for tp in current}
    if not limits or sum(limits.values()) <= 0:
        return {tp: max(current[tp], latest[tp]) for tp in current}
    untils = {}
    for tp, limit in limits.items():
        # floor, as Spark's toLong: a cap never lets a batch read more than the rate allows
        cap = max(int(math.floor(batch_s * limit)), int(min_rate_per_partition))
        untils[tp] = max(current[tp], min(latest[tp], current[tp] + cap))
    return untils
