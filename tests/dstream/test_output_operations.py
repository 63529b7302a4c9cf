"""Output operations: pprint's exact layout, saveAsTextFiles, foreachRDD's two forms.

Run on ``local`` and ``local[2]`` (the module-scoped ``ctx`` fixture).
"""

from __future__ import annotations

import functools
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dstream.testing import run_batches

RULE = "-" * 43


def _block(seconds: float, records: list[str]) -> str:
    lines = [RULE, f"Time: {datetime.fromtimestamp(seconds)}", RULE, *records, ""]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- pprint


def test_pprint_layout_is_pysparks(ctx: Any, capsys: pytest.CaptureFixture[str]) -> None:
    def op(s: Any) -> Any:
        s.pprint()
        return s

    run_batches(ctx, [[1, "two", (3, "x")], []], op)
    assert capsys.readouterr().out == _block(1, ["1", "two", "(3, 'x')"]) + _block(2, [])


def test_pprint_prints_ellipsis_only_past_num(ctx: Any, capsys: pytest.CaptureFixture[str]) -> None:
    def op(s: Any) -> Any:
        s.pprint(2)
        return s

    run_batches(ctx, [[1, 2, 3], [1, 2]], op)
    assert capsys.readouterr().out == _block(1, ["1", "2", "..."]) + _block(2, ["1", "2"])


def test_pprint_default_shows_ten(ctx: Any, capsys: pytest.CaptureFixture[str]) -> None:
    def op(s: Any) -> Any:
        s.pprint()
        return s

    run_batches(ctx, [list(range(11))], op)
    assert capsys.readouterr().out == _block(1, [str(i) for i in range(10)] + ["..."])


def test_pprint_time_keeps_milliseconds(ctx: Any, capsys: pytest.CaptureFixture[str]) -> None:
    def op(s: Any) -> Any:
        s.pprint()
        return s

    run_batches(ctx, [["a"]], op, batch_duration=0.5)
    out = capsys.readouterr().out
    assert out == _block(0.5, ["a"])
    assert f"Time: {datetime.fromtimestamp(0.5)}" in out  # e.g. '... 00:00:00.500000'


@pytest.mark.parametrize("num", [-1, 1.5, "3", True])
def test_pprint_rejects_bad_num(ctx: Any, num: Any) -> None:
    def op(s: Any) -> Any:
        s.pprint(num)
        return s

    with pytest.raises(ValueError, match="pprint"):
        run_batches(ctx, [[1]], op)


# ------------------------------------------------------------------- saveAsTextFiles


def _read_dir(path: Path) -> list[str]:
    lines: list[str] = []
    for part in sorted(path.glob("part-*")):
        lines.extend(part.read_text(encoding="utf-8").splitlines())
    return sorted(lines)


def test_save_as_text_files_one_directory_per_batch(ctx: Any, tmp_path: Path) -> None:
    prefix = tmp_path / "out" / "words"

    def op(s: Any) -> Any:
        s.saveAsTextFiles(str(prefix))
        s.map(str.upper).saveAsTextFiles(str(prefix), "txt")
        return s

    run_batches(ctx, [["a", "b"], ["é"], []], op)
    names = sorted(os.listdir(tmp_path / "out"))
    assert names == [
        "words-1000", "words-1000.txt", "words-2000", "words-2000.txt", "words-3000", "words-3000.txt",
    ]
    assert _read_dir(tmp_path / "out" / "words-1000") == ["a", "b"]
    assert _read_dir(tmp_path / "out" / "words-2000.txt") == ["É"]
    assert _read_dir(tmp_path / "out" / "words-3000") == []
    for name in names:
        assert (tmp_path / "out" / name / "_SUCCESS").exists()


def test_save_as_text_files_writes_str_of_records(ctx: Any, tmp_path: Path) -> None:
    def op(s: Any) -> Any:
        s.saveAsTextFiles(str(tmp_path / "r"))
        return s

    run_batches(ctx, [[("k", 1), 2.5, None]], op)
    assert _read_dir(tmp_path / "r-1000") == sorted(["('k', 1)", "2.5", "None"])


