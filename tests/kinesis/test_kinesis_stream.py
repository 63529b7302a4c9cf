"""KinesisUtils.createStream against real Kinesis and DynamoDB APIs (moto's server and kinesalite, see conftest).

Batches are driven by the manual clock; every wait has a deadline.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from rdd import SparkContext

from dstream import StreamingContext
from dstream.kinesis import InitialPositionInStream, KinesisUtils, MetricsLevel, utf8_decoder
from dstream.listener import StreamingListener
from dstream.testing import advance_batches, collect_batches, manual_clock
from tests.kinesis.conftest import KEYS, REGION

pytestmark = [pytest.mark.integration]

WAIT = 30.0


def _name(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _stream(aws: Any, shards: int) -> str:
    name = _name("stream")
    aws.kinesis.create_stream(StreamName=name, ShardCount=shards)
    return name


def _put(aws: Any, stream: str, values: list[str]) -> None:
    for value in values:
        aws.kinesis.put_record(StreamName=stream, Data=value.encode(), PartitionKey=value)


def _create(ssc: StreamingContext, aws: Any, app: str, stream: str,
            position: int = InitialPositionInStream.TRIM_HORIZON, **kwargs: Any) -> Any:
    return KinesisUtils.createStream(ssc, app, stream, aws.endpoint, REGION, position, 0.2,
                                     awsAccessKeyId=KEYS["aws_access_key_id"],
                                     awsSecretKey=KEYS["aws_secret_access_key"], **kwargs)


def _wait(predicate: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not predicate():
        assert time.monotonic() < deadline, f"timed out after {WAIT} s waiting for {what}"
        time.sleep(0.02)


def _leases(aws: Any, app: str) -> dict[str, dict[str, Any]]:
    items = aws.dynamodb.scan(TableName=app, ConsistentRead=True)["Items"]
    return {i["leaseKey"]["S"]: {k: next(iter(v.values())) for k, v in i.items()} for i in items}


def _run(ssc: StreamingContext, records: int, out: list[list[Any]]) -> list[Any]:
    """Start, wait until ``records`` were received, run one batch, stop gracefully; the batch's records."""
    ssc.start()
    try:
        tracker = ssc._engine.receiver_tracker
        assert tracker.wait_received(records, WAIT), f"{records} records were not received within {WAIT} s"
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False, stopGraceFully=True)
    return [r for batch in out for r in batch]


def _last_sequence_numbers(aws: Any, stream: str) -> dict[str, str]:
    last = {}
    for shard in aws.kinesis.list_shards(StreamName=stream)["Shards"]:
        iterator = aws.kinesis.get_shard_iterator(StreamName=stream, ShardId=shard["ShardId"],
                                                  ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        records = aws.kinesis.get_records(ShardIterator=iterator, Limit=10000)["Records"]
        if records:
            last[shard["ShardId"]] = records[-1]["SequenceNumber"]
    return last


def test_every_record_of_every_shard_once_then_a_restart_resumes_after_the_checkpoint(ksc: SparkContext,
                                                                                       aws: Any) -> None:
    stream, app = _stream(aws, 3), _name("app")
    first = [f"record-{i}" for i in range(60)]
    _put(aws, stream, first)
    ssc = StreamingContext(ksc, 1)
    manual_clock(ssc)
    out = collect_batches(_create(ssc, aws, app, stream))
    assert sorted(_run(ssc, len(first), out)) == sorted(first)
    # The stop checkpointed each shard's last stored record, in KCL's table layout.
    leases = _leases(aws, app)
    assert {shard: lease["checkpoint"] for shard, lease in leases.items()} == _last_sequence_numbers(aws, stream)
    assert all("leaseOwner" not in lease for lease in leases.values())  # given up on stop

    more = [f"later-{i}" for i in range(10)]
    _put(aws, stream, more)
    ssc = StreamingContext(ksc, 1)
    manual_clock(ssc)
    out = collect_batches(_create(ssc, aws, app, stream))
    assert sorted(_run(ssc, len(more), out)) == sorted(more)  # nothing read twice


def test_latest_starts_after_what_the_stream_held(ksc: SparkContext, aws: Any) -> None:
    stream, app = _stream(aws, 2), _name("app")
    _put(aws, stream, [f"old-{i}" for i in range(20)])
    ssc = StreamingContext(ksc, 1)
    manual_clock(ssc)
    out = collect_batches(_create(ssc, aws, app, stream, InitialPositionInStream.LATEST))
    ssc.start()
    try:
        tracker = ssc._engine.receiver_tracker
        _wait(lambda: aws.dynamodb.list_tables()["TableNames"].count(app) == 1
              and len([x for x in _leases(aws, app).values() if "leaseOwner" in x]) == 2, "both leases taken")
        # LATEST starts where the worker first reads a shard: new records go in until some arrive.
        sent = 0
        deadline = time.monotonic() + WAIT
        while tracker.wait_received(1, 0.3) is False:
            assert time.monotonic() < deadline, "no new record arrived"
            _put(aws, stream, [f"new-{sent}"])
            sent += 1
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False, stopGraceFully=True)
    got = [r for batch in out for r in batch]
    assert got and all(r.startswith("new-") for r in got)


