"""Default decoders (source) and encoders (sink) for Kafka keys and values.

A decoder is any ``f(bytes | None) -> object``; it runs in the worker for every record,
so it must be picklable (a module-level function or a lambda, which cloudpickle ships).
``None`` stands for a missing key or a tombstone value and decodes to ``None``.

Failures are not handled here: the reader wraps every decoder call so that the error
names the record (topic, partition, offset) whatever decoder the user passed.
"""

from __future__ import annotations

from typing import Any

__all__ = ["utf8_decoder", "utf8_encoder"]


def utf8_decoder(s: bytes | None) -> str | None:
    """Decode UTF-8 bytes to ``str`` (``None`` stays ``None``); PySpark's default decoder."""
    if s is None:
        return None
    return s.decode("utf-8")


def utf8_encoder(s: Any) -> bytes | None:
    """Encode a value for the Kafka sink: ``str`` as UTF-8, ``bytes`` unchanged, ``None`` kept.

    Raises
    ------
    TypeError
        For any other type: pass a ``keyEncoder``/``valueEncoder`` that turns it into
        bytes (for example ``lambda v: json.dumps(v).encode()``).
    """
    if s is None or isinstance(s, bytes):
        return s
    if isinstance(s, str):
        return s.encode("utf-8")
    if isinstance(s, (bytearray, memoryview)):
        return bytes(s)
    raise TypeError(
        f"the default Kafka encoder writes str (as UTF-8) or bytes, got {type(s).__name__} {s!r}; "
        "pass keyEncoder=/valueEncoder= functions that return bytes"
    )
