"""The ``rate``, ``rate-micro-batch`` and ``socket`` sources through the Source contract.

Each test creates the provider, calls ``latest_offset``/``get_batch`` as the engine does,
and collects the returned plan as a batch DataFrame. Time comes from the session's
manual streaming clock (``spark.sql.streaming.clock=manual``), advanced by the tests;
the socket source reads from a real TCP server on 127.0.0.1, and every wait for it has
a deadline.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dstream.clock import ManualClock
from dstream.sql import AnalysisException, SparkSession
from dstream.sql.errors import IllegalArgumentException
from dstream.sql.local_data import attributes_of
from dstream.sql.streaming.clock import streaming_clock
from dstream.sql.streaming.formats import source_provider
from dstream.sql.streaming.relation import ArrowRDDRelation
from dstream.sql.streaming.sources.base import Source
from dstream.sql.streaming.sources.rate import value_at_second
from dstream.sql.types import LongType, StringType, StructField, StructType, TimestampType

EPOCH = dt.datetime(1970, 1, 1)
WAIT_S = 10.0


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    session = SparkSession.builder.master("local").appName("test-rate-socket").getOrCreate()
    session.conf.set("spark.sql.session.timeZone", "UTC")
    session.conf.set("spark.sql.streaming.clock", "manual")
    yield session
    session.stop()


@pytest.fixture
def clock(spark: SparkSession) -> ManualClock:
    """The session's manual clock, set back to 0 for each test."""
    manual = streaming_clock(spark)
    assert isinstance(manual, ManualClock)
    manual.set_time(0)
    return manual


class Started:
    """A source created the engine's way, with its output attributes."""

    def __init__(self, spark: SparkSession, fmt: str, options: dict[str, str], metadata_path: Path) -> None:
        provider = source_provider(fmt)
        lowered = {k.lower(): v for k, v in options.items()}
        self.schema = provider.schema(spark, lowered, None)
        self.output = attributes_of(self.schema)
        self.source: Source = provider.create(spark, lowered, self.schema, str(metadata_path))
        self.spark = spark

    def rows(self, start: Any, end: Any) -> list[tuple[Any, ...]]:
        plan = self.source.get_batch(start, end, self.output)
        assert plan.output() == self.output
        return [tuple(r) for r in self.spark._new_dataframe(plan).collect()]


def ts(ms: float) -> dt.datetime:
    return EPOCH + dt.timedelta(milliseconds=ms)


# --------------------------------------------------------------------------- rate


def test_rate_schema_and_option_errors(spark: SparkSession) -> None:
    provider = source_provider("rate")
    assert provider.schema(spark, {}, None) == StructType(
        [StructField("timestamp", TimestampType(), True), StructField("value", LongType(), True)])
    cases = [({"rowspersecond": "0"}, "The option 'rowsPerSecond' must be positive"),
             ({"rowspersecond": "ten"}, "option 'rowsPerSecond': it must be a whole number"),
             ({"rampuptime": "-5s"}, "The option 'rampUpTime' must not be negative"),
             ({"rampuptime": "5 parsecs"}, "option 'rampUpTime': it must be a duration"),
             ({"numpartitions": "0"}, "The option 'numPartitions' must be positive")]
    for options, message in cases:
        with pytest.raises(IllegalArgumentException, match=message):
            provider.schema(spark, options, None)
    with pytest.raises(AnalysisException, match="rate does not support user-specified schema"):
        provider.schema(spark, {}, StructType([StructField("x", LongType())]))


def test_rate_offsets_are_whole_seconds_of_the_streaming_clock(spark: SparkSession, clock: ManualClock,
                                                               tmp_path: Path) -> None:
    clock.set_time(50_000)
    rate = Started(spark, "rate", {"rowsPerSecond": "10"}, tmp_path)
    assert rate.source.latest_offset(None, True) is None  # second 0: nothing produced yet
    clock.advance(999)
    assert rate.source.latest_offset(None, True) is None
    clock.advance(1)
    assert rate.source.latest_offset(None, True) == 1
    clock.advance(2500)
    assert rate.source.latest_offset(1, True) == 3
    # Spark's description, its missing closing bracket included (as PySpark prints it).
    assert rate.source.description == "RateStreamV2[rowsPerSecond=10, rampUpTimeSeconds=0, numPartitions=default"
    split = Started(spark, "rate", {"rowsPerSecond": "10", "numPartitions": "3"}, tmp_path / "split")
    assert split.source.description.endswith("numPartitions=3")


