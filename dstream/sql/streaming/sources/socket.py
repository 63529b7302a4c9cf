"""The ``socket`` source: UTF-8 lines read from a TCP server (for tests and demos only).

What this module owns
---------------------
Spark's TextSocket source. ``create()`` connects to ``host:port``; a daemon thread reads
lines into a buffer held by the driver, each with the time it arrived (the session's
streaming clock). The offset is the number of lines received so far; ``get_batch``
returns the buffered lines ``(start, end]``; ``commit(end)`` drops the lines up to
``end``; ``stop()`` closes the socket and joins the thread (within
:data:`STOP_TIMEOUT_S`). Columns: ``value`` (string), and ``timestamp`` (timestamp)
with ``includeTimestamp``.

Invariants
----------
* Not fault tolerant, as in Spark (a warning says so at start): the lines live only in
  this process, so a restarted query cannot re-read a batch it lost, and a batch whose
  lines were committed cannot be read again (the error says so).
* Lines are split on ``\\n`` (a trailing ``\\r`` is dropped, as Java's ``readLine``);
  a last line without a newline counts when the server closes the connection.
* Offsets only grow; committing out of order is an error.
"""

from __future__ import annotations

import logging
import socket
import threading
from typing import TYPE_CHECKING

import pyarrow as pa

from ...errors import AnalysisException, IllegalArgumentException
from ...types import StringType, StructField, StructType, TimestampType
from ..clock import streaming_clock
from .base import Offset, Source, SourceProvider, register_source
from .options import SourceOptions
from .rows import empty_rows, local_rows

if TYPE_CHECKING:
    from ...expressions.base import AttributeReference
    from ...plan.logical import LogicalPlan
    from ...session import SparkSession

__all__ = ["SocketSourceProvider", "TextSocketSource"]

logger = logging.getLogger(__name__)

#: Seconds ``create()`` waits for the TCP connection.
CONNECT_TIMEOUT_S = 10.0
#: Seconds ``stop()`` waits for the reading thread to end.
STOP_TIMEOUT_S = 5.0
_READ_SIZE = 65536

SCHEMA_REGULAR = StructType([StructField("value", StringType(), True)])
SCHEMA_TIMESTAMP = StructType([StructField("value", StringType(), True),
                               StructField("timestamp", TimestampType(), True)])


def _settings(options: SourceOptions) -> tuple[str, int, bool]:
    host = options.get("host")
    if host is None:
        raise AnalysisException('Set a host to read from with option("host", ...).')
    port_text = options.get("port")
    if port_text is None:
        raise AnalysisException('Set a port to read from with option("port", ...).')
    try:
        port = int(port_text.strip())
    except ValueError:
        raise AnalysisException(f"Port must be an integer, got '{port_text}': set option(\"port\", 9999).") from None
    if not 0 < port < 65536:
        raise AnalysisException(f"Port must be between 1 and 65535, got {port}.")
    try:
        include_timestamp = options.get_boolean("includeTimestamp", False)
    except IllegalArgumentException:
        raise AnalysisException('includeTimestamp must be set to either "true" or "false"') from None
    return host, port, include_timestamp


