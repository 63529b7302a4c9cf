"""examples/kafka_wordcount.py runs end to end against the session broker and stops after --batches."""

from __future__ import annotations

import ast
from collections import Counter

import pytest

from tests.integration.examples_runner import Example
from tests.kafka.utils import KAFKA_PYTHON_WARNINGS

pytestmark = [pytest.mark.kafka, pytest.mark.integration, pytest.mark.slow, *KAFKA_PYTHON_WARNINGS]


def test_kafka_wordcount_counts_the_sample_lines(kafka):
    from examples._live import SAMPLE_TEXT  # the lines the example writes with --sample-lines

    topic = kafka.unused_topic()
    example = Example("kafka_wordcount.py", kafka.bootstrap, topic, "--sample-lines", "1", "--from-beginning",
                      "--batches", "2", "--batch-interval", "0.5", "--master", "local[2]")
    assert example.wait() == 0, example.stderr
    assert "wrote 1 sample lines" in example.stderr
    pairs = [ast.literal_eval(line) for line in example.lines if line.startswith("(")]
    expected = Counter(SAMPLE_TEXT[0].split(" "))
    assert len(expected) <= 10  # pprint shows 10 elements per batch: all of them here
    assert Counter(dict(pairs)) == expected
    assert sum(line.startswith("Time: ") for line in example.lines) == 2


def test_kafka_wordcount_reports_a_missing_topic(kafka):
    topic = kafka.unused_topic()
    example = Example("kafka_wordcount.py", kafka.bootstrap, topic, "--batches", "1", "--master", "local")
    assert example.wait() == 1
    assert f"Kafka topic {topic!r} does not exist" in example.stderr
