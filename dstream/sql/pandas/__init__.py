"""pandas and PyArrow interoperability helpers, under PySpark's ``pyspark.sql.pandas`` names.

What this package owns
----------------------
:mod:`.utils` (the version checks PySpark's examples call first) and :mod:`.functions`
(``pandas_udf`` and ``PandasUDFType``, also importable from ``dstream.sql.functions``).
"""
