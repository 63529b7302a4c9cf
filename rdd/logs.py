"""Where the engine's log messages go when the application has not configured logging.

Spark prints its log to stderr from the start, at ``WARN`` in the shells, one line per
message in log4j2's default pattern ``%d{yy/MM/dd HH:mm:ss} %p %c{1}: %m%n``::

    25/12/01 15:20:03 WARN JobScheduler: the job thread did not finish within 10.0 s

and ``sc.setLogLevel("INFO")`` shows more. A Python library that only calls
``logging.getLogger(__name__)`` prints nothing below ``WARNING`` and its warnings bare,
so this module owns the default output of the library's top-level loggers (``rdd`` and
``dstream``):

* :func:`install_default_handler` puts one :class:`DefaultHandler` on a top-level
  logger (once; importing the package does it). The root logger is left alone.
* The handler stands aside while the application has configured logging itself: when
  the root logger has handlers (``logging.basicConfig``, pytest's capture) or a handler
  of the application sits on the message's logger or one of its parents up to ours.
  Messages still propagate to those handlers as usual, so nothing is printed twice and
  nothing is lost. The check is made per message, so configuring logging before or after
  importing the library both work.
* :func:`level_of` turns Spark's level names into :mod:`logging` levels, with Spark's
  error for a bad name; ``SparkContext.setLogLevel`` sets the top-level loggers' level.
"""

from __future__ import annotations

import logging
import sys
import time

__all__ = ["LIBRARY_LOGGERS", "DefaultHandler", "SparkFormatter", "install_default_handler",
           "level_of"]

#: The top-level loggers of the library; every module logs below one of them.
LIBRARY_LOGGERS = ("rdd", "dstream")

#: Spark's log levels (SparkContext.VALID_LOG_LEVELS) as :mod:`logging` levels. TRACE is
#: below DEBUG and ALL below that, so that each shows strictly more than the next.
_LEVELS = {
    "ALL": 1,
    "TRACE": 5,
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARN": logging.WARNING,
    "ERROR": logging.ERROR,
    "FATAL": logging.CRITICAL,
    "OFF": logging.CRITICAL + 10,
}

# Loggers are named after modules; log4j's %c{1} shows a class name. The module's name in
# CamelCase is that class for most modules; these are the ones where it is not.
_CLASS_OF_MODULE = {
    "rdd.context": "SparkContext",
    "dstream.context": "StreamingContext",
    "dstream.receiver.tracker": "ReceiverTracker",
    "dstream.receiver.supervisor": "ReceiverSupervisor",
}


def level_of(logLevel: str) -> int:  # noqa: N803 - PySpark's parameter name
    """The :mod:`logging` level of a Spark level name (any case).

    Raises
    ------
    ValueError
        With Spark's message, if ``logLevel`` is not one of ALL, DEBUG, ERROR, FATAL,
        INFO, OFF, TRACE, WARN.
    """
    level = _LEVELS.get(logLevel.upper()) if isinstance(logLevel, str) else None
    if level is None:
        raise ValueError(f"requirement failed: Supplied level {logLevel} did not match one of: "
                         f"{','.join(sorted(_LEVELS))}")
    return level


def _spark_level_name(levelno: int) -> str:
    for name in ("FATAL", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"):
        if levelno >= _LEVELS[name]:
            return name
    return "ALL"


def _class_name(logger_name: str) -> str:
    known = _CLASS_OF_MODULE.get(logger_name)
    if known is not None:
        return known
    return "".join(part.capitalize() for part in logger_name.rpartition(".")[2].split("_"))


class SparkFormatter(logging.Formatter):
    """``yy/MM/dd HH:mm:ss LEVEL Class: message`` (log4j2's default pattern of Spark)."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%y/%m/%d %H:%M:%S", time.localtime(record.created))
        level, where = _spark_level_name(record.levelno), _class_name(record.name)
        text = f"{stamp} {level} {where}: {record.getMessage()}"
        if record.exc_info:
            text = f"{text}\n{self.formatException(record.exc_info)}"
        if record.stack_info:
            text = f"{text}\n{self.formatStack(record.stack_info)}"
        return text


class DefaultHandler(logging.Handler):
    """Writes to the *current* ``sys.stderr`` unless the application configured logging."""

    def __init__(self, top: str) -> None:
        super().__init__()
        self.top = top
        self.setFormatter(SparkFormatter())

    def emit(self, record: logging.LogRecord) -> None:
        if self._configured_elsewhere(record.name):
            return
        try:
            stream = sys.stderr
            if stream is None:  # pythonw, or stderr closed by the application
                return
            stream.write(self.format(record) + "\n")
            stream.flush()
        except Exception:  # noqa: BLE001 - logging must never break the engine
            self.handleError(record)

    def _configured_elsewhere(self, name: str) -> bool:
        if logging.getLogger().handlers:
            return True
        while True:
            logger = logging.getLogger(name)
            if any(handler is not self for handler in logger.handlers):
                return True
            if name == self.top or not logger.propagate or "." not in name:
                return False
            name = name.rpartition(".")[0]


def install_default_handler(top: str) -> None:
    """Give the top-level logger ``top`` its :class:`DefaultHandler` (once)."""
    logger = logging.getLogger(top)
    if not any(isinstance(handler, DefaultHandler) for handler in logger.handlers):
        logger.addHandler(DefaultHandler(top))
