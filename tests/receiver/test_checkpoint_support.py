"""What a checkpointed graph needs from the live inputs: picklable state and reattaching."""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from rdd.storage.level import StorageLevel

from dstream.inputs.file import FileInputNode
from dstream.inputs.receiver_input import ReceiverInputNode
from dstream.inputs.socket import SocketReceiver
from tests.receiver.contexts import SSC, receiver_conf


def test_receivers_pickle_without_their_engine_parts() -> None:
    receiver = SocketReceiver("localhost", 9999, StorageLevel.MEMORY_AND_DISK_2)
    copy = pickle.loads(pickle.dumps(receiver))
    assert (copy.host, copy.port, copy.storageLevel) == (
        "localhost",
        9999,
        StorageLevel.MEMORY_AND_DISK_2,
    )
    assert copy.isStopped() and copy._socket is None


def test_nodes_drop_context_bound_parts_and_reattach(make_sc: Any, tmp_path: Path) -> None:
    sc = make_sc("local", receiver_conf())
    ssc = SSC(sc, 1)
    receiver_node = ssc.socketTextStream("localhost", 9999)._stream_node
    file_node = ssc.textFileStream(str(tmp_path))._stream_node
    assert isinstance(receiver_node, ReceiverInputNode) and isinstance(file_node, FileInputNode)

    state = receiver_node.__getstate__()
    assert state["tracker"] is None and state["_before_start"] is None
    pickle.dumps(state["receiver"])
    restored = object.__new__(ReceiverInputNode)
    restored.__dict__.update(state)
    other = SSC(sc, 1)  # the engine a restored graph is attached to
    restored.attach(other._engine)
    assert restored.tracker is other._engine.receiver_tracker
    assert other._engine.receiver_tracker.stream_ids == [receiver_node.input_id]

    fstate = file_node.__getstate__()
    assert fstate["_clock_source"] is None
    restored_file = object.__new__(FileInputNode)
    restored_file.__dict__.update(fstate)
    restored_file.attach(other._engine)
    assert restored_file._clock_source is not None
    assert restored_file._clock_source() is other._engine.clock
    ssc.stop(stopSparkContext=False)
    other.stop(stopSparkContext=False)
