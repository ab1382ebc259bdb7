"""``bizbench report RUNS...``: the papers' tables, normalised scores and plots from run directories.

Registered in :mod:`bizbench.cli` as ``app.command("report")(report)``. Module-level imports
are typer and rich only; the report package (numpy, matplotlib) is imported when the command
runs.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console

__all__ = ["report"]


def report(
    runs: list[Path] = typer.Argument(  # noqa: B008 - typer declares arguments by default values
        ..., help="Run directories, or directories holding run directories (e.g. a sweep's output)."
    ),
    out: Path = typer.Option(Path("report"), "--out", "-o", help="Where the CSV, PNG, report.md and report.html go."),  # noqa: B008
    per_run: bool = typer.Option(
        True, "--per-run/--no-per-run", help="Also print every run's row (files always have them)."
    ),
    anchors: bool = typer.Option(
        True, "--anchors/--no-anchors", help="Run the anchor baselines for normalised scores (cached; docs/reports.md)."
    ),
    anchor_cache: Path | None = typer.Option(  # noqa: B008
        None, "--anchor-cache", help="Anchor cache file (default: ~/.cache/bizbench/report-anchors.json)."
    ),
    plots: bool = typer.Option(True, "--plots/--no-plots", help="Draw the PNG plots."),
    verdicts: Path | None = typer.Option(  # noqa: B008
        None, "--verdicts", help="The verdicts of `bizbench replay` (default: ~/.cache/bizbench/replays)."
    ),
) -> None:
    """Tables of the papers per run and per model (mean ± 95 % CI), normalised scores, CSV, HTML and plots."""
    from bizbench.core.runs import RunDirError
    from bizbench.report.build import build_report
    from bizbench.report.protocol import default_cache_path
    from bizbench.runner.replay import default_verdict_store

    err = Console(stderr=True)
    try:
        with err.status("measuring runs ...") as status:
            result = build_report(
                runs,
                out,
                anchor_cache or default_cache_path(),
                anchors=anchors,
                make_plots=plots,
                on_run=lambda run: status.update(f"measuring {run.label} ..."),
                verdicts=verdicts or default_verdict_store(),
            )
    except RunDirError as e:
        err.print(f"[red]error:[/red] {e}", soft_wrap=True)
        raise typer.Exit(2) from None
    typer.echo(result.markdown(per_run))
    names = sorted(Path(f).name for f in result.files)  # what was written, not what a full report holds
    shown = ", ".join(names) if len(names) <= 6 else f"{', '.join(names[:5])} and {len(names) - 5} more"
    if not result.measured:
        err.print(f"[red]error:[/red] no finished run to report (wrote only {shown} to {out}/)", soft_wrap=True)
        raise typer.Exit(1)
    err.print(f"wrote {len(names)} files to {out}/: {shown}", soft_wrap=True)
