"""Where a StreamingContext and a SparkSession's query manager meet the SparkContext's UI.

What this module owns
---------------------
* :class:`StreamingUI`: for one running StreamingContext, forwards every StreamingListener
  event to the SparkContext's listener bus (so the event log records them), keeps the
  :class:`~dstream.ui.streaming_store.StreamingStore` on that bus, registers the
  ``streaming`` REST endpoints and attaches the Streaming tab; :meth:`StreamingUI.stop`
  detaches the tab (Spark's Streaming tab lives as long as its context).
* :func:`set_job_properties`: the job-thread properties that link each Spark job to its
  batch and output operation (Spark's keys), and the job's description.
* :func:`query_ui`: the per-context Structured Streaming store, REST endpoints and tab,
  made when the first query starts; :func:`forward_query_event` posts query events.

Invariants
----------
* Without a listener bus on the SparkContext, or while it has no listener (no UI, no
  event log, no program's listener), nothing is forwarded and the streaming bus has no
  forwarder; without a UI no tab and no endpoint are added. Either way the stream runs
  unchanged.
* The Streaming store sees the forwarded events in the order the StreamingContext posted
  them: one forwarder, one bus, in-order delivery on both.
* The REST handlers answer 404 (Spark's "no streaming listener attached") once the
  context stopped; a later StreamingContext on the same SparkContext replaces them.
"""

from __future__ import annotations

import os
import threading
import weakref
from typing import TYPE_CHECKING, Any

from rdd.engine_api import UITab, listener_bus, spark_ui

from dstream.time import describe_time
from dstream.ui.events import StreamingContextInfo, wrap
from dstream.ui.streaming_api import StreamingApi
from dstream.ui.streaming_store import BATCH_TIME_PROPERTY, OUTPUT_OP_ID_PROPERTY, StreamingStore

if TYPE_CHECKING:
    from rdd import SparkContext

    from dstream.scheduler.job import Job

__all__ = ["STATIC_DIR", "StreamingUI", "forward_query_event", "query_ui", "set_job_properties"]

#: The tabs' scripts (served under ``/static/`` next to the core's).
STATIC_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")

_CALLBACKS = ("onStreamingStarted", "onReceiverStarted", "onReceiverError", "onReceiverStopped",
              "onBatchSubmitted", "onBatchStarted", "onBatchCompleted", "onOutputOperationStarted",
              "onOutputOperationCompleted")


class _Forwarder:
    """A StreamingListener that re-posts each event, wrapped, on the SparkContext's bus."""

    def __init__(self, bus: Any) -> None:
        self._bus = bus

    def on_event(self, event: Any) -> None:
        if self._bus.listeners:  # wrapping builds JSON: skip it when nobody listens
            self._bus.post(wrap(event))


for _name in _CALLBACKS:
    setattr(_Forwarder, _name, _Forwarder.on_event)


def _attach_static(ui: Any) -> None:
    dirs = getattr(ui, "static_dirs", None)
    if dirs is not None and STATIC_DIR not in dirs:
        dirs.append(STATIC_DIR)


