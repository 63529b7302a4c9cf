"""The streaming REST endpoints of a live application, over HTTP, against Spark's documented shapes.

A real StreamingContext on a manual clock (queue input, plus a socket receiver reading
from a server on 127.0.0.1) runs a few batches; the test then reads every
``/api/v1/applications/{id}/streaming/...`` endpoint with urllib and compares field names
and JSON types with Spark's StreamingStatistics, ReceiverInfo, BatchInfo and
OutputOperationInfo. Optional values (Scala ``Option``) may be ``null``; the test's data
makes the ones it names non-null. It also checks the job ids of each output operation
against the core ``jobs/{id}`` endpoint, the 404/400 answers and that the endpoints are
gone after ``ssc.stop()``.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest

from rdd import SparkConf, SparkContext

from dstream import StreamingContext
from dstream.testing import advance_batches, manual_clock

WAIT_S = 20.0
NUM = (int,)
NUM_OR_NULL = (int, type(None))
FLOAT_OR_NULL = (float, type(None))
STR_OR_NULL = (str, type(None))

#: Spark's REST classes (``org.apache.spark.status.api.v1.streaming``): field -> JSON types.
STATISTICS = {
    "startTime": (str,), "batchDuration": NUM, "numReceivers": NUM, "numActiveReceivers": NUM,
    "numInactiveReceivers": NUM, "numTotalCompletedBatches": NUM, "numRetainedCompletedBatches": NUM,
    "numActiveBatches": NUM, "numProcessedRecords": NUM, "numReceivedRecords": NUM,
    "avgInputRate": FLOAT_OR_NULL, "avgSchedulingDelay": NUM_OR_NULL, "avgProcessingTime": NUM_OR_NULL,
    "avgTotalDelay": NUM_OR_NULL,
}
RECEIVER = {
    "streamId": NUM, "streamName": (str,), "isActive": (bool, type(None)), "executorId": STR_OR_NULL,
    "executorHost": STR_OR_NULL, "lastErrorTime": STR_OR_NULL, "lastErrorMessage": STR_OR_NULL,
    "lastError": STR_OR_NULL, "avgEventRate": FLOAT_OR_NULL, "eventRates": (list,),
}
BATCH = {
    "batchId": NUM, "batchTime": (str,), "status": (str,), "batchDuration": NUM, "inputSize": NUM,
    "schedulingDelay": NUM_OR_NULL, "processingTime": NUM_OR_NULL, "totalDelay": NUM_OR_NULL,
    "numActiveOutputOps": NUM, "numCompletedOutputOps": NUM, "numFailedOutputOps": NUM, "numTotalOutputOps": NUM,
    "firstFailureReason": STR_OR_NULL,
}
OPERATION = {
    "outputOpId": NUM, "name": (str,), "description": (str,), "startTime": STR_OR_NULL, "endTime": STR_OR_NULL,
    "duration": NUM_OR_NULL, "failureReason": STR_OR_NULL, "jobIds": (list,),
}


def assert_shape(value: dict[str, Any], shape: dict[str, tuple[type, ...]], non_null: tuple[str, ...] = ()) -> None:
    assert set(value) == set(shape), f"fields differ from Spark's: {sorted(set(value) ^ set(shape))}"
    for key, types in shape.items():
        assert isinstance(value[key], types) and not (isinstance(value[key], bool) and bool not in types), \
            f"{key}={value[key]!r} is not one of {types}"
    for key in non_null:
        assert value[key] is not None, f"{key} is null"


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=WAIT_S) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


class LineServer:
    """A TCP server on 127.0.0.1 that sends each client a few lines, then keeps it open."""

    def __init__(self, lines: list[str]) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.lines = lines
        self.clients: list[socket.socket] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            self.clients.append(client)
            client.sendall("".join(line + "\n" for line in self.lines).encode())

    def close(self) -> None:
        self.sock.close()
        for client in self.clients:
            client.close()


@pytest.fixture
def ui_sc(no_active_context: None) -> Iterator[SparkContext]:
    conf = SparkConf().set("spark.ui.port", "0").set("spark.streaming.ui.retainedBatches", "3")
    sc = SparkContext("local", "streaming-rest", conf=conf)
    try:
        yield sc
    finally:
        sc.stop()


def drain(ssc: StreamingContext) -> None:
    assert ssc._engine.bus.wait_until_empty(WAIT_S), "the streaming listener bus did not drain"
    assert ssc.sparkContext._listener_bus.wait_until_empty(WAIT_S), "the SparkContext's listener bus did not drain"


def wait_until(what: str, condition: Any) -> Any:
    end = time.monotonic() + WAIT_S
    while time.monotonic() < end:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"{what} did not happen within {WAIT_S} s")


def test_streaming_endpoints_have_sparks_shapes(ui_sc: SparkContext) -> None:
    server = LineServer(["a b", "b c", "c"])
    ssc = StreamingContext(ui_sc, 1)
    clock = manual_clock(ssc)

    def slow(rdd: Any) -> None:
        rdd.count()
        clock.advance(250)  # the output operation "takes" 250 ms of manual time

    ssc.queueStream([[1, 2], [3], [4]]).foreachRDD(slow)
    ssc.socketTextStream("127.0.0.1", server.port).count().foreachRDD(lambda rdd: rdd.collect())
    base = f"{ui_sc.uiWebUrl}/api/v1/applications/{ui_sc.applicationId}/streaming"
    ssc.start()
    try:
        wait_until("the receiver's start", lambda: ssc._engine.receiver_tracker.wait_received(0, 0.01)
                   and get(f"{base}/receivers")[0] == 200 and get(f"{base}/receivers")[1][-1]["isActive"])
        assert ssc._engine.receiver_tracker.wait_received(3, WAIT_S), "the receiver did not store the 3 lines"
        advance_batches(ssc, 4)
        drain(ssc)

        status, stats = get(f"{base}/statistics")
        assert status == 200
        assert_shape(stats, STATISTICS, ("avgInputRate", "avgSchedulingDelay", "avgProcessingTime", "avgTotalDelay"))
        assert stats["batchDuration"] == 1000 and stats["numTotalCompletedBatches"] == 4
        assert stats["numRetainedCompletedBatches"] == 3 and stats["numActiveBatches"] == 0
        assert stats["avgProcessingTime"] == 250 and stats["avgSchedulingDelay"] == 0
        assert stats["avgTotalDelay"] == 250
        assert stats["numReceivers"] == 1 and stats["numActiveReceivers"] == 1
        assert stats["numReceivedRecords"] == 3 == stats["numProcessedRecords"]

        status, batches = get(f"{base}/batches")
        assert status == 200 and len(batches) == 3
        for batch in batches:
            assert_shape(batch, BATCH, ("schedulingDelay", "processingTime", "totalDelay"))
        assert batches[0]["batchId"] > batches[-1]["batchId"]
        # Spark's formula, with the configured interval.
        assert stats["avgInputRate"] == pytest.approx(sum(b["inputSize"] for b in batches) * 1000.0 / 1000 / 3)
        assert {b["status"] for b in batches} == {"COMPLETED"}
        assert all(b["numTotalOutputOps"] == 2 == b["numCompletedOutputOps"] for b in batches)

        status, receivers = get(f"{base}/receivers")
        assert status == 200 and [r["streamId"] for r in receivers] == [0, 1]
        for receiver in receivers:
            assert_shape(receiver, RECEIVER)
        socket_receiver = receivers[1]
        assert socket_receiver["isActive"] is True and socket_receiver["executorId"] is not None
        assert len(socket_receiver["eventRates"]) == 3 and all(len(p) == 2 for p in socket_receiver["eventRates"])
        assert get(f"{base}/receivers/1") == (200, socket_receiver)
        assert receivers[0]["streamName"] == "Queue stream [0]"

        batch_id = batches[0]["batchId"]
        assert get(f"{base}/batches/{batch_id}") == (200, batches[0])
        status, ops = get(f"{base}/batches/{batch_id}/operations")
        assert status == 200 and [op["outputOpId"] for op in ops] == [0, 1]
        for op in ops:
            assert_shape(op, OPERATION, ("startTime", "endTime", "duration"))
            assert op["jobIds"], f"output operation {op['outputOpId']} lists no Spark job"
            for job_id in op["jobIds"]:
                job_status, job = get(f"{ui_sc.uiWebUrl}/api/v1/applications/{ui_sc.applicationId}/jobs/{job_id}")
                assert job_status == 200 and job["jobId"] == job_id
        assert ops[0]["duration"] == 250
        assert get(f"{base}/batches/{batch_id}/operations/1") == (200, ops[1])

        assert get(f"{base}/batches/123")[0] == 404
        assert get(f"{base}/batches/{batch_id}/operations/9")[0] == 404
        assert get(f"{base}/receivers/9")[0] == 404
        assert get(f"{base}/batches?status=SOMETIMES")[0] == 400
        assert get(f"{base}/batches/abc")[0] == 400
    finally:
        ssc.stop(stopSparkContext=False)
        server.close()
    assert get(f"{base}/statistics")[0] == 404


def test_a_second_context_on_one_spark_context_and_the_status_line(ui_sc: SparkContext, capsys: Any) -> None:
    from dstream.ui.status_line import enable_status_line

    base = f"{ui_sc.uiWebUrl}/api/v1/applications/{ui_sc.applicationId}/streaming"
    for run in range(2):
        ssc = StreamingContext(ui_sc, 1)
        manual_clock(ssc)
        ssc.queueStream([[1], [2]]).foreachRDD(lambda rdd: rdd.count())
        line = enable_status_line(ssc)
        ssc.start()
        try:
            advance_batches(ssc, 2)
            drain(ssc)
            status, stats = get(f"{base}/statistics")
            assert status == 200 and stats["numTotalCompletedBatches"] == 2, f"run {run}: {stats}"
        finally:
            ssc.stop(stopSparkContext=False)
        ssc.removeStreamingListener(line)
    status_lines = [line for line in capsys.readouterr().err.splitlines() if "dstream.status" in line]
    assert sum("records, scheduling delay" in m for m in status_lines) == 4, status_lines
    assert f"Spark UI at {ui_sc.uiWebUrl}" in status_lines[0]


def test_streaming_without_a_ui(no_active_context: None) -> None:
    sc = SparkContext("local", "no-ui", conf=SparkConf().set("spark.ui.enabled", "false"))
    try:
        assert sc.uiWebUrl is None
        ssc = StreamingContext(sc, 1)
        manual_clock(ssc)
        seen: list[int] = []
        ssc.queueStream([[1, 2]]).foreachRDD(lambda rdd: seen.append(rdd.count()))
        ssc.start()
        try:
            advance_batches(ssc, 1)
        finally:
            ssc.stop(stopSparkContext=False)
        assert seen == [2]
    finally:
        sc.stop()
