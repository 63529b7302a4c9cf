"""BlockGenerator: buffers single records and cuts them into blocks every block interval.

Data flow::

    receiver threads                    timer thread ("BlockTimer-<id>")     pusher thread
    ----------------                    ------------------------------     ("BlockPusher-<id>")
    store(record)                       every blockInterval (clock):       -------------------
      |                                   lock                              take a block
      v                                   swap buffer for []                (blocks if none)
    RateLimiter.acquire(1)  --waits-->    unlock                              |
      |                                   if the old buffer has records:     v
      v                                     Block(new id, records)       listener.on_push_block
    lock; buffer.append(record) ------>     on_generate_block(id)          (store + report
                                            queue.put(block) ---------->    to the driver)
                                            (blocks when blockQueueSize
                                             blocks are waiting)

What this module owns
---------------------
The single-record ``store(item)`` path of a receiver (Spark's ``BlockGenerator``):
the buffer, the rate limit, block cutting on the injected clock, the bounded push queue
and the pushing thread. A block is at most one interval of records and becomes one
partition of a batch's RDD.

Invariants
----------
* States only move forward: ``INITIALIZED -> ACTIVE -> STOPPED_ADDING_DATA ->
  STOPPED_GENERATING_BLOCKS -> STOPPED_ALL``. Records are accepted only while ACTIVE.
* Every record accepted is in exactly one pushed block once :meth:`BlockGenerator.stop`
  returns: stop refuses new data, makes one last cut, then the pusher drains the queue
  before it exits. (Graceful stop relies on this.)
* Appending and cutting happen under one lock, so ``on_add_data`` (called under it by
  :meth:`add_data_with_callback`) and ``on_generate_block`` see a consistent split of
  records into blocks: how a reliable receiver learns which offsets are in which block.
* Block order is preserved: blocks are pushed in the order they were cut.

The timer waits on an injected :class:`~dstream.clock.Clock`: a
:class:`~dstream.clock.ManualClock` in unit tests (advance it, a block is cut), the
system clock otherwise. The cut of :meth:`BlockGenerator.cut` is callable directly too.
"""

from __future__ import annotations

import enum
import logging
import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from dstream.clock import Clock, SystemClock
from dstream.receiver.errors import ReceiverStateError
from dstream.receiver.rate_limiter import RateLimiter

__all__ = [
    "Block",
    "BlockGenerator",
    "BlockGeneratorListener",
    "BlockGeneratorStatistics",
    "GeneratorState",
]

logger = logging.getLogger(__name__)


class GeneratorState(enum.Enum):
    INITIALIZED = "initialized"
    ACTIVE = "active"
    STOPPED_ADDING_DATA = "stopped adding data"
    STOPPED_GENERATING_BLOCKS = "stopped generating blocks"
    STOPPED_ALL = "stopped"


@dataclass(frozen=True, slots=True)
class Block:
    """A cut block: its id and its records, in arrival order."""

    block_id: str
    records: list[Any]


@dataclass(frozen=True, slots=True)
class BlockGeneratorStatistics:
    """Counters of a :class:`BlockGenerator` (approximate while it runs)."""

    records_added: int
    blocks_generated: int
    blocks_pushed: int
    queued_blocks: int
    rate_limit: float | None


class BlockGeneratorListener(Protocol):
    """What a block generator reports to (the receiver supervisor)."""

    def on_add_data(self, data: Any, metadata: Any) -> None:
        """Called under the generator lock after ``add_data_with_callback`` appended ``data``."""

    def on_generate_block(self, block_id: str) -> None:
        """Called under the generator lock when a block is cut."""

    def on_push_block(self, block_id: str, records: list[Any]) -> None:
        """Called on the pusher thread to store and report a block."""

    def on_error(self, message: str, error: BaseException) -> None:
        """Called when pushing a block failed (the generator keeps going)."""


_STOP = object()


