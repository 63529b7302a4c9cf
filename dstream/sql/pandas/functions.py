"""``pandas_udf`` and ``PandasUDFType`` where PySpark also offers them, ``pyspark.sql.pandas.functions``."""

from __future__ import annotations

from ..functions_pandas_udf import PandasUDFType, pandas_udf

__all__ = ["PandasUDFType", "pandas_udf"]
