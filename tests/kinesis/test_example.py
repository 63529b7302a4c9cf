"""examples/kinesis_wordcount.py runs end to end against the Kinesis endpoint (moto's server) and stops."""

from __future__ import annotations

import ast
import uuid
from collections import Counter

import pytest

from tests.integration.examples_runner import Example
from tests.kinesis.conftest import KEYS, REGION

pytestmark = [pytest.mark.integration, pytest.mark.slow]


def test_kinesis_wordcount_counts_its_sample_lines(aws_endpoint: str) -> None:
    from examples._live import SAMPLE_TEXT  # the lines the example writes with --sample-lines

    env = {"AWS_ACCESS_KEY_ID": KEYS["aws_access_key_id"], "AWS_SECRET_ACCESS_KEY": KEYS["aws_secret_access_key"],
           "AWS_ENDPOINT_URL_DYNAMODB": aws_endpoint, "AWS_ENDPOINT_URL_STS": aws_endpoint}
    name = uuid.uuid4().hex[:8]
    example = Example("kinesis_wordcount.py", f"app-{name}", f"words-{name}", aws_endpoint, REGION,
                      "--sample-lines", "1", "--batches", "2", "--batch-interval", "1", "--master", "local[2]", env=env)
    assert example.wait() == 0, example.stderr
    assert "wrote 1 sample lines" in example.stderr
    pairs = [ast.literal_eval(line) for line in example.lines if line.startswith("(")]
    expected = Counter(SAMPLE_TEXT[0].split(" "))
    assert len(expected) <= 10  # pprint shows 10 elements per batch: all of them here
    assert Counter(dict(pairs)) == expected
    assert sum(line.startswith("Time: ") for line in example.lines) == 2