class BlockGenerator:
    """Cut records into blocks every ``block_interval_ms`` and push them in order.

    Parameters
    ----------
    listener
        Receives the callbacks (see :class:`BlockGeneratorListener`).
    stream_id
        For thread names and messages.
    new_block_id
        Returns a fresh, unique block id for each cut.
    block_interval_ms
        ``spark.streaming.blockInterval`` (200 ms).
    queue_size
        ``spark.streaming.blockQueueSize`` (10): blocks waiting to be pushed before the
        timer blocks (and records keep accumulating in the buffer).
    rate_limiter
        The receiver's :class:`RateLimiter` (unlimited if ``None``).
    clock
        Drives the cuts.
    sleep
        How a store waits for the rate limit (default: a wait that stopping interrupts);
        tests pass one that moves a fake time.
    """

    def __init__(
        self,
        listener: BlockGeneratorListener,
        stream_id: int,
        new_block_id: Callable[[], str],
        block_interval_ms: int = 200,
        queue_size: int = 10,
        rate_limiter: RateLimiter | None = None,
        clock: Clock | None = None,
        sleep: Callable[[float], Any] | None = None,
    ) -> None:
        if block_interval_ms <= 0:
            raise ValueError(f"block_interval_ms must be positive, got {block_interval_ms}")
        self._listener = listener
        self.stream_id = stream_id
        self._new_block_id = new_block_id
        self.block_interval_ms = block_interval_ms
        self._clock: Clock = clock if clock is not None else SystemClock()
        self._stop_event = threading.Event()
        # Waiting on the stop event: stopping wakes a store held by the limit at once.
        self._sleep = sleep if sleep is not None else self._stop_event.wait
        self.rate_limiter = rate_limiter if rate_limiter is not None else RateLimiter(None)
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=queue_size)
        self._lock = threading.Lock()
        self._buffer: list[Any] = []
        self._state = GeneratorState.INITIALIZED
        self._timer: threading.Thread | None = None
        self._pusher: threading.Thread | None = None
        self._records_added = 0
        self._blocks_generated = 0
        self._blocks_pushed = 0
        self._pushed = threading.Condition()
        self._ticked = threading.Condition()
        self._last_tick: int | None = None
        self._first_tick = 0

    # -- lifecycle -----------------------------------------------------------------------
    @property
    def state(self) -> GeneratorState:
        return self._state

    def start(self) -> None:
        """Start cutting and pushing blocks."""
        with self._lock:
            if self._state is not GeneratorState.INITIALIZED:
                raise ReceiverStateError(
                    f"the block generator of stream {self.stream_id} cannot start in state "
                    f"'{self._state.value}'; a generator starts once"
                )
            self._state = GeneratorState.ACTIVE
            interval = self.block_interval_ms
            self._first_tick = (self._clock.now_ms() // interval + 1) * interval
        self._timer = threading.Thread(
            target=self._run_timer, name=f"BlockTimer-{self.stream_id}", daemon=True
        )
        self._pusher = threading.Thread(
            target=self._run_pusher, name=f"BlockPusher-{self.stream_id}", daemon=True
        )
        self._timer.start()
        self._pusher.start()

    def stop(self, timeout: float = 10.0) -> bool:
        """Refuse new records, cut the last block, push every queued block, then return.

        Returns ``False`` if the threads did not finish within ``timeout`` seconds (a
        block push that hangs); the generator is then abandoned in its current state.
        """
        with self._lock:
            if self._state is GeneratorState.INITIALIZED:
                self._state = GeneratorState.STOPPED_ALL
                return True
            if self._state is not GeneratorState.ACTIVE:
                return True
            self._state = GeneratorState.STOPPED_ADDING_DATA
        # Wake the timer (and any store sleeping on the rate limiter): it makes the last cut.
        self._stop_event.set()
        self._clock.interrupt()
        ok = True
        timer = self._timer
        if timer is not None and timer is not threading.current_thread():
            timer.join(timeout)
            ok = not timer.is_alive()
        pusher = self._pusher
        if pusher is not None and pusher is not threading.current_thread():
            pusher.join(timeout)
            ok = ok and not pusher.is_alive()
        if ok:
            self._state = GeneratorState.STOPPED_ALL
        else:
            logger.warning(
                "the block generator of stream %d did not stop within %.1f s",
                self.stream_id,
                timeout,
            )
        return ok

    # -- adding data (receiver threads) --------------------------------------------------
    def _check_active(self) -> None:
        if self._state is not GeneratorState.ACTIVE:
            raise ReceiverStateError(
                f"cannot store data: the block generator of stream {self.stream_id} is "
                f"'{self._state.value}' (the receiver is stopping or has not started)"
            )

    def add_data(self, record: Any) -> None:
        """Buffer one record, waiting first for the rate limit."""
        self._check_active()
        self._throttle(1)
        with self._lock:
            self._check_active()
            self._buffer.append(record)
            self._records_added += 1

    def _throttle(self, records: int) -> None:
        wait = self.rate_limiter.reserve(records)
        if wait > 0:
            self._sleep(wait)

    def add_multiple(self, records: Iterable[Any]) -> int:
        """Buffer many records at once (one limiter wait, one lock); return how many."""
        batch = records if isinstance(records, list) else list(records)
        if not batch:
            return 0
        self._check_active()
        rate = self.rate_limiter.rate
        # Under a limit, feed the records in slices of a tenth of a block's share, so a
        # big read cannot land in one block: each block holds at most 1.1x its share.
        step = len(batch) if rate is None else max(1, int(rate * self.block_interval_ms / 10_000))
        for start in range(0, len(batch), step):
            part = batch[start : start + step] if step < len(batch) else batch
            self._throttle(len(part))
            with self._lock:
                self._check_active()
                self._buffer.extend(part)
                self._records_added += len(part)
        return len(batch)

    def add_data_with_callback(self, record: Any, metadata: Any) -> None:
        """Buffer one record and call ``on_add_data(record, metadata)`` under the cut lock."""
        self._check_active()
        self._throttle(1)
        with self._lock:
            self._check_active()
            self._buffer.append(record)
            self._records_added += 1
            self._listener.on_add_data(record, metadata)

    def update_rate(self, rate: float) -> None:
        """Apply a new rate limit (backpressure); ignored if ``rate <= 0``."""
        self.rate_limiter.update_rate(rate)

    # -- cutting (timer thread) ----------------------------------------------------------
    def cut(self) -> Block | None:
        """Swap the buffer for an empty one and queue its records as a block, if any."""
        with self._lock:
            if not self._buffer:
                return None
            records, self._buffer = self._buffer, []
            block = Block(self._new_block_id(), records)
            self._blocks_generated += 1
            self._listener.on_generate_block(block.block_id)
        # Outside the lock: a full queue must block the timer, never the receivers.
        self._queue.put(block)
        return block

    def _run_timer(self) -> None:
        clock = self._clock
        interval = self.block_interval_ms
        next_tick = self._first_tick
        try:
            while not self._stop_event.is_set():
                if clock.wait_till_time(next_tick, self._stop_event) is None:
                    break
                self.cut()
                with self._ticked:
                    self._last_tick = next_tick
                    self._ticked.notify_all()
                next_tick += interval
            # Stopping: the last cut holds everything accepted before STOPPED_ADDING_DATA.
            self.cut()
        except BaseException as exc:  # noqa: BLE001 - reported, and the pusher must still end
            logger.exception("the block timer of stream %d failed", self.stream_id)
            self._listener.on_error("Error in the block generator timer", exc)
        finally:
            self._state = GeneratorState.STOPPED_GENERATING_BLOCKS
            self._queue.put(_STOP)

    # -- pushing (pusher thread) ---------------------------------------------------------
    def _run_pusher(self) -> None:
        get = self._queue.get
        while True:
            block = get()
            if block is _STOP:
                return
            try:
                self._listener.on_push_block(block.block_id, block.records)
            except BaseException as exc:  # noqa: BLE001 - report; later blocks still go out
                logger.error(
                    "pushing block %s of stream %d failed",
                    block.block_id,
                    self.stream_id,
                    exc_info=exc,
                )
                self._listener.on_error(f"Error pushing block {block.block_id}", exc)
            with self._pushed:
                self._blocks_pushed += 1
                self._pushed.notify_all()

    # -- introspection ---------------------------------------------------------------------
    def statistics(self) -> BlockGeneratorStatistics:
        return BlockGeneratorStatistics(
            self._records_added,
            self._blocks_generated,
            self._blocks_pushed,
            self._queue.qsize(),
            self.rate_limiter.rate,
        )

    def wait_pushed(self, blocks: int, timeout: float) -> bool:
        """Block until ``blocks`` blocks have been pushed in total; ``False`` on timeout."""
        with self._pushed:
            return self._pushed.wait_for(lambda: self._blocks_pushed >= blocks, timeout)

    def wait_ticked(self, time_ms: int, timeout: float) -> bool:
        """Block until the timer has cut every tick up to ``time_ms``; ``False`` on timeout."""
        interval = self.block_interval_ms
        last_due = (time_ms // interval) * interval
        if last_due < self._first_tick:
            return True
        with self._ticked:
            return self._ticked.wait_for(
                lambda: self._last_tick is not None and self._last_tick >= last_due, timeout
            )

    def __repr__(self) -> str:
        return f"<BlockGenerator stream={self.stream_id} state={self._state.value}>"
