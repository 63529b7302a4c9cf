"""The Streaming and Structured Streaming tabs of the web UI, their stores and REST endpoints.

What this package owns
----------------------
* :mod:`dstream.ui.events` / :mod:`dstream.ui.query_events`: the DStream and query events
  as they travel on the SparkContext's listener bus and in the event log.
* :mod:`dstream.ui.streaming_store` + :mod:`dstream.ui.streaming_api`: Spark's
  StreamingJobProgressListener and the ``streaming/...`` REST endpoints.
* :mod:`dstream.ui.query_store`: the Structured Streaming store and ``sql/streaming/...``.
* :mod:`dstream.ui.hooks`: what a StreamingContext and a query manager call to forward
  their events and attach their tabs. ``static/`` holds the tabs' scripts.

The package sits above ``rdd.status`` and ``rdd.ui`` and below the engine that calls its
hooks; it never imports the engine.
"""
