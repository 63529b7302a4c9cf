"""``DataFrame.mergeInto``: PySpark 4's MERGE builder, with Spark's answer for these tables.

What this module owns
---------------------
:class:`MergeIntoWriter` and its clause builders (``whenMatched`` with ``update``,
``updateAll`` and ``delete``; ``whenNotMatched`` with ``insert`` and ``insertAll``;
``whenNotMatchedBySource`` with ``update``, ``updateAll`` and ``delete``;
``withSchemaEvolution``), as PySpark builds a merge. Spark 4.0 runs a MERGE only on
tables of a catalog that supports row-level changes (Delta Lake, Iceberg); on the
session catalog's tables, the only ones here, ``merge()`` fails as Spark's does, and so
does SQL's ``MERGE INTO`` (``statements``).

Invariants
----------
* ``merge()`` checks in Spark's order: a clause was given (``NO_MERGE_ACTION_SPECIFIED``),
  the target table exists (``TABLE_OR_VIEW_NOT_FOUND``), then it is refused with Spark's
  ``UnsupportedOperationException("MERGE INTO TABLE is not supported temporarily.")``; no
  table is changed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NoReturn

from .errors import AnalysisException, SparkRuntimeException, UnsupportedOperationException

if TYPE_CHECKING:
    from .column import Column
    from .dataframe import DataFrame

__all__ = ["MergeIntoWriter", "refuse_merge"]


def refuse_merge() -> NoReturn:
    """Spark's answer to a MERGE into a session-catalog table (the DataFrame builder's and SQL's)."""
    raise UnsupportedOperationException(
        "MERGE INTO TABLE is not supported temporarily. (Spark runs MERGE on tables of catalogs with "
        "row-level changes, such as Delta Lake's; the session catalog's tables have none.)")


class MergeIntoWriter:
    """A MERGE of a DataFrame's rows into table ``table`` on ``condition`` (``df.mergeInto``)."""

    def __init__(self, df: DataFrame, table: str, condition: Column) -> None:
        self._df = df
        self._table = table
        self._condition = condition
        self._clauses: list[tuple[str, Column | None, str, dict[str, Column] | None]] = []
        self._schema_evolution = False

    def whenMatched(self, condition: Column | None = None) -> MergeIntoWriter.WhenMatched:  # noqa: N802
        """The action for target rows a source row matches (and ``condition`` holds)."""
        return MergeIntoWriter.WhenMatched(self, condition)

    def whenNotMatched(self, condition: Column | None = None) -> MergeIntoWriter.WhenNotMatched:  # noqa: N802
        """The action for source rows no target row matches."""
        return MergeIntoWriter.WhenNotMatched(self, condition)

    def whenNotMatchedBySource(self, condition: Column | None = None  # noqa: N802 - PySpark's name
                               ) -> MergeIntoWriter.WhenNotMatchedBySource:
        """The action for target rows no source row matches."""
        return MergeIntoWriter.WhenNotMatchedBySource(self, condition)

    def withSchemaEvolution(self) -> MergeIntoWriter:  # noqa: N802 - PySpark's name
        """Let the merge add the source's new columns to the target's schema."""
        self._schema_evolution = True
        return self

    def _add(self, kind: str, condition: Column | None, action: str,
             assignments: dict[str, Column] | None = None) -> MergeIntoWriter:
        self._clauses.append((kind, condition, action, assignments))
        return self

    def merge(self) -> None:
        """Run the merge: refused here as Spark refuses it for the session catalog's tables (see the module doc)."""
        if not self._clauses:
            raise SparkRuntimeException(
                "df.mergeInto needs to be followed by at least one of whenMatched/whenNotMatched/"
                "whenNotMatchedBySource.", "NO_MERGE_ACTION_SPECIFIED", {})
        session = self._df.sparkSession
        if not session.catalog.tableExists(self._table):
            raise AnalysisException(
                f"The table or view `{self._table}` cannot be found. Verify the spelling and correctness of the "
                "schema and catalog.", "TABLE_OR_VIEW_NOT_FOUND", {"relationName": f"`{self._table}`"})
        refuse_merge()

    class WhenMatched:
        """``whenMatched(condition)``: ``update``, ``updateAll`` or ``delete``."""

        def __init__(self, writer: MergeIntoWriter, condition: Column | None) -> None:
            self.writer = writer
            self.condition = condition

        def updateAll(self) -> MergeIntoWriter:  # noqa: N802 - PySpark's name
            return self.writer._add("matched", self.condition, "updateAll")

        def update(self, assignments: dict[str, Column]) -> MergeIntoWriter:
            return self.writer._add("matched", self.condition, "update", dict(assignments))

        def delete(self) -> MergeIntoWriter:
            return self.writer._add("matched", self.condition, "delete")

    class WhenNotMatched:
        """``whenNotMatched(condition)``: ``insert`` or ``insertAll``."""

        def __init__(self, writer: MergeIntoWriter, condition: Column | None) -> None:
            self.writer = writer
            self.condition = condition

        def insertAll(self) -> MergeIntoWriter:  # noqa: N802 - PySpark's name
            return self.writer._add("notMatched", self.condition, "insertAll")

        def insert(self, assignments: dict[str, Column]) -> MergeIntoWriter:
            return self.writer._add("notMatched", self.condition, "insert", dict(assignments))

    class WhenNotMatchedBySource:
        """``whenNotMatchedBySource(condition)``: ``update``, ``updateAll`` or ``delete``."""

        def __init__(self, writer: MergeIntoWriter, condition: Column | None) -> None:
            self.writer = writer
            self.condition = condition

        def updateAll(self) -> MergeIntoWriter:  # noqa: N802 - PySpark's name
            return self.writer._add("notMatchedBySource", self.condition, "updateAll")

        def update(self, assignments: dict[str, Column]) -> MergeIntoWriter:
            return self.writer._add("notMatchedBySource", self.condition, "update", dict(assignments))

        def delete(self) -> MergeIntoWriter:
            return self.writer._add("notMatchedBySource", self.condition, "delete")
