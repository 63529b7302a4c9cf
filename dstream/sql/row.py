"""``Row``: a tuple whose items are also reachable by field name, as PySpark's ``pyspark.sql.Row``.

What this module owns
---------------------
The row object collect() returns and createDataFrame() accepts. ``Row(a=1, b='x')`` is a
row with fields in keyword order; ``Row("a", "b")`` is a *row class* (a row of names) that
makes rows when called. Items read as ``r.a``, ``r["a"]`` and ``r[0]``.

Invariants
----------
* A row is a tuple: equality, ordering and hashing are the tuple's (``Row(a=1) == (1,)``),
  whatever the field names.
* ``__fields__`` (a list of names, one per item) is the only attribute a row has; rows
  are otherwise read-only.
* Rows pickle (pickle and cloudpickle) to rows with the same names and values.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from dstream.sql.errors import PySparkTypeError, PySparkValueError

__all__ = ["Row", "rows_from_columns"]


class Row(tuple):
    """A row of a DataFrame: a tuple with named fields.

    ``Row(name='Alice', age=11)`` makes a row; ``Person = Row("name", "age")`` makes a row
    class and ``Person("Alice", 11)`` a row of it. Fields are read as attributes
    (``row.name``), by key (``row["name"]``) or by position (``row[0]``).
    """

    __fields__: list[str]

    def __new__(cls, *args: Any, **kwargs: Any) -> Row:
        if args and kwargs:
            raise PySparkValueError("Cannot set args and kwargs together.", "CANNOT_SET_TOGETHER",
                                    {"arg_list": "args and kwargs"})
        if kwargs:
            row = tuple.__new__(cls, list(kwargs.values()))
            row.__dict__["__fields__"] = list(kwargs)
            return row
        return tuple.__new__(cls, args)

    def asDict(self, recursive: bool = False) -> dict[str, Any]:  # noqa: N802 - PySpark's name
        """The row as a dict from field name to value.

        Parameters
        ----------
        recursive : bool, optional
            Also turn nested rows (inside lists and dicts too) into dicts.

        Returns
        -------
        dict
            The fields in order; with repeated names the last one wins.
        """
        if not _has_fields(self):
            raise PySparkTypeError("Cannot convert a Row class into dict.", "CANNOT_CONVERT_TYPE",
                                   {"from_type": "Row", "to_type": "dict"})
        if recursive:
            return dict(zip(self.__fields__, (_as_plain(v) for v in self)))
        return dict(zip(self.__fields__, self))

    def __contains__(self, item: object) -> bool:
        # A row with names answers for its names; a row class for its items (which are names).
        if _has_fields(self):
            return item in self.__fields__
        return super().__contains__(item)

    def __call__(self, *args: Any) -> Row:
        """Make a row of this row class: ``Row("a", "b")(1, 2)`` is ``Row(a=1, b=2)``."""
        if len(args) > len(self):
            raise PySparkValueError(f"Can not create Row with fields {self}, expected {len(self)} values but got "
                                    f"{args}.", "TOO_MANY_VALUES",
                                    {"expected": str(len(self)), "item": "fields", "actual": str(len(args))})
        return _create_row(list(self), args)

    def __getitem__(self, item: Any) -> Any:
        if type(item) is int:  # the common case first: row[0] on every collected row
            return tuple.__getitem__(self, item)
        if isinstance(item, (int, slice)):
            return super().__getitem__(item)
        try:
            idx = self.__fields__.index(item)
        except (AttributeError, ValueError):
            raise ValueError(item) from None
        return super().__getitem__(idx)

    def __getattr__(self, item: str) -> Any:
        if item.startswith("__"):
            raise AttributeError(item)
        try:
            idx = self.__fields__.index(item)
        except (AttributeError, ValueError):
            raise AttributeError(item) from None
        return tuple.__getitem__(self, idx)

    def __setattr__(self, key: str, value: Any) -> None:
        if key != "__fields__":
            raise RuntimeError("Row is read-only")
        self.__dict__[key] = value

    def __reduce__(self) -> Any:
        if _has_fields(self):
            return (_create_row, (self.__fields__, tuple(self)))
        return (Row, tuple(self))

    def __repr__(self) -> str:
        if _has_fields(self):
            return "Row({})".format(", ".join(f"{k}={v!r}" for k, v in zip(self.__fields__, tuple(self))))
        return "<Row({})>".format(", ".join(repr(field) for field in self))


def _as_plain(value: Any) -> Any:
    if isinstance(value, Row):
        return value.asDict(True)
    if isinstance(value, list):
        return [_as_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _as_plain(v) for k, v in value.items()}
    return value


def _create_row(fields: list[str], values: Any) -> Row:
    """A row with the given names and values (the pickle constructor of named rows)."""
    row = tuple.__new__(Row, values)
    row.__dict__["__fields__"] = fields
    return row


def _has_fields(row: Row) -> bool:
    # Names live in the row's __dict__ (rows made one by one) or on its class (rows made in bulk).
    return "__fields__" in type(row).__dict__ or "__fields__" in row.__dict__


@functools.lru_cache(maxsize=1024)
def _row_class(fields: tuple[str, ...]) -> type[Row]:
    """A subclass of Row whose rows share one list of names, held by the class."""
    return type("Row", (Row,), {"__fields__": list(fields), "__slots__": (), "__module__": __name__,
                                "__qualname__": "Row"})


def rows_from_columns(fields: Sequence[str], columns: Sequence[Sequence[Any]], count: int) -> list[Row]:
    """Rows named ``fields`` made from equal-length columns of values: the bulk constructor collect() uses.

    The rows are instances of a subclass of :class:`Row` that keeps the names on the class,
    so making a row costs one tuple; they behave, compare and pickle as any Row.

    Parameters
    ----------
    fields : sequence of str
        The field names.
    columns : sequence of sequences
        One sequence of values per field, each ``count`` long.
    count : int
        The number of rows (needed when there are no columns).
    """
    cls = _row_class(tuple(fields))
    new = functools.partial(tuple.__new__, cls)
    if not columns:
        return [new(()) for _ in range(count)]
    return list(map(new, zip(*columns)))
