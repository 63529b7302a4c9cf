"""socketTextStream end to end against real ``nc -lk``: typing, server loss, bad bytes.

Batches run on a ManualClock; receiving is real (a TCP client thread in the driver), so
each test waits, with a deadline, until the tracker has the lines, then runs the batch.
"""

from __future__ import annotations

import logging
from operator import add
from typing import Any

import pytest

from dstream.testing import advance_batches, collect_batches, manual_clock
from tests.receiver.contexts import SSC, receiver_conf
from tests.receiver.helpers import WAIT, wait_until
from tests.receiver.servers import Netcat, free_port, have_netcat

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        not have_netcat(), reason="nc is not installed (run scripts/ensure-netcat.sh)"
    ),
]


def word_counts(ssc: Any, port: int) -> list[Any]:
    lines = ssc.socketTextStream("127.0.0.1", port)
    counts = lines.flatMap(lambda line: line.split(" ")).map(lambda w: (w, 1)).reduceByKey(add)
    return collect_batches(counts)


def received(ssc: Any, lines: int) -> None:
    assert ssc._engine.receiver_tracker.wait_received(lines, WAIT), (
        f"the receiver did not store {lines} lines within {WAIT} s "
        f"(it has {ssc._engine.receiver_tracker.block_tracker.received_records()})"
    )


@pytest.mark.parametrize("master", ["local", "local[2]"])
def test_lines_typed_into_nc_are_counted(make_sc: Any, master: str) -> None:
    port = free_port()
    with Netcat(port) as nc:
        ssc = SSC(make_sc(master, receiver_conf()), 1)
        manual_clock(ssc)
        out = word_counts(ssc, port)
        ssc.start()
        try:
            nc.type("to be or not to be\n")
            received(ssc, 1)
            advance_batches(ssc, 1)
            nc.type("be quick\nto the point\n")
            received(ssc, 3)
            advance_batches(ssc, 2)
        finally:
            ssc.stop(stopSparkContext=False)
    assert [sorted(batch) for batch in out] == [
        [("be", 2), ("not", 1), ("or", 1), ("to", 2)],
        [("be", 1), ("point", 1), ("quick", 1), ("the", 1), ("to", 1)],
        [],
    ]


def test_the_server_goes_away_and_comes_back(
    make_sc: Any, caplog: pytest.LogCaptureFixture
) -> None:
    port = free_port()
    ssc = SSC(make_sc("local", receiver_conf()), 1)
    manual_clock(ssc)
    out = word_counts(ssc, port)
    with caplog.at_level(logging.WARNING, logger="dstream.receiver.supervisor"):
        with Netcat(port) as nc:
            ssc.start()
            nc.type("alpha beta\n")
            received(ssc, 1)
            advance_batches(ssc, 1)
        # nc is gone: the stream keeps running (empty batches) and the receiver retries.
        try:
            advance_batches(ssc, 2)
            supervisor = ssc._engine.receiver_tracker.supervisor(0)
            # One restart for the lost connection, one for a refused reconnection.
            wait_until(lambda: supervisor.restarts >= 2, "a refused reconnection attempt")
            with Netcat(port) as nc:
                nc.type("alpha again\n")
                received(ssc, 2)
                advance_batches(ssc, 1)
        finally:
            ssc.stop(stopSparkContext=False)
    assert [sorted(b) for b in out] == [
        [("alpha", 1), ("beta", 1)],
        [],
        [],
        [("again", 1), ("alpha", 1)],
    ]
    warnings = [r.getMessage() for r in caplog.records]
    assert any("no more data" in w for w in warnings), warnings
    assert any(f"Error connecting to 127.0.0.1:{port}" in w and "refused" in w for w in warnings), (
        warnings
    )


def test_invalid_utf8_from_nc_is_replaced(make_sc: Any) -> None:
    port = free_port()
    with Netcat(port) as nc:
        ssc = SSC(make_sc("local", receiver_conf()), 1)
        manual_clock(ssc)
        out = collect_batches(ssc.socketTextStream("127.0.0.1", port))
        ssc.start()
        try:
            nc.type(b"caf\xc3\xa9 ok\n\xff\xfe broken\nplain\n")
            received(ssc, 3)
            advance_batches(ssc, 1)
            error = ssc._engine.waiter.error
        finally:
            ssc.stop(stopSparkContext=False)
    assert error is None
    assert out == [["café ok", "\ufffd\ufffd broken", "plain"]]