class TextSocketSource(Source):
    """A started socket source: lines buffered since the last commit."""

    def __init__(self, session: SparkSession, host: str, port: int, include_timestamp: bool) -> None:
        self.host, self.port = host, port
        self.include_timestamp = include_timestamp
        self.description = f"TextSocketV2[host: {host}, port: {port}]"
        self._clock = streaming_clock(session)
        self._lock = threading.Lock()
        self._lines: list[str] = []
        self._times: list[int] = []
        self._received = 0   # offset of the newest line
        self._committed = 0  # offset of the last line dropped from the buffer
        self._closing = False
        self._error: BaseException | None = None
        logger.warning("The socket source should not be used for production applications! "
                       "It does not support recovery.")
        try:
            self._socket = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S)
        except OSError as exc:
            raise IllegalArgumentException(
                f"Cannot connect to the socket source's server {host}:{port}: {exc.strerror or exc}. Start the "
                "server first (for example `nc -lk 9999`), or fix the host and port options.") from exc
        self._socket.settimeout(None)
        self._thread = threading.Thread(target=self._read, name=f"TextSocketSource({host}, {port})", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        pending = b""
        try:
            while True:
                data = self._socket.recv(_READ_SIZE)
                if not data:
                    if pending:
                        self._append([pending])
                    logger.info("Stream closed by %s:%d", self.host, self.port)
                    return
                *complete, pending = (pending + data).split(b"\n")
                if complete:
                    self._append(complete)
        except OSError as exc:
            if not self._closing:
                self._error = exc
                logger.warning("Error receiving data from %s:%d: %s", self.host, self.port, exc)

    def _append(self, raw: list[bytes]) -> None:
        now = self._clock.now_ms()
        lines = [line[:-1] if line.endswith(b"\r") else line for line in raw]
        with self._lock:
            self._lines.extend(line.decode("utf-8", errors="replace") for line in lines)
            self._times.extend([now] * len(lines))
            self._received += len(lines)

    def latest_offset(self, start: Offset | None, limited: bool) -> Offset | None:
        with self._lock:
            return self._received or None

    def reports_latest_offset(self) -> Offset | None:
        return self.latest_offset(None, False)

    def get_batch(self, start: Offset | None, end: Offset, output: list[AttributeReference]) -> LogicalPlan:
        first, last = (0 if start is None else int(start)), int(end)
        with self._lock:
            if first < self._committed:
                raise IllegalArgumentException(
                    f"The socket source cannot re-read lines ({first}, {last}]: lines up to {self._committed} were "
                    "committed and dropped. The socket source is not fault tolerant; use a replayable source "
                    "(files, Kafka) to re-run batches.")
            if last > self._received:
                raise IllegalArgumentException(
                    f"The socket source has received {self._received} lines, not {last}: offset {last} was not "
                    "produced by this run of the source (the socket source cannot resume a checkpoint).")
            lines = self._lines[first - self._committed:last - self._committed]
            times = self._times[first - self._committed:last - self._committed]
        if not lines:
            return empty_rows(output)
        columns = [pa.array(lines, pa.string())]
        if self.include_timestamp:
            columns.append(pa.array([t * 1000 for t in times], pa.int64()).cast(pa.timestamp("us", tz="UTC")))
        return local_rows(output, columns)

    def commit(self, end: Offset) -> None:
        last = int(end)
        with self._lock:
            drop = last - self._committed
            if drop < 0:
                raise IllegalArgumentException(
                    f"Offsets committed out of order: {self._committed} followed by {last}")
            del self._lines[:drop]
            del self._times[:drop]
            self._committed = last

    def stop(self) -> None:
        self._closing = True
        try:
            self._socket.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in recv
        except OSError:
            pass  # already closed by the server
        self._socket.close()
        self._thread.join(STOP_TIMEOUT_S)
        if self._thread.is_alive():
            logger.warning("The socket source's reader of %s:%d did not stop within %.0f s", self.host, self.port,
                           STOP_TIMEOUT_S)


class SocketSourceProvider(SourceProvider):
    """``spark.readStream.format("socket")``."""

    def schema(self, session: SparkSession, options: dict[str, str], user_schema: StructType | None) -> StructType:
        if user_schema is not None:
            raise AnalysisException("socket does not support user-specified schema. Remove .schema(...): the socket "
                                    "source produces value (string) and, with includeTimestamp, timestamp.")
        _, _, include_timestamp = _settings(SourceOptions(options))
        return SCHEMA_TIMESTAMP if include_timestamp else SCHEMA_REGULAR

    def create(self, session: SparkSession, options: dict[str, str], schema: StructType,
               metadata_path: str) -> Source:
        host, port, include_timestamp = _settings(SourceOptions(options))
        return TextSocketSource(session, host, port, include_timestamp)


register_source("socket", SocketSourceProvider)
