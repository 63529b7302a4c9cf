"""KafkaUtils.createDirectStream against the real broker, on the manual clock.

Run on ``local`` and ``local[2]`` (the module-scoped ``ctx`` fixture): several
partitions, empty batches, ranges contiguous and complete, starting positions
(``fromOffsets``, committed offsets, ``auto.offset.reset``), ``commitAsync``, the
checkpoint data (save, msgpack round trip, replay of the recorded ranges), partitions
added mid-stream, and every bad-input case: unreachable bootstrap, missing topic, offsets
removed by retention, undecodable bytes.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import msgpack
import pytest

from dstream import StreamingContext
from dstream.kafka import (
    BrokerUnreachableError,
    KafkaDecodeError,
    KafkaRDD,
    KafkaUtils,
    OffsetRange,
    OffsetsOutOfRangeError,
    TopicAndPartition,
    UnknownTopicError,
)
from dstream.testing import advance_batches, manual_clock
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS, assert_contiguous

pytestmark = [pytest.mark.kafka, pytest.mark.integration, *KAFKA_PYTHON_WARNINGS]


class Run:
    """A StreamingContext on the manual clock over one direct stream, recording each batch."""

    def __init__(self, ctx: Any, topics: list[str], params: dict[str, Any], **kwargs: Any) -> None:
        self.ssc = StreamingContext(ctx, 1)
        manual_clock(self.ssc)
        self.stream = KafkaUtils.createDirectStream(self.ssc, topics, params, **kwargs)
        self.ranges: list[list[OffsetRange]] = []
        self.records: list[list[Any]] = []
        self.kinds: list[type] = []

        def record(rdd: Any) -> None:
            self.kinds.append(type(rdd))
            self.ranges.append(rdd.offsetRanges())
            self.records.append(rdd.collect())

        self.stream.foreachRDD(record)

    def start(self) -> Run:
        self.ssc.start()
        return self

    def batches(self, n: int = 1) -> list[list[Any]]:
        """Run ``n`` batches; return their records; raise the first batch error."""
        before = len(self.records)
        advance_batches(self.ssc, n)
        self.raise_error()
        return self.records[before:]

    def raise_error(self) -> None:
        error = self.ssc._engine.waiter.error
        if error is not None:
            raise error

    def stop(self) -> None:
        self.ssc.stop(stopSparkContext=False)

    def __enter__(self) -> Run:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def by_partition(ranges: list[OffsetRange]) -> dict[int, tuple[int, int]]:
    return {r.partition: (r.fromOffset, r.untilOffset) for r in ranges}


def test_batches_hold_every_new_record_once_in_contiguous_ranges(ctx, kafka):
    topic = kafka.new_topic(partitions=3)
    first = kafka.fill(topic, {0: 5, 1: 5, 2: 5}, prefix="a")
    with Run(ctx, [topic], kafka.params(auto_offset_reset="earliest")).start() as run:
        [batch1] = run.batches()
        assert sorted(v for _, v in batch1) == sorted(v for vs in first.values() for v in vs)
        second = kafka.fill(topic, {0: 3, 2: 7}, prefix="b")
        [batch2] = run.batches()
        assert sorted(v for _, v in batch2) == sorted(second[0] + second[2])
        [batch3, batch4] = run.batches(2)  # nothing new: empty batches, empty ranges
        assert batch3 == batch4 == []
        assert [by_partition(r) for r in run.ranges] == [
            {0: (0, 5), 1: (0, 5), 2: (0, 5)},
            {0: (5, 8), 1: (5, 5), 2: (5, 12)},
            {0: (8, 8), 1: (5, 5), 2: (12, 12)},
            {0: (8, 8), 1: (5, 5), 2: (12, 12)},
        ]
        assert_contiguous(run.ranges, {(topic, p): 0 for p in range(3)},
                          {(topic, p): o for p, o in kafka.end_offsets(topic).items()})
        assert set(run.kinds) == {KafkaRDD}
        # each partition's records come in offset order, one RDD partition per Kafka partition
        assert batch2 == [(f"k{i}", f"b-0-{i}") for i in range(3)] + [(f"k{i}", f"b-2-{i}") for i in range(7)]


def test_several_topics_and_record_counts_in_input_info(ctx, kafka):
    one, two = kafka.new_topic(partitions=2), kafka.new_topic(partitions=1)
    kafka.fill(one, {0: 2, 1: 3})
    kafka.fill(two, {0: 4})
    with Run(ctx, [one, two], kafka.params(auto_offset_reset="earliest")).start() as run:
        [batch] = run.batches()
        assert len(batch) == 9
        assert [(r.topic, r.partition) for r in run.ranges[0]] == sorted([(one, 0), (one, 1), (two, 0)])
        node = run.stream._kafka_node
        info = node.input_info(1000)
        assert info.numRecords() == 9
        assert (one, 1, 0, 3) in info.metadata()["offsets"]
        assert f"topic: {two}\tpartition: 0\toffsets: 0 to 4" in info.metadataDescription()


def test_default_start_is_latest_and_transform_sees_offset_ranges(ctx, kafka):
    topic = kafka.new_topic(partitions=2)
    kafka.fill(topic, {0: 4, 1: 4}, prefix="old")
    ssc = StreamingContext(ctx, 1)
    manual_clock(ssc)
    stream = KafkaUtils.createDirectStream(ssc, [topic], kafka.params())
    seen: list[Any] = []
    stream.transform(lambda rdd: ctx.parallelize([rdd.offsetRanges()], 1)).foreachRDD(
        lambda rdd: seen.append(rdd.collect()[0]))
    values: list[Any] = []
    stream.map(lambda kv: kv[1]).foreachRDD(lambda rdd: values.append(sorted(rdd.collect())))
    ssc.start()
    try:
        advance_batches(ssc, 1)
        kafka.fill(topic, {1: 2}, prefix="new")
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False)
    assert values == [[], ["new-1-0", "new-1-1"]]
    assert [by_partition(r) for r in seen] == [{0: (4, 4), 1: (4, 4)}, {0: (4, 4), 1: (4, 6)}]


def test_from_offsets_win_over_the_reset_policy(ctx, kafka):
    topic = kafka.new_topic(partitions=2)
    kafka.fill(topic, {0: 6, 1: 6})
    from_offsets = {TopicAndPartition(topic, 0): 4}
    with Run(ctx, [topic], kafka.params(auto_offset_reset="earliest"), fromOffsets=from_offsets).start() as run:
        run.batches()
        assert by_partition(run.ranges[0]) == {0: (4, 6), 1: (0, 6)}


def test_committed_offsets_and_resume_from_them(ctx, kafka):
    topic = kafka.new_topic(partitions=2)
    group = f"group-{topic}"
    kafka.fill(topic, {0: 3, 1: 5})
    params = kafka.params(group_id=group, auto_offset_reset="earliest")
    callbacks: list[Any] = []
    done = threading.Event()

    ssc = StreamingContext(ctx, 1)
    manual_clock(ssc)
    stream = KafkaUtils.createDirectStream(ssc, [topic], params)

    def output(rdd: Any) -> None:
        rdd.count()  # "the output succeeded"
        stream.commitAsync(rdd.offsetRanges(), lambda offsets, error: (callbacks.append((offsets, error)),
                                                                       done.set()))

    stream.foreachRDD(output)
    ssc.start()
    try:
        advance_batches(ssc, 1)
        assert done.wait(15)
        assert kafka.wait_committed(group, topic, {0: 3, 1: 5}) == {0: 3, 1: 5}
    finally:
        ssc.stop(stopSparkContext=False)
    assert callbacks == [({TopicAndPartition(topic, 0): 3, TopicAndPartition(topic, 1): 5}, None)]

    kafka.fill(topic, {1: 2}, prefix="later")
    with Run(ctx, [topic], params).start() as run:  # no checkpoint: resumes from the commits
        [batch] = run.batches()
        assert by_partition(run.ranges[0]) == {0: (3, 3), 1: (5, 7)}
        assert sorted(v for _, v in batch) == ["later-1-0", "later-1-1"]


def test_commit_async_needs_a_group_and_offset_ranges(ctx, kafka):
    topic = kafka.new_topic(partitions=1)
    ssc = StreamingContext(ctx, 1)
    stream = KafkaUtils.createDirectStream(ssc, [topic], kafka.params())
    with pytest.raises(ValueError, match="group.id"):
        stream.commitAsync([OffsetRange(topic, 0, 0, 1)])
    grouped = KafkaUtils.createDirectStream(ssc, [topic], kafka.params(group_id="g"))
    with pytest.raises(TypeError, match="OffsetRange"):
        grouped.commitAsync([(topic, 0, 0, 1)])
    ssc.stop(stopSparkContext=False)


def test_checkpoint_state_replays_recorded_ranges_then_continues(ctx, kafka):
    topic = kafka.new_topic(partitions=2)
    kafka.fill(topic, {0: 3, 1: 2}, prefix="a")
    params = kafka.params(auto_offset_reset="earliest")
    with Run(ctx, [topic], params).start() as run:
        original = run.batches(1)
        kafka.fill(topic, {0: 2}, prefix="b")
        original += run.batches(1)
        state = run.stream._kafka_node.checkpoint_state()
    assert state["format"] == 1
    assert [t for t, _ in state["batches"]] == [1000, 2000]
    saved = msgpack.unpackb(msgpack.packb(state))  # what a metadata checkpoint stores

    kafka.fill(topic, {1: 4}, prefix="c")  # arrives while the driver is "down"
    replay = Run(ctx, [topic], params)
    replay.stream._kafka_node.restore_state(saved)
    with replay.start():
        again = replay.batches(2)  # batch times 1000 and 2000 again: the recorded ranges
        assert again == original
        assert replay.ranges[:2] == run.ranges
        [after] = replay.batches(1)  # a new batch continues where the recorded ones ended
        assert by_partition(replay.ranges[2]) == {0: (5, 5), 1: (2, 6)}
        assert sorted(v for _, v in after) == [f"c-1-{i}" for i in range(4)]


def test_restore_state_refuses_other_data(ctx, kafka):
    topic, other = kafka.new_topic(partitions=1), kafka.new_topic(partitions=1)
    ssc = StreamingContext(ctx, 1)
    node = KafkaUtils.createDirectStream(ssc, [topic], kafka.params())._kafka_node
    state = {"format": 1, "topics": [other], "current": [], "batches": []}
    with pytest.raises(ValueError, match="use a new checkpoint directory"):
        node.restore_state(state)
    with pytest.raises(ValueError, match="format"):
        node.restore_state({"format": 99})
    ssc.stop(stopSparkContext=False)


def test_partitions_added_mid_stream_join_at_their_start(ctx, kafka):
    topic = kafka.new_topic(partitions=1)
    kafka.fill(topic, {0: 2})
    params = kafka.params(auto_offset_reset="latest", metadata_max_age_ms="200")
    with Run(ctx, [topic], params).start() as run:
        run.batches()
        kafka.add_partitions(topic, 3)
        kafka.fill(topic, {2: 3}, prefix="new")
        deadline = time.monotonic() + 20
        while len(run.ranges[-1]) < 3 and time.monotonic() < deadline:
            time.sleep(0.25)  # metadata refresh is on the wall clock (metadata.max.age.ms)
            run.batches()
        assert by_partition(run.ranges[-1])[2] == (0, 3)  # from the beginning, not "latest"
        assert sorted(v for batch in run.records for _, v in batch) == ["new-2-0", "new-2-1", "new-2-2"]


def test_unreachable_bootstrap_fails_start_quickly(ctx):
    ssc = StreamingContext(ctx, 1)
    manual_clock(ssc)
    KafkaUtils.createDirectStream(ssc, ["t"], {"bootstrap.servers": "127.0.0.1:1"}).foreachRDD(lambda rdd: None)
    started = time.monotonic()
    with pytest.raises(BrokerUnreachableError, match="127.0.0.1:1"):
        ssc.start()
    assert time.monotonic() - started < 10
    assert StreamingContext.getActive() is None


def test_unreachable_handshake_is_bounded_too(ctx):
    """A port that accepts TCP but never answers Kafka: the bootstrap timeout bounds it."""
    import socket

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    address = f"127.0.0.1:{server.getsockname()[1]}"
    try:
        ssc = StreamingContext(ctx, 1)
        manual_clock(ssc)
        KafkaUtils.createDirectStream(ssc, ["t"], {"bootstrap.servers": address,
                                                   "bootstrap.timeout.ms": "2000"}).foreachRDD(lambda rdd: None)
        started = time.monotonic()
        with pytest.raises(BrokerUnreachableError, match=address):
            ssc.start()
        assert time.monotonic() - started < 10
    finally:
        server.close()


def test_missing_topic_fails_start_naming_it_or_is_created_when_allowed(ctx, kafka):
    missing = kafka.unused_topic()
    ssc = StreamingContext(ctx, 1)
    manual_clock(ssc)
    KafkaUtils.createDirectStream(ssc, [missing], kafka.params()).foreachRDD(lambda rdd: None)
    with pytest.raises(UnknownTopicError, match=f"{missing}.*allow.auto.create.topics") as info:
        ssc.start()
    assert info.value.topic == missing
    assert missing not in kafka.admin.list_topics()  # looking did not create it

    with Run(ctx, [missing], kafka.params(allow_auto_create_topics="true")).start() as run:
        assert run.batches() == [[]]
        assert missing in kafka.admin.list_topics()


def test_offsets_removed_by_retention_fail_the_batch_by_default(ctx, kafka):
    topic = kafka.new_topic(partitions=1)
    kafka.fill(topic, {0: 5})
    # no auto.offset.reset given: start from fromOffsets, and fail when offsets vanish
    start = {TopicAndPartition(topic, 0): 0}
    with Run(ctx, [topic], kafka.params(), fromOffsets=start).start() as run:
        run.batches()
        kafka.fill(topic, {0: 5}, prefix="late")
        kafka.delete_records(topic, 0, 8)
        with pytest.raises(OffsetsOutOfRangeError) as info:
            run.batches()
        error = info.value
        assert (error.topic, error.partition, error.from_offset, error.earliest, error.latest) == (topic, 0, 5, 8, 10)
        assert f"next offset 5 of {topic}-0" in str(error) and "[8, 10)" in str(error)


def test_offsets_removed_by_retention_follow_an_explicit_reset(ctx, kafka, caplog):
    topic = kafka.new_topic(partitions=1)
    kafka.fill(topic, {0: 5})
    with Run(ctx, [topic], kafka.params(auto_offset_reset="earliest")).start() as run:
        run.batches()
        kafka.fill(topic, {0: 5}, prefix="late")
        kafka.delete_records(topic, 0, 8)
        [batch] = run.batches()
        assert by_partition(run.ranges[-1]) == {0: (8, 10)}
        assert [v for _, v in batch] == ["late-0-3", "late-0-4"]
    assert any("out of range" in r.getMessage() for r in caplog.records)


def test_undecodable_record_fails_the_batch_naming_it(ctx, kafka):
    topic = kafka.new_topic(partitions=2)
    kafka.fill(topic, {0: 2})
    bad = kafka.send_raw(topic, b"\x80abc", partition=0, key=b"k")
    with Run(ctx, [topic], kafka.params(auto_offset_reset="earliest")).start() as run:
        with pytest.raises(KafkaDecodeError, match=f"{topic}-0 offset {bad}"):
            run.batches()


def test_message_handler_in_a_stream(ctx, kafka):
    topic = kafka.new_topic(partitions=1)
    kafka.fill(topic, {0: 2})
    handler = lambda m: (m.partition, m.offset, m.key, m.value)  # noqa: E731
    with Run(ctx, [topic], kafka.params(auto_offset_reset="earliest"), messageHandler=handler).start() as run:
        assert run.batches() == [[(0, 0, "k0", "v-0-0"), (0, 1, "k1", "v-0-1")]]


def test_argument_errors_at_the_call(ctx, kafka):
    ssc = StreamingContext(ctx, 1)
    with pytest.raises(TypeError, match="list of topic names"):
        KafkaUtils.createDirectStream(ssc, "topic", kafka.params())
    with pytest.raises(ValueError, match="topics is empty"):
        KafkaUtils.createDirectStream(ssc, [], kafka.params())
    with pytest.raises(ValueError, match="not one of the stream's topics"):
        KafkaUtils.createDirectStream(ssc, ["a"], kafka.params(), fromOffsets={TopicAndPartition("b", 0): 1})
    with pytest.raises(ValueError, match="auto.offset.reset"):
        KafkaUtils.createDirectStream(ssc, ["a"], kafka.params(auto_offset_reset="sometimes"))
    with pytest.raises(TypeError, match="keyDecoder"):
        KafkaUtils.createDirectStream(ssc, ["a"], kafka.params(), keyDecoder="utf8")
    with pytest.raises(NotImplementedError, match="createDirectStream"):
        KafkaUtils.createStream(ssc, "zk:2181", "group", {"a": 1})
    ssc.stop(stopSparkContext=False)
