"""The DataFrame examples (``examples/sql``) run as scripts on ``local`` and ``local[2]``.

Each runs in a subprocess on a small input written here with the example's own
generator, exits 0, and prints what a plain-Python computation over the same input
gives: the most frequent words and the number of distinct words, the orders and
revenue per country, the readings per sensor.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import subprocess
import sys
import types
from collections import Counter, defaultdict
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
MASTERS = ["local", "local[2]"]


def load(path: Path) -> types.ModuleType:
    """An example (or its helper) imported from its file, for its sample generator."""
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(EXAMPLES))  # the examples import `batch._corpus` as scripts do
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(EXAMPLES))
    return module


def run(script: str, *args: str) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / "sql" / script), *args], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def table(out: str) -> list[list[str]]:
    """The data rows of the (first) table ``show()`` printed: cells stripped, header skipped."""
    lines = [line for line in out.splitlines() if line.startswith("|")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


@pytest.mark.parametrize("master", MASTERS)
def test_wordcount(master: str, tmp_path: Path) -> None:
    corpus = load(EXAMPLES / "batch" / "_corpus.py")
    path = corpus.write_corpus(tmp_path / "words.txt", 300)
    counts = Counter(w for line in path.read_text(encoding="utf-8").splitlines() for w in line.split(" ") if w)
    out = run("wordcount.py", str(path), "--master", master, "--top", "6")
    expected = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:6]
    assert [(w, int(c)) for w, c in table(out)] == expected
    assert "only showing top 6 rows\n" in out
    assert f"{len(counts)} distinct words\n" in out


@pytest.mark.parametrize("master", MASTERS)
def test_csv_join(master: str, tmp_path: Path) -> None:
    load(EXAMPLES / "sql" / "csv_join.py").write_sample(tmp_path, 30, 200)
    with open(tmp_path / "customers.csv", encoding="utf-8") as f:
        country = {int(r["id"]): r["country"] for r in csv.DictReader(f)}
    orders: Counter[str] = Counter()
    revenue: dict[str, float] = defaultdict(float)
    with open(tmp_path / "orders.csv", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            c = country.get(int(r["customer_id"]))
            if c is not None:  # an inner join drops orders of unknown customers
                orders[c] += 1
                revenue[c] += float(r["amount"])
    out = run("csv_join.py", str(tmp_path), "--master", master)
    assert " |-- id: integer (nullable = true)\n" in out and " |-- country: string (nullable = true)\n" in out
    got = table(out)
    assert {c: int(n) for c, n, _ in got} == dict(orders)
    assert all(abs(float(r) - round(revenue[c], 2)) < 0.015 for c, _, r in got)
    assert [float(r) for _, _, r in got] == sorted((float(r) for _, _, r in got), reverse=True)
    assert all(len(r.partition(".")[2]) <= 2 for _, _, r in got)  # round(sum, 2) prints at most 2 decimals


@pytest.mark.parametrize("master", MASTERS)
def test_json_aggregate(master: str, tmp_path: Path) -> None:
    path = load(EXAMPLES / "sql" / "json_aggregate.py").write_sample(tmp_path / "readings.json", 400)
    by_sensor: dict[str, list[float | None]] = defaultdict(list)
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_sensor[record["sensor"]].append(record.get("value"))
    out = run("json_aggregate.py", str(path), "--master", master)
    assert " |-- value: double (nullable = true)\n" in out
    expected, means = [], []
    for sensor in sorted(by_sensor):
        values = [v for v in by_sensor[sensor] if v is not None]
        expected.append([sensor, str(len(by_sensor[sensor])), str(len(values)), repr(min(values)),
                         repr(max(values))])
        means.append(sum(values) / len(values))
    got = table(out)
    assert [[s, n, w, lo, hi] for s, n, w, _, lo, hi in got] == expected
    assert all(abs(float(row[3]) - mean) < 0.0006 for row, mean in zip(got, means))


@pytest.mark.parametrize("master", MASTERS)
def test_python_data_source(master: str) -> None:
    # The example's readings, computed here in plain Python: per sensor, the count and the mean.
    example = load(EXAMPLES / "sql" / "python_data_source.py")
    rows = 300
    values: dict[str, list[float]] = defaultdict(list)
    for n in range(rows):
        sensor, _, value = example.reading(n)
        values[sensor].append(value)
    out = run("python_data_source.py", "--master", master, "--rows", str(rows), "--partitions", "3",
              "--rows-per-batch", "100")
    assert f"batch read: {rows} readings in 3 partitions" in out
    assert f"streamed: {rows} readings in 3 micro-batches" in out
    tables = [line for line in out.splitlines() if line.startswith("|")]
    batch = [[c.strip() for c in line.strip("|").split("|")] for line in tables[1:1 + len(values)]]
    streamed = [[c.strip() for c in line.strip("|").split("|")] for line in tables[2 + len(values):]]
    assert [[s, n] for s, n, _ in batch] == [[s, str(len(v))] for s, v in sorted(values.items())]
    assert all(abs(float(mean) - sum(values[s]) / len(values[s])) < 0.006 for s, _, mean in batch)
    assert streamed == [[s, str(len(v))] for s, v in sorted(values.items())]
