"""Kafka clients: creation with a bounded, explained connect, and per-process pools.

What this module owns
---------------------
* :func:`connect` — build a kafka-python client, failing with
  :class:`~dstream.kafka.errors.BrokerUnreachableError` (naming the servers and what
  each said) instead of kafka-python's generic timeout. A plain TCP connect to every
  bootstrap server comes first: when nothing listens (the usual typo or stopped broker)
  the error comes in milliseconds, and kafka-python is not left with a background I/O
  thread retrying forever (its constructor leaks one when bootstrap fails).
* The worker-side pools. A task opens no connection of its own: it borrows a consumer
  from this process's pool (:func:`borrowed_consumer`) and gives it back, so a worker
  process keeps one warm consumer per distinct ``kafkaParams`` across tasks and batches
  (Spark's executor consumer cache). The sink keeps one producer per ``kafkaParams``
  per process (:func:`shared_producer`); producers are thread-safe, consumers are not,
  hence borrow/return for one and sharing for the other.

Invariants
----------
* A consumer is used by one thread at a time: it is out of the idle list while
  borrowed. A consumer whose task failed is closed, not returned (its position and
  fetch state are unknown), as Spark does with its cached consumers.
* Pools belong to one process. A forked child (a replacement worker) finds the
  parent's entries and drops them without closing: those sockets are the parent's.
* Bounded: at most :data:`MAX_IDLE_PER_KEY` idle consumers per settings key and
  :data:`MAX_KEYS` keys per process; the least recently used key is closed first.
"""

from __future__ import annotations

import atexit
import logging
import os
import socket
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from dstream.kafka.errors import BrokerUnreachableError
from dstream.kafka.params import CONNECT_TIMEOUT_MS, KafkaConfig

__all__ = ["PoolStatistics", "borrowed_consumer", "close_all", "connect", "shared_producer", "statistics"]

logger = logging.getLogger(__name__)

#: Idle consumers kept per settings key. One per concurrently running task is enough:
#: a worker process runs one task at a time; the inline master may run a few threads.
MAX_IDLE_PER_KEY = 4
#: Distinct settings keys kept per process (each holds sockets to the brokers).
MAX_KEYS = 8
#: Seconds given to a client's close (it may try to leave a group or flush).
CLOSE_TIMEOUT_S = 2.0


def _split_address(server: str) -> tuple[str, int]:
    host, _, port = server.rpartition(":")
    if not host:
        return server, 9092
    return host.strip("[]"), int(port)


def preflight(servers: tuple[str, ...], timeout_s: float) -> None:
    """Raise :class:`BrokerUnreachableError` if no server accepts a TCP connection."""
    reasons = []
    for server in servers:
        try:
            host, port = _split_address(server)
        except ValueError:
            raise ValueError(f"bootstrap server {server!r} is not 'host:port'") from None
        try:
            with socket.create_connection((host, port), timeout=timeout_s):
                return
        except OSError as exc:
            reasons.append(f"{server}: {exc.strerror or exc}")
    raise BrokerUnreachableError(
        f"cannot reach any Kafka bootstrap server of {','.join(servers)} ({'; '.join(reasons)}); "
        "check 'bootstrap.servers' in kafkaParams and that the broker is running",
        servers,
    )


def connect(kind: str, conf: dict[str, Any]) -> Any:
    """Create a kafka-python client of ``kind`` (``consumer``, ``producer``, ``admin``).

    Raises
    ------
    BrokerUnreachableError
        If no bootstrap server answers within ``bootstrap_timeout_ms``.
    """
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
    from kafka import errors as kafka_errors

    # kafka-python 3 times out the bootstrap (KafkaTimeoutError); 2.x raised NoBrokersAvailable.
    bootstrap_failures = tuple(getattr(kafka_errors, name) for name in ("KafkaTimeoutError", "NoBrokersAvailable")
                               if hasattr(kafka_errors, name))
    servers = tuple(conf["bootstrap_servers"])
    timeout_ms = conf.get("bootstrap_timeout_ms", CONNECT_TIMEOUT_MS)
    if not conf.get("proxy_url"):
        preflight(servers, timeout_ms / 1000)
    cls = {"consumer": KafkaConsumer, "producer": KafkaProducer, "admin": KafkaAdminClient}[kind]
    try:
        return cls(**conf)
    except bootstrap_failures as exc:
        raise BrokerUnreachableError(
            f"no Kafka broker of {','.join(servers)} completed the handshake within {timeout_ms} ms "
            f"({type(exc).__name__}: {exc}); the address accepts connections but does not answer as a "
            "Kafka broker: check 'bootstrap.servers' (and the security settings) in kafkaParams",
            servers,
        ) from exc


def close_quietly(client: Any) -> None:
    """Close a client, logging (not raising) a failure: closing is best effort."""
    from kafka import KafkaConsumer, KafkaProducer

    try:
        if isinstance(client, KafkaConsumer):  # never auto-commit on close
            client.close(autocommit=False, timeout_ms=int(CLOSE_TIMEOUT_S * 1000))
        elif isinstance(client, KafkaProducer):
            client.close(timeout=CLOSE_TIMEOUT_S)
        else:
            client.close()
    except Exception:  # noqa: BLE001
        logger.debug("closing %r failed", client, exc_info=True)


