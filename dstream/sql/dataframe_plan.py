"""``DataFrame`` methods about its plan and columns: ``isLocal``, ``inputFiles``,
``sameSemantics``, ``semanticHash``, ``colRegex`` and ``to``.

What this module owns
---------------------
:class:`PlanMethods`, mixed into ``DataFrame``.

* ``sameSemantics``/``semanticHash`` compare optimized plans with their expression ids
  numbered in order of appearance, so two DataFrames built alike from the same data
  compare equal although their columns' ids differ.
* ``to(schema)`` reconciles the columns to a schema: picked by name (in the schema's
  order, others dropped) and cast to its types; a missing column is an error.
* ``colRegex`` selects the columns whose whole name matches a backquoted regular
  expression (a name without backquotes is a column name).
"""

from __future__ import annotations

import os
import re
import zlib
from typing import TYPE_CHECKING, Any

from .column import Column
from .errors import AnalysisException, PySparkTypeError
from .expressions.base import UnresolvedStar
from .types import StructType

if TYPE_CHECKING:
    from .dataframe import DataFrame

__all__ = ["PlanMethods"]

_ID = re.compile(r"#\d+")


class PlanMethods:
    """The methods of the module doc, on ``DataFrame``."""

    def isLocal(self) -> bool:  # noqa: N802 - PySpark's name
        """Whether ``collect`` needs no job: the DataFrame is local data as it was given."""
        from .plan.logical import LocalRelation  # noqa: PLC0415 - the plan's node classes

        df: Any = self
        return isinstance(df._plan, LocalRelation)

    def inputFiles(self) -> list[str]:  # noqa: N802 - PySpark's name
        """The files the DataFrame reads (``file:`` paths, each once, sorted)."""
        from .plan.logical import FileRelation  # noqa: PLC0415 - the plan's node classes

        df: Any = self
        files = {os.path.abspath(f) for node in df._plan.walk() if isinstance(node, FileRelation) for f in node.files}
        return sorted(f"file:{f}" for f in files)

    def _canonical(self) -> str:
        df: Any = self
        text = df._execution().optimized.tree_string()
        numbers: dict[str, str] = {}
        return _ID.sub(lambda m: numbers.setdefault(m.group(0), f"#{len(numbers)}"), text)

    def sameSemantics(self, other: DataFrame) -> bool:  # noqa: N802 - PySpark's name
        """Whether both DataFrames compute the same rows by the same plan (ids aside)."""
        if not isinstance(other, PlanMethods):
            raise PySparkTypeError(f"Argument `other` should be a DataFrame, got {type(other).__name__}.",
                                   "NOT_DATAFRAME", {"arg_name": "other", "arg_type": type(other).__name__})
        return self._canonical() == other._canonical()

    def semanticHash(self) -> int:  # noqa: N802 - PySpark's name
        """A hash equal for DataFrames of the same semantics (see :meth:`sameSemantics`)."""
        value = zlib.crc32(self._canonical().encode("utf-8"))
        return value - (1 << 32) if value >= 1 << 31 else value

    def colRegex(self, colName: str) -> Column:  # noqa: N802,N803 - PySpark's names
        """The columns whose whole name matches a regular expression in backquotes (`` "`(id|v.*)`" ``)."""
        if not isinstance(colName, str):
            raise PySparkTypeError(f"Argument `colName` should be a str, got {type(colName).__name__}.", "NOT_STR",
                                   {"arg_name": "colName", "arg_type": type(colName).__name__})
        if len(colName) > 1 and colName.startswith("`") and colName.endswith("`"):
            return Column(UnresolvedStar(pattern=colName[1:-1]))
        df: Any = self
        return df[colName]

    def to(self, schema: StructType) -> DataFrame:
        """The columns of ``schema``, picked by name in its order and cast to its types (others dropped)."""
        if not isinstance(schema, StructType):
            raise PySparkTypeError(f"Argument `schema` should be a StructType, got {type(schema).__name__}.",
                                   "NOT_STRUCT", {"arg_name": "schema", "arg_type": type(schema).__name__})
        df: Any = self
        names = {c.lower(): c for c in df.columns} if not df._case_sensitive else {c: c for c in df.columns}
        columns = []
        for field in schema.fields:
            found = names.get(field.name if df._case_sensitive else field.name.lower())
            if found is None:
                raise AnalysisException(
                    f"A column or function parameter with name `{field.name}` cannot be resolved. Did you mean one "
                    f"of the following? [{', '.join(f'`{c}`' for c in df.columns)}]. to(schema) picks columns by "
                    "name.", "UNRESOLVED_COLUMN.WITH_SUGGESTION", {"objectName": f"`{field.name}`"})
            columns.append(df[found].cast(field.dataType).alias(field.name))
        return df.select(*columns)

    def createOrReplaceGlobalTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Make this DataFrame queryable as ``global_temp.<name>`` by every session of the application."""
        df: Any = self
        df._session._register_view(name, df, replace=True, global_view=True)

    def createGlobalTempView(self, name: str) -> None:  # noqa: N802 - PySpark's name
        """Like ``createOrReplaceGlobalTempView``, but fail if the name is taken."""
        df: Any = self
        df._session._register_view(name, df, replace=False, global_view=True)
