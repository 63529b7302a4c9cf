"""The Streaming status store and its REST builders, fed with real listener records.

The events are the ones a StreamingContext forwards (``dstream.ui.events.wrap`` of the
:mod:`dstream.listener` records), written by hand so that every number is exact:
Spark's formulas (input rate = records * 1000 / interval, integer-ms mean delays over
the batches that have them, null when none), retention, job ids, 404/400 answers, and the
JSON round trip of every event through the core registry.
"""

from __future__ import annotations

from typing import Any

import pytest

from rdd.status.events import SparkListenerJobStart, event_from_json

from dstream.listener import (
    BatchInfo,
    OutputOperationInfo,
    ReceiverInfo,
    StreamingListenerBatchCompleted,
    StreamingListenerBatchStarted,
    StreamingListenerBatchSubmitted,
    StreamingListenerOutputOperationCompleted,
    StreamingListenerOutputOperationStarted,
    StreamingListenerReceiverError,
    StreamingListenerReceiverStarted,
    StreamingListenerStreamingStarted,
    StreamInputInfo,
)
from dstream.ui.events import StreamingContextInfo, batch_info_to_json, wrap
from dstream.ui.streaming_api import StreamingApi, spark_date
from dstream.ui.streaming_store import BATCH_TIME_PROPERTY, OUTPUT_OP_ID_PROPERTY, StreamingStore

T0 = 1_764_600_000_000  # a batch boundary (epoch ms)
INTERVAL = 1000


def _info(t: int, records: int, submitted: int, start: int = -1, end: int = -1, failure: str | None = None,
          ops: int = 1) -> BatchInfo:
    infos = {0: StreamInputInfo(0, records, {"Description": "socket"})}
    op_infos = {i: OutputOperationInfo(t, i, "foreachRDD", f"app.py:{10 + i}", start, end,
                                       failure if i == 0 else None) for i in range(ops)}
    return BatchInfo(t, infos, submitted, start, end, op_infos)


def _feed(store: StreamingStore, events: list[Any]) -> None:
    for event in events:
        store.on_event(wrap(event) if not isinstance(event, (StreamingContextInfo, SparkListenerJobStart)) else event)


def _run_batch(t: int, records: int, sched: int, proc: int, failure: str | None = None) -> list[Any]:
    start, end = t + sched, t + sched + proc
    return [
        StreamingListenerBatchSubmitted(_info(t, records, t)),
        StreamingListenerBatchStarted(_info(t, records, t, start)),
        StreamingListenerOutputOperationStarted(OutputOperationInfo(t, 0, "foreachRDD", "app.py:10", start)),
        SparkListenerJobStart(jobId=t // 1000 % 1000, time=start, stageInfos=[],
                              properties={BATCH_TIME_PROPERTY: str(t), OUTPUT_OP_ID_PROPERTY: "0"}),
        StreamingListenerOutputOperationCompleted(OutputOperationInfo(t, 0, "foreachRDD", "app.py:10", start, end,
                                                                      failure)),
        StreamingListenerBatchCompleted(_info(t, records, t, start, end, failure)),
    ]


@pytest.fixture
def store() -> StreamingStore:
    s = StreamingStore(retained_batches=3)
    _feed(s, [StreamingContextInfo(T0, INTERVAL, {"0": "Socket stream [0]"}), StreamingListenerStreamingStarted(T0)])
    return s


def test_statistics_follow_sparks_formulas(store: StreamingStore) -> None:
    api = StreamingApi(store)
    status, empty = api(["statistics"], {})
    assert status == 200
    assert empty["avgInputRate"] is None and empty["avgSchedulingDelay"] is None
    assert empty["startTime"] == spark_date(T0) and empty["startTime"].endswith("GMT")
    # Four completed batches (three retained), one started, one only submitted.
    for i, (records, sched, proc) in enumerate([(9, 1, 1), (4, 3, 100), (2, 10, 201), (0, 1, 2)]):
        _feed(store, _run_batch(T0 + (i + 1) * INTERVAL, records, sched, proc))
    _feed(store, [StreamingListenerBatchSubmitted(_info(T0 + 5000, 5, T0 + 5000)),
                  StreamingListenerBatchStarted(_info(T0 + 5000, 5, T0 + 5000, T0 + 5007)),
                  StreamingListenerBatchSubmitted(_info(T0 + 6000, 1, T0 + 6000))])
    _, stats = api(["statistics"], {})
    # Retained: completed 2000..4000 (records 4, 2, 0), running 5000 (5), waiting 6000 (1).
    assert stats["avgInputRate"] == pytest.approx((4 + 2 + 0 + 5 + 1) * 1000.0 / INTERVAL / 5)
    assert stats["avgSchedulingDelay"] == (3 + 10 + 1 + 7) // 4  # the running batch has one
    assert stats["avgProcessingTime"] == (100 + 201 + 2) // 3
    assert stats["avgTotalDelay"] == (103 + 211 + 3) // 3
    assert stats["numTotalCompletedBatches"] == 4
    assert stats["numRetainedCompletedBatches"] == 3
    assert stats["numActiveBatches"] == 2
    assert stats["numReceivedRecords"] == 9 + 4 + 2 + 0 + 5  # counted when a batch starts
    assert stats["numProcessedRecords"] == 9 + 4 + 2 + 0
    assert stats["batchDuration"] == INTERVAL


