"""A Kinesis and DynamoDB endpoint for the Kinesis tests: moto's server on 127.0.0.1.

There is no AWS here: moto serves both APIs over real HTTP, in its own process (started
once per session, stopped at its end), and the receiver and the tests talk to it with
boto3 as they would to AWS.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext

REGION = "us-east-1"
KEYS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
READY_S = 30.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def aws_endpoint() -> Iterator[str]:
    server = shutil.which("moto_server", path=str(Path(sys.executable).parent)) or shutil.which("moto_server")
    assert server, "moto_server is missing: make venv installs the test extra (moto[server])"
    port = _free_port()
    proc = subprocess.Popen([server, "-H", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + READY_S
    try:
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                assert proc.poll() is None, f"moto_server exited with {proc.returncode}"
                assert time.monotonic() < deadline, f"moto_server did not listen on {url} within {READY_S} s"
                time.sleep(0.05)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


@pytest.fixture
def aws(aws_endpoint: str) -> Any:
    """boto3 clients of the endpoint: ``aws.kinesis``, ``aws.dynamodb``."""
    import boto3

    class Clients:
        endpoint = aws_endpoint
        kinesis = boto3.client("kinesis", endpoint_url=aws_endpoint, region_name=REGION, **KEYS)
        dynamodb = boto3.client("dynamodb", endpoint_url=aws_endpoint, region_name=REGION, **KEYS)

    return Clients()


@pytest.fixture
def ksc(aws_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[SparkContext]:
    # DynamoDB (the lease table) and STS are found as any boto3 program finds them.
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", aws_endpoint)
    monkeypatch.setenv("AWS_ENDPOINT_URL_STS", aws_endpoint)
    conf = SparkConf()
    conf.set("spark.streaming.blockInterval", "20ms")
    conf.set("spark.streaming.receiverRestartDelay", "100")
    sc = SparkContext("local[1]", "kinesis-tests", conf=conf)
    yield sc
    sc.stop()
