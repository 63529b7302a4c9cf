"""Receiver: the public base class of custom live sources (Spark's Scala ``Receiver`` API).

What this module owns
---------------------
The user-facing half of a receiver: the callbacks a subclass implements (``onStart``,
``onStop``) and the calls it makes (``store``, ``restart``, ``stop``, ``reportError``,
``isStarted``, ``isStopped``). Every call is forwarded to the
:class:`~dstream.receiver.supervisor.ReceiverSupervisor` that runs the receiver; the
engine side lives there. PySpark never had this class; the names and semantics are
Scala's, with Python durations in seconds.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from rdd import StorageLevel

from dstream.receiver.errors import ReceiverStateError

if TYPE_CHECKING:
    from dstream.receiver.supervisor import ReceiverSupervisor

__all__ = ["Receiver"]

T = TypeVar("T")


class Receiver(Generic[T]):
    """Base class of a custom source: subclass it, then ``ssc.receiverStream(MyReceiver())``.

    A receiver runs in the driver, supervised by the streaming engine. When the
    StreamingContext starts, the engine calls :meth:`onStart`, which must **not block**:
    it opens connections and starts the threads that read the source and call
    :meth:`store`. When the context stops (or the receiver restarts), the engine calls
    :meth:`onStop`, which releases what ``onStart`` acquired; reading threads should loop
    ``while not self.isStopped()``.

    Two ways to store data:

    * ``store(record)`` — one record. It is buffered and cut into blocks every
      ``spark.streaming.blockInterval`` (200 ms; each block becomes one partition of a
      batch), throttled by ``spark.streaming.receiver.maxRate`` and backpressure. Fast,
      but records still in the buffer are lost if the driver dies.
    * ``store(records, metadata=None)`` with a ``list`` or an iterator — a whole block,
      stored **synchronously**: when the call returns the block is in the block manager
      and, if ``spark.streaming.receiver.writeAheadLog.enable`` is set, durably in the
      write-ahead log. A *reliable* receiver acknowledges its source only after this
      returns. (Unlike Spark, this path also waits for the rate limit, charging one
      permit per record.)

    Any other value (a ``str``, ``tuple``, ``dict``, ``bytes``...) is one record; to
    store a single record that is itself a list, pass ``[record]``.

    When the source fails, call :meth:`restart`: the engine calls ``onStop``, waits
    ``spark.streaming.receiverRestartDelay`` (2 s) and calls ``onStart`` again, forever,
    logging a warning and posting listener events (``onReceiverError``,
    ``onReceiverStopped``, ``onReceiverStarted``) each time. An exception raised by
    ``onStart`` is treated the same way.

    Parameters
    ----------
    storageLevel
        Where received blocks are kept (default ``StorageLevel.MEMORY_AND_DISK_2``).

    Examples
    --------
    A receiver that reads lines from a local file handle and restarts on errors:

    >>> import threading
    >>> class LinesReceiver(Receiver):
    ...     def __init__(self, path):
    ...         super().__init__(StorageLevel.MEMORY_AND_DISK_2)
    ...         self.path = path
    ...     def onStart(self):
    ...         threading.Thread(target=self._receive, daemon=True).start()
    ...     def onStop(self):
    ...         pass  # the thread checks isStopped() and exits by itself
    ...     def _receive(self):
    ...         try:
    ...             with open(self.path) as f:
    ...                 for line in f:
    ...                     if self.isStopped():
    ...                         return
    ...                     self.store(line.rstrip("\\n"))
    ...         except OSError as e:
    ...             self.restart("error reading " + self.path, e)
    >>> # lines = ssc.receiverStream(LinesReceiver("/var/log/app.log"))

    See Also
    --------
    StreamingContext.receiverStream, StreamingContext.socketTextStream
    """

    def __init__(self, storageLevel: StorageLevel = StorageLevel.MEMORY_AND_DISK_2) -> None:  # noqa: N803
        if not isinstance(storageLevel, StorageLevel):
            raise TypeError(
                "storageLevel must be a StorageLevel (for example "
                f"StorageLevel.MEMORY_AND_DISK_2), "
                f"got {storageLevel!r}"
            )
        self.storageLevel = storageLevel
        self._supervisor: ReceiverSupervisor | None = None
        self._stream_id: int | None = None

    # -- what subclasses implement -------------------------------------------------------
    def onStart(self) -> None:  # noqa: N802
        """Start receiving: set up resources and start reading threads; must not block."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement onStart(): start a thread that reads the "
            "source and calls self.store(...)"
        )

    def onStop(self) -> None:  # noqa: N802
        """Stop receiving: release everything :meth:`onStart` set up."""
        raise NotImplementedError(
            f"{type(self).__name__} must implement onStop(): close what onStart() opened"
        )

    @property
    def preferredLocation(self) -> str | None:  # noqa: N802
        """Host hint for placing the receiver; always ``None`` (receivers run in the driver)."""
        return None

    # -- what subclasses call ----------------------------------------------------------
    @property
    def streamId(self) -> int:  # noqa: N802
        """The id of the input stream this receiver feeds (set by ``receiverStream``)."""
        if self._stream_id is None:
            raise ReceiverStateError(
                f"{type(self).__name__} has no stream id yet: pass it to ssc.receiverStream() first"
            )
        return self._stream_id

    def _require_supervisor(self, what: str) -> ReceiverSupervisor:
        supervisor = self._supervisor
        if supervisor is None:
            raise ReceiverStateError(
                f"{type(self).__name__}.{what} was called on a receiver that is not running; "
                "a receiver runs once it is passed to ssc.receiverStream() and the "
                "StreamingContext has started"
            )
        return supervisor

    def store(self, dataItem: Any, metadata: Any = None) -> None:  # noqa: N803
        """Store one record, or a whole block of records (a ``list`` or an iterator).

        Parameters
        ----------
        dataItem
            A record, or a ``list``/iterator of records stored synchronously as one block.
        metadata
            Only with a block: anything describing it (for example source offsets); it
            reaches the driver with the block.

        Raises
        ------
        ReceiverStateError
            If the receiver is not running, or stopped for good.
        """
        supervisor = self._require_supervisor("store()")
        if isinstance(dataItem, (list, Iterator)):
            supervisor.push_block(
                dataItem if isinstance(dataItem, list) else list(dataItem), metadata
            )
            return
        if metadata is not None:
            raise TypeError(
                "metadata can only be stored with a block of records: call "
                "store([record, ...], metadata) (a single record has no metadata)"
            )
        supervisor.push_single(dataItem)

    def _store_many(self, records: list[Any]) -> None:
        """Buffer many single records at once (built-in receivers' fast path, rate-limited)."""
        self._require_supervisor("store()").push_many(records)

    def reportError(self, message: str, throwable: BaseException | None = None) -> None:  # noqa: N802
        """Report an error to the driver (listener ``onReceiverError``); receiving continues."""
        self._require_supervisor("reportError()").report_error(message, throwable)

    def restart(
        self, message: str, error: BaseException | None = None, delay: float | None = None
    ) -> None:
        """Restart the receiver: ``onStop()``, wait, ``onStart()``; returns at once.

        Parameters
        ----------
        message
            Why (logged and sent to listeners).
        error
            The exception that caused it, if any.
        delay
            Seconds to wait before ``onStart`` (default
            ``spark.streaming.receiverRestartDelay``, 2 s).
        """
        self._require_supervisor("restart()").request_restart(
            message, error, None if delay is None else int(round(float(delay) * 1000))
        )

    def stop(self, message: str, error: BaseException | None = None) -> None:
        """Stop the receiver for good (``onStop()``); the stream goes on without new data."""
        self._require_supervisor("stop()").request_stop(message, error)

    def isStarted(self) -> bool:  # noqa: N802
        """Whether the receiver is running (``onStart`` was called and no stop since)."""
        supervisor = self._supervisor
        return supervisor is not None and supervisor.is_receiver_started

    def isStopped(self) -> bool:  # noqa: N802
        """Whether the receiver is stopped (or restarting); reading loops should exit then."""
        supervisor = self._supervisor
        return supervisor is None or not supervisor.is_receiver_started

    # -- engine side -------------------------------------------------------------------
    def _attach(self, supervisor: ReceiverSupervisor, stream_id: int) -> None:
        if self._supervisor is not None and self._supervisor is not supervisor:
            raise ReceiverStateError(
                f"{self!r} is already attached to a running stream; create one receiver "
                "object per ssc.receiverStream() call"
            )
        self._supervisor = supervisor
        self._stream_id = stream_id

    def __getstate__(self) -> dict[str, Any]:
        # The supervisor holds threads and locks: it never travels with the receiver.
        state = dict(self.__dict__)
        state["_supervisor"] = None
        return state

    def __repr__(self) -> str:
        sid = "" if self._stream_id is None else f" stream={self._stream_id}"
        return f"<{type(self).__name__}{sid}>"
