"""A session's query-listener thread: it delivers the last events, then ends with the session."""

from __future__ import annotations

from typing import Any

from dstream.sql.streaming import MemoryStream, StreamingQueryListener
from tests.conftest import ContextPool
from tests.sql.streaming.conftest import fresh_session

DEADLINE = 60.0


def test_the_listener_thread_ends_with_its_session_after_the_last_event(context_pool: ContextPool) -> None:
    spark = fresh_session(context_pool, "local", "test-query-listener-thread")
    terminated: list[str] = []

    class Terminations(StreamingQueryListener):
        def onQueryTerminated(self, event: Any) -> None:  # noqa: N802 - PySpark's callback
            terminated.append(event.id)

    try:
        spark.streams.addListener(Terminations())
        thread = spark.streams._bus._thread
        assert thread is not None and thread.is_alive()
        stream = MemoryStream("int", spark)
        query = stream.toDF().writeStream.format("memory").queryName("listener_thread").start()
        stream.addData([1])
        query.processAllAvailable(DEADLINE)
    finally:
        spark.stop()  # stops the query too: its termination is the bus's last event
    assert terminated == [query.id], "the query's termination was not delivered before the session stopped"
    assert not thread.is_alive(), "the session stopped, its query-listener thread did not"
