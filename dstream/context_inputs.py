"""InputMethods: the live-input factories of :class:`~dstream.StreamingContext`.

What this module owns
---------------------
``socketTextStream``, ``rawSocketStream``, ``receiverStream``, ``textFileStream`` and
``binaryRecordsStream``, written as a mixin over the StreamingContext (``self`` is the
context; it uses only ``_engine``). The context lists it among its bases.

Each factory checks its arguments, builds the input node on the engine's graph and
connects it with ``engine.attach(node)`` (the input's own
:meth:`~dstream.inputs.base.InputNode.attach`): receiver streams register with the
engine's :class:`~dstream.receiver.tracker.ReceiverTracker` and, with
``spark.streaming.backpressure.enabled``, get a :class:`~dstream.rate.RateController`;
file streams read the engine's clock at start.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING, Any

from rdd import StorageLevel

from dstream.dstream import DStream
from dstream.inputs.file import FileInputNode
from dstream.inputs.receiver_input import ReceiverInputNode
from dstream.inputs.socket import RawSocketReceiver, SocketReceiver
from dstream.receiver.receiver import Receiver

if TYPE_CHECKING:
    from dstream.engine import StreamingEngine
    from dstream.inputs.base import InputNode

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
    _engine: StreamingEngine

    def _input_stream(self, node: InputNode) -> DStream[Any]:
        self._engine.attach(node)
        return DStream(node, self)  # type: ignore[arg-type]

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
        engine = self._engine
        # Read the receiver settings first: a bad one fails before the stream registers.
        _ = engine.receiver_tracker
        return self._input_stream(ReceiverInputNode(engine.graph, receiver, name))

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
        engine = self._engine
        node = FileInputNode(
            engine.graph,
            _check_directory(directory, "textFileStream"),
            engine.receiver_settings.file_min_remember_ms,
            None,
            "textFileStream",
        )
        return self._input_stream(node)

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
        engine = self._engine
        node = FileInputNode(
            engine.graph,
            _check_directory(directory, "binaryRecordsStream"),
            engine.receiver_settings.file_min_remember_ms,
            int(recordLength),
            "binaryRecordsStream",
        )
        return self._input_stream(node)
