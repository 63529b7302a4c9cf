"""The AWS clients of a Kinesis stream: credentials, the STS role, endpoints and time-outs.

What this module owns
---------------------
:func:`make_clients`: a Kinesis client (at ``endpointUrl``) and a DynamoDB client from one
boto3 session. DynamoDB and STS are at the region's AWS endpoints unless the AWS SDK's own
settings say otherwise (``AWS_ENDPOINT_URL_DYNAMODB``, ``AWS_ENDPOINT_URL_STS``, or the
``services`` sections of the AWS config file): a local stand-in or a VPC endpoint is set
there, as for any boto3 program. Credentials are the keys given to ``createStream`` when given, else boto3's
default chain (environment, shared files, instance roles); with ``stsAssumeRoleArn`` they
are the role's temporary credentials, renewed before they expire.

Invariants
----------
* boto3 is imported here only, when a stream starts: a program that never reads Kinesis
  does not need it, and one that does without it is told how to install it.
* Every call has connect and read time-outs: a worker never waits for ever on the network.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["KinesisClients", "KinesisSettings", "make_clients"]

CONNECT_TIMEOUT_S = 5.0
READ_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class KinesisSettings:
    """What ``KinesisUtils.createStream`` was given (see its parameters)."""

    app_name: str
    stream_name: str
    endpoint_url: str
    region_name: str
    initial_position: str
    checkpoint_interval_s: float
    access_key_id: str | None = None
    secret_key: str | None = None
    sts_role_arn: str | None = None
    sts_session_name: str | None = None
    sts_external_id: str | None = None


@dataclass(frozen=True)
class KinesisClients:
    kinesis: Any
    dynamodb: Any


def _boto3() -> Any:
    try:
        import boto3  # noqa: PLC0415 - an optional dependency, loaded when a stream starts
    except ImportError as exc:
        raise ImportError("KinesisUtils.createStream needs boto3, the AWS SDK for Python: "
                          "pip install 'dstreams[kinesis]' (or pip install boto3)") from exc
    return boto3


def _assumed_role_session(boto3: Any, settings: KinesisSettings) -> Any:
    import botocore.credentials  # noqa: PLC0415 - comes with boto3
    import botocore.session  # noqa: PLC0415

    base = boto3.session.Session(aws_access_key_id=settings.access_key_id,
                                 aws_secret_access_key=settings.secret_key, region_name=settings.region_name)
    sts = base.client("sts")

    def assume() -> dict[str, str]:
        kwargs = {"RoleArn": settings.sts_role_arn, "RoleSessionName": settings.sts_session_name}
        if settings.sts_external_id:
            kwargs["ExternalId"] = settings.sts_external_id
        credentials = sts.assume_role(**kwargs)["Credentials"]
        return {"access_key": credentials["AccessKeyId"], "secret_key": credentials["SecretAccessKey"],
                "token": credentials["SessionToken"], "expiry_time": credentials["Expiration"].isoformat()}

    refreshable = botocore.credentials.RefreshableCredentials.create_from_metadata(
        metadata=assume(), refresh_using=assume, method="sts-assume-role")
    core = botocore.session.get_session()
    core._credentials = refreshable  # boto3's documented way to plug refreshable credentials in
    return boto3.session.Session(botocore_session=core, region_name=settings.region_name)


def make_clients(settings: KinesisSettings) -> KinesisClients:
    """The Kinesis and DynamoDB clients of a stream (see the module doc)."""
    boto3 = _boto3()
    from botocore.config import Config  # noqa: PLC0415 - comes with boto3

    if settings.sts_role_arn:
        session = _assumed_role_session(boto3, settings)
    else:
        session = boto3.session.Session(aws_access_key_id=settings.access_key_id,
                                        aws_secret_access_key=settings.secret_key,
                                        region_name=settings.region_name)
    config = Config(connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S,
                    retries={"max_attempts": 5, "mode": "standard"})
    kinesis = session.client("kinesis", endpoint_url=settings.endpoint_url, region_name=settings.region_name,
                             config=config)
    dynamodb = session.client("dynamodb", region_name=settings.region_name, config=config)
    return KinesisClients(kinesis, dynamodb)
