"""``KinesisUtils.createStream``: PySpark's ``pyspark.streaming.kinesis`` facade.

What this module owns
---------------------
The public names with PySpark's signatures and defaults: :class:`KinesisUtils`,
:class:`InitialPositionInStream`, :class:`MetricsLevel` and :func:`utf8_decoder`. The
stream is a receiver stream (:mod:`.receiver`) whose records, the records' bytes, go
through ``decoder`` in the batch's tasks.

Invariants
----------
* Arguments are checked when the stream is made, each error naming the argument and
  what it accepts: the keys come as a pair, the STS role's three values together.
* ``metricsLevel`` is accepted and publishes nothing (there is no CloudWatch here).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from rdd import StorageLevel

from .clients import KinesisSettings
from .leases import LATEST, TRIM_HORIZON
from .receiver import KinesisReceiver

if TYPE_CHECKING:
    from dstream.context import StreamingContext
    from dstream.dstream import DStream

__all__ = ["InitialPositionInStream", "KinesisUtils", "MetricsLevel", "utf8_decoder"]

def utf8_decoder(s: bytes | None) -> str | None:
    """Decode the record's bytes as UTF-8 (``None`` stays ``None``)."""
    if s is None:
        return None
    return s.decode("utf-8")


class InitialPositionInStream:
    """Where an application without checkpoints starts reading: the newest records or the oldest."""

    LATEST, TRIM_HORIZON = (0, 1)


class MetricsLevel:
    """The CloudWatch metrics level of Spark's Kinesis Client Library (accepted; nothing is published here)."""

    DETAILED, SUMMARY, NONE = (0, 1, 2)


def _text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise ValueError(f"{name} must be a non-empty string, got {value!r}")
    return value


class KinesisUtils:
    """Make DStreams of Amazon Kinesis streams."""

    @staticmethod
    def createStream(ssc: StreamingContext, kinesisAppName: str, streamName: str,  # noqa: N802,N803
                     endpointUrl: str, regionName: str, initialPositionInStream: int,  # noqa: N803
                     checkpointInterval: float, metricsLevel: int = MetricsLevel.DETAILED,  # noqa: N803
                     storageLevel: StorageLevel = StorageLevel.MEMORY_AND_DISK_2,  # noqa: N803
                     awsAccessKeyId: str | None = None, awsSecretKey: str | None = None,  # noqa: N803
                     decoder: Callable[[bytes | None], Any] = utf8_decoder,
                     stsAssumeRoleArn: str | None = None, stsSessionName: str | None = None,  # noqa: N803
                     stsExternalId: str | None = None) -> DStream[Any]:  # noqa: N803
        """A DStream of the records of Kinesis stream ``streamName``, each passed through ``decoder``.

        Parameters
        ----------
        ssc : StreamingContext
            The context of the stream.
        kinesisAppName : str
            The application: the DynamoDB table of its leases and checkpoints, shared by
            every receiver of the application (they split the shards).
        streamName : str
            The Kinesis stream.
        endpointUrl : str
            The Kinesis endpoint (``https://kinesis.us-east-1.amazonaws.com``).
        regionName : str
            The AWS region (of DynamoDB too).
        initialPositionInStream : int
            ``InitialPositionInStream.LATEST`` or ``TRIM_HORIZON``: where to start when the
            application has no checkpoint.
        checkpointInterval : float
            Seconds between checkpoints of what was stored.
        metricsLevel : int
            Accepted for compatibility (no CloudWatch metrics are published).
        storageLevel : StorageLevel
            Where received blocks are kept.
        awsAccessKeyId, awsSecretKey : str, optional
            Keys (both or neither; default: boto3's credential chain).
        decoder : callable
            ``bytes -> value``, applied in the batch's tasks (default UTF-8 text).
        stsAssumeRoleArn, stsSessionName, stsExternalId : str, optional
            A role to assume with STS (all three or none).
        """
        _text(kinesisAppName, "kinesisAppName")
        _text(streamName, "streamName")
        _text(endpointUrl, "endpointUrl")
        _text(regionName, "regionName")
        positions = {InitialPositionInStream.LATEST: LATEST, InitialPositionInStream.TRIM_HORIZON: TRIM_HORIZON}
        if isinstance(initialPositionInStream, bool) or initialPositionInStream not in positions:
            raise ValueError("initialPositionInStream must be InitialPositionInStream.LATEST or "
                             f"InitialPositionInStream.TRIM_HORIZON, got {initialPositionInStream!r}")
        if isinstance(checkpointInterval, bool) or not isinstance(checkpointInterval, int | float) \
                or checkpointInterval <= 0:
            raise ValueError(f"checkpointInterval must be a positive number of seconds, got {checkpointInterval!r}")
        if metricsLevel not in (MetricsLevel.DETAILED, MetricsLevel.SUMMARY, MetricsLevel.NONE):
            raise ValueError(f"metricsLevel must be MetricsLevel.DETAILED, SUMMARY or NONE, got {metricsLevel!r}")
        if (awsAccessKeyId is None) != (awsSecretKey is None):
            missing = "awsSecretKey" if awsSecretKey is None else "awsAccessKeyId"
            raise ValueError(f"awsAccessKeyId and awsSecretKey must both be given or both be None; {missing} is None")
        sts = (stsAssumeRoleArn, stsSessionName, stsExternalId)
        if any(v is not None for v in sts) and any(v is None for v in sts):
            raise ValueError("stsAssumeRoleArn, stsSessionName and stsExternalId must all be given or all be None")
        if not callable(decoder):
            raise TypeError(f"decoder must be a function of the record's bytes, got {decoder!r}")
        settings = KinesisSettings(
            app_name=kinesisAppName, stream_name=streamName, endpoint_url=endpointUrl, region_name=regionName,
            initial_position=positions[initialPositionInStream], checkpoint_interval_s=float(checkpointInterval),
            access_key_id=awsAccessKeyId, secret_key=awsSecretKey, sts_role_arn=stsAssumeRoleArn,
            sts_session_name=stsSessionName, sts_external_id=stsExternalId)
        records = ssc._receiver_stream(KinesisReceiver(settings, storageLevel), "KinesisUtils.createStream")
        return records.map(decoder)
