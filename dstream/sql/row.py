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

from typing import Any

from dstream.sql.errors import PySparkTypeError, PySparkValueError

__all__ = ["Row"]


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
        if "__fields__" not in self.__dict__:
            raise PySparkTypeError("Cannot convert a Row class into dict.", "CANNOT_CONVERT_TYPE",
                                   {"from_type": "Row", "to_type": "dict"})
        if recursive:
            return dict(zip(self.__fields__, (_as_plain(v) for v in self)))
        return dict(zip(self.__fields__, self))

    def __contains__(self, item: object) -> bool:
        # A row with names answers for its names; a row class for its items (which are names).
        if "__fields__" in self.__dict__:
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
            idx = self.__dict__["__fields__"].index(item)
        except (KeyError, ValueError):
            raise AttributeError(item) from None
        return tuple.__getitem__(self, idx)

    def __setattr__(self, key: str, value: Any) -> None:
        if key != "__fields__":
            raise RuntimeError("Row is read-only")
        self.__dict__[key] = value

    def __reduce__(self) -> Any:
        if "__fields__" in self.__dict__:
            return (_create_row, (self.__fields__, tuple(self)))
        return (Row, tuple(self))

    def __repr__(self) -> str:
        if "__fields__" in self.__dict__:
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
