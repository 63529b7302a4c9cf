"""The history server: the web UI of finished (or running) applications, from their event logs.

What this package owns
----------------------
:mod:`dstream.history.server` (:class:`~dstream.history.server.HistoryServer`) and the
command ``python -m dstream.history DIR [--port N]``. An application is one event log in
``DIR`` (``spark.eventLog.dir``), written by ``spark.eventLog.enabled``: ``{appId}`` when
finished, ``{appId}.inprogress`` while it runs.
"""
