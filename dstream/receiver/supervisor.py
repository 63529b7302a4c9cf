"""ReceiverSupervisor: runs one receiver on a driver thread, restarts it, stores its blocks.

Data flow::

    Receiver.store(record) ----> BlockGenerator --(block every interval)--+
    Receiver.store([records]) ---------------------(synchronous)----------+
                                                                          v
                       handler.store_block (block manager, and the log first if enabled)
                                                                          v
                                 host.add_block(ReceivedBlockInfo)  (the ReceiverTracker)

    Receiver.restart()/stop(), supervisor.stop() --> command queue --> lifecycle thread

What this module owns
---------------------
* The lifecycle of one receiver, on one thread ("ReceiverSupervisor-<id>") that takes
  commands from a queue, so start, stop and restart never race each other. The
  receiver's state is ``INITIALIZED -> STARTED <-> STOPPED`` (restart goes through
  STOPPED), and ``TERMINATED`` once the supervisor itself ends.
* Register-before-start (Spark's handshake): ``onStart`` runs only after the host
  accepted the registration; a refused registration (the tracker is stopping) ends the
  supervisor.
* Restarts: ``onStop`` then a wait of ``spark.streaming.receiverRestartDelay`` (or the
  delay given), interruptible by stop, then register and ``onStart`` again; forever, a
  warning each time. An exception from ``onStart`` is a restart too (Spark relaunches the
  receiver without delay; waiting the delay avoids a busy loop). Restart requests are
  stamped with the generation of the run they came from, so a stale request from a
  previous run's thread cannot restart the new run.
* The block generator outlives receiver restarts (records buffered before a restart are
  not lost) and is stopped, flushing every record, when the supervisor stops.

Invariant: once :meth:`ReceiverSupervisor.stop` returns ``True``, every record any
``store`` call accepted has been stored and reported to the host.
"""

from __future__ import annotations

import enum
import itertools
import logging
import queue
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from dstream.clock import Clock, SystemClock
from dstream.receiver.block import ReceivedBlockInfo, stream_block_id
from dstream.receiver.block_generator import BlockGenerator
from dstream.receiver.block_handler import ReceivedBlockHandler
from dstream.receiver.errors import ReceiverError, ReceiverStateError
from dstream.receiver.rate_limiter import RateLimiter
from dstream.receiver.receiver import Receiver
from dstream.receiver.settings import ReceiverSettings
from dstream.time import format_ms

__all__ = ["ReceiverState", "ReceiverSupervisor", "SupervisorHost"]

logger = logging.getLogger(__name__)


class ReceiverState(enum.Enum):
    INITIALIZED = "initialized"
    STARTED = "started"
    STOPPED = "stopped"
    TERMINATED = "terminated"


class SupervisorHost(Protocol):
    """The driver side a supervisor reports to (the :class:`ReceiverTracker`)."""

    def register_receiver(self, stream_id: int, name: str) -> bool: ...

    def deregister_receiver(
        self, stream_id: int, message: str, error: BaseException | None
    ) -> None: ...

    def add_block(self, info: ReceivedBlockInfo) -> bool: ...

    def report_error(self, stream_id: int, message: str, error: BaseException | None) -> None: ...


@dataclass(frozen=True, slots=True)
class _Restart:
    generation: int
    message: str
    error: BaseException | None
    delay_ms: int


@dataclass(frozen=True, slots=True)
class _Stop:
    message: str
    error: BaseException | None


