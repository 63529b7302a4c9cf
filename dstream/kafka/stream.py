"""The direct Kafka stream: one batch = one offset range per topic-partition.

What this module owns
---------------------
:class:`DirectKafkaInputNode`, the input node behind ``KafkaUtils.createDirectStream``
(Spark's ``DirectKafkaInputDStream``), and :class:`KafkaDStream`, its facade with
``commitAsync``.

Per batch (job generator thread)::

    partitions(topics)       new partitions join at their earliest offset
    earliest, latest         one ListOffsets request each
    out-of-range check       current < earliest or current > latest: fail, unless
                             auto.offset.reset was given explicitly (then jump)
    plan_untils(...)         maxRatePerPartition, backpressure rate, minRatePerPartition
    ranges [current, until)  for every partition, empty ones included, sorted
    batch_ranges[t] = ranges the record a checkpoint saves
    current = until          the next batch starts where this one ended

Invariants
----------
* Contiguous and complete: for every partition, the ranges of consecutive batches
  chain (``until`` of one is ``from`` of the next) unless the stream jumped because of
  an explicit ``auto.offset.reset`` after retention removed records (logged).
* A batch time is planned once: :attr:`DirectKafkaInputNode.batch_ranges` maps each
  batch time to its ranges, and a time found there (restored from a checkpoint) is
  re-read with exactly those ranges, which is what makes recovery exactly-once.
* Starting offsets, per partition: ``fromOffsets`` if it names the partition; else the
  group's committed offset (when ``group.id`` is set and one exists); else
  ``auto.offset.reset`` (``earliest``/``smallest`` or ``latest``/``largest``; Kafka's
  default ``latest`` when not given; ``none`` fails).
* Offsets advance when a batch is generated, not when it succeeds (Spark's rule): a
  failed batch is not retried by the stream; recovery from a checkpoint replays it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from dstream.dstream import DStream
from dstream.inputs.base import InputHost, InputNode
from dstream.kafka.errors import OffsetsOutOfRangeError
from dstream.kafka.offsets import CommitCallback, CommitQueue, OffsetClient, plan_untils
from dstream.kafka.params import KafkaConfig
from dstream.kafka.rdd import KafkaRDD, KafkaRDDNode, read_settings
from dstream.kafka.structs import OffsetRange, TopicAndPartition
from dstream.listener import StreamInputInfo
from dstream.time import format_ms

if TYPE_CHECKING:
    from dstream.context import StreamingContext
    from dstream.graph import DStreamGraph

__all__ = ["DirectKafkaInputNode", "KafkaDStream"]

logger = logging.getLogger(__name__)

#: Version of the data returned by :meth:`DirectKafkaInputNode.checkpoint_state`.
CHECKPOINT_FORMAT = 1


class DirectKafkaInputNode(InputNode):
    """Source node: plans the offset ranges of every batch and builds its KafkaRDD."""

    def __init__(self, graph: DStreamGraph, topics: Sequence[str], config: KafkaConfig,
                 from_offsets: Mapping[TopicAndPartition, int], key_decoder: Any, value_decoder: Any,
                 message_handler: Any) -> None:
        super().__init__(graph, "directKafkaStream")
        self.topics = tuple(topics)
        self.config = config
        self.from_offsets = dict(from_offsets)
        self.key_decoder = key_decoder
        self.value_decoder = value_decoder
        self.message_handler = message_handler
        conf = graph.sc.getConf()
        self.max_rate_per_partition = conf.getDouble(
            "spark.streaming.kafka.maxRatePerPartition", 0.0)
        self.min_rate_per_partition = int(conf.getDouble(
            "spark.streaming.kafka.minRatePerPartition", 1.0))
        if self.max_rate_per_partition < 0 or self.min_rate_per_partition < 1:
            raise ValueError(
                "spark.streaming.kafka.maxRatePerPartition must be >= 0 (0 = no cap) and "
                f"spark.streaming.kafka.minRatePerPartition >= 1, got {self.max_rate_per_partition} and "
                f"{self.min_rate_per_partition}")
        self.backpressure = conf.getBoolean("spark.streaming.backpressure.enabled", False)
        self.initial_rate = conf.getDouble("spark.streaming.backpressure.initialRate", 0.0)
        self.read_settings = read_settings(graph.sc)
        #: Backpressure hook: returns the latest rate estimate for the whole stream
        #: (records/s), or None / <= 0 while there is none. With
        #: spark.streaming.backpressure.enabled, :meth:`attach` installs a
        #: PID RateController's ``latest_rate`` here (the direct stream pulls the rate).
        self.rate_controller: Callable[[], float | None] | None = None
        #: The RateController behind :attr:`rate_controller`, when backpressure is on.
        self.backpressure_controller: Any = None
        #: Next offset to read, per partition.
        self.current: dict[TopicAndPartition, int] = {}
        #: Offset ranges of every batch still remembered, by batch time (ms).
        self.batch_ranges: dict[int, list[OffsetRange]] = {}
        self._infos: dict[int, StreamInputInfo] = {}
        # current/batch_ranges change on the generator thread; a checkpoint may read
        # them from another one.
        self._state_lock = threading.Lock()
        self._client = OffsetClient(config)
        self._commits = CommitQueue(self._client)

    # -- checkpointed graphs -----------------------------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        # Connections, threads and the backpressure hook belong to one running driver;
        # offsets travel in the checkpoint's data (checkpoint_state), not in the graph.
        state = super().__getstate__()
        for key in ("_state_lock", "_client", "_commits", "rate_controller", "backpressure_controller"):
            state[key] = None
        state["_infos"] = {}
        state["current"] = {}
        state["batch_ranges"] = {}
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._state_lock = threading.Lock()
        self._client = OffsetClient(self.config)
        self._commits = CommitQueue(self._client)

    # -- lifecycle (InputNode) -------------------------------------------------------
    def attach(self, host: InputHost) -> None:
        """With backpressure, give the stream a PID rate controller, as Spark does.

        The controller listens to completed batches (this stream's record counts and
        the batch delays) and keeps the latest estimate; the node pulls it when it plans
        the next batch instead of being pushed to.
        """
        if not self.backpressure:
            return
        controller = host.rate_controller(self.input_id)
        self.rate_controller = lambda: controller.latest_rate
        self.backpressure_controller = controller

    def start(self) -> None:
        """Connect, check the topics, and fix the starting offsets.

        Raises
        ------
        BrokerUnreachableError, UnknownTopicError
            Raised from ``ssc.start()``.
        """
        self._client.open()
        try:
            partitions = self._client.partitions(self.topics)
            missing = [tp for tp in self.from_offsets if tp not in set(partitions)]
            if missing:
                raise ValueError(f"fromOffsets names partitions that do not exist: {sorted(missing)}")
            fresh = [tp for tp in partitions if tp not in self.current]
            if fresh:
                self.current.update(self._starting_offsets(fresh, initial=not self.current))
        except BaseException:
            self._client.close()
            raise

    def _starting_offsets(self, tps: list[TopicAndPartition], initial: bool) -> dict[TopicAndPartition, int]:
        chosen = {tp: self.from_offsets[tp] for tp in tps if tp in self.from_offsets}
        rest = [tp for tp in tps if tp not in chosen]
        if rest:
            committed = self._client.committed(rest)
            chosen.update(committed)
            rest = [tp for tp in rest if tp not in committed]
        if rest:
            # Partitions added while the stream runs start at their beginning so that
            # nothing written to them is skipped (whatever the reset policy).
            policy = (self.config.offset_reset or "latest") if initial else "earliest"
            if policy == "none":
                raise OffsetsOutOfRangeError(
                    f"no starting offset for {', '.join(f'{tp.topic}-{tp.partition}' for tp in rest)}: no "
                    "fromOffsets entry, no committed offset for the group, and auto.offset.reset is 'none'; "
                    "pass fromOffsets or set auto.offset.reset to earliest or latest",
                    rest[0].topic, rest[0].partition)
            lookup = self._client.earliest if policy == "earliest" else self._client.latest
            chosen.update(lookup(rest))
        return chosen

    def stop(self) -> None:
        """Drain queued commits and close the driver's consumer."""
        try:
            self._commits.close()
        finally:
            self._client.close()

    # -- per batch (job generator thread) ----------------------------------------------
    def compute_next(self, time_ms: int) -> Any:
        with self._state_lock:
            ranges = self._ranges_for(time_ms)
        node = KafkaRDDNode(self.config, ranges, self.read_settings, self.key_decoder, self.value_decoder,
                            self.message_handler)
        node.name = f"KafkaRDD at {format_ms(time_ms)}"
        return KafkaRDD(node, self.graph.sc)

    def _ranges_for(self, time_ms: int) -> list[OffsetRange]:
        ranges = self.batch_ranges.get(time_ms)
        if ranges is None:
            ranges = self._plan(time_ms)
            self.batch_ranges[time_ms] = ranges
        else:
            # A batch restored from a checkpoint: re-read exactly its ranges, and make
            # sure later batches continue after them.
            for r in ranges:
                tp = r.topicPartition()
                self.current[tp] = max(self.current.get(tp, r.untilOffset), r.untilOffset)
        self._infos[time_ms] = StreamInputInfo(self.input_id, sum(r.count() for r in ranges), {
            "offsets": [(r.topic, r.partition, r.fromOffset, r.untilOffset) for r in ranges],
            "Description": "\n".join(f"topic: {r.topic}\tpartition: {r.partition}\toffsets: "
                                     f"{r.fromOffset} to {r.untilOffset}" for r in ranges),
        })
        return ranges

    def _plan(self, time_ms: int) -> list[OffsetRange]:
        client = self._client
        tps = client.partitions(self.topics)
        fresh = [tp for tp in tps if tp not in self.current]
        if fresh:
            logger.info("Kafka partitions %s joined the stream", fresh)
            self.current.update(self._starting_offsets(fresh, initial=False))
        earliest, latest = client.earliest(tps), client.latest(tps)
        for tp in tps:
            self._check_in_range(tp, earliest[tp], latest[tp])
        current = {tp: self.current[tp] for tp in tps}
        untils = plan_untils(current, latest, self.graph.batch_ms / 1000,
                             max_rate_per_partition=self.max_rate_per_partition,
                             min_rate_per_partition=self.min_rate_per_partition, stream_rate=self._rate())
        ranges = [OffsetRange(tp.topic, tp.partition, current[tp], untils[tp]) for tp in tps]
        self.current.update(untils)
        return ranges

    def _check_in_range(self, tp: TopicAndPartition, earliest: int, latest: int) -> None:
        offset = self.current[tp]
        if earliest <= offset <= latest:
            return
        policy = self.config.offset_reset
        if policy in ("earliest", "latest"):
            target = earliest if policy == "earliest" else latest
            logger.warning("offset %d of %s-%d is out of range [%d, %d] (retention removed records, or the topic "
                           "was recreated); auto.offset.reset=%s: continuing at %d", offset, tp.topic,
                           tp.partition, earliest, latest, policy, target)
            self.current[tp] = target
            return
        raise OffsetsOutOfRangeError(
            f"the next offset {offset} of {tp.topic}-{tp.partition} is out of range: the broker holds "
            f"[{earliest}, {latest}) (retention or deleteRecords removed older records, or the topic was "
            "recreated). Set auto.offset.reset to 'earliest' or 'latest' in kafkaParams to skip to what the "
            "broker holds, accepting the loss", tp.topic, tp.partition, offset, offset, earliest, latest)

    def _rate(self) -> float | None:
        rate = None
        if self.rate_controller is not None:
            rate = self.rate_controller()
        if (rate is None or rate <= 0) and self.backpressure and self.initial_rate > 0:
            rate = self.initial_rate
        return rate

    def input_info(self, time_ms: int) -> StreamInputInfo | None:
        return self._infos.get(time_ms)

    def clear_metadata(self, time_ms: int, *args: Any, **kwargs: Any) -> None:
        # The base class's extra arguments are passed through untouched: this override
        # only adds forgetting the ranges and input infos of the same old batches.
        super().clear_metadata(time_ms, *args, **kwargs)
        horizon = time_ms - self.remember_ms
        with self._state_lock:
            for t in [t for t in self.batch_ranges if t <= horizon]:
                del self.batch_ranges[t]
            for t in [t for t in self._infos if t <= horizon]:
                del self._infos[t]

    # -- commits (any thread) ----------------------------------------------------------
    def commit_async(self, ranges: Sequence[OffsetRange], callback: CommitCallback | None) -> None:
        """Queue a commit of ``untilOffset`` per partition of ``ranges`` for the group."""
        if self.config.group_id is None:
            raise ValueError("commitAsync needs a consumer group: set 'group.id' in kafkaParams")
        offsets: dict[TopicAndPartition, int] = {}
        for r in ranges:
            if not isinstance(r, OffsetRange):
                raise TypeError(f"commitAsync expects OffsetRange objects (rdd.offsetRanges()), got {r!r}")
            tp = r.topicPartition()
            offsets[tp] = max(r.untilOffset, offsets.get(tp, r.untilOffset))
        if offsets:
            self._commits.submit(offsets, callback)

    # -- checkpoint data (for the metadata checkpoint) ---------------------------------
    def checkpoint_state(self) -> dict[str, Any]:
        """Return the stream's recovery data as plain msgpack-able values.

        ``{"format": 1, "topics": [...], "current": [[topic, partition, offset], ...],
        "batches": [[time_ms, [[topic, partition, from, until], ...]], ...]}``: the
        ranges of every remembered batch (which includes every batch not yet complete)
        and the next offset per partition.
        """
        with self._state_lock:
            return {
                "format": CHECKPOINT_FORMAT,
                "topics": list(self.topics),
                "current": [[tp.topic, tp.partition, offset] for tp, offset in sorted(self.current.items())],
                "batches": [[t, [[r.topic, r.partition, r.fromOffset, r.untilOffset] for r in ranges]]
                            for t, ranges in sorted(self.batch_ranges.items())],
            }

    def recorded_batch_times(self) -> list[int]:
        with self._state_lock:
            return list(self.batch_ranges)

    def restore_state(self, state: Mapping[str, Any]) -> None:
        """Re-attach data saved by :meth:`checkpoint_state` (before ``start``).

        Raises
        ------
        ValueError
            If the data has another format version, or was saved by a stream of other
            topics (the graph changed: recovering it would read the wrong records).
        """
        version = state.get("format")
        if version != CHECKPOINT_FORMAT:
            raise ValueError(f"Kafka stream checkpoint data has format {version!r}; this version reads format "
                             f"{CHECKPOINT_FORMAT}")
        topics = tuple(state.get("topics", ()))
        if sorted(topics) != sorted(self.topics):
            raise ValueError(f"the checkpoint holds offsets of a Kafka stream of topics {list(topics)}, but this "
                             f"stream reads {list(self.topics)}; use a new checkpoint directory for a changed graph")
        current = {TopicAndPartition(t, p): int(o) for t, p, o in state.get("current", ())}
        batches = {int(t): [OffsetRange(topic, p, f, u) for topic, p, f, u in ranges]
                   for t, ranges in state.get("batches", ())}
        with self._state_lock:
            self.current, self.batch_ranges = current, batches


