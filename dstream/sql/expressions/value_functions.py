"""Functions of the registry about a value's type, numbers' nulls and zeros, and the session:
``typeof``, ``positive``, ``nullifzero``, ``zeroifnull``, ``current_database`` (``current_schema``),
``current_catalog``, ``current_user`` (``user``, ``session_user``), ``version``, and the file a
row was read from: ``input_file_name``, ``input_file_block_start``, ``input_file_block_length``.

What this module owns
---------------------
Their specs, with Spark's names and results.

Invariants
----------
* ``typeof(v)`` is the simple string of ``v``'s type (``int``, ``array<bigint>``...).
* ``positive(n)`` is ``n``; ``nullifzero(n)`` is null where ``n`` is 0, ``zeroifnull(n)`` is 0
  where ``n`` is null; each keeps ``n``'s numeric type.
* There is one catalog, ``spark_catalog``, with one database, ``default`` (temporary views
  live beside it); the user is ``SPARK_USER`` if set, else the login name, as
  ``SparkContext.sparkUser``.
* ``input_file_name()`` and its siblings read the split the task's file scan is handing on
  (``execution.input_file``): evaluated above a shuffle they give ``""`` and -1.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from rdd.engine_api import spark_user

from ..types import DataType, LongType, StringType
from .base import EvalContext
from .coercion import is_numeric
from .function_registry import FunctionSpec, register

__all__: list[str] = []


def _numeric(name: str) -> Any:
    def check(types: list[DataType]) -> list[DataType | None]:
        if not is_numeric(types[0]):
            raise TypeError(f'the parameter of {name} requires a numeric type, not "{types[0].simpleString().upper()}"')
        return [None]
    return check


def _same(types: list[DataType]) -> DataType:
    return types[0]


def _run_typeof(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    return pa.array([types[0].simpleString()], pa.string())


def _run_nullifzero(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    values = args[0]
    return pc.if_else(pc.equal(values, pa.scalar(0).cast(values.type)), pa.scalar(None, values.type), values)


def _run_zeroifnull(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
    values = args[0]
    return pc.fill_null(values, pa.scalar(0).cast(values.type))


register(FunctionSpec("typeof", 1, 1, lambda ts: [None], lambda ts: StringType(), _run_typeof,
                      null_intolerant=False))
register(FunctionSpec("positive", 1, 1, _numeric("positive"), _same, lambda args, ts, rt, ctx: args[0],
                      display=lambda shown: f"(+ {shown[0]})"))
register(FunctionSpec("nullifzero", 1, 1, _numeric("nullifzero"), _same, _run_nullifzero))
register(FunctionSpec("zeroifnull", 1, 1, _numeric("zeroifnull"), _same, _run_zeroifnull, null_intolerant=False))


def _constant(value: Any) -> Any:
    return lambda args, types, rt, ctx: pa.array([value() if callable(value) else value], pa.string())


def _version() -> str:
    # Spark's "<release> <git revision>": the release followed, then dstreams' own version.
    from rdd import __version__  # noqa: PLC0415 - the package's version, read when asked
    from rdd.engine_api import SPARK_VERSION  # noqa: PLC0415 - as above

    return f"{SPARK_VERSION} dstreams-{__version__}"


register(FunctionSpec("current_database", 0, 0, lambda ts: [], lambda ts: StringType(), _constant("default")),
         "current_schema")
register(FunctionSpec("current_catalog", 0, 0, lambda ts: [], lambda ts: StringType(), _constant("spark_catalog")))
register(FunctionSpec("current_user", 0, 0, lambda ts: [], lambda ts: StringType(), _constant(spark_user)),
         "user", "session_user")
register(FunctionSpec("version", 0, 0, lambda ts: [], lambda ts: StringType(), _constant(_version)))


def _input_file(index: int, arrow_type: pa.DataType) -> Any:
    def run(args: list[Any], types: list[DataType], rt: DataType, ctx: EvalContext) -> pa.Array:
        from ..execution import input_file  # noqa: PLC0415 - the execution package imports the expressions

        return pa.array([input_file.current()[index]], arrow_type)
    return run


register(FunctionSpec("input_file_name", 0, 0, lambda ts: [], lambda ts: StringType(), _input_file(0, pa.string()),
                      null_intolerant=False, foldable=False, deterministic=False))
register(FunctionSpec("input_file_block_start", 0, 0, lambda ts: [], lambda ts: LongType(),
                      _input_file(1, pa.int64()), null_intolerant=False, foldable=False, deterministic=False))
register(FunctionSpec("input_file_block_length", 0, 0, lambda ts: [], lambda ts: LongType(),
                      _input_file(2, pa.int64()), null_intolerant=False, foldable=False, deterministic=False))
