"""The base classes of Spark SQL data types: ``DataType``, ``AtomicType``, the numeric bases, ``NullType``.

What this module owns
---------------------
What every type shares (value equality and hashing, ``simpleString``/``jsonValue``/``json``,
``fromJson``/``fromDDL``, the internal-form conversions, pickling) and the singleton
metaclass of the types without parameters. :mod:`dstream.sql.types` builds the concrete
types on these and exports them under PySpark's names.

Invariants
----------
* A type without parameters is a singleton (``IntegerType() is IntegerType()``), also after
  unpickling.
* ``fromJson``/``fromDDL`` parse with the functions :mod:`dstream.sql.types` registers in
  :data:`PARSERS` when it loads (this module cannot import the module built on it).
"""

from __future__ import annotations

import json as _json
from collections.abc import Callable
from typing import Any, ClassVar

__all__ = ["AtomicType", "DataType", "FractionalType", "IntegralType", "NullType", "NumericType", "PARSERS",
           "ParameterizedAtomicType"]

#: ``"json"`` and ``"ddl"``: the parsers behind ``DataType.fromJson`` and ``fromDDL``.
PARSERS: dict[str, Callable[[Any], Any]] = {}


class DataType:
    """Base of every Spark SQL data type."""

    def __repr__(self) -> str:
        return self.__class__.__name__ + "()"

    def __hash__(self) -> int:
        return hash(str(self))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, self.__class__) and self.__dict__ == other.__dict__

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    @classmethod
    def typeName(cls) -> str:  # noqa: N802 - PySpark's name
        """The type's name in JSON and printSchema (``integer``, ``long``, ``struct``...)."""
        return cls.__name__[:-4].lower()

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """The type as SQL writes it (``int``, ``bigint``, ``array<string>``...)."""
        return self.typeName()

    def jsonValue(self) -> Any:  # noqa: N802 - PySpark's name
        """The type as a JSON-ready value (a name, or a dict for nested types)."""
        return self.typeName()

    def json(self) -> str:
        """The type as compact JSON text with sorted keys, as Spark writes it."""
        return _json.dumps(self.jsonValue(), separators=(",", ":"), sort_keys=True)

    @classmethod
    def fromJson(cls, json: Any) -> DataType:  # noqa: N802 - PySpark's name
        """The type a JSON value (``"integer"`` or a dict) describes."""
        return PARSERS["json"](json)

    @classmethod
    def fromDDL(cls, ddl: str) -> DataType:  # noqa: N802 - PySpark's name
        """The type a DDL string describes (``"a int, b string"``, ``"array<int>"``)."""
        return PARSERS["ddl"](ddl)

    def needConversion(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether Python values of this type need converting to the internal form."""
        return False

    def toInternal(self, obj: Any) -> Any:  # noqa: N802 - PySpark's name
        """The internal form of a Python value (the value itself for most types)."""
        return obj

    def fromInternal(self, obj: Any) -> Any:  # noqa: N802 - PySpark's name
        """The Python value of an internal form (the value itself for most types)."""
        return obj

    def __reduce_ex__(self, protocol: Any) -> Any:
        # Unpickling goes through the class so parameterless types stay singletons.
        if isinstance(type(self), _Singleton):
            return (type(self), ())
        return super().__reduce_ex__(protocol)

    def _tree_name(self) -> str:
        # printSchema names a type as Scala's typeName does: decimals carry precision and scale.
        return self.typeName()


class _Singleton(type):
    """Metaclass making a type without parameters a singleton, as PySpark's ``DataTypeSingleton``."""

    _instances: ClassVar[dict[type, Any]] = {}

    def __call__(cls) -> Any:
        if cls not in cls._instances:
            cls._instances[cls] = super().__call__()
        return cls._instances[cls]


class NullType(DataType, metaclass=_Singleton):
    """The type of ``None``: the type of a column whose values could not be inferred."""

    @classmethod
    def typeName(cls) -> str:  # noqa: N802 - PySpark's name
        """``void``, as Spark names it."""
        return "void"


class AtomicType(DataType):
    """A type that is not nested (not array, map or struct)."""


class NumericType(AtomicType):
    """A numeric type."""


class IntegralType(NumericType, metaclass=_Singleton):
    """An integer type (byte, short, int, long)."""

    _sql_name = ""

    def simpleString(self) -> str:  # noqa: N802 - PySpark's name
        """SQL's name: ``tinyint``, ``smallint``, ``int``, ``bigint``."""
        return self._sql_name or self.typeName()


class FractionalType(NumericType):
    """A non-integral numeric type (float, double, decimal)."""


class ParameterizedAtomicType(AtomicType):
    """An atomic type with parameters (``char(5)``, ``interval hour``): its JSON and printSchema name
    are its :meth:`simpleString`, its repr names the class and the parameters."""

    def _parameters(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def jsonValue(self) -> str:  # noqa: N802 - PySpark's name
        """As :meth:`simpleString`."""
        return self.simpleString()

    def _tree_name(self) -> str:
        return self.simpleString()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(str(p) for p in self._parameters())})"