def test_rate_rows_are_spread_over_their_seconds_and_dealt_to_partitions(spark: SparkSession, clock: ManualClock,
                                                                         tmp_path: Path) -> None:
    clock.set_time(7_000)
    rate = Started(spark, "rate", {"rowsPerSecond": "10", "numPartitions": "3"}, tmp_path)
    clock.advance(2_000)
    end = rate.source.latest_offset(None, False)
    assert end == 2
    plan = rate.source.get_batch(None, end, rate.output)
    assert isinstance(plan, ArrowRDDRelation)
    parts = plan.rdd.glom().collect()
    assert len(parts) == 3
    values = [[v for batch in part for v in batch.column(1).to_pylist()] for part in parts]
    assert values == [list(range(p, 20, 3)) for p in range(3)]
    rows = sorted(rate.rows(None, end), key=lambda r: r[1])
    assert rows == [(ts(7_000 + 100 * v), v) for v in range(20)]
    # The next batch continues the count and the time.
    clock.advance(1_000)
    assert sorted(rate.rows(2, rate.source.latest_offset(2, False)), key=lambda r: r[1]) == [
        (ts(9_000 + 100 * (v - 20)), v) for v in range(20, 30)]


def test_rate_ramp_up_grows_linearly_then_holds(spark: SparkSession, clock: ManualClock, tmp_path: Path) -> None:
    assert [value_at_second(s, 10, 4) for s in range(8)] == [0, 2, 6, 12, 20, 30, 40, 50]
    rate = Started(spark, "rate", {"rowsPerSecond": "10", "rampUpTime": "4s", "numPartitions": "2"}, tmp_path)
    clock.advance(6_000)
    assert rate.source.latest_offset(None, False) == 6
    counts = [len(rate.rows(s, s + 1)) for s in range(6)]
    assert counts == [2, 4, 6, 8, 10, 10]
    # Second (1, 2] holds values 2..5, a quarter of a second apart.
    assert sorted(rate.rows(1, 2), key=lambda r: r[1]) == [(ts(1_000 + 250 * i), 2 + i) for i in range(4)]


def test_rate_restart_keeps_the_start_time_and_the_sequence(spark: SparkSession, clock: ManualClock,
                                                            tmp_path: Path) -> None:
    metadata = tmp_path / "sources" / "0"
    clock.set_time(3_000)
    first = Started(spark, "rate", {"rowsPerSecond": "5", "numPartitions": "2"}, metadata)
    clock.advance(4_000)
    assert first.source.latest_offset(None, False) == 4
    batch = first.rows(2, 4)
    first.source.stop()
    assert (metadata / "0").read_text() == "v1\n3000"
    clock.advance(60_000)  # the restart happens much later
    again = Started(spark, "rate", {"rowsPerSecond": "5", "numPartitions": "2"}, metadata)
    assert again.rows(2, 4) == batch  # a re-run batch reads the same rows
    assert again.source.latest_offset(4, False) == 64
    assert min(r[1] for r in again.rows(4, 5)) == 20  # and the count goes on
    fresh = Started(spark, "rate", {"rowsPerSecond": "5"}, tmp_path / "other")
    assert fresh.source.latest_offset(None, False) is None  # a new query starts its own clock


def test_rate_available_now_stops_at_the_time_it_was_prepared(spark: SparkSession, clock: ManualClock,
                                                              tmp_path: Path) -> None:
    rate = Started(spark, "rate", {"rowsPerSecond": "2"}, tmp_path)
    clock.advance(3_000)
    rate.source.prepare_for_available_now()
    clock.advance(10_000)
    assert rate.source.latest_offset(None, False) == 3
    assert rate.source.latest_offset(3, False) == 3


def test_rate_large_batches_are_chunked_in_the_tasks(spark: SparkSession, clock: ManualClock, tmp_path: Path) -> None:
    from dstream.sql import functions as F

    rate = Started(spark, "rate", {"rowsPerSecond": "3000000", "numPartitions": "2"}, tmp_path)
    clock.advance(1_000)
    plan = rate.source.get_batch(None, 1, rate.output)
    df = spark._new_dataframe(plan)
    started = time.perf_counter()
    row = df.agg(F.count("value"), F.min("value"), F.max("value"), F.max("timestamp")).collect()[0]
    elapsed = time.perf_counter() - started
    assert tuple(row) == (3_000_000, 0, 2_999_999, ts(_java_round(2_999_999 * (1_000 / 3_000_000))))
    assert elapsed < 30, f"3M rate rows took {elapsed:.1f} s"


def _java_round(x: float) -> int:
    return math.floor(x + 0.5)


@settings(max_examples=40)
@given(rows_per_second=st.integers(1, 50), ramp=st.integers(0, 5), parts=st.integers(1, 4),
       start=st.integers(0, 8), length=st.integers(0, 4), start_ms=st.integers(0, 10**12))