def test_batches_operations_and_job_ids(store: StreamingStore) -> None:
    api = StreamingApi(store)
    for i in range(4):
        _feed(store, _run_batch(T0 + (i + 1) * INTERVAL, 3, 0, 50, failure="boom\nTraceback" if i == 3 else None))
    _feed(store, [StreamingListenerBatchSubmitted(_info(T0 + 5000, 1, T0 + 5000))])
    status, batches = api(["batches"], {})
    assert status == 200
    assert [b["batchId"] for b in batches] == [T0 + 5000, T0 + 4000, T0 + 3000, T0 + 2000]  # newest first
    assert [b["status"] for b in batches] == ["QUEUED", "COMPLETED", "COMPLETED", "COMPLETED"]
    assert api(["batches"], {"status": ["QUEUED"]})[1] == batches[:1]
    assert len(api(["batches"], {"status": ["COMPLETED,PROCESSING"]})[1]) == 3
    failed = batches[1]
    assert failed["numFailedOutputOps"] == 1 and failed["firstFailureReason"] == "boom\nTraceback"
    assert failed["processingTime"] == 50 and failed["schedulingDelay"] == 0 and failed["totalDelay"] == 50
    status, ops = api(["batches", str(T0 + 3000), "operations"], {})
    assert status == 200 and len(ops) == 1
    assert ops[0]["jobIds"] == [(T0 + 3000) // 1000 % 1000]
    assert ops[0]["duration"] == 50 and ops[0]["name"] == "foreachRDD"
    assert api(["batches", str(T0 + 3000), "operations", "0"], {})[1] == ops[0]
    # The oldest batch left the store, and its job ids with it.
    assert api(["batches", str(T0 + 1000)], {})[0] == 404
    assert store._job_ids.keys() == {T0 + 2000, T0 + 3000, T0 + 4000}


@pytest.mark.parametrize(("parts", "query", "status", "text"), [
    (["batches", "12"], {}, 404, "unknown batch: 12"),
    (["batches", "x"], {}, 400, "batchId must be an integer"),
    (["batches"], {"status": ["DONE"]}, 400, "unknown batch status 'DONE'"),
    (["receivers", "7"], {}, 404, "unknown receiver: 7"),
    (["receivers", "y"], {}, 400, "streamId must be an integer"),
    (["nothing"], {}, 404, "unknown streaming resource"),
])
def test_bad_requests(store: StreamingStore, parts: list[str], query: dict[str, list[str]], status: int,
                      text: str) -> None:
    answer = StreamingApi(store)(parts, query)
    assert answer[0] == status and text in answer[1]


def test_receivers_list_every_input_stream(store: StreamingStore) -> None:
    _feed(store, _run_batch(T0 + 1000, 4, 0, 1))
    _feed(store, [StreamingListenerReceiverStarted(ReceiverInfo(0, "SocketReceiver-0", True, "127.0.0.1", "driver")),
                  StreamingListenerReceiverError(ReceiverInfo(0, "SocketReceiver-0", True, "127.0.0.1", "driver",
                                                              "refused", "ConnectionRefusedError", T0 + 1500))])
    status, receivers = StreamingApi(store)(["receivers"], {})
    assert status == 200
    assert receivers == [{
        "streamId": 0, "streamName": "SocketReceiver-0", "isActive": True, "executorId": "driver",
        "executorHost": "127.0.0.1", "lastErrorTime": spark_date(T0 + 1500), "lastErrorMessage": "refused",
        "lastError": "ConnectionRefusedError", "avgEventRate": 4.0, "eventRates": [[T0 + 1000, 4.0]]}]
    _, stats = StreamingApi(store)(["statistics"], {})
    assert (stats["numReceivers"], stats["numActiveReceivers"], stats["numInactiveReceivers"]) == (1, 1, 0)


def test_every_event_round_trips_through_the_event_log_form() -> None:
    events: list[Any] = [StreamingContextInfo(T0, INTERVAL, {"0": "Queue stream [0]"}),
                         wrap(StreamingListenerStreamingStarted(T0)),
                         wrap(StreamingListenerReceiverStarted(ReceiverInfo(1, "r", True)))]
    events += [wrap(e) for e in _run_batch(T0 + 1000, 3, 1, 2, "err") if not isinstance(e, SparkListenerJobStart)]
    for event in events:
        data = event.to_json()
        assert data["Event"].startswith(("org.apache.spark.streaming.scheduler.", "dstream."))
        assert event_from_json(data) == event
    completed = event_from_json(events[-1].to_json())  # the replayed form rebuilds the record
    assert completed.listener_event() == StreamingListenerBatchCompleted(_info(T0 + 1000, 3, T0 + 1000, T0 + 1001,
                                                                                T0 + 1003, "err"))


def test_a_wrapped_event_builds_its_json_form_only_when_read() -> None:
    record = StreamingListenerBatchCompleted(_info(T0 + 1000, 3, T0 + 1000, T0 + 1001, T0 + 1003, None))
    event = wrap(record)
    assert "batchInfo" not in vars(event)  # the live store reads the record: no JSON built
    assert event.listener_event() is record
    assert "batchInfo" not in vars(event)
    assert event.batchInfo == batch_info_to_json(record.batchInfo())  # the event log's read
    assert vars(event)["batchInfo"] is event.batchInfo  # built once
    assert event_from_json(wrap(record).to_json()) == event
    with pytest.raises(AttributeError, match="no attribute 'outputOperationInfo'"):
        event.outputOperationInfo  # noqa: B018 - the attribute access is the test
