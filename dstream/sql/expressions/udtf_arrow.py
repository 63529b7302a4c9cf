"""The rows of an Arrow-optimized UDTF (``useArrow=True``), converted as PySpark's Arrow path does.

What this module owns
---------------------
:func:`arrow_rows`: the rows one call of ``eval``/``terminate`` yielded, through a
``pandas.DataFrame`` and Arrow casts to the declared types, as PySpark's worker converts
them for ``SQL_ARROW_TABLE_UDF``.

Invariants
----------
* Columns are matched by position (a dict row's keys do not reorder them), and values
  are cast as Arrow casts them (``"2"`` to ``2``, ``1.7`` to ``1``, ``1`` to ``1.0``,
  ``True`` to ``"true"``) where the pickled path would give null; a value Arrow cannot
  cast is ``UDTF_ARROW_TYPE_CAST_ERROR``, a ``None`` row one column (so
  ``UDTF_RETURN_SCHEMA_MISMATCH`` unless the schema has one column).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from ..types import StructType
from .udtf_errors import udtf_failure as _failure

__all__ = ["arrow_rows"]


def arrow_rows(schema: StructType, method: str, produced: list[Any]) -> list[tuple[Any, ...]]:
    """The rows of ``produced`` as Python values of ``schema``'s types, by PySpark's Arrow conversion."""
    import pandas as pd  # noqa: PLC0415 - Arrow UDTFs only

    from ..arrow_convert import to_arrow_type  # noqa: PLC0415 - light import at run time only

    frame = pd.DataFrame(produced)
    fields = schema.fields
    if (len(frame) or len(frame.columns)) and len(frame.columns) != len(fields):
        raise _failure(method, f"The number of columns in the result does not match the specified schema. Expected "
                       f"column count: {len(fields)}, Actual column count: {len(frame.columns)}. Please make sure "
                       f"the values returned by the '{method}' method have the same number of columns as specified "
                       "in the output schema.", "UDTF_RETURN_SCHEMA_MISMATCH",
                       {"expected": str(len(fields)), "actual": str(len(frame.columns)), "func": method})
    if not len(frame):
        return []
    columns = []
    for i, f in enumerate(fields):
        series = frame.iloc[:, i].rename(f.name)
        target = to_arrow_type(f.dataType)
        mask = None if hasattr(series.array, "__arrow_array__") else series.isnull()
        try:
            try:
                array = pa.Array.from_pandas(series, mask=mask, type=target, safe=False)
            except pa.lib.ArrowException:
                array = pa.Array.from_pandas(series, mask=mask).cast(target_type=target, safe=False)
        except pa.lib.ArrowException:
            raise _failure(method, f"Cannot convert the output value of the column '{f.name}' with type "
                           f"'{series.dtype}' to the specified return type of the column: '{target}'. Please check "
                           "if the data types match and try again", "UDTF_ARROW_TYPE_CAST_ERROR",
                           {"col_name": f.name, "col_type": str(series.dtype), "arrow_type": str(target)}) from None
        columns.append(array.to_pylist())
    return list(zip(*columns))
