"""A driver killed with SIGKILL and restarted with getOrCreate counts every stored line once.

The driver (``wal_driver``) is an ordinary application: the receiver write-ahead log on,
``ssc.checkpoint(dir)``, ``StreamingContext.getOrCreate(dir, create)``, a
``socketTextStream`` from a real server on 127.0.0.1, and per-batch output files that a
re-run batch rewrites with the same content.

1. First run: lines are sent; once the driver reports every line stored (written to
   the log and reported), it is killed with SIGKILL (``all-stored``), or it is killed
   while lines keep arriving and stays down for several batch intervals
   (``mid-stream``). Its batches are slower than the interval, so at that moment some
   batches are done, some generated and pending, and some stored blocks are in no
   batch yet.
2. Second run, same command: ``getOrCreate`` recovers (``create`` is not called), the
   pending batches run again at their own times from the logged blocks, the blocks
   that were in no batch go to the next batch. The driver is then stopped with SIGTERM
   (graceful, ``stopGracefullyOnShutdown`` comes back from the checkpoint's conf).
3. The union of the batch files holds every line exactly once (every line stored
   before the kill, and in ``mid-stream`` possibly a few more, never a duplicate), a batch file written
   before the crash has the same content after its batch ran again, and the first
   run's log segments (received data and block metadata) were deleted once their
   batches were processed.
"""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest

from tests.integration.wal_driver import DEADLINE, Driver, outputs
from tests.receiver.servers import LineServer

pytestmark = [pytest.mark.integration, pytest.mark.slow, pytest.mark.timeout(240)]


def segments(directory: Path) -> set[str]:
    return {p.name for p in directory.glob("log-*")} if directory.is_dir() else set()


class Sender:
    """Sends numbered lines to the server's client until stopped (or the client is gone)."""

    def __init__(self, server: LineServer, per_chunk: int = 100, pause: float = 0.05) -> None:
        self.sent = 0
        self._server = server
        self._per_chunk = per_chunk
        self._pause = pause
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            chunk = "".join(f"line-{i}\n" for i in range(self.sent, self.sent + self._per_chunk))
            try:
                self._server.send(chunk)
            except (OSError, AssertionError):
                return
            self.sent += self._per_chunk
            self._stop.wait(self._pause)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(DEADLINE)


@pytest.mark.parametrize("mode", ["all-stored", "mid-stream"])
def test_every_line_stored_before_a_sigkill_is_counted_exactly_once(tmp_path: Path, mode: str) -> None:
    checkpoint, out = tmp_path / "checkpoint", tmp_path / "out"
    out.mkdir()
    total = 3000
    args = ["--checkpoint", str(checkpoint), "--out", str(out), "--batch", "0.5"]
    with LineServer() as server:
        args += ["--port", str(server.port)]
        first = Driver(*args, batch_cost=1.2)
        try:
            first.wait_line(lambda x: x == "created", "created")
            server.wait_connections(1, DEADLINE)
            if mode == "all-stored":
                for start in range(0, total, 300):
                    server.send("".join(f"line-{i}\n" for i in range(start, start + 300)))
                    time.sleep(0.2)  # spread the lines over several blocks and batches
                first.wait_received(total)
            else:
                # Killed while lines keep arriving: some are read and not yet stored.
                sender = Sender(server)
                try:
                    first.wait_received(1500)
                    first.kill()
                finally:
                    sender.stop()
        finally:
            first.kill()
        assert first.proc.returncode == -signal.SIGKILL
        stored = first.received()  # a lower bound: more may have been stored after the print
        assert stored >= (total if mode == "all-stored" else 1500)
        before = outputs(out)
        assert len(before) < stored, "every batch finished before the kill: the test proves nothing"
        assert len(before) == len(set(before))
        files_before = {p.name: p.read_text() for p in out.glob("batch-*.json")}
        received_log = checkpoint / "receivedData" / "0"
        metadata_log = checkpoint / "receivedBlockMetadata"
        first_segments = segments(received_log)
        first_metadata = segments(metadata_log)
        assert first_segments and first_metadata, "the driver wrote no write-ahead log"
        server.drop()
        if mode == "mid-stream":
            time.sleep(2.0)  # down for several batch intervals: they run at restart

        second = Driver(*args)
        try:
            started = second.wait_line(lambda x: x.startswith("started"), "started")
            assert not any(x == "created" for x in second.lines), "getOrCreate did not recover"
            deadline = time.monotonic() + DEADLINE
            while len(outputs(out)) < stored and time.monotonic() < deadline:
                time.sleep(0.05)

            def old_segments() -> set[str]:
                return (segments(received_log) & first_segments) | (
                    segments(metadata_log) & first_metadata
                )

            # Processed batches' segments go once later batches complete.
            while old_segments() and time.monotonic() < deadline:
                time.sleep(0.05)
            left = old_segments()
            second.signal(signal.SIGTERM)
            rc = second.wait()
        finally:
            second.kill()
    assert rc == 128 + signal.SIGTERM, second.stderr[-3000:]
    assert "Traceback" not in second.stderr, second.stderr[-3000:]
    after = outputs(out)
    assert len(after) == len(set(after)), (
        f"{len(after) - len(set(after))} lines were counted twice ({started})"
    )
    # Lines are stored in order, so what survived is a prefix: at least every line the
    # driver reported stored, and nothing it never received.
    assert len(after) >= stored, f"{stored - len(after)} stored lines were lost ({started})"
    assert sorted(after) == sorted(f"line-{i}" for i in range(len(after)))
    if mode == "all-stored":
        assert len(after) == total
    # A batch that had finished before the crash and ran again wrote the same lines.
    for name, text in files_before.items():
        assert (out / name).read_text() == text, f"{name} changed when its batch ran again"
    assert not left, f"log segments of the first run were never deleted: {sorted(left)}"
