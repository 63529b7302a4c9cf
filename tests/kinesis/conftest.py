"""Kinesis and DynamoDB endpoints for the Kinesis tests, on 127.0.0.1.

There is no AWS here: moto's server serves Kinesis, DynamoDB and STS over real HTTP, and
kinesalite (scripts/kinesis/kinesalite.sh) serves a Kinesis that reshards as Kinesis does
(moto's keeps a split shard open). Each runs in its own process, started once per session
and stopped at its end; the receiver and the tests talk to them with boto3 as to AWS.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from rdd import SparkConf, SparkContext

from tests.receiver.servers import free_port

REGION = "us-east-1"
KEYS = {"aws_access_key_id": "testing", "aws_secret_access_key": "testing"}
READY_S = 30.0


def _serve(command: list[str], port: int, what: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + READY_S
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            if proc.poll() is not None:
                raise AssertionError(f"{what} exited with {proc.returncode} before listening") from None
            if time.monotonic() > deadline:
                proc.kill()
                raise AssertionError(f"{what} did not listen on 127.0.0.1:{port} within {READY_S} s") from None
            time.sleep(0.05)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.fixture(scope="session")
def aws_endpoint() -> Iterator[str]:
    server = shutil.which("moto_server", path=str(Path(sys.executable).parent)) or shutil.which("moto_server")
    assert server, "moto_server is missing: make venv installs the test extra (moto[server])"
    port = free_port()
    proc = _serve([server, "-H", "127.0.0.1", "-p", str(port)], port, "moto_server")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def kinesalite_endpoint() -> Iterator[str]:
    """A Kinesis endpoint that reshards as Kinesis does (moto's keeps a split shard open)."""
    script = Path(__file__).resolve().parents[2] / "scripts" / "kinesis" / "kinesalite.sh"
    fetched = subprocess.run(["bash", str(script), "fetch"], capture_output=True, text=True, timeout=300)
    assert fetched.returncode == 0, f"kinesalite could not be installed: {fetched.stderr}"
    port = free_port()
    proc = _serve(["bash", str(script), "serve", str(port)], port, "kinesalite")
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(proc)


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
def ksc(aws_endpoint: str, monkeypatch: pytest.MonkeyPatch, make_sc: Callable[..., SparkContext]) -> SparkContext:
    """A context of its own (the suite's shared one is stopped first, this one after the test)."""
    # DynamoDB (the lease table) and STS are found as any boto3 program finds them.
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", aws_endpoint)
    monkeypatch.setenv("AWS_ENDPOINT_URL_STS", aws_endpoint)
    conf = SparkConf()
    conf.set("spark.streaming.blockInterval", "20ms")
    conf.set("spark.streaming.receiverRestartDelay", "100")
    return make_sc("local[1]", conf)