def test_replayed_batch_changes_nothing(ctx: Any, tmp_path: Path) -> None:
    done = tmp_path / "r-1000"
    done.mkdir()
    (done / "part-00000").write_text("old\n")
    (done / "_SUCCESS").write_text("")

    def op(s: Any) -> Any:
        s.saveAsTextFiles(str(tmp_path / "r"))
        return s

    run_batches(ctx, [["new"], ["two"]], op)
    assert _read_dir(done) == ["old"]
    assert _read_dir(tmp_path / "r-2000") == ["two"]


def test_incomplete_directory_is_replaced(ctx: Any, tmp_path: Path) -> None:
    partial = tmp_path / "r-1000"
    partial.mkdir()
    (partial / "part-00000").write_text("half\n")  # no _SUCCESS: a crashed foreign write

    def op(s: Any) -> Any:
        s.saveAsTextFiles(str(tmp_path / "r"))
        return s

    run_batches(ctx, [["whole"]], op)
    assert _read_dir(partial) == ["whole"]
    assert (partial / "_SUCCESS").exists()


def _explode(x: Any) -> Any:
    if x == "bad":
        raise ValueError("cannot write bad")
    return x


def test_failed_batch_leaves_no_directory_and_no_temp(ctx: Any, tmp_path: Path) -> None:
    def op(s: Any) -> Any:
        s.map(_explode).saveAsTextFiles(str(tmp_path / "r"))
        return s

    with pytest.raises(ValueError, match="cannot write bad"):
        run_batches(ctx, [["ok", "bad"], ["fine"]], op)
    assert sorted(os.listdir(tmp_path)) == ["r-2000"]  # batch 1 failed; batch 2 still ran


# --------------------------------------------------------------------------- foreachRDD


def test_foreach_rdd_with_rdd_only(ctx: Any) -> None:
    seen: list[int] = []

    def op(s: Any) -> Any:
        s.foreachRDD(lambda rdd: seen.append(rdd.count()))
        return s

    run_batches(ctx, [[1, 2], [3], []], op)
    assert seen == [2, 1, 0]


def test_foreach_rdd_with_time_gets_naive_local_datetime(ctx: Any) -> None:
    seen: list[tuple[datetime, list[int]]] = []

    def op(s: Any) -> Any:
        s.foreachRDD(lambda time, rdd: seen.append((time, rdd.collect())))
        return s

    run_batches(ctx, [[1], [2]], op)
    assert seen == [(datetime.fromtimestamp(1), [1]), (datetime.fromtimestamp(2), [2])]
    assert seen[0][0].tzinfo is None


class Sink:
    def __init__(self) -> None:
        self.calls: list[Any] = []

    def write(self, rdd: Any) -> None:
        self.calls.append(rdd.collect())

    def write_timed(self, time: datetime, rdd: Any) -> None:
        self.calls.append((time.second, rdd.collect()))


def _tagged(tag: str, time: datetime, rdd: Any, out: list[Any]) -> None:
    out.append((tag, rdd.collect()))


def test_foreach_rdd_accepts_methods_and_partials(ctx: Any) -> None:
    plain, timed = Sink(), Sink()
    tagged: list[Any] = []

    def op(s: Any) -> Any:
        s.foreachRDD(plain.write)
        s.foreachRDD(timed.write_timed)
        s.foreachRDD(functools.partial(_tagged, "t", out=tagged))
        return s

    run_batches(ctx, [[1]], op)
    assert plain.calls == [[1]]
    assert timed.calls == [(datetime.fromtimestamp(1).second, [1])]
    assert tagged == [("t", [1])]


def test_foreach_rdd_rejects_wrong_arity_at_registration(ctx: Any) -> None:
    def op(s: Any) -> Any:
        s.foreachRDD(lambda a, b, c: None)
        return s

    with pytest.raises(TypeError, match=r"foreachRDD expects a function of \(rdd\) or \(time, rdd\)"):
        run_batches(ctx, [[1]], op)


def test_output_operations_run_in_registration_order(ctx: Any) -> None:
    order: list[str] = []

    def op(s: Any) -> Any:
        for name in "abc":
            s.foreachRDD(lambda rdd, name=name: order.append(name))
        return s

    run_batches(ctx, [[1], [2]], op)
    assert order == ["a", "b", "c", "a", "b", "c"]
