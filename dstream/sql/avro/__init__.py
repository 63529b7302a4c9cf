"""Avro: ``from_avro`` and ``to_avro`` (``dstream.sql.avro.functions``), as PySpark's ``pyspark.sql.avro``.

The package parses Avro schemas and maps them to Spark's types (``schema``), encodes and
decodes single Avro data (``codec``), and holds the two expressions (``expressions``).
"""
