"""Plots of run metrics (matplotlib, headless).

The first three draw one run (written into its run directory when it ends); the rest draw
many runs for ``bizbench report`` from plain series (no run objects), one chart per env.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np


def _pyplot() -> Any:
    """matplotlib.pyplot on the headless Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path)
    _pyplot().close(fig)
    return path


def plot_cash(metrics: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    """Cash and individual subscribers over simulated days."""
    plt = _pyplot()
    days = [m["day"] for m in metrics]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    ax.plot(days, [m["cash"] / 1e6 for m in metrics], color="tab:blue", label="cash ($M)")
    ax.set_xlabel("simulated day")
    ax.set_ylabel("cash ($M)", color="tab:blue")
    ax.axhline(0, color="grey", lw=0.6)
    ax2 = ax.twinx()
    ax2.plot(days, [m["subscribers"] / 1e3 for m in metrics], color="tab:orange", label="subscribers (K)")
    ax2.set_ylabel("individual subscribers (K)", color="tab:orange")
    ax.set_title(title)
    return _save(fig, path)


def plot_funds(points: list[tuple[str, float]], path: Path, title: str = "") -> Path:
    """Funds over simulated time, one point per turn (yc; ISO timestamps on the x axis)."""
    from datetime import datetime

    plt = _pyplot()
    times = [datetime.fromisoformat(t) for t, _ in points]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    ax.plot(times, [f / 1e3 for _, f in points], color="tab:blue", drawstyle="steps-post")  # type: ignore[arg-type]
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_ylabel("funds ($K)")
    ax.set_title(title)
    fig.autofmt_xdate()
    return _save(fig, path)


def plot_monthly_cash(metrics: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    """Cash and debt by month with the month's action marked (cfo; EnterpriseArena Fig 2-4 style)."""
    plt = _pyplot()
    months = [m["month"] for m in metrics]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    ax.plot(months, [m["cash"] / 1e6 for m in metrics], color="tab:blue", label="cash ($M)")
    ax.plot(months, [m["debt"] / 1e6 for m in metrics], color="tab:red", lw=0.8, label="debt ($M)")
    for action, marker, color in (("fund_raising_request", "^", "tab:green"), ("book_closing", "|", "tab:grey")):
        xs = [m["month"] for m in metrics if m["action"] == action]
        ys = [m["cash"] / 1e6 for m in metrics if m["action"] == action]
        ax.scatter(xs, ys, marker=marker, color=color, s=18, label=action, zorder=3)
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel("month")
    ax.set_ylabel("$M")
    ax.legend(loc="upper left", fontsize=8)
    ax.set_title(title)
    return _save(fig, path)


# ---------------------------------------------------------------------------- reports (many runs)
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
    plt = _pyplot()
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
    return _save(fig, path)


def plot_stacked_by_group(
    x: Sequence[float], layers: Mapping[str, Sequence[float]], path: Path, title: str, ylabel: str
) -> Path:
    """Customers by group over time as stacked areas (CEO-Bench Fig 9)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 4.5), dpi=110)
    if layers:
        ax.stackplot(x, *[np.asarray(v, dtype=float) for v in layers.values()], labels=list(layers))
        ax.legend(loc="upper left", fontsize=7, ncol=max(1, len(layers) // 8))
    ax.set_xlabel("simulated day")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    return _save(fig, path)


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
    plt = _pyplot()
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
    return _save(fig, path)


def plot_cumulative_counts(
    counts: Mapping[str, Mapping[str, Sequence[Sequence[float]]]], path: Path, title: str, xlabel: str
) -> Path:
    """Cumulative counts of each action over time, averaged over each model's runs, one panel
    per action (EnterpriseArena Fig 2 fundraising and Fig 3 book closings).

    ``counts[action][model]`` is one 0/1 (or count) sequence per run, indexed by time step;
    shorter runs (bankrupt) keep their final total in the average."""
    plt = _pyplot()
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
    return _save(fig, path)
