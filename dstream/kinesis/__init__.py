"""Amazon Kinesis for dstreams: ``KinesisUtils.createStream``, as ``pyspark.streaming.kinesis``.

Change ``from pyspark.streaming.kinesis import KinesisUtils, InitialPositionInStream`` to
``from dstream.kinesis import KinesisUtils, InitialPositionInStream``. The stream reads
with boto3 (``pip install 'dstreams[kinesis]'``) and keeps its leases and checkpoints in
the DynamoDB table of the application, in the layout of the Kinesis Client Library that
Spark's receiver runs.

Layout::

    utils.py     KinesisUtils.createStream, InitialPositionInStream, MetricsLevel, utf8_decoder
    receiver.py  the receiver: shard leases, GetRecords, blocks, checkpoints
    leases.py    the DynamoDB lease table (KCL's layout)
    clients.py   the boto3 clients: credentials, the STS role, endpoints, time-outs

>>> from dstream.kinesis import KinesisUtils, InitialPositionInStream
"""

from __future__ import annotations

from dstream.kinesis.utils import InitialPositionInStream, KinesisUtils, MetricsLevel, utf8_decoder

__all__ = ["InitialPositionInStream", "KinesisUtils", "MetricsLevel", "utf8_decoder"]
