"""``kafkaParams`` (Kafka's dotted setting names, as Spark users write them) to client settings.

What this module owns
---------------------
The translation from the mapping a PySpark program passes (``{"bootstrap.servers":
"host:9092", "group.id": "app", "auto.offset.reset": "earliest"}``) to the keyword
arguments of kafka-python's ``KafkaConsumer``/``KafkaProducer``/``KafkaAdminClient``, and
the settings each *role* forces, following Spark's kafka-0-10 ``fixKafkaParams``:

========  ==========================================================================
role      forced settings (why)
========  ==========================================================================
driver    no auto-commit (offsets are committed only by ``commitAsync``), no
          automatic reset (the stream decides what an out-of-range offset means),
          topic auto-creation only if asked, a bounded bootstrap time (start fails
          within :data:`CONNECT_TIMEOUT_MS` when no broker answers)
worker    no group (a worker reads ranges by ``assign``/``seek``; it never commits and
          needs no coordinator), no auto-commit, ``auto_offset_reset='none'`` (a range
          is read exactly or the task fails), no topic creation, a receive buffer of
          at least 64 KiB (Spark's floor)
producer  idempotence on, ``acks='all'`` (the sink's delivery rule)
========  ==========================================================================

Keys may be given in Kafka's dotted form (``fetch.max.bytes``) or kafka-python's
snake_case (``fetch_max_bytes``); string values are converted to the type of the
client's default (``"true"`` → ``True``, ``"500"`` → ``500``), since Spark programs pass
strings (booleans are ``true`` or ``false`` in any case, as in Kafka's own clients and
in every setting of this engine). A key that no kafka-python client knows is ignored with
a warning (Kafka's Java client does the same), so that settings meant for other tools do
not break a program.

Invariant: :class:`KafkaConfig` is immutable and hashable; its :attr:`KafkaConfig.key`
identifies "the same client settings" for the per-worker client pools.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rdd.engine_api import parse_boolean

__all__ = ["CONNECT_TIMEOUT_MS", "KafkaConfig", "parse_kafka_params"]

logger = logging.getLogger(__name__)

#: How long the driver waits for a bootstrap server before failing ``start()`` or
#: ``createRDD``. Long enough for a broker under load, short enough that a typo in an
#: address fails fast (kafka-python's own default is 30 s). Override with the
#: ``bootstrap.timeout.ms`` setting.
CONNECT_TIMEOUT_MS = 5000

#: Broker-side wait of a worker's fetch when no data is there yet (kafka-python: 500 ms).
WORKER_FETCH_MAX_WAIT_MS = 50

#: Spark's floor for the consumer receive buffer (``fixKafkaParams``).
MIN_RECEIVE_BUFFER_BYTES = 65536

_RESETS = {"earliest": "earliest", "smallest": "earliest", "latest": "latest", "largest": "latest",
           "none": "none"}

_SERDE = {"key_deserializer", "value_deserializer", "key_serializer", "value_serializer"}
_LEGACY_IGNORED = {"zookeeper_connect", "zookeeper_connection_timeout_ms", "zookeeper_session_timeout_ms"}


def _client_defaults() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer

    return (dict(KafkaConsumer.DEFAULT_CONFIG), dict(KafkaProducer.DEFAULT_CONFIG),
            dict(KafkaAdminClient.DEFAULT_CONFIG))


def _convert(name: str, value: Any, default: Any) -> Any:
    """Convert a string value to the type of kafka-python's default for that setting."""
    if not isinstance(value, str) or default is None or isinstance(default, str):
        return value
    if isinstance(default, bool):
        return parse_boolean(f"kafkaParams[{name!r}]", value)
    try:
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError as exc:
        raise ValueError(f"kafkaParams[{name!r}] = {value!r} is not a valid {type(default).__name__} "
                         f"({exc})") from None
    return value


