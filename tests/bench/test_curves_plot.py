"""bench.curves_plot: the knee found in a cost curve, and the PNG it draws (no timing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.curves_plot import Series, describe_knee, linear_range, plot


def test_linear_range_is_the_longest_run_within_tolerance_of_the_cheapest() -> None:
    # Fixed cost dominating the small sizes, then linear, then a rise (cache misses).
    costs = [10.0, 2.0, 1.1, 1.0, 1.2, 3.0]
    assert linear_range(list(range(6)), costs) == (2, 4)


def test_linear_range_of_a_flat_curve_is_all_of_it() -> None:
    assert linear_range([1, 10, 100], [1.0, 1.1, 1.0]) == (0, 2)


def test_linear_range_rejects_mismatched_inputs() -> None:
    with pytest.raises(ValueError, match="as many costs as xs"):
        linear_range([1, 2], [1.0])


def test_describe_knee_names_both_knees_with_their_figures() -> None:
    text = describe_knee([1_000, 10_000, 100_000, 1_000_000], [4e-6, 1e-6, 1.1e-6, 3e-6],
                         lambda x: f"{int(x):,}", lambda c: f"{c * 1e6:.1f} us", "line")
    assert "**Knee at 10,000**: below it the cost per line grows, to 4.0x the cheapest at 1,000" in text
    assert "**Knee at 100,000**: above it the cost per line grows, to 3.0x the cheapest at 1,000,000" in text
    assert "1,000: 4.0 us" in text


def test_describe_knee_of_a_linear_curve_says_so() -> None:
    text = describe_knee([1, 2], [1.0, 1.0], str, str, "key")
    assert "No knee in the measured range." in text


def test_plot_writes_a_png_with_a_secondary_axis(tmp_path: Path) -> None:
    path = plot(tmp_path / "sub" / "curve.png", "t", "x", "y",
                [Series("a", (1.0, 10.0), (2.0, 3.0), "tab:blue")],
                secondary=[Series("ratio", (1.0, 10.0), (0.5, 0.7))], secondary_label="ratio")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
