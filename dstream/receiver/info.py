"""ReceiverRateInfo: :class:`~dstream.listener.ReceiverInfo` plus the receiver's rate.

The receiver listener events (``onReceiverStarted/Error/Stopped``) carry this record: all
of Spark's ``ReceiverInfo`` fields (PySpark call style, ``info.streamId()``) and
``rateLimit()``, the receiver's current limit in records per second (``-1.0`` when
unlimited), and ``receivedRecords()``, the records it stored so far.
"""

from __future__ import annotations

from typing import Any

from dstream.listener import ReceiverInfo

__all__ = ["ReceiverRateInfo"]


class ReceiverRateInfo(ReceiverInfo):
    """State of one receiver, with its rate limit and record count."""

    __slots__ = ("_rate_limit", "_received_records")
    _rate_limit: float
    _received_records: int

    def __init__(
        self, *args: Any, rate_limit: float = -1.0, received_records: int = 0, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        object.__setattr__(self, "_rate_limit", float(rate_limit))
        object.__setattr__(self, "_received_records", int(received_records))

    def rateLimit(self) -> float:  # noqa: N802 - listener record style
        """Return the receiver's current rate limit (records/s), ``-1.0`` if unlimited."""
        return self._rate_limit

    def receivedRecords(self) -> int:  # noqa: N802 - listener record style
        """Return how many records the receiver has stored so far."""
        return self._received_records

    def _all_slots(self) -> tuple[str, ...]:
        return ReceiverInfo.__slots__ + ReceiverRateInfo.__slots__

    def __repr__(self) -> str:
        fields = ", ".join(f"{slot[1:]}={getattr(self, slot)!r}" for slot in self._all_slots())
        return f"ReceiverInfo({fields})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, s) == getattr(other, s) for s in self._all_slots())

    __hash__ = None  # type: ignore[assignment]
