"""``VariantVal``: one collected variant, as PySpark's ``pyspark.sql.types.VariantVal``.

What this module owns
---------------------
The Python object a VARIANT cell collects to: the two byte strings of the encoding
(``value`` and ``metadata``, see :mod:`.format`) with PySpark's methods: ``toPython()``,
``toJson(zone_id)``, ``str()`` (the JSON text), ``repr()`` (the bytes) and the class method
``parseJson(text)``.

Invariants
----------
* Two ``VariantVal`` are equal when their bytes are (PySpark's compare by identity; equal
  bytes are the same variant, so comparing them is what a test or a set wants).
* Collected values hold ``bytearray`` buffers, as PySpark's collect gives them.
"""

from __future__ import annotations

from typing import Any

from .parse import MalformedJsonError, parse_json
from .python_view import python_json, to_python

__all__ = ["VariantVal"]


class VariantVal:
    """A variant value: its ``value`` and ``metadata`` bytes.

    Parameters
    ----------
    value : bytes or bytearray
        The encoded value.
    metadata : bytes or bytearray
        The encoded dictionary of the value's object keys.

    Examples
    --------
    >>> v = VariantVal.parseJson('{"b": [1, 2.5], "a": null}')
    >>> v.toPython()
    {'a': None, 'b': [1, Decimal('2.5')]}
    >>> str(v)
    '{"a":null,"b":[1,2.5]}'
    """

    def __init__(self, value: bytes | bytearray, metadata: bytes | bytearray) -> None:
        self.value = value
        self.metadata = metadata

    def __str__(self) -> str:
        return python_json(bytes(self.value), bytes(self.metadata))

    def __repr__(self) -> str:
        return f"VariantVal({self.value!r}, {self.metadata!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, VariantVal) and bytes(self.value) == bytes(other.value) and \
            bytes(self.metadata) == bytes(other.metadata)

    def __hash__(self) -> int:
        return hash((bytes(self.value), bytes(self.metadata)))

    def __reduce__(self) -> Any:
        return (VariantVal, (self.value, self.metadata))

    def toPython(self) -> Any:  # noqa: N802 - PySpark's name
        """The variant as Python objects: dicts, lists, ints, floats, Decimals, strings, dates..."""
        return to_python(bytes(self.value), bytes(self.metadata))

    def toJson(self, zone_id: str = "UTC") -> str:  # noqa: N802 - PySpark's name
        """The variant as JSON text, timestamps shown in ``zone_id``.

        Parameters
        ----------
        zone_id : str, default "UTC"
            A zone name of the ``zoneinfo`` database.
        """
        return python_json(bytes(self.value), bytes(self.metadata), zone_id)

    @classmethod
    def parseJson(cls, json_str: str) -> VariantVal:  # noqa: N802 - PySpark's name
        """The variant of a JSON text, encoded as Spark's ``parse_json`` encodes it.

        Raises
        ------
        PySparkValueError
            When the text is not one JSON value.
        """
        try:
            value, metadata = parse_json(json_str)
        except MalformedJsonError as exc:
            from ..errors import PySparkValueError  # noqa: PLC0415 - the error path only

            raise PySparkValueError(f"Malformed records are detected in record parsing: {json_str}.",
                                    "MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION",
                                    {"badRecord": json_str, "failFastMode": "FAILFAST"}) from exc
        return cls(value, metadata)