class ReceiverSupervisor:
    """Supervise ``receiver`` for input stream ``stream_id``.

    Parameters
    ----------
    receiver
        The user's receiver.
    stream_id
        Its input stream id.
    host
        Where registrations, blocks and errors go.
    handler
        Stores blocks (block manager, write-ahead log).
    settings
        Block interval, queue size, restart delay, rate limits.
    clock
        Drives block cutting (the system clock outside tests).
    """

    def __init__(
        self,
        receiver: Receiver[Any],
        stream_id: int,
        host: SupervisorHost,
        handler: ReceivedBlockHandler,
        settings: ReceiverSettings,
        clock: Clock | None = None,
    ) -> None:
        self.receiver = receiver
        self.stream_id = stream_id
        self.name = type(receiver).__name__
        self._host = host
        self._handler = handler
        self._settings = settings
        # Ids start at the wall-clock time (Spark): unique across driver restarts too.
        self._block_ids = itertools.count(time.time_ns() // 1_000_000)
        # No saved-up burst: a block then never holds more than maxRate x blockInterval
        # records (plus one slice), even right after an idle period.
        self.rate_limiter = RateLimiter(settings.first_rate, settings.max_rate, max_burst_s=0.0)
        self.block_generator = BlockGenerator(
            self,
            stream_id,
            self._next_block_id,
            settings.block_interval_ms,
            settings.block_queue_size,
            self.rate_limiter,
            clock if clock is not None else SystemClock(),
        )
        self._commands: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._state = ReceiverState.INITIALIZED
        self._state_lock = threading.Lock()
        self._generation = 0
        self._thread: threading.Thread | None = None
        self._terminated = threading.Event()
        self.restarts = 0
        self.stop_error: BaseException | None = None
        receiver._attach(self, stream_id)

    # -- state -------------------------------------------------------------------------
    @property
    def state(self) -> ReceiverState:
        return self._state

    @property
    def is_receiver_started(self) -> bool:
        return self._state is ReceiverState.STARTED

    @property
    def is_terminated(self) -> bool:
        return self._terminated.is_set()

    def _next_block_id(self) -> str:
        return stream_block_id(self.stream_id, next(self._block_ids))

    # -- lifecycle (driver) ----------------------------------------------------------------
    def start(self) -> None:
        """Start the block generator and the receiver, on the supervisor's own thread."""
        if self._thread is not None:
            raise ReceiverStateError(
                f"the supervisor of stream {self.stream_id} was already started"
            )
        self.block_generator.start()
        self._thread = threading.Thread(
            target=self._run, name=f"ReceiverSupervisor-{self.stream_id}", daemon=True
        )
        self._thread.start()

    def stop(self, message: str = "Stopped by driver", timeout: float = 10.0) -> bool:
        """Stop the receiver and flush its data; ``False`` if that took longer than ``timeout``."""
        self._commands.put(_Stop(message, None))
        thread = self._thread
        if thread is None:
            self.block_generator.stop(timeout)
            self._state = ReceiverState.TERMINATED
            self._terminated.set()
            return True
        if thread is threading.current_thread():
            return False
        if not self._terminated.wait(timeout):
            logger.warning(
                "receiver %s of stream %d did not stop within %.1f s (onStart or onStop may block, "
                "or a block store hangs)",
                self.name,
                self.stream_id,
                timeout,
            )
            return False
        return True

    def await_termination(self, timeout: float | None = None) -> bool:
        return self._terminated.wait(timeout)

    # -- requests from the receiver (any thread) ---------------------------------------
    def request_restart(
        self, message: str, error: BaseException | None = None, delay_ms: int | None = None
    ) -> None:
        delay = self._settings.restart_delay_ms if delay_ms is None else max(0, delay_ms)
        self._commands.put(_Restart(self._generation, message, error, delay))

    def request_stop(self, message: str, error: BaseException | None = None) -> None:
        self._commands.put(_Stop(message, error))

    def report_error(self, message: str, error: BaseException | None) -> None:
        logger.warning(
            "Error reported by receiver %s of stream %d: %s%s",
            self.name,
            self.stream_id,
            message,
            f" - {error}" if error is not None else "",
        )
        self._host.report_error(self.stream_id, message, error)

    # -- data (receiver threads) -------------------------------------------------------
    def push_single(self, record: Any) -> None:
        self.block_generator.add_data(record)

    def push_many(self, records: Iterable[Any]) -> int:
        """Buffer many single records at once (the fast path of the built-in receivers)."""
        return self.block_generator.add_multiple(records)

    def push_block(
        self, records: list[Any], metadata: Any = None, block_id: str | None = None
    ) -> None:
        """Store ``records`` as one block synchronously and report it (reliable store)."""
        if self._terminated.is_set():
            raise ReceiverStateError(
                f"receiver {self.name} of stream {self.stream_id} has stopped; it cannot store data"
            )
        wait = self.rate_limiter.reserve(len(records))
        if wait > 0:
            self._terminated.wait(wait)
        self._push_and_report(block_id or self._next_block_id(), records, metadata)

    def update_rate(self, rate: float) -> None:
        self.block_generator.update_rate(rate)

    def _push_and_report(self, block_id: str, records: list[Any], metadata: Any) -> None:
        if not records:
            return
        result = self._handler.store_block(block_id, records)
        info = ReceivedBlockInfo(
            self.stream_id, block_id, result.num_records, metadata, result.wal_handle
        )
        if not self._host.add_block(info):
            self._handler.remove_block(block_id)
            raise ReceiverError(
                f"block {block_id} of stream {self.stream_id} was stored but the driver refused "
                "it (the receiver tracker is stopped); its records are dropped"
            )

    # -- BlockGeneratorListener ----------------------------------------------------------
    def on_add_data(self, data: Any, metadata: Any) -> None:
        return None

    def on_generate_block(self, block_id: str) -> None:
        return None

    def on_push_block(self, block_id: str, records: list[Any]) -> None:
        self._push_and_report(block_id, records, None)

    def on_error(self, message: str, error: BaseException) -> None:
        self.report_error(message, error)

    # -- the lifecycle thread ------------------------------------------------------------
    def _run(self) -> None:
        stop: _Stop | None = None
        try:
            if self._start_receiver():
                stop = self._loop()
            else:
                stop = _Stop("Registration refused by the driver", None)
        except BaseException as exc:  # noqa: BLE001 - the thread must end cleanly
            logger.exception(
                "the supervisor of receiver %s (stream %d) failed", self.name, self.stream_id
            )
            stop = _Stop("Supervisor failed", exc)
        finally:
            message = stop.message if stop is not None else "Stopped"
            error = stop.error if stop is not None else None
            self.stop_error = error
            self._stop_receiver(message, error, final=True)
            self.block_generator.stop()  # a no-op unless the receiver never started
            self._state = ReceiverState.TERMINATED
            self._terminated.set()

    def _loop(self) -> _Stop:
        get = self._commands.get
        while True:
            command = get()
            if isinstance(command, _Stop):
                return command
            if command.generation != self._generation:
                continue  # a request from an earlier run of the receiver
            stop = self._restart(command)
            if stop is not None:
                return stop

    def _restart(self, command: _Restart) -> _Stop | None:
        self.restarts += 1
        reason = (
            f"{command.message}: {command.error}" if command.error is not None else command.message
        )
        logger.warning(
            "Restarting receiver %s of stream %d in %s: %s",
            self.name,
            self.stream_id,
            format_ms(command.delay_ms),
            reason,
        )
        if command.error is not None:
            self._host.report_error(self.stream_id, command.message, command.error)
        self._stop_receiver(
            f"Restarting receiver with delay {command.delay_ms}ms: {command.message}", command.error
        )
        deadline = time.monotonic() + command.delay_ms / 1000.0
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            try:
                pending = self._commands.get(timeout=remaining)
            except queue.Empty:
                break
            if isinstance(pending, _Stop):
                return pending
            # Further restart requests while waiting are the same failure: ignore them.
        if not self._start_receiver():
            return _Stop("Registration refused by the driver", None)
        return None

    def _start_receiver(self) -> bool:
        """Register, then ``onStart``; an ``onStart`` error schedules a restart."""
        if not self._host.register_receiver(self.stream_id, self.name):
            logger.warning(
                "receiver %s of stream %d: registration refused by the driver",
                self.name,
                self.stream_id,
            )
            return False
        with self._state_lock:
            self._generation += 1
            self._state = ReceiverState.STARTED
        logger.info("Starting receiver %s of stream %d", self.name, self.stream_id)
        try:
            self.receiver.onStart()
        except Exception as exc:  # noqa: BLE001 - Spark: an onStart error stops this run
            # The restart's warning names the error; one line per failure is enough.
            logger.debug(
                "receiver %s of stream %d failed to start", self.name, self.stream_id, exc_info=exc
            )
            self.request_restart("Error starting receiver", exc)
        return True

    def _stop_receiver(self, message: str, error: BaseException | None,
                       final: bool = False) -> None:
        """``onStop``, then deregister; ``final``: flush the block generator in between.

        After ``onStop`` no record can be stored, so flushing there pushes and reports
        the last buffered records before ``onReceiverStopped`` reads the receiver's
        ``receivedRecords()``: the count then includes them.
        """
        with self._state_lock:
            if self._state is not ReceiverState.STARTED:
                return
            self._state = ReceiverState.STOPPED
        try:
            self.receiver.onStop()
        except Exception:  # noqa: BLE001 - logged, never thrown (Spark)
            logger.exception("receiver %s of stream %d: onStop failed", self.name, self.stream_id)
        if final:
            self.block_generator.stop()
        try:
            self._host.deregister_receiver(self.stream_id, message, error)
        except Exception:  # noqa: BLE001
            logger.exception(
                "deregistering receiver %s of stream %d failed", self.name, self.stream_id
            )

    def __repr__(self) -> str:
        return f"<ReceiverSupervisor {self.name} stream={self.stream_id} state={self._state.value}>"
