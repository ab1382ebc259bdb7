"""Plots of run metrics (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plot_cash(metrics: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    """Cash and individual subscribers over simulated days."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_funds(points: list[tuple[str, float]], path: Path, title: str = "") -> Path:
    """Funds over simulated time, one point per turn (yc; ISO timestamps on the x axis)."""
    import matplotlib

    matplotlib.use("Agg")
    from datetime import datetime

    import matplotlib.pyplot as plt

    times = [datetime.fromisoformat(t) for t, _ in points]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=110)
    ax.plot(times, [f / 1e3 for _, f in points], color="tab:blue", drawstyle="steps-post")  # type: ignore[arg-type]
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_ylabel("funds ($K)")
    ax.set_title(title)
    fig.autofmt_xdate()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def plot_monthly_cash(metrics: list[dict[str, Any]], path: Path, title: str = "") -> Path:
    """Cash and debt by month with the month's action marked (cfo; EnterpriseArena Fig 2-4 style)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