def _servers(name: str, value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else list(value)
    servers = tuple(str(s).strip() for s in items if str(s).strip())
    if not servers:
        raise ValueError(f"kafkaParams[{name!r}] names no server, got {value!r}; expected 'host:port[,host:port]'")
    return servers


@dataclass(frozen=True)
class KafkaConfig:
    """The parsed ``kafkaParams`` of one source or sink.

    Attributes
    ----------
    servers : tuple of str
        Bootstrap ``host:port`` addresses.
    group_id : str or None
        Consumer group (for ``commitAsync`` and for starting from committed offsets).
    offset_reset : str or None
        ``"earliest"``, ``"latest"`` or ``"none"`` when ``auto.offset.reset`` was given
        (Spark 0.8's ``smallest``/``largest`` are accepted), else ``None``.
    allow_auto_create : bool
        ``allow.auto.create.topics``: create a missing topic instead of failing.
    settings : tuple of (str, object)
        Every other recognised setting, snake_case, sorted.
    """

    servers: tuple[str, ...]
    group_id: str | None
    offset_reset: str | None
    allow_auto_create: bool
    settings: tuple[tuple[str, Any], ...]

    @property
    def key(self) -> tuple[Any, ...]:
        """A hashable identity of the client settings (pool key)."""
        return (self.servers, tuple((k, repr(v)) for k, v in self.settings))

    @property
    def bootstrap(self) -> str:
        """The servers as one ``host:port,host:port`` string (for messages)."""
        return ",".join(self.servers)

    def _for(self, defaults: Mapping[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in self.settings if k in defaults}

    def driver_consumer(self) -> dict[str, Any]:
        """Settings of the driver's consumer (offset look-ups and commits)."""
        consumer, _, _ = _client_defaults()
        conf = self._for(consumer)
        conf.setdefault("client_id", "dstreams-kafka-driver")
        conf.setdefault("bootstrap_timeout_ms", CONNECT_TIMEOUT_MS)
        conf.update(bootstrap_servers=list(self.servers), group_id=self.group_id, enable_auto_commit=False,
                    auto_offset_reset="none", allow_auto_create_topics=self.allow_auto_create)
        return {k: v for k, v in conf.items() if k in consumer}

    def worker_consumer(self) -> dict[str, Any]:
        """Settings of a worker's consumer (reads exact ranges)."""
        consumer, _, _ = _client_defaults()
        conf = self._for(consumer)
        conf.setdefault("client_id", "dstreams-kafka-executor")
        conf.setdefault("bootstrap_timeout_ms", CONNECT_TIMEOUT_MS)
        # A task reads ranges that exist; the broker waits fetch_max_wait_ms only at the
        # log end, where a long wait would delay the next task's fetch on this connection.
        conf.setdefault("fetch_max_wait_ms", WORKER_FETCH_MAX_WAIT_MS)
        buffer = conf.get("receive_buffer_bytes")
        if buffer is None or buffer < MIN_RECEIVE_BUFFER_BYTES:
            conf["receive_buffer_bytes"] = MIN_RECEIVE_BUFFER_BYTES
        conf.update(bootstrap_servers=list(self.servers), group_id=None, enable_auto_commit=False,
                    auto_offset_reset="none", allow_auto_create_topics=False)
        return {k: v for k, v in conf.items() if k in consumer}

    def producer(self) -> dict[str, Any]:
        """Settings of a worker's producer (the sink)."""
        _, producer, _ = _client_defaults()
        conf = self._for(producer)
        conf.setdefault("client_id", "dstreams-kafka-sink")
        conf.setdefault("bootstrap_timeout_ms", CONNECT_TIMEOUT_MS)
        conf.update(bootstrap_servers=list(self.servers), enable_idempotence=True, acks="all")
        return {k: v for k, v in conf.items() if k in producer}

    def admin(self) -> dict[str, Any]:
        """Settings of a short-lived admin client (topic creation)."""
        _, _, admin = _client_defaults()
        conf = self._for(admin)
        conf.setdefault("client_id", "dstreams-kafka-admin")
        conf.setdefault("bootstrap_timeout_ms", CONNECT_TIMEOUT_MS)
        conf["bootstrap_servers"] = list(self.servers)
        return {k: v for k, v in conf.items() if k in admin}


def parse_kafka_params(kafkaParams: Mapping[str, Any]) -> KafkaConfig:  # noqa: N803 - PySpark name
    """Parse a PySpark-style ``kafkaParams`` mapping.

    Raises
    ------
    TypeError
        If ``kafkaParams`` is not a mapping, or sets a (de)serializer.
    ValueError
        If no bootstrap server is named, or a value is malformed.
    """
    if not isinstance(kafkaParams, Mapping):
        raise TypeError(f"kafkaParams must be a dict of Kafka settings, got {type(kafkaParams).__name__}")
    consumer, producer, admin = _client_defaults()
    known = {**admin, **producer, **consumer}
    servers: tuple[str, ...] | None = None
    group_id = None
    reset = None
    allow_create = False
    settings: dict[str, Any] = {}
    for name, value in kafkaParams.items():
        key = str(name).strip().replace(".", "_").replace("-", "_")
        if key in ("bootstrap_servers", "metadata_broker_list"):
            servers = _servers(name, value)
        elif key == "group_id":
            group_id = None if value is None else str(value)
        elif key == "auto_offset_reset":
            reset = _RESETS.get(str(value).strip().lower())
            if reset is None:
                raise ValueError(f"kafkaParams[{name!r}] must be one of earliest, latest, none (or Spark 0.8's "
                                 f"smallest, largest), got {value!r}")
        elif key == "allow_auto_create_topics":
            allow_create = parse_boolean(f"kafkaParams[{name!r}]", value)
        elif key == "enable_auto_commit":
            if parse_boolean(f"kafkaParams[{name!r}]", value):
                logger.warning("kafkaParams[%r] = %r is ignored: offsets are committed only when the program "
                               "calls commitAsync(offsetRanges) after its output succeeded", name, value)
        elif key in _SERDE:
            raise TypeError(f"kafkaParams[{name!r}] is not supported: records are decoded with the keyDecoder/"
                            "valueDecoder arguments (and encoded with keyEncoder/valueEncoder in the sink)")
        elif key in _LEGACY_IGNORED:
            logger.warning("kafkaParams[%r] is ignored: the direct stream talks to brokers, not ZooKeeper", name)
        elif key in known:
            settings[key] = _convert(name, value, known[key])
        else:
            logger.warning("kafkaParams[%r] is not a setting of the Kafka client and is ignored", name)
    if servers is None:
        raise ValueError("kafkaParams must name the brokers: set 'bootstrap.servers' (or Spark 0.8's "
                         "'metadata.broker.list') to 'host:port[,host:port]'")
    return KafkaConfig(servers, group_id, reset, allow_create, tuple(sorted(settings.items())))
