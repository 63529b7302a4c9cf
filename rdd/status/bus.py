"""Ordered, asynchronous delivery of listener events on one thread.

What this module owns
---------------------
:class:`ListenerBus`: a bounded queue of events and one daemon thread that hands each
event to every registered listener, in posting order. The engine's threads (the job
runner, the executors' reader, the streaming job generator) only append to the queue,
so a slow listener delays a job or a batch at most once, by the catch-up wait below.
:class:`LiveListenerBus` is the bus
of one ``SparkContext`` (``sc._listener_bus``); :class:`SparkListener` is the base of
listeners with Spark's callback names.

Invariants
----------
* Events reach each listener in the order they were posted; one event is delivered to
  all listeners before the next one is taken. A listener gets every event posted after
  its ``add_listener`` returned, and none posted after its ``remove_listener`` returned,
  even while the thread is delivering.
* A listener receives an event through its ``on_event(event)`` when it has one, else
  through the method the event's ``_callback`` names (``onJobStart``...), if it has it.
* A listener that raises is logged (with its traceback) and counted; delivery goes on,
  to the same listener too.
* The queue is bounded (``capacity``); when full, new events are dropped and counted
  rather than blocking the engine. The first drop is logged as a warning.
* A post that finds the queue three-quarters full first waits, at most
  :data:`CATCH_UP_WAIT_S`, for the delivery thread to bring it down to half. The engine's
  threads share one interpreter lock with the delivery thread, and a loop of tiny jobs
  holds it so tightly that even a fast listener (the UI's status store) would fall
  behind and lose events; waiting on a condition gives it the lock. A wait that times
  out means a listener is slow, not starved: posts then drop as above, without waiting,
  until the queue has emptied, so a slow listener costs the engine one such wait. The
  delivery thread itself never waits (a listener may post).
* ``post`` with no listener registered is a no-op (the fast path). ``post`` takes no
  lock (an append to the queue); only waking an idle delivery thread does.
* ``post_deferred(build, *args)`` is a post whose events are built on the delivery
  thread, in their place in the posting order; a ``build`` that raises is logged and
  counted like a listener that raises. A queued item counts as one towards the capacity
  and the statistics, however many events it builds. ``build`` may be the code
  :meth:`ListenerBus.builder_code` gave for it: a queued item of plain values and a code
  holds no reference the garbage collector must follow (see that method).
* With a ``linger`` (the context's bus: 50 ms), an event is delivered within that
  delay, or at once when someone waits (``wait_until_empty``, ``stop``).
* An idle delivery thread is woken by the first post after it went idle, however posts
  and waiters race: only the thread waits on its wake-up condition (callers of
  ``wait_until_empty`` wait on another), and it marks itself idle before every look at
  the queue, also after a wake-up whose event it had already taken.
* ``stop`` delivers what is queued (bounded by its timeout), then ends the thread.
  Events posted after ``stop`` are dropped silently.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_CAPACITY", "ListenerBus", "ListenerBusStatistics", "LiveListenerBus", "SparkListener"]

_log = logging.getLogger(__name__)

#: Spark's ``spark.scheduler.listenerbus.eventqueue.capacity`` default. Large enough for
#: minutes of jobs; bounded so a stuck listener costs memory proportional to this.
DEFAULT_CAPACITY = 10_000
CAPACITY_KEY = "spark.scheduler.listenerbus.eventqueue.capacity"
#: How long a context's events may wait for delivery: short for the UI's 200 ms refresh,
#: long enough that a loop of tiny jobs does not wake the delivery thread per event.
LINGER_S = 0.05
#: The longest a post waits for a starved delivery thread to catch up (see the module doc):
#: ample for a fast listener to take a quarter of a full queue, once per overflow.
CATCH_UP_WAIT_S = 0.5


@dataclass(frozen=True, slots=True)
class ListenerBusStatistics:
    """Counters of a :class:`ListenerBus`."""

    queued: int
    delivered: int
    dropped: int
    listener_errors: int


class ListenerBus:
    """Deliver events to listeners on a dedicated thread.

    Parameters
    ----------
    name : str
        The thread's name, also used in log messages.
    capacity : int
        How many undelivered events the queue holds before it drops new ones.
    logger : logging.Logger, optional
        Where failures and drops are logged (default: this module's logger).
    linger : float
        Seconds an event may wait before the delivery thread looks for it (0: it is
        woken at once). With a linger, ``post`` does not wake an idle thread (until the
        queue is half full): the thread looks every ``linger`` seconds and takes what
        accumulated, so a busy poster does not pay a thread switch per event.
        ``wait_until_empty`` and ``stop`` wake it at once.
    """

    def __init__(self, name: str = "ListenerBus", capacity: int = DEFAULT_CAPACITY,
                 logger: logging.Logger | None = None, linger: float = 0.0) -> None:
        if capacity < 1:
            raise ValueError(f"listener bus capacity must be positive, got {capacity}; "
                             f"set {CAPACITY_KEY} to a positive number of events")
        self._name = name
        self._capacity = capacity
        self._log = logger or _log
        self._linger = linger
        # Copy-on-write: the delivery thread iterates a snapshot without a lock.
        self._listeners: tuple[Any, ...] = ()
        self._watchers: tuple[Callable[[], None], ...] = ()
        self._builders: list[Callable[..., Iterable[Any]]] = []  # builder_code -> builder
        self._queue: deque[Any] = deque()
        # Two conditions on one lock: the delivery thread alone waits on _wakeup, so the
        # single notify of a post always reaches it (with waiters on the same condition, a
        # notify could go to one of them, and the thread slept on with events queued).
        lock = threading.Lock()
        self._wakeup = threading.Condition(lock)
        self._drained = threading.Condition(lock)  # wait_until_empty's waiters
        self._room = threading.Condition(lock)  # posters waiting for the thread to catch up
        self._high_water = max(1, capacity * 3 // 4)
        self._low_water = capacity // 2
        self._room_waiters = 0
        self._catch_up = True  # False from a timed-out wait until the queue is empty
        self._idle = False  # the delivery thread waits for an event: a post must wake it
        self._busy = False
        self._stopping = False
        self._thread: threading.Thread | None = None
        self._delivered = 0
        self._dropped = 0
        self._errors = 0

    # -- registration ----------------------------------------------------------------
    def add_listener(self, listener: Any) -> None:
        """Register ``listener``; it receives the events posted from now on."""
        with self._wakeup:
            self._listeners = (*self._listeners, listener)
        self._listeners_changed()

    # Spark's name, for code written against SparkContext.addSparkListener habits.
    addListener = add_listener  # noqa: N815

    def remove_listener(self, listener: Any) -> None:
        """Remove ``listener`` (compared by identity); unknown listeners are ignored."""
        with self._wakeup:
            self._listeners = tuple(lst for lst in self._listeners if lst is not listener)
        self._listeners_changed()

    def watch_listeners(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` after each change of the listeners, on the changing thread.

        For a poster that builds costly events only while someone listens (a StreamingContext
        forwards its events here only then).
        """
        with self._wakeup:
            self._watchers = (*self._watchers, callback)

    def unwatch_listeners(self, callback: Callable[[], None]) -> None:
        """Stop calling ``callback`` (compared by equality, so a bound method can be given again)."""
        with self._wakeup:
            self._watchers = tuple(w for w in self._watchers if w != callback)

    def _listeners_changed(self) -> None:
        for callback in self._watchers:
            callback()

    @property
    def listeners(self) -> tuple[Any, ...]:
        return self._listeners

    # -- lifecycle -------------------------------------------------------------------
    def start(self) -> None:
        """Start the delivery thread (idempotent)."""
        with self._wakeup:
            if self._thread is not None:
                return
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    @property
    def stopped(self) -> bool:
        return self._stopping

    def stop(self, timeout: float = 10.0) -> bool:
        """Deliver the queued events, then end the thread; return ``False`` on timeout."""
        with self._wakeup:
            self._stopping = True
            self._wakeup.notify_all()
            self._room.notify_all()
            thread = self._thread
        if thread is None or thread is threading.current_thread():
            return True
        thread.join(timeout)
        if thread.is_alive():
            self._log.warning(
                "%s did not finish delivering within %.1f s; %d event(s) left undelivered",
                self._name, timeout, len(self._queue),
            )
            return False
        return True

    # -- posting ---------------------------------------------------------------------
    def post(self, event: Any) -> None:
        """Queue ``event`` for delivery; waits for listeners only as the module doc says (a queue
        three-quarters full, at most :data:`CATCH_UP_WAIT_S`)."""
        if self._listeners:
            self._enqueue(event)

    def builder_code(self, build: Callable[..., Iterable[Any]]) -> int:
        """A code standing for ``build`` in :meth:`post_deferred`, for the bus's lifetime.

        A queued post is a tuple; one that holds a function (a tracked object) is carried by
        the garbage collector through its generations until delivered, and the engine's
        loops of small jobs then pay a collection every few hundred posts. A tuple of plain
        values (numbers, strings, ``None``, dicts of them) is dropped from the collector's
        books at its first collection: a code keeps the builder out of the tuple.
        """
        with self._wakeup:
            self._builders.append(build)
            return len(self._builders) - 1

    def post_deferred(self, build: Callable[..., Iterable[Any]] | int, *args: Any) -> None:
        """Queue ``build(*args)``: the delivery thread calls it and delivers the events it returns.

        For a poster on the engine's critical path (the job reporter): it snapshots the
        facts it owns into ``args`` (cheap), and building the event objects is left to the
        delivery thread. ``build`` runs on that thread, in posting order with the other
        posts; what it raises is logged and counted like a listener's failure. ``build``
        may be given by its :meth:`builder_code`.
        """
        if self._listeners:
            # One tuple per queued post (the call's own args tuple dies here): what waits in
            # the queue for the linger outlives young garbage collections, and each tracked
            # object it holds makes them, and the full ones it is promoted to, cost more.
            self._enqueue((build, *args))

    def _enqueue(self, item: Any) -> None:
        # No lock on this path: deque.append is atomic, and the delivery thread marks
        # itself idle *before* it looks at the queue, so a post that reads _idle False
        # is always seen by that look (see _run).
        if self._stopping:
            return
        queue = self._queue
        if len(queue) >= self._high_water and self._catch_up:
            self._wait_for_room()
        if len(queue) >= self._capacity:
            self._drop()
            return
        queue.append(item)
        if self._idle and (not self._linger or len(queue) * 2 >= self._capacity):
            with self._wakeup:
                self._wake_idle()

    def _wake_idle(self) -> None:
        """Wake the delivery thread if it is idle (the caller holds the lock)."""
        if self._idle:
            self._idle = False
            self._wakeup.notify()

    def _wait_for_room(self) -> None:
        if self._thread is None or threading.current_thread() is self._thread:
            return  # not started, or a listener posting: the queue only shrinks when it returns
        with self._wakeup:
            self._wake_idle()
            self._room_waiters += 1
            try:
                caught_up = self._room.wait_for(
                    lambda: len(self._queue) <= self._low_water or self._stopping, CATCH_UP_WAIT_S)
            finally:
                self._room_waiters -= 1
            if not caught_up:
                self._catch_up = False

    def _drop(self) -> None:
        with self._wakeup:
            self._dropped += 1
            first = self._dropped == 1
        if first:
            self._log.warning(
                "%s queue is full (%d events): dropping events; a listener is too slow "
                "(raise %s to queue more)", self._name, self._capacity, CAPACITY_KEY,
            )

    def wait_until_empty(self, timeout: float) -> bool:
        """Block until every posted event has been delivered; ``False`` on timeout."""
        deadline = time.monotonic() + timeout
        with self._wakeup:
            if self._queue:
                self._wake_idle()  # no lingering: someone waits for these events
            while self._queue or self._busy:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return False
                self._drained.wait(remaining)
            return True

    def statistics(self) -> ListenerBusStatistics:
        with self._wakeup:
            return ListenerBusStatistics(len(self._queue), self._delivered, self._dropped, self._errors)

    # -- delivery thread -------------------------------------------------------------
    def _run(self) -> None:
        while True:
            with self._wakeup:
                # Idle is set before the queue is looked at: a lock-free post that reads
                # _idle False has appended before this look and is taken by it.
                self._idle = True
                while not self._queue and not self._stopping:
                    # With a linger the thread looks every `linger` seconds (posts do not
                    # wake it); wait_until_empty and stop cut the wait short.
                    self._wakeup.wait(self._linger or None)
                    # Idle again before the next look: the post that woke this thread set it
                    # False, and its event may have gone with the last drain, so the queue
                    # can be empty here; waiting on with _idle False, no post would wake it.
                    self._idle = True
                self._idle = False
                if not self._queue:
                    self._drained.notify_all()
                    return
                self._busy = True
            delivered = 0
            try:
                delivered = self._drain()
            finally:
                with self._wakeup:
                    self._busy = False
                    self._delivered += delivered
                    if not self._queue:
                        self._catch_up = True
                        self._drained.notify_all()
                        self._room.notify_all()

    def _drain(self) -> int:
        """Deliver queued items until the queue is empty; return how many were taken."""
        listeners: tuple[Any, ...] | None = None
        targets: list[tuple[Any, Any]] = []
        queue = self._queue
        taken = 0
        while queue:
            item = queue.popleft()
            taken += 1
            if self._room_waiters and len(queue) <= self._low_water:
                with self._wakeup:
                    self._room.notify_all()
            if self._listeners is not listeners:
                # Each listener's entry point, looked up again only when the listeners changed
                # (the tuple is replaced on each change), also during this drain: an event
                # posted after add_listener returned must reach the new listener.
                listeners = self._listeners
                targets = [(listener, getattr(listener, "on_event", None)) for listener in listeners]
            if type(item) is tuple:  # a post_deferred: (build, *args); events are never tuples
                build = item[0]
                if type(build) is int:
                    build = self._builders[build]
                try:
                    events: Iterable[Any] = build(*item[1:])
                except Exception:
                    self._failed(f"event builder {build!r}", "building events")
                    continue
            else:
                events = (item,)
            for event in events:
                for listener, on_event in targets:
                    self._deliver(listener, on_event, event)
        return taken

    def _failed(self, who: str, during: str) -> None:
        with self._wakeup:
            self._errors += 1
        self._log.exception("%s raised in %s; the bus carries on", who, during)

    def _deliver(self, listener: Any, callback: Any, event: Any) -> None:
        if callback is None:
            callback = getattr(listener, event._callback, None)
            if callback is None:
                return
        try:
            callback(event)
        except Exception:
            self._failed(f"listener {listener!r}", getattr(event, "_callback", type(event).__name__))


class LiveListenerBus(ListenerBus):
    """The listener bus of one SparkContext (Spark's ``LiveListenerBus``).

    Created and started with the context; ``SparkContext.stop`` posts
    ``SparkListenerApplicationEnd``, then stops it once that event is delivered.
    """

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        super().__init__("spark-listener-group-shared", capacity, linger=LINGER_S)


class SparkListener:
    """Base of listeners with Spark's callback names (``onJobStart``, ``onTaskEnd``...).

    :meth:`on_event` calls the method the event's ``_callback`` names; a subclass
    overrides only the callbacks it needs (the others do nothing), or ``onOtherEvent``
    for events without a callback of their own here (the streaming events).
    """

    def on_event(self, event: Any) -> None:
        callback = getattr(self, getattr(event, "_callback", ""), None)
        if callback is None:
            self.onOtherEvent(event)
        else:
            callback(event)

    def onApplicationStart(self, event: Any) -> None: ...  # noqa: N802 - Spark's callback names
    def onApplicationEnd(self, event: Any) -> None: ...  # noqa: N802
    def onEnvironmentUpdate(self, event: Any) -> None: ...  # noqa: N802
    def onJobStart(self, event: Any) -> None: ...  # noqa: N802
    def onJobEnd(self, event: Any) -> None: ...  # noqa: N802
    def onStageSubmitted(self, event: Any) -> None: ...  # noqa: N802
    def onStageCompleted(self, event: Any) -> None: ...  # noqa: N802
    def onTaskStart(self, event: Any) -> None: ...  # noqa: N802
    def onTaskEnd(self, event: Any) -> None: ...  # noqa: N802
    def onExecutorAdded(self, event: Any) -> None: ...  # noqa: N802
    def onExecutorRemoved(self, event: Any) -> None: ...  # noqa: N802
    def onBlockUpdated(self, event: Any) -> None: ...  # noqa: N802
    def onUnpersistRDD(self, event: Any) -> None: ...  # noqa: N802
    def onOtherEvent(self, event: Any) -> None: ...  # noqa: N802
