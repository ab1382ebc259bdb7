"""The plots of ``bizbench report``: many runs at once, drawn from plain series (matplotlib,
headless, through :mod:`bizbench.core.plots`).

An env's report module says what to draw as :class:`~bizbench.core.reporting.Chart` data
(its ``plots``); :func:`draw` draws one into a PNG. A run's own ``cash.png`` is the
Session's (:func:`bizbench.core.plots.plot_money`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from bizbench.core.plots import pyplot, save
from bizbench.core.reporting import Chart

__all__ = [
    "draw",
    "plot_bars_by_model",
    "plot_cumulative_counts",
    "plot_runs_by_model",
    "plot_stacked_by_group",
    "step_on_grid",
]


Series = tuple[Sequence[float], Sequence[float]]  # (x, y) of one run


def step_on_grid(x: Sequence[float], y: Sequence[float], grid: np.ndarray) -> np.ndarray:
    """A run's value at each grid point: the last observation at or before it; NaN before the
    first and after the last (a run that ended, e.g. bankrupt, no longer counts)."""
    xs, ys = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    out = np.full(len(grid), np.nan)
    if len(xs) == 0:
        return out
    idx = np.searchsorted(xs, grid, side="right") - 1
    inside = (idx >= 0) & (grid <= xs[-1])
    out[inside] = ys[idx[inside]]
    return out


def plot_runs_by_model(
    series: Mapping[str, Sequence[Series]],
    path: Path,
    title: str,
    xlabel: str,
    ylabel: str,
    scale: float = 1.0,
) -> Path:
    """Every run as a thin line and each model's mean over its runs still going as a bold
    line, one colour per model (CEO-Bench Fig 2-3, YC-Bench Fig 2, EnterpriseArena Fig 4)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 5), dpi=110)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, (model, runs) in enumerate(series.items()):
        color = colors[i % len(colors)]
        ends = [r[0][-1] for r in runs if len(r[0])]
        starts = [r[0][0] for r in runs if len(r[0])]
        if not ends:
            continue
        for x, y in runs:
            ax.plot(x, np.asarray(y, dtype=float) / scale, color=color, lw=0.6, alpha=0.35, drawstyle="steps-post")
        grid = np.linspace(min(starts), max(ends), 400)
        stacked = np.vstack([step_on_grid(x, y, grid) for x, y in runs])
        alive = np.isfinite(stacked).any(axis=0)
        mean = np.full(len(grid), np.nan)
        mean[alive] = np.nanmean(stacked[:, alive], axis=0)
        ax.plot(grid, mean / scale, color=color, lw=2, label=f"{model} (n={len(runs)})")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)
    return save(fig, path)


def plot_stacked_by_group(
    x: Sequence[float],
    layers: Mapping[str, Sequence[float]],
    path: Path,
    title: str,
    ylabel: str,
    xlabel: str = "simulated day",
) -> Path:
    """Customers by group over time as stacked areas (CEO-Bench Fig 9)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=110)
    if layers:
        ax.stackplot(x, *[np.asarray(v, dtype=float) for v in layers.values()], labels=list(layers))
        ax.legend(loc="upper left", fontsize=7, ncol=max(1, len(layers) // 8))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return save(fig, path)


def plot_bars_by_model(
    values: Mapping[str, Mapping[str, float]],
    path: Path,
    title: str,
    xlabel: str,
    top: int | None = 10,
    highlight: Mapping[str, set[str]] | None = None,
) -> Path:
    """One horizontal bar chart per model (side by side): its ``top`` largest values
    (CEO-Bench Fig 11 tool calls per week; YC-Bench Fig 3b final trust per client, where
    ``highlight[model]`` names the bars to hatch, e.g. adversarial clients)."""
    plt = pyplot()
    n = max(1, len(values))
    fig, axes = plt.subplots(1, n, figsize=(4.2 * n, 4.2), dpi=110, squeeze=False)
    for ax, (model, counts) in zip(axes[0], values.items(), strict=False):
        items = sorted(counts.items(), key=lambda kv: -kv[1])[:top] if top else list(counts.items())
        labels = [k for k, _ in items][::-1]
        bars = ax.barh(labels, [v for _, v in items][::-1], color="tab:blue")
        for bar, label in zip(bars, labels, strict=True):
            if highlight and label in highlight.get(model, set()):
                bar.set_hatch("//")
                bar.set_color("tab:red")
        ax.set_title(model, fontsize=9)
        ax.set_xlabel(xlabel, fontsize=8)
        ax.tick_params(labelsize=7)
    fig.suptitle(title)
    return save(fig, path)


def plot_cumulative_counts(
    counts: Mapping[str, Mapping[str, Sequence[Sequence[float]]]], path: Path, title: str, xlabel: str
) -> Path:
    """Cumulative counts of each action over time, averaged over each model's runs, one panel
    per action (EnterpriseArena Fig 2 fundraising and Fig 3 book closings).

    ``counts[action][model]`` is one 0/1 (or count) sequence per run, indexed by time step;
    shorter runs (bankrupt) keep their final total in the average."""
    plt = pyplot()
    actions = list(counts)
    fig, axes = plt.subplots(1, max(1, len(actions)), figsize=(5 * max(1, len(actions)), 4), dpi=110, squeeze=False)
    for ax, action in zip(axes[0], actions, strict=False):
        for model, runs in counts[action].items():
            length = max((len(r) for r in runs), default=0)
            if not length:
                continue
            totals = np.vstack([np.pad(np.cumsum(r), (0, length - len(r)), mode="edge") for r in runs if len(r)])
            ax.plot(np.arange(length), totals.mean(axis=0), label=model)
        ax.set_title(action, fontsize=9)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("cumulative count (mean over runs)")
        ax.legend(fontsize=7)
    fig.suptitle(title)
    return save(fig, path)


def draw(chart: Chart, path: Path) -> Path:
    """Draw one chart an env's report module asked for (kinds: :data:`~bizbench.core.reporting.ChartKind`)."""
    if chart.kind == "runs":
        return plot_runs_by_model(chart.data, path, chart.title, chart.xlabel, chart.ylabel, chart.scale)
    if chart.kind == "stacked":
        x, layers = chart.data
        return plot_stacked_by_group(x, layers, path, chart.title, chart.ylabel, chart.xlabel)
    if chart.kind == "bars":
        return plot_bars_by_model(chart.data, path, chart.title, chart.xlabel, chart.top, chart.highlight)
    if chart.kind == "cumulative":
        return plot_cumulative_counts(chart.data, path, chart.title, chart.xlabel)
    raise ValueError(f"unknown chart kind {chart.kind!r} of chart {chart.name!r}")