class StreamingUI:
    """The Streaming tab's parts for one StreamingContext (see the module docstring)."""

    def __init__(self, sc: SparkContext, streaming_bus: Any, batch_ms: int, inputs: dict[int, str],
                 now_ms: int) -> None:
        self._sc = sc
        self._bus = listener_bus(sc)
        self._streaming_bus = streaming_bus
        self._forwarder: _Forwarder | None = None
        self.store: StreamingStore | None = None
        self._api: _Switchable | None = None
        if self._bus is None:
            return
        ui = spark_ui(sc)
        if ui is not None:
            retained = sc.getConf().getInt("spark.streaming.ui.retainedBatches", 1000)
            self.store = StreamingStore(retained)
            self._bus.add_listener(self.store)
            self._api = _Switchable(StreamingApi(self.store))
            ui.api.register("streaming", self._api)  # type: ignore[attr-defined]
        self._bus.post(StreamingContextInfo(now_ms, batch_ms, {str(k): v for k, v in inputs.items()}))
        # On the streaming bus only while someone listens on the context's bus (the UI's
        # store, the event log, a program's listener): a streaming bus with no listener lets
        # the engine skip building a batch's events altogether.
        self._forwarder = _Forwarder(self._bus)
        self._following = True
        self._follow_lock = threading.Lock()
        self._follow()
        self._bus.watch_listeners(self._follow)
        if ui is not None:
            _attach_static(ui)
            ui.attach_tab(UITab("streaming", "Streaming", "streaming.js"))

    def _follow(self) -> None:
        """Put the forwarder on the streaming bus, or take it off, as the context's bus has listeners."""
        with self._follow_lock:
            if self._forwarder is None or self._bus is None:
                return
            wanted = self._following and bool(self._bus.listeners)
            if wanted != any(lst is self._forwarder for lst in self._streaming_bus.listeners):
                if wanted:
                    self._streaming_bus.add_listener(self._forwarder)
                else:
                    self._streaming_bus.remove_listener(self._forwarder)

    def stop(self) -> None:
        """Detach the tab and the endpoints (after the streaming bus delivered its last events)."""
        if self._bus is not None:
            self._bus.unwatch_listeners(self._follow)
            with self._follow_lock:
                self._following = False
            self._follow()
        ui = spark_ui(self._sc)
        if ui is not None and self.store is not None:
            ui.detach_tab("streaming")
            if self._api is not None:
                self._api.enabled = False
            if self._bus is not None:
                # Its answers are off: a later StreamingContext on this SparkContext brings its own.
                self._bus.remove_listener(self.store)


class _Switchable:
    """A REST handler that answers Spark's 404 once its context has stopped."""

    def __init__(self, handler: Any) -> None:
        self.handler = handler
        self.enabled = True

    def __call__(self, parts: list[str], query: dict[str, list[str]]) -> tuple[int, Any]:
        if not self.enabled:
            return 404, "no streaming listener attached to this application: its StreamingContext has stopped"
        return self.handler(parts, query)


def set_job_properties(sc: SparkContext, job: Job) -> None:
    """Mark the job thread's next Spark jobs as output operation ``job.output_op_id`` of its batch."""
    sc.setLocalProperty(BATCH_TIME_PROPERTY, str(job.time_ms))
    sc.setLocalProperty(OUTPUT_OP_ID_PROPERTY, str(job.output_op_id))
    sc.setJobDescription(f"Streaming job from [output operation {job.output_op_id}, batch time "
                         f"{describe_time(job.time_ms)}]")


# -- Structured Streaming ----------------------------------------------------------------
_query_lock = threading.Lock()
# One Structured Streaming store per SparkContext (sessions share their context's UI).
_query_stores: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()


def query_ui(sc: SparkContext) -> Any:
    """The context's :class:`~dstream.ui.query_store.QueryStore`, made (with tab and endpoints) on first use.

    ``None`` without a listener bus, or when ``spark.sql.streaming.ui.enabled`` is false
    or the UI is off (the events are still forwarded for the event log).
    """
    bus = listener_bus(sc)
    ui = spark_ui(sc)
    if bus is None or ui is None:
        return None
    with _query_lock:
        store = _query_stores.get(sc)
        if store is not None:
            return store
        conf = sc.getConf()
        if not conf.getBoolean("spark.sql.streaming.ui.enabled", True):
            return None
        from dstream.ui.query_store import QueryApi, QueryStore

        store = QueryStore(conf.getInt("spark.sql.streaming.ui.retainedQueries", 100),
                           conf.getInt("spark.sql.streaming.ui.retainedProgressUpdates", 100))
        bus.add_listener(store)
        ui.api.register("sql/streaming", QueryApi(store))  # type: ignore[attr-defined]
        _attach_static(ui)
        ui.attach_tab(UITab("StreamingQuery", "Structured Streaming", "structured_streaming.js"))
        _query_stores[sc] = store
        return store


def forward_query_event(sc: SparkContext, event: Any) -> None:
    """Post a query listener event on the SparkContext's bus (no-op without a bus)."""
    bus = listener_bus(sc)
    if bus is None or not bus.listeners:
        return
    # Wrapped on the delivery thread, not the query's: the progress' JSON round trip is
    # most of a small micro-batch's listener cost. A posted progress is not changed after.
    bus.post_deferred(_wrapped_query_event, event)


def _wrapped_query_event(event: Any) -> tuple[Any, ...]:
    from dstream.ui.query_events import wrap_query_event

    wrapped = wrap_query_event(event)
    return () if wrapped is None else (wrapped,)
