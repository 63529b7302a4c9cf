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


def test_the_documented_command_counts_its_sample_lines(kafka):
    """examples/README.md's command: ``'$KAFKA_BOOTSTRAP' words --sample-lines 40 --batches 3``.

    The sample is written before the stream starts, so the stream must start at the
    earliest offsets to count it (from the latest it printed three empty batches).
    """
    from examples._live import SAMPLE_TEXT

    topic = kafka.unused_topic()
    example = Example("kafka_wordcount.py", "$KAFKA_BOOTSTRAP", topic, "--sample-lines", "40",
                      "--batches", "3", env={"KAFKA_BOOTSTRAP": kafka.bootstrap})
    assert example.wait() == 0, example.stderr
    assert "wrote 40 sample lines" in example.stderr
    assert sum(line.startswith("Time: ") for line in example.lines) == 3
    pairs = [ast.literal_eval(line) for line in example.lines if line.startswith("(")]
    assert pairs, f"no counts printed:\n{example.stdout}"
    lines = [SAMPLE_TEXT[i % len(SAMPLE_TEXT)] for i in range(40)]
    expected = Counter(word for line in lines for word in line.split(" "))
    # All 40 lines are in the first batch; pprint shows its first 10 counts.
    assert len(pairs) == 10 and all(count == expected[word] for word, count in pairs), pairs


def test_kafka_wordcount_reports_a_missing_topic(kafka):
    topic = kafka.unused_topic()
    example = Example("kafka_wordcount.py", kafka.bootstrap, topic, "--batches", "1", "--master", "local")
    assert example.wait() == 1
    assert f"Kafka topic {topic!r} does not exist" in example.stderr
