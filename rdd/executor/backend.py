"""The seam between scheduling and execution: the contract every executor backend keeps.

A backend runs tasks somewhere (``InlineBackend``: in the driver's calling thread;
``ProcessPoolBackend``: in worker processes) and reports what happened as events. It is
built with an ``on_event`` callback (``scheduler.events.EventSink``) and implements
:class:`ExecutorBackend`. ``tests/rdd/test_backend_conformance.py`` runs every backend
through this contract; a new backend is one more entry there.

Contract
--------
Events
    ``on_event`` is called with ``TaskFinished``, ``TaskFailed`` or ``ExecutorLost``
    (``rdd.scheduler.events``), from any thread (inside ``submit`` for ``InlineBackend``,
    inside ``pump`` or from the pool's watcher thread for ``ProcessPoolBackend``, from
    its result thread for ``RayBackend``); it must return quickly and never call back
    into the backend (the runner only queues the event). Every submitted
    task yields exactly one event: ``TaskFinished``/``TaskFailed`` with its spec, or its
    spec in the ``tasks`` of exactly one ``ExecutorLost`` when the executor running it
    died. No event comes after ``shutdown`` returns.
``submit(spec, binary)``
    Queue one task. ``binary`` is the pickled stage (its digest is ``spec.digest``): a
    backend may send it to an executor once and cache it there by digest. The outcome
    is only ever reported as an event, never raised or returned (a backend may run the
    task before ``submit`` returns, as ``InlineBackend`` does). A task whose
    ``spec.preferred`` names a live executor runs there if that executor frees up within
    the locality wait; with ``spec.strict_locality`` it waits for it however long.
``executor_ids()``
    The live executors. ``TaskResult.executor_id``/``TaskFailure.executor_id`` and
    ``ExecutorLost.executor_id`` name one of them; the driver keys block locations by
    them. A lost executor's id leaves the list for good (a replacement gets a new id).
``remove_rdd(rdd_id)``
    Every executor drops the cached blocks (memory and disk) of RDD ``rdd_id``. Ordered
    with ``submit``: a task submitted afterwards to the same executor no longer finds
    them.
``release_binaries()``
    A job ended: executors may drop every cached stage binary; a later task comes with
    its binary again.
``cancel_job(job_id)``
    Drop the job's queued tasks (they yield no event) and kill the executors running its
    tasks where it can (their loss is reported as usual, as ``ExecutorLost``, and they
    are replaced); returns without waiting. A task running inline in the caller's thread
    cannot be killed: ``InlineBackend`` has nothing to do.
``shutdown()``
    Idempotent. Kills running tasks and stops every executor: when it returns no task
    runs and no process of the backend is alive.
``pump(timeout)``, ``interrupt()`` (optional)
    A backend that has ``pump`` reads task outcomes only on the thread that calls it:
    whoever waits for events calls it in a loop (one wait of at most ``timeout``
    seconds per call, events delivered before it returns) and never blocks on its
    queue alone. ``interrupt()`` makes a waiting ``pump`` return at once (a job was
    cancelled). Reading on the waiting thread saves a thread switch per task, much of
    a small job's cost.
Observer
    A backend may be given an ``observer`` (the scheduler's ``JobReporter``): it calls
    ``observer.task_launched(spec, executor_id)`` when a task is handed to an executor
    (before it runs) and ``observer.executor_added(executor_id, pid)`` when an executor
    process starts. Both return at once (they only queue listener events).
``parallelism``, ``worker_pids()``
    How many tasks run at once; the operating-system processes of the executors (empty
    when tasks run in the driver), for diagnostics and tests.
"""

from __future__ import annotations

from typing import Protocol

from ..scheduler.task import TaskSpec


class ExecutorBackend(Protocol):
    """What ``JobRunner`` and ``Env`` need of a backend (the contract is in the module doc)."""

    def submit(self, spec: TaskSpec, binary: bytes) -> None: ...

    def executor_ids(self) -> list[str]: ...

    def remove_rdd(self, rdd_id: int) -> None: ...

    def release_binaries(self) -> None: ...

    def cancel_job(self, job_id: int) -> None: ...

    def shutdown(self) -> None: ...

    def worker_pids(self) -> list[int]: ...

    @property
    def parallelism(self) -> int: ...
