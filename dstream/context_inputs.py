"""InputMethods: the live-input factories of :class:`~dstream.StreamingContext`.

What this module owns
---------------------
``socketTextStream``, ``rawSocketStream``, ``receiverStream``, ``textFileStream`` and
``binaryRecordsStream``, written as a mixin over the StreamingContext (``self`` is the
context; it uses ``_sc``, ``_graph``, ``_clock``, ``_bus`` and
``addStreamingListener``). The context lists it among its bases.

Per context it creates, on first use, one
:class:`~dstream.receiver.tracker.ReceiverTracker` (all receivers of the context) and
reads the receiver settings once from the SparkConf. With
``spark.streaming.backpressure.enabled`` every receiver stream gets a
:class:`~dstream.rate.RateController` registered as a streaming listener.

Engine access for the rest of the context: ``_receiver_tracker`` (the job generator
allocates blocks through it at each tick; a graceful ``stop`` stops receivers through it
first), ``_has_receivers``, ``_rate_controllers``, and ``_recover_received_blocks()``
for the checkpoint recovery path (replay the received-block log at start).
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

from rdd.storage.level import StorageLevel

from dstream.dstream import DStream
from dstream.inputs.file import FileInputNode
from dstream.inputs.receiver_input import ReceiverInputNode
from dstream.inputs.socket import RawSocketReceiver, SocketReceiver
from dstream.rate.controller import RateController
from dstream.rate.pid import PIDRateEstimator
from dstream.receiver.receiver import Receiver
from dstream.receiver.settings import ReceiverSettings
from dstream.receiver.tracker import ReceiverTracker

if TYPE_CHECKING:
    from dstream.clock import Clock
    from dstream.graph import DStreamGraph

__all__ = ["InputMethods"]


def _check_port(port: Any) -> int:
    if (
        isinstance(port, bool)
        or not isinstance(port, numbers.Integral)
        or not 0 < int(port) < 65536
    ):
        raise ValueError(
            f"port must be an integer between 1 and 65535, got {port!r}; for example "
            "ssc.socketTextStream('localhost', 9999)"
        )
    return int(port)


def _check_directory(directory: Any, what: str) -> str:
    if not isinstance(directory, str) or not directory:
        raise TypeError(f"{what} expects a directory path (a non-empty str), got {directory!r}")
    return directory


class InputMethods:
    """Live input streams of a StreamingContext (mixed into the context)."""

    # Provided by StreamingContext.
    _sc: Any
    _graph: DStreamGraph
    _clock: Clock
    _bus: Any

    if TYPE_CHECKING:

        def addStreamingListener(self, streamingListener: Any) -> None: ...  # noqa: N802, N803

    # -- engine parts (created on first use) ------------------------------------------
    @property
    def _receiver_settings(self) -> ReceiverSettings:
        settings = self.__dict__.get("_receiver_settings_value")
        if settings is None:
            settings = ReceiverSettings.from_conf(getattr(self._sc, "_conf", None))
            self.__dict__["_receiver_settings_value"] = settings
        return settings

    @property
    def _receiver_tracker(self) -> ReceiverTracker:
        """The context's receiver tracker (created when the first receiver stream is)."""
        tracker = self.__dict__.get("_receiver_tracker_value")
        if tracker is None:
            tracker = ReceiverTracker(self._receiver_settings)
            self.__dict__["_receiver_tracker_value"] = tracker
        return tracker

    @property
    def _has_receivers(self) -> bool:
        tracker = self.__dict__.get("_receiver_tracker_value")
        return tracker is not None and bool(tracker.stream_ids)

    @property
    def _rate_controllers(self) -> list[RateController]:
        return self.__dict__.setdefault("_rate_controllers_value", [])

    def _recover_received_blocks(self) -> None:
        """Replay the received-block log at start (set by the checkpoint recovery path)."""
        self._receiver_tracker.recover = True

    def _reattach_inputs(self) -> None:
        """Connect the live inputs of a graph restored from a checkpoint to this context.

        Call once the restored graph is this context's ``_graph`` and before ``start()``:
        receiver streams get this context's tracker (and rate controllers), file streams
        its clock. The block log is replayed at start (``_recover_received_blocks``).
        """
        for node in self._graph.inputs:
            if isinstance(node, ReceiverInputNode):
                node.reattach(self._receiver_tracker, self._prepare_receivers)
                self._add_rate_controller(node)
            elif isinstance(node, FileInputNode):
                node.reattach(lambda: self._clock)
            elif getattr(node, "backpressure", False) and hasattr(node, "rate_controller"):
                from dstream.kafka.stream import attach_backpressure  # Kafka's direct stream
                attach_backpressure(self, node)  # type: ignore[arg-type]

    def _add_rate_controller(self, node: ReceiverInputNode) -> None:
        settings = self._receiver_settings
        if not settings.backpressure_enabled:
            return
        tracker = self._receiver_tracker
        stream_id = node.stream_id
        estimator = PIDRateEstimator(
            self._graph.batch_ms,
            settings.pid_proportional,
            settings.pid_integral,
            settings.pid_derived,
            settings.pid_min_rate,
        )

        def publish(rate: float) -> None:
            tracker.send_rate_update(stream_id, rate)

        controller = RateController(stream_id, estimator, publish)
        self._rate_controllers.append(controller)
        self.addStreamingListener(controller)

    def _prepare_receivers(self) -> None:
        # Read at start, not at stream creation: the clock (tests) and the checkpoint
        # directory may be set after the streams are defined.
        self._receiver_tracker.prepare(
            clock=self._clock, checkpoint_dir=self._graph.checkpoint_dir, post_event=self._bus.post
        )

    # -- receiver streams --------------------------------------------------------------
    def receiverStream(self, receiver: Receiver[Any]) -> DStream[Any]:  # noqa: N802
        """Create a DStream fed by a custom :class:`~dstream.Receiver`.

        The receiver runs in the driver from ``ssc.start()`` on, supervised: restarted
        after errors, throttled by ``spark.streaming.receiver.maxRate`` and backpressure,
        its records cut into one partition per ``spark.streaming.blockInterval``.

        Parameters
        ----------
        receiver
            A new instance of a :class:`~dstream.Receiver` subclass (one per stream).

        Returns
        -------
        DStream
            The stream of the records the receiver stores.

        Examples
        --------
        >>> # class MyReceiver(Receiver): ...   (see dstream.Receiver)
        >>> # stream = ssc.receiverStream(MyReceiver())
        """
        return self._receiver_stream(receiver, "receiverStream")

    def _receiver_stream(self, receiver: Receiver[Any], name: str) -> DStream[Any]:
        if not isinstance(receiver, Receiver):
            raise TypeError(
                f"receiverStream expects an instance of dstream.Receiver, got {receiver!r} of type "
                f"{type(receiver).__name__}; subclass Receiver and implement onStart/onStop"
            )
        node = ReceiverInputNode(
            self._graph, receiver, self._receiver_tracker, name, self._prepare_receivers
        )
        self._add_rate_controller(node)
        return DStream(node, self)  # type: ignore[arg-type]

    def socketTextStream(  # noqa: N802
        self,
        hostname: str,
        port: int,
        storageLevel: StorageLevel = StorageLevel.MEMORY_AND_DISK_2,  # noqa: N803
    ) -> DStream[str]:
        """Create a DStream of the text lines a TCP server sends (``nc -lk 9999``).

        The stream is a TCP **client**: it connects to ``hostname:port`` when the context
        starts. Lines end at ``\\n`` and are decoded as UTF-8; invalid bytes become
        U+FFFD. If the connection is refused or drops, the receiver logs a warning and
        reconnects every ``spark.streaming.receiverRestartDelay`` (2 s) while the stream
        keeps running.

        Parameters
        ----------
        hostname
            The server's host name or address.
        port
            The server's TCP port.
        storageLevel
            Storage level of the received blocks (default ``MEMORY_AND_DISK_2``).

        Returns
        -------
        DStream of str

        Examples
        --------
        >>> # lines = ssc.socketTextStream("localhost", 9999)
        >>> # lines.flatMap(lambda l: l.split(" ")).countByValue().pprint()
        """
        return self._receiver_stream(
            SocketReceiver(str(hostname), _check_port(port), storageLevel), "socketTextStream"
        )

    def rawSocketStream(  # noqa: N802
        self,
        hostname: str,
        port: int,
        storageLevel: StorageLevel = StorageLevel.MEMORY_AND_DISK_2,  # noqa: N803
    ) -> DStream[Any]:
        """Create a DStream of pre-batched records sent as length-prefixed msgpack frames.

        Each frame is a 4-byte big-endian length followed by a msgpack array of records,
        and is stored as one block, as in Spark's ``rawSocketStream`` (whose frames are
        Java-serialized; these are msgpack, which cannot execute code when decoded).

        Parameters
        ----------
        hostname, port
            The TCP server to connect to.
        storageLevel
            Storage level of the received blocks.

        Returns
        -------
        DStream
        """
        return self._receiver_stream(
            RawSocketReceiver(str(hostname), _check_port(port), storageLevel), "rawSocketStream"
        )

    # -- file streams ----------------------------------------------------------------
    def textFileStream(self, directory: str) -> DStream[str]:  # noqa: N802
        """Create a DStream of the lines of new text files in ``directory``.

        Each batch reads the files that appeared since the previous batch, judged by
        modification time; files already there at ``start()`` and hidden files (names
        starting with ``.`` or ``_``) are ignored, and each file is read once.

        Files must be **moved** into the directory atomically (written elsewhere on the
        same file system, then renamed in); a file written in place may be read while
        incomplete, and later appends are never read.

        Parameters
        ----------
        directory
            The directory to monitor (it must exist when the context starts).

        Returns
        -------
        DStream of str

        Raises
        ------
        InputDirectoryNotFoundError
            At ``ssc.start()``, if ``directory`` does not exist.
        """
        node = FileInputNode(
            self._graph,
            _check_directory(directory, "textFileStream"),
            lambda: self._clock,
            self._receiver_settings.file_min_remember_ms,
            None,
            "textFileStream",
        )
        return DStream(node, self)  # type: ignore[arg-type]

    def binaryRecordsStream(self, directory: str, recordLength: int) -> DStream[bytes]:  # noqa: N802, N803
        """Create a DStream of fixed-length binary records of new files in ``directory``.

        File selection is as for :meth:`textFileStream`. Each record is ``recordLength``
        bytes (``bytes``); a file whose size is not a multiple of ``recordLength`` fails
        its batch with an error naming the file.

        Parameters
        ----------
        directory
            The directory to monitor.
        recordLength
            Bytes per record (positive).

        Returns
        -------
        DStream of bytes
        """
        if (
            isinstance(recordLength, bool)
            or not isinstance(recordLength, numbers.Integral)
            or recordLength <= 0
        ):
            raise ValueError(
                f"recordLength must be a positive integer number of bytes, got {recordLength!r}"
            )
        node = FileInputNode(
            self._graph,
            _check_directory(directory, "binaryRecordsStream"),
            lambda: self._clock,
            self._receiver_settings.file_min_remember_ms,
            int(recordLength),
            "binaryRecordsStream",
        )
        return DStream(node, self)  # type: ignore[arg-type]