@dataclass(frozen=True, slots=True)
class PoolStatistics:
    """What this process's client pools did (for tests and debugging).

    Attributes
    ----------
    pid : int
        The process the figures belong to.
    consumers_created, consumers_reused : int
        Consumers opened, and borrows served by an idle consumer.
    consumers_idle : int
        Consumers waiting in the pool now.
    producers_created : int
        Producers opened (one per settings key unless one failed and was replaced).
    producers : int
        Producers open now.
    """

    pid: int
    consumers_created: int
    consumers_reused: int
    consumers_idle: int
    producers_created: int
    producers: int


class _Pools:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Lock()
        self.idle: OrderedDict[tuple[Any, ...], list[Any]] = OrderedDict()
        self.producers: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        # per settings key: [consumers created, borrows served by an idle consumer,
        # producers created]
        self.counts: dict[tuple[Any, ...], list[int]] = {}


_pools = _Pools()
_pools_lock = threading.Lock()


def _current() -> _Pools:
    global _pools
    with _pools_lock:
        if _pools.pid != os.getpid():
            # Inherited through fork: the clients and their sockets belong to the parent.
            _pools = _Pools()
        return _pools


def _evict_keys(pools: _Pools) -> list[Any]:
    """Drop least recently used keys beyond :data:`MAX_KEYS`; return the clients to close."""
    doomed: list[Any] = []
    while len(pools.idle) > MAX_KEYS:
        _, consumers = pools.idle.popitem(last=False)
        doomed.extend(consumers)
    while len(pools.producers) > MAX_KEYS:
        _, producer = pools.producers.popitem(last=False)
        doomed.append(producer)
    return doomed


@contextmanager
def borrowed_consumer(config: KafkaConfig) -> Iterator[Any]:
    """Lend this process's idle consumer for ``config`` (or a new one) for one task.

    The consumer comes back to the pool when the block ends normally or the reading
    generator is closed early (a ``take`` that stopped reading); it is closed when the
    block raises.
    """
    pools = _current()
    key = config.key
    consumer = None
    with pools.lock:
        counts = pools.counts.setdefault(key, [0, 0, 0])
        idle = pools.idle.get(key)
        if idle:
            consumer = idle.pop()
            pools.idle.move_to_end(key)
            counts[1] += 1
    if consumer is None:
        consumer = connect("consumer", config.worker_consumer())
        with pools.lock:
            counts[0] += 1
    healthy = False
    try:
        yield consumer
        healthy = True
    except GeneratorExit:
        healthy = True
        raise
    finally:
        doomed = [] if healthy else [consumer]
        if healthy:
            with pools.lock:
                idle = pools.idle.setdefault(key, [])
                pools.idle.move_to_end(key)
                if len(idle) < MAX_IDLE_PER_KEY:
                    idle.append(consumer)
                else:
                    doomed.append(consumer)
                doomed.extend(_evict_keys(pools))
        for client in doomed:
            close_quietly(client)


def shared_producer(config: KafkaConfig) -> Any:
    """Return this process's producer for ``config``, creating it on first use."""
    pools = _current()
    key = config.key
    with pools.lock:
        producer = pools.producers.get(key)
        if producer is not None:
            pools.producers.move_to_end(key)
            return producer
    producer = connect("producer", config.producer())
    with pools.lock:
        pools.counts.setdefault(key, [0, 0, 0])[2] += 1
        existing = pools.producers.get(key)
        if existing is None:
            pools.producers[key] = producer
            doomed = _evict_keys(pools)
        else:  # another thread won the race: keep one producer per key
            doomed, producer = [producer], existing
    for client in doomed:
        close_quietly(client)
    return producer


def discard_producer(config: KafkaConfig, producer: Any) -> None:
    """Close ``producer`` and forget it (after a failed send its state is unknown)."""
    pools = _current()
    with pools.lock:
        if pools.producers.get(config.key) is producer:
            del pools.producers[config.key]
    close_quietly(producer)


def statistics(config: KafkaConfig | None = None) -> PoolStatistics:
    """Return the figures of this process's pools, for one ``kafkaParams`` or for all."""
    pools = _current()
    with pools.lock:
        if config is None:
            counts = [sum(c[i] for c in pools.counts.values()) for i in range(3)]
            idle = sum(len(v) for v in pools.idle.values())
            producers = len(pools.producers)
        else:
            counts = pools.counts.get(config.key, [0, 0, 0])
            idle = len(pools.idle.get(config.key, ()))
            producers = int(config.key in pools.producers)
        return PoolStatistics(os.getpid(), counts[0], counts[1], idle, counts[2], producers)


def close_all() -> None:
    """Close every pooled client of this process (at exit, and in tests)."""
    pools = _current()
    with pools.lock:
        doomed = [c for consumers in pools.idle.values() for c in consumers] + list(pools.producers.values())
        pools.idle.clear()
        pools.producers.clear()
    for client in doomed:
        close_quietly(client)


atexit.register(close_all)