def test_rate_rows_match_a_plain_python_model(spark: SparkSession, tmp_path_factory: pytest.TempPathFactory,
                                              rows_per_second: int, ramp: int, parts: int, start: int, length: int,
                                              start_ms: int) -> None:
    clock = streaming_clock(spark)
    assert isinstance(clock, ManualClock)
    clock.set_time(start_ms)
    rate = Started(spark, "rate", {"rowsPerSecond": str(rows_per_second), "rampUpTime": str(ramp),
                                   "numPartitions": str(parts)}, tmp_path_factory.mktemp("rate"))

    def produced(second: int) -> int:  # the sum of each second's speed
        delta = rows_per_second // (ramp + 1)
        return sum(delta * s if s <= ramp else rows_per_second for s in range(1, second + 1))

    end = start + length
    first, stop = produced(start), produced(end)
    per_value = (end - start) * 1000 / (stop - first) if stop > first else 0.0
    expected = [(EPOCH + dt.timedelta(milliseconds=_java_round(start_ms + start * 1000 + (v - first) * per_value)),
                 v) for p in range(parts) for v in range(first + p, stop, parts)]
    assert rate.rows(start or None, end) == expected


def test_rate_micro_batch_offsets_rows_and_options(spark: SparkSession, clock: ManualClock, tmp_path: Path) -> None:
    provider = source_provider("rate-micro-batch")
    with pytest.raises(IllegalArgumentException, match="The option 'rowsPerBatch' must be positive"):
        provider.schema(spark, {}, None)
    with pytest.raises(IllegalArgumentException, match="The option 'startTimestamp' must be non-negative"):
        provider.schema(spark, {"rowsperbatch": "1", "starttimestamp": "-1"}, None)
    with pytest.raises(IllegalArgumentException, match="The option 'advanceMillisPerBatch' must be non-negative"):
        provider.schema(spark, {"rowsperbatch": "1", "advancemillisperbatch": "-1"}, None)
    rate = Started(spark, "rate-micro-batch", {"rowsPerBatch": "4", "numPartitions": "2", "startTimestamp": "5000",
                                               "advanceMillisPerBatch": "250"}, tmp_path)
    assert rate.source.description == ("RatePerMicroBatchStream[rowsPerBatch=4, numPartitions=2, "
                                       "startTimestamp=5000, advanceMsPerBatch=250]")  # Spark's text
    first = rate.source.latest_offset(None, True)
    assert first == {"offsetValue": 4, "offsetTs": 5250}
    assert rate.source.latest_offset(None, True) == first  # a function of the start, not of the calls
    assert rate.rows(None, first) == [(ts(5000), 0), (ts(5000), 2), (ts(5000), 1), (ts(5000), 3)]
    second = rate.source.latest_offset(first, True)
    assert second == {"offsetValue": 8, "offsetTs": 5500}
    assert sorted(rate.rows(first, second)) == [(ts(5250), v) for v in range(4, 8)]
    clock.advance(100_000)  # time does not matter to this source
    assert rate.source.latest_offset(second, True) == {"offsetValue": 12, "offsetTs": 5750}
    with pytest.raises(IllegalArgumentException, match="is not a rate-micro-batch offset"):
        rate.rows(3, second)


def test_rate_micro_batch_available_now_runs_one_batch(spark: SparkSession, tmp_path: Path) -> None:
    rate = Started(spark, "rate-micro-batch", {"rowsPerBatch": "3"}, tmp_path)
    rate.source.prepare_for_available_now()
    target = rate.source.latest_offset(None, True)
    assert target == {"offsetValue": 3, "offsetTs": 1000}
    assert rate.source.latest_offset(target, True) == target


# --------------------------------------------------------------------------- socket


