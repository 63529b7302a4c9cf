"""BlockGenerator driven by a ManualClock: cutting, ordering, stop flushing, rate limits."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest

from dstream.clock import ManualClock
from dstream.receiver.block_generator import BlockGenerator, GeneratorState
from dstream.receiver.errors import ReceiverStateError
from dstream.receiver.rate_limiter import RateLimiter

WAIT = 10.0  # seconds: a deadline, never a sleep


class Sink:
    """Collects what a generator reports (the listener interface, not an engine part)."""

    def __init__(self) -> None:
        self.generated: list[str] = []
        self.pushed: list[tuple[str, list[Any]]] = []
        self.added: list[tuple[Any, Any]] = []
        self.errors: list[tuple[str, BaseException]] = []
        self.fail_next_push = False

    def on_add_data(self, data: Any, metadata: Any) -> None:
        self.added.append((data, metadata))

    def on_generate_block(self, block_id: str) -> None:
        self.generated.append(block_id)

    def on_push_block(self, block_id: str, records: list[Any]) -> None:
        if self.fail_next_push:
            self.fail_next_push = False
            raise OSError("disk full")
        self.pushed.append((block_id, records))

    def on_error(self, message: str, error: BaseException) -> None:
        self.errors.append((message, error))


def make(
    clock: ManualClock, interval: int = 200, limiter: RateLimiter | None = None, **kw: Any
) -> tuple[BlockGenerator, Sink]:
    sink = Sink()
    ids = itertools.count()
    gen = BlockGenerator(
        sink, 7, lambda: f"input-7-{next(ids)}", interval, rate_limiter=limiter, clock=clock, **kw
    )
    return gen, sink


def advance_to(gen: BlockGenerator, clock: ManualClock, time_ms: int) -> None:
    clock.set_time(time_ms)
    assert gen.wait_ticked(time_ms, WAIT), f"the block timer did not reach {time_ms} ms"


def test_records_are_cut_into_one_block_per_interval() -> None:
    clock = ManualClock()
    gen, sink = make(clock)
    gen.start()
    try:
        for i in range(5):
            gen.add_data(i)
        advance_to(gen, clock, 200)
        gen.add_multiple([5, 6])
        gen.add_data(7)
        advance_to(gen, clock, 400)
        advance_to(gen, clock, 600)  # an empty interval makes no block
        assert gen.wait_pushed(2, WAIT)
        assert [records for _, records in sink.pushed] == [[0, 1, 2, 3, 4], [5, 6, 7]]
        assert (
            sink.generated
            == [block_id for block_id, _ in sink.pushed]
            == ["input-7-0", "input-7-1"]
        )
    finally:
        gen.stop()


def test_one_advance_over_several_intervals_cuts_once_per_due_tick() -> None:
    clock = ManualClock()
    gen, sink = make(clock)
    gen.start()
    try:
        gen.add_data("a")
        advance_to(gen, clock, 1000)  # ticks 200..1000 all fire; only the first has data
        assert gen.wait_pushed(1, WAIT)
        assert sink.pushed == [("input-7-0", ["a"])]
        assert gen.statistics().blocks_generated == 1
    finally:
        gen.stop()


def test_stop_flushes_the_buffer_and_then_refuses_data() -> None:
    clock = ManualClock()
    gen, sink = make(clock)
    gen.start()
    gen.add_multiple(range(3))
    assert gen.stop(WAIT)
    assert gen.state is GeneratorState.STOPPED_ALL
    assert sink.pushed == [("input-7-0", [0, 1, 2])]
    with pytest.raises(ReceiverStateError, match="stream 7"):
        gen.add_data(4)


def test_every_record_from_concurrent_writers_is_pushed_exactly_once() -> None:
    clock = ManualClock()
    gen, sink = make(clock, interval=10)
    gen.start()

    def writer(base: int) -> None:
        for i in range(2000):
            gen.add_data(base + i)

    threads = [threading.Thread(target=writer, args=(k * 10_000,)) for k in range(4)]
    for t in threads:
        t.start()
    for step in range(1, 30):
        advance_to(gen, clock, step * 10)
    for t in threads:
        t.join(WAIT)
    assert gen.stop(WAIT)
    everything = [r for _, records in sink.pushed for r in records]
    assert sorted(everything) == sorted(k * 10_000 + i for k in range(4) for i in range(2000))
    # Per writer, order is preserved across blocks.
    for k in range(4):
        mine = [r for r in everything if r // 10_000 == k]
        assert mine == sorted(mine)


def test_a_failed_push_is_reported_and_later_blocks_still_go_out() -> None:
    clock = ManualClock()
    gen, sink = make(clock)
    gen.start()
    try:
        sink.fail_next_push = True
        gen.add_data("lost")
        advance_to(gen, clock, 200)
        gen.add_data("kept")
        advance_to(gen, clock, 400)
        assert gen.wait_pushed(2, WAIT)
        assert sink.pushed == [("input-7-1", ["kept"])]
        assert [m for m, _ in sink.errors] == ["Error pushing block input-7-0"]
    finally:
        gen.stop()


def test_add_data_with_callback_sees_the_block_split() -> None:
    clock = ManualClock()
    gen, sink = make(clock)
    gen.start()
    try:
        gen.add_data_with_callback("r1", {"offset": 1})
        assert sink.added == [("r1", {"offset": 1})]
    finally:
        gen.stop()


def test_data_before_start_is_refused() -> None:
    gen, _ = make(ManualClock())
    with pytest.raises(ReceiverStateError, match="initialized"):
        gen.add_data(1)


class LockstepTime:
    """Fake monotonic seconds kept equal to a ManualClock; sleeping moves both."""

    def __init__(self, clock: ManualClock) -> None:
        self.clock = clock
        self.gen: BlockGenerator | None = None
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds
        target = int(self.now * 1000)
        if target > self.clock.now_ms():
            assert self.gen is not None
            advance_to(self.gen, self.clock, target)


def test_the_rate_limit_holds_in_every_block() -> None:
    rate, interval = 500.0, 100
    clock = ManualClock()
    t = LockstepTime(clock)
    limiter = RateLimiter(rate, max_burst_s=interval / 1000, monotonic=t, sleep=t.sleep)
    gen, sink = make(clock, interval=interval, limiter=limiter, sleep=t.sleep)
    t.gen = gen
    gen.start()
    for i in range(1000):
        gen.add_data(i)
    assert gen.stop(WAIT)
    sizes = [len(records) for _, records in sink.pushed]
    assert sum(sizes) == 1000
    per_block = rate * interval / 1000
    # Each block: at most one interval's share (+1 for the record that pays the debt).
    assert max(sizes) <= per_block + 1, sizes
    # And the flood took as long as the rate says.
    assert t.now == pytest.approx(999 / rate, rel=1e-6)


def test_update_rate_changes_the_limit_of_a_running_generator() -> None:
    gen, _ = make(ManualClock(), limiter=RateLimiter(None, max_rate=1000))
    assert gen.statistics().rate_limit == 1000
    gen.update_rate(250)
    assert gen.statistics().rate_limit == 250
