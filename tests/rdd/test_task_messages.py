"""The driver's messages to a worker: large buffers beside the pickle, read back whole.

Over a real socket pair, the driver's ``multiprocessing`` end sending and the worker's
``FdConnection`` reading, as a task travels.
"""

from __future__ import annotations

import pickle
import socket
import threading
from multiprocessing.connection import Connection
from typing import Any

from rdd.executor.fd_connection import FdConnection
from rdd.executor.messages import recv_message, send_message
from rdd.nodes.parallel import _SerializedSlice
from rdd.serialization.serializer import OUT_OF_BAND_MIN_BYTES, dumps_records, loads_records


def _pair() -> tuple[Connection, FdConnection]:
    ours, theirs = socket.socketpair()
    return Connection(ours.detach()), FdConnection(theirs.detach())


def _send_while_reading(driver: Connection, worker: Any, messages: list[Any], read: Any) -> list[Any]:
    """Send ``messages`` while another thread reads them with ``read`` (a large one fills the socket)."""
    received: list[Any] = []
    reader = threading.Thread(target=lambda: received.extend(read(worker) for _ in messages))
    reader.start()
    for message in messages:
        send_message(driver, message)
    reader.join(30)
    assert not reader.is_alive(), "the reader did not get every message within 30 s"
    return received


def test_a_large_buffer_travels_beside_the_pickle_and_comes_back_equal() -> None:
    big = bytes(range(256)) * 8192  # 2 MiB
    message = ("task", {"id": 7}, pickle.PickleBuffer(big), b"small", [pickle.PickleBuffer(big[:10])])
    driver, worker = _pair()
    try:
        [got] = _send_while_reading(driver, worker, [message], recv_message)
    finally:
        driver.close()
        worker.close()
    kind, spec, large, small, [tiny] = got
    assert (kind, spec, small) == ("task", {"id": 7}, b"small")
    assert bytes(large) == big and bytes(tiny) == big[:10]


def test_the_first_frame_holds_the_pickle_without_the_buffers() -> None:
    big = b"x" * (3 * OUT_OF_BAND_MIN_BYTES)
    driver, worker = _pair()
    try:
        frames = _send_while_reading(driver, worker, [("task", pickle.PickleBuffer(big))],
                                     lambda w: [w.recv_bytes(), w.recv_bytes()])
    finally:
        driver.close()
        worker.close()
    [[head, buffer]] = frames
    assert head[0] == 1, "frame 0 counts one buffer"
    assert len(head) < 100, f"the buffer was copied into the pickle ({len(head)} bytes)"
    assert bytes(buffer) == big


def test_a_serialized_slice_keeps_the_received_buffer_and_reads_back_its_records() -> None:
    records = [f"line {i}" for i in range(50_000)]
    sliced = _SerializedSlice(dumps_records(records))
    assert len(sliced.payload) >= OUT_OF_BAND_MIN_BYTES
    driver, worker = _pair()
    try:
        [got, small] = _send_while_reading(driver, worker, [sliced, _SerializedSlice(dumps_records([1, 2]))],
                                           recv_message)
    finally:
        driver.close()
        worker.close()
    assert loads_records(got.payload) == records
    assert loads_records(small.payload) == [1, 2]
    # In band (no buffer_callback, any protocol): the same slice.
    for protocol in (2, 5):
        assert loads_records(pickle.loads(pickle.dumps(sliced, protocol)).payload) == records


def test_messages_in_a_row_keep_their_order_and_eof_ends_the_reader() -> None:
    driver, worker = _pair()
    messages = [("stop",), ("remove_rdd", 3), ("task", pickle.PickleBuffer(b"y" * 200_000))]
    try:
        got = _send_while_reading(driver, worker, messages, recv_message)
        driver.close()
        try:
            recv_message(worker)
        except EOFError:
            pass
        else:
            raise AssertionError("a closed driver must read as EOFError")
    finally:
        worker.close()
    assert got[:2] == messages[:2]
    assert got[2][0] == "task" and bytes(got[2][1]) == b"y" * 200_000
