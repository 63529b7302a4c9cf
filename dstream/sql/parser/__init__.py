"""Spark SQL text to the public DataFrame API: expression strings and the SELECT subset."""
