"""Structured Streaming: ``spark.readStream`` / ``df.writeStream`` queries on the micro-batch engine."""