def test_two_receivers_of_one_application_split_the_shards(ksc: SparkContext, aws: Any) -> None:
    stream, app = _stream(aws, 4), _name("app")
    values = [f"v-{i}" for i in range(80)]
    _put(aws, stream, values)
    ssc = StreamingContext(ksc, 1)
    manual_clock(ssc)
    both = _create(ssc, aws, app, stream).union(_create(ssc, aws, app, stream))
    out = collect_batches(both)
    ssc.start()

    def shares() -> list[int]:
        if app not in aws.dynamodb.list_tables()["TableNames"]:
            return []
        owners = [x.get("leaseOwner") for x in _leases(aws, app).values()]
        return sorted(owners.count(o) for o in set(owners))

    try:
        # The first worker may take every shard; the second then takes one a round from it.
        _wait(lambda: shares() == [2, 2], "the two workers to hold two leases each")
        assert ssc._engine.receiver_tracker.wait_received(len(values), WAIT), "the records did not all arrive"
        advance_batches(ssc, 1)
    finally:
        ssc.stop(stopSparkContext=False, stopGraceFully=True)
    # At least once: a shard whose lease moved is read again from its last checkpoint.
    assert set(r for batch in out for r in batch) == set(values)


def test_the_decoder_runs_on_the_records_bytes(ksc: SparkContext, aws: Any) -> None:
    stream, app = _stream(aws, 1), _name("app")
    _put(aws, stream, [json.dumps({"n": i}) for i in range(5)])
    ssc = StreamingContext(ksc, 1)
    manual_clock(ssc)
    out = collect_batches(_create(ssc, aws, app, stream, decoder=lambda b: json.loads(b)["n"] * 10,
                                  metricsLevel=MetricsLevel.SUMMARY))
    assert sorted(_run(ssc, 5, out)) == [0, 10, 20, 30, 40]
    assert utf8_decoder(None) is None and utf8_decoder("é".encode()) == "é"