class LineServer:
    """A TCP server on 127.0.0.1 that accepts one client and sends what the test says."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(WAIT_S)
        self.port = self.listener.getsockname()[1]
        self.client: socket.socket | None = None
        self._accepted = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        try:
            self.client, _ = self.listener.accept()
        except OSError:
            return
        self._accepted.set()

    def send(self, data: bytes) -> None:
        assert self._accepted.wait(WAIT_S), "the socket source did not connect within the deadline"
        assert self.client is not None
        self.client.sendall(data)

    def close_client(self) -> None:
        assert self.client is not None
        self.client.close()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        self.listener.close()
        self._thread.join(WAIT_S)


@pytest.fixture
def server() -> Iterator[LineServer]:
    srv = LineServer()
    yield srv
    srv.close()


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {WAIT_S} s")
        time.sleep(0.01)


def test_socket_lines_are_offsets_and_batches(spark: SparkSession, clock: ManualClock, server: LineServer,
                                              tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="dstream.sql.streaming.sources.socket"):
        sock = Started(spark, "socket", {"host": "127.0.0.1", "port": str(server.port)}, tmp_path)
    assert "does not support recovery" in caplog.text
    assert sock.schema == StructType([StructField("value", StringType(), True)])
    assert sock.source.description == f"TextSocketV2[host: 127.0.0.1, port: {server.port}]"
    try:
        assert sock.source.latest_offset(None, False) is None
        server.send("hello\nwörld\r\nthird".encode())
        wait_until(lambda: sock.source.latest_offset(None, False) == 2, "two lines arriving")
        assert sock.rows(None, 2) == [("hello",), ("wörld",)]
        server.send(b" line\n")
        wait_until(lambda: sock.source.latest_offset(2, False) == 3, "the third line")
        assert sock.rows(2, 3) == [("third line",)]
        assert sock.rows(None, 3) == [("hello",), ("wörld",), ("third line",)]
        sock.source.commit(2)
        assert sock.rows(2, 3) == [("third line",)]
        with pytest.raises(IllegalArgumentException, match=r"cannot re-read lines \(0, 3\]"):
            sock.rows(None, 3)
        with pytest.raises(IllegalArgumentException, match="Offsets committed out of order: 2 followed by 1"):
            sock.source.commit(1)
        server.send(b"no newline")
        server.close_client()  # the last line counts when the server closes
        wait_until(lambda: sock.source.latest_offset(3, False) == 4, "the unterminated line")
        assert sock.rows(3, 4) == [("no newline",)]
    finally:
        sock.source.stop()


def test_socket_include_timestamp_uses_the_streaming_clock(spark: SparkSession, clock: ManualClock,
                                                           server: LineServer, tmp_path: Path) -> None:
    sock = Started(spark, "socket", {"host": "127.0.0.1", "port": str(server.port), "includeTimestamp": "TRUE"},
                   tmp_path)
    try:
        assert sock.schema.names == ["value", "timestamp"]
        clock.set_time(1_700_000_000_123)
        server.send(b"a\n")
        wait_until(lambda: sock.source.latest_offset(None, False) == 1, "a line")
        clock.advance(1_000)
        server.send(b"b\n")
        wait_until(lambda: sock.source.latest_offset(1, False) == 2, "another line")
        assert sock.rows(None, 2) == [("a", ts(1_700_000_000_123)), ("b", ts(1_700_000_001_123))]
    finally:
        sock.source.stop()


def test_socket_stop_closes_and_joins_promptly(spark: SparkSession, server: LineServer, tmp_path: Path) -> None:
    sock = Started(spark, "socket", {"host": "127.0.0.1", "port": str(server.port)}, tmp_path)
    server.send(b"x\n")
    wait_until(lambda: sock.source.latest_offset(None, False) == 1, "a line")
    reader = sock.source._thread  # type: ignore[attr-defined]
    started = time.monotonic()
    sock.source.stop()  # the server keeps its end open: stop must not wait for it
    assert not reader.is_alive()
    assert time.monotonic() - started < 2.0


def test_socket_option_errors_and_refused_connection(spark: SparkSession, tmp_path: Path) -> None:
    provider = source_provider("socket")
    cases = [({"port": "9999"}, r'Set a host to read from with option\("host", ...\)'),
             ({"host": "localhost"}, r'Set a port to read from with option\("port", ...\)'),
             ({"host": "localhost", "port": "http"}, "Port must be an integer"),
             ({"host": "localhost", "port": "1", "includetimestamp": "yes"},
              'includeTimestamp must be set to either "true" or "false"')]
    for options, message in cases:
        with pytest.raises(AnalysisException, match=message):
            provider.schema(spark, options, None)
    with pytest.raises(AnalysisException, match="socket does not support user-specified schema"):
        provider.schema(spark, {"host": "h", "port": "1"}, StructType([StructField("v", StringType())]))
    probe = socket.create_server(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()  # nothing listens there any more
    with pytest.raises(IllegalArgumentException, match=f"socket source's server 127.0.0.1:{port}:"):
        Started(spark, "socket", {"host": "127.0.0.1", "port": str(port)}, tmp_path)


# --------------------------------------------------------------------------- workers (last: it replaces the context)


def test_rate_rows_are_computed_in_worker_processes(sc2: Any, tmp_path: Path) -> None:
    session = SparkSession(sc2, [("spark.sql.session.timeZone", "UTC"), ("spark.sql.streaming.clock", "manual")])
    rate = Started(session, "rate", {"rowsPerSecond": "50", "numPartitions": "4"}, tmp_path)
    clock = streaming_clock(session)
    assert isinstance(clock, ManualClock)
    clock.advance(3_000)
    rows = rate.rows(None, rate.source.latest_offset(None, False))
    assert sorted(v for _, v in rows) == list(range(150))
    assert sorted(rows, key=lambda r: r[1])[149] == (ts(_java_round(149 * 3_000 / 150)), 149)
