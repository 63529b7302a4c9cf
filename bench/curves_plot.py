"""Cost-curve plots (PNG, matplotlib's Agg backend) and where a curve stops being linear.

This module owns how ``bench_curves`` draws a curve and words its knee; what is measured
belongs to ``bench_curves``. A plot is a function of its series only (no clock, no
machine state), so a rerun on the same figures writes the same picture. matplotlib is
imported when a plot is drawn, not when the benchmarks are listed, and always with the
non-interactive Agg backend (no display is needed or used).

A *series* is a label and its points ``(x, y)``, x ascending. "Linear" for a cost curve
means the cost per unit of x is constant; :func:`linear_range` finds the points whose
cost per unit stays within :data:`LINEAR_TOLERANCE` of the curve's cheapest.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["LINEAR_TOLERANCE", "Series", "describe_knee", "linear_range", "plot"]

#: A point is on the linear part of a curve when its cost per unit is at most this factor
#: above the cheapest point's: noise on a shared machine is about 10-20%.
LINEAR_TOLERANCE = 1.25


@dataclass(frozen=True, slots=True)
class Series:
    """One line of a plot: ``label`` and its points, x ascending; ``color`` or the next one."""

    label: str
    xs: tuple[float, ...]
    ys: tuple[float, ...]
    color: str | None = None


def plot(path: Path, title: str, xlabel: str, ylabel: str, series: Sequence[Series], *,
         logx: bool = True, logy: bool = True, secondary: Sequence[Series] = (),
         secondary_label: str = "") -> Path:
    """Draw ``series`` (and ``secondary`` on a right-hand axis) to the PNG ``path``.

    Parameters
    ----------
    path : Path
        Where the PNG goes; its directory is created.
    title, xlabel, ylabel : str
        Texts of the figure.
    series : sequence of Series
        Lines on the left axis, one marker per point.
    logx, logy : bool
        Logarithmic axes (the curves span decades).
    secondary : sequence of Series
        Lines on a right-hand axis (dashed), e.g. a ratio beside absolute figures.
    secondary_label : str
        Label of the right-hand axis.

    Returns
    -------
    Path
        ``path``.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axis = plt.subplots(figsize=(7.5, 4.5), dpi=100)
    try:
        for line in series:
            axis.plot(line.xs, line.ys, marker="o", label=line.label, color=line.color)
        if logx:
            axis.set_xscale("log")
        if logy:
            axis.set_yscale("log")
        axis.set_title(title)
        axis.set_xlabel(xlabel)
        axis.set_ylabel(ylabel)
        axis.grid(True, which="both", alpha=0.3)
        handles, labels = axis.get_legend_handles_labels()
        if secondary:
            right = axis.twinx()
            for line in secondary:
                right.plot(line.xs, line.ys, marker="s", linestyle="--", color=line.color or "tab:gray",
                           label=line.label)
            right.set_ylabel(secondary_label)
            right.set_ylim(bottom=0)
            more_handles, more_labels = right.get_legend_handles_labels()
            handles, labels = handles + more_handles, labels + more_labels
        axis.legend(handles, labels, fontsize="small", loc="best")
        figure.tight_layout()
        path.parent.mkdir(parents=True, exist_ok=True)
        figure.savefig(path, format="png")
    finally:
        plt.close(figure)
    return path


def linear_range(xs: Sequence[float], costs: Sequence[float]) -> tuple[int, int]:
    """Indices ``(first, last)`` of the longest run of points on the linear part of a curve.

    ``costs[i]`` is the cost per unit at ``xs[i]`` (e.g. seconds per line); a point is
    linear when its cost is at most :data:`LINEAR_TOLERANCE` times the minimum.
    """
    if not costs or len(xs) != len(costs):
        raise ValueError(f"need as many costs as xs and at least one, got {len(xs)} xs and {len(costs)} costs")
    cheapest = min(costs)
    best = (costs.index(cheapest),) * 2
    start: int | None = None
    for i, cost in enumerate([*costs, float("inf")]):
        if cost <= LINEAR_TOLERANCE * cheapest:
            start = i if start is None else start
        elif start is not None:
            if i - 1 - start > best[1] - best[0]:
                best = (start, i - 1)
            start = None
    return best


def describe_knee(xs: Sequence[float], costs: Sequence[float], x_text: Callable[[float], str],
                  cost_text: Callable[[float], str], unit: str) -> str:
    """One or two sentences: where the curve is linear and how far it departs outside.

    Parameters
    ----------
    xs : sequence of float
        The x of each point, ascending.
    costs : sequence of float
        Cost per unit at each point (seconds per line, per key...).
    x_text, cost_text : callable
        Format an x, and a cost per unit, for the text.
    unit : str
        What one unit is ("line", "state key").
    """
    first, last = linear_range(xs, costs)
    cheapest = min(costs)
    parts = [f"cost per {unit}: " + ", ".join(f"{x_text(x)}: {cost_text(c)}" for x, c in zip(xs, costs)) + "."]
    if first == last:
        parts.append(f"Linear (within {LINEAR_TOLERANCE:g}x of the cheapest) only at {x_text(xs[first])}.")
    else:
        parts.append(f"Linear (cost per {unit} within {LINEAR_TOLERANCE:g}x of the cheapest) from "
                     f"{x_text(xs[first])} to {x_text(xs[last])}.")
    if first > 0:
        parts.append(f"**Knee at {x_text(xs[first])}**: below it the cost per {unit} grows, to "
                     f"{costs[0] / cheapest:.1f}x the cheapest at {x_text(xs[0])}.")
    if last < len(xs) - 1:
        parts.append(f"**Knee at {x_text(xs[last])}**: above it the cost per {unit} grows, to "
                     f"{costs[-1] / cheapest:.1f}x the cheapest at {x_text(xs[-1])}.")
    if first == 0 and last == len(xs) - 1:
        parts.append("No knee in the measured range.")
    return " ".join(parts)