def test_a_missing_stream_is_reported_and_retried(ksc: SparkContext, aws: Any) -> None:
    errors: list[str] = []

    class Errors(StreamingListener):
        def onReceiverError(self, receiverError: Any) -> None:  # noqa: N802,N803 - Spark's names
            errors.append(receiverError.receiverInfo().lastErrorMessage())

    ssc = StreamingContext(ksc, 1)
    manual_clock(ssc)
    _create(ssc, aws, _name("app"), "no-such-stream").pprint()
    ssc.addStreamingListener(Errors())
    ssc.start()
    try:
        _wait(lambda: len(errors) >= 2, "two errors of the restarting receiver")
    finally:
        ssc.stop(stopSparkContext=False)
    assert "no-such-stream" in errors[0]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"initialPositionInStream": 7}, "initialPositionInStream must be InitialPositionInStream.LATEST"),
    ({"checkpointInterval": 0}, "checkpointInterval must be a positive number of seconds"),
    ({"awsAccessKeyId": "k"}, "awsAccessKeyId and awsSecretKey must both be given"),
    ({"stsAssumeRoleArn": "arn:aws:iam::1:role/r"}, "must all be given or all be None"),
    ({"streamName": ""}, "streamName must be a non-empty string"),
    ({"metricsLevel": 9}, "metricsLevel must be"),
])
def test_bad_arguments_are_refused_when_the_stream_is_made(ksc: SparkContext, kwargs: dict[str, Any],
                                                            message: str) -> None:
    ssc = StreamingContext(ksc, 1)
    args: dict[str, Any] = {"kinesisAppName": "app", "streamName": "s", "endpointUrl": "http://127.0.0.1:1",
                            "regionName": REGION, "initialPositionInStream": InitialPositionInStream.LATEST,
                            "checkpointInterval": 1.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        KinesisUtils.createStream(ssc, **args)


def test_a_role_assumed_with_sts_reads_the_stream(ksc: SparkContext, aws: Any) -> None:
    stream, app = _stream(aws, 1), _name("app")
    _put(aws, stream, ["a", "b"])
    ssc = StreamingContext(ksc, 1)
    manual_clock(ssc)
    out = collect_batches(_create(ssc, aws, app, stream, stsAssumeRoleArn="arn:aws:iam::123456789012:role/reader",
                                  stsSessionName="dstreams-test", stsExternalId="ext-1"))
    assert sorted(_run(ssc, 2, out)) == ["a", "b"]


def test_a_split_shard_is_read_to_its_end_then_its_children(ksc: SparkContext, aws: Any,
                                                            kinesalite_endpoint: str) -> None:
    # kinesalite reshards as Kinesis does: the parent's reads end after its last record and
    # new records go to the children. The lease table stays on moto's DynamoDB.
    import boto3

    kinesis = boto3.client("kinesis", endpoint_url=kinesalite_endpoint, region_name=REGION, **KEYS)
    stream, app = _name("stream"), _name("app")
    kinesis.create_stream(StreamName=stream, ShardCount=1)
    kinesis.get_waiter("stream_exists").wait(StreamName=stream, WaiterConfig={"Delay": 0.1, "MaxAttempts": 100})
    before = [f"parent-{i}" for i in range(20)]
    for value in before:
        kinesis.put_record(StreamName=stream, Data=value.encode(), PartitionKey=value)
    (parent,) = kinesis.list_shards(StreamName=stream)["Shards"]
    low, high = int(parent["HashKeyRange"]["StartingHashKey"]), int(parent["HashKeyRange"]["EndingHashKey"])
    kinesis.split_shard(StreamName=stream, ShardToSplit=parent["ShardId"], NewStartingHashKey=str((low + high) // 2))
    kinesis.get_waiter("stream_exists").wait(StreamName=stream, WaiterConfig={"Delay": 0.1, "MaxAttempts": 100})
    after = [f"child-{i}" for i in range(20)]
    for value in after:
        kinesis.put_record(StreamName=stream, Data=value.encode(), PartitionKey=value)

    class Endpoint:
        endpoint = kinesalite_endpoint

    ssc = StreamingContext(ksc, 1)
    manual_clock(ssc)
    out = collect_batches(_create(ssc, Endpoint(), app, stream))
    assert sorted(_run(ssc, 40, out)) == sorted(before + after)  # each record once
    leases = _leases(aws, app)
    assert leases[parent["ShardId"]]["checkpoint"] == "SHARD_END"
    children = {key: lease for key, lease in leases.items() if key != parent["ShardId"]}
    assert len(children) == 2 and all(lease["parentShardId"] == [parent["ShardId"]] for lease in children.values())
    # Each child was read after its parent ended, to its last record, and checkpointed there.
    last = {}
    for shard_id in children:
        iterator = kinesis.get_shard_iterator(StreamName=stream, ShardId=shard_id,
                                              ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        records = kinesis.get_records(ShardIterator=iterator)["Records"]
        last[shard_id] = records[-1]["SequenceNumber"] if records else "TRIM_HORIZON"
    assert {key: lease["checkpoint"] for key, lease in children.items()} == last
