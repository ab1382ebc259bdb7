"""The one plot every run directory gets: ``cash.png``, money over the env's time unit (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """matplotlib.pyplot on the headless Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path)
    pyplot().close(fig)
    return path


def plot_money(points: list[tuple[Any, float]], path: Path, unit: str, title: str = "") -> Path:
    """Cash (dollars) against elapsed time in ``unit`` (a step after each change)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    xs, ys = [x for x, _ in points], [y for _, y in points]
    scale, label = (1e6, "$M") if max((abs(y) for y in ys), default=0) >= 1e6 else (1e3, "$K")
    ax.plot(xs, [y / scale for y in ys], color="tab:blue", drawstyle="steps-post")
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_xlabel(f"simulated {unit}s")
    ax.set_ylabel(f"cash ({label})")
    ax.set_title(title)
    return save(fig, path)