class KafkaDStream(DStream):
    """The DStream of ``KafkaUtils.createDirectStream``.

    Its RDDs are :class:`~dstream.kafka.rdd.KafkaRDD` (with ``offsetRanges()``) inside
    ``foreachRDD`` and ``transform``; derived streams are plain DStreams.
    """

    def __init__(self, node: DirectKafkaInputNode, ssc: StreamingContext) -> None:
        super().__init__(node, ssc)
        self._kafka_node = node

    def commitAsync(self, offsetRanges: Sequence[OffsetRange],  # noqa: N802, N803 - Spark names
                    callback: CommitCallback | None = None) -> None:
        """Commit the ranges' ``untilOffset`` to the consumer group, asynchronously.

        Call it after the batch's output succeeded (Spark's ``CanCommitOffsets``); a
        restarted program without a checkpoint then resumes from these offsets.

        Parameters
        ----------
        offsetRanges
            Usually ``rdd.offsetRanges()`` of the batch just written.
        callback
            ``callback(offsets, exception)``: ``offsets`` maps ``TopicAndPartition`` to the
            committed offset, ``exception`` is ``None`` on success. Runs on a commit thread.

        Raises
        ------
        ValueError
            If ``kafkaParams`` has no ``group.id``.

        Examples
        --------
        >>> def output(rdd):  # doctest: +SKIP
        ...     rdd.foreachPartition(write_somewhere)
        ...     stream.commitAsync(rdd.offsetRanges())
        >>> stream.foreachRDD(output)  # doctest: +SKIP
        """
        self._kafka_node.commit_async(list(offsetRanges), callback)
