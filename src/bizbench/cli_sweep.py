"""``bizbench sweep SWEEP.toml``: many runs from one file (docs/sweeps.md).

Registered in :mod:`bizbench.cli` as ``app.command("sweep")(sweep)``. Module-level imports
are typer and rich only; the sweep machinery loads inside the command.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console
from rich.table import Table

console = Console()
err_console = Console(stderr=True)


def sweep(
    file: str = typer.Argument(..., help="The sweep file (TOML; docs/sweeps.md)."),
    workers: int | None = typer.Option(
        None, "--workers", "-w", min=1, help="Runs at once (default: all cores; ray: the cluster's CPUs)."
    ),
    backend: str = typer.Option("local", help="local (processes on this machine) | ray | inline (one by one here)."),
    address: str | None = typer.Option(None, help="ray: the cluster's address (default: $RAY_ADDRESS or a local Ray)."),
    out: str | None = typer.Option(None, help="Write under this directory instead of the file's `out`."),
    max_dollars: float | None = typer.Option(None, help="Override the file's sweep-wide dollar cap."),
    dry_run: bool = typer.Option(False, "--dry-run", help="List the runs and what is already done; run nothing."),
) -> None:
    """Run a sweep: env x preset x agent/model x seed, skipping finished runs and continuing unfinished ones.

    Writes <out>/<run>/ per run and <out>/summary.json + summary.csv, updated as each run ends.
    Exit status 1 when a run failed, 2 when the sweep cannot start.
    """
    from pathlib import Path

    from bizbench.runner import sweep as sw

    if address is not None and backend != "ray":
        err_console.print("--address is the Ray cluster's: add --backend ray", style="red", markup=False)
        raise typer.Exit(2)
    try:
        spec = sw.sweep_file(file, out=out, max_dollars=max_dollars)
        if dry_run:  # the same checks as a real sweep, then the plan
            sw.check_split(spec.split)
            sw.check_runnable(spec)
            sw.check_recorded(spec)
            _show_plan(spec, sw.expand(spec), Path(spec.out))
            return
        with _progress() as progress:
            task = progress.add_task("runs", total=len(sw.expand(spec)), failed=0, dollars=0.0)

            def on_update(state: Any, name: str) -> None:
                counts = state.counts()
                settled = sum(n for k, n in counts.items() if k not in ("pending", "running"))
                progress.update(task, completed=settled, failed=counts.get("failed", 0), dollars=state.spent)

            state = sw.run_sweep(spec, backend, workers, address, on_update=on_update)
    except sw.SweepError as e:
        err_console.print(str(e), style="red", markup=False, highlight=False)
        raise typer.Exit(2) from None
    _show_summary(state)
    if state.counts().get("failed"):
        raise typer.Exit(1)


def _progress() -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed, ${task.fields[dollars]:,.2f} spent"),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )


def _show_plan(spec: Any, runs: list[Any], out: Any) -> None:
    from bizbench.runner.sweep import run_status

    table = Table(title=f"sweep: {len(runs)} runs into {out} (split {spec.split})")
    table.add_column("run (directory)", overflow="fold")
    table.add_column("agent", overflow="fold")
    table.add_column("state")
    for run in runs:
        table.add_row(run.name, run.agent, run_status(out / run.name))
    console.print(table)


def _show_summary(state: Any) -> None:
    counts = state.counts()
    line = ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))
    console.print(f"sweep: {line}; ${state.spent:,.2f} spent; summary: {state.out / 'summary.csv'}")
    failed = [r for r in state.rows.values() if r["status"] == "failed"]
    if failed:
        table = Table(title="failed runs")
        table.add_column("run")
        table.add_column("error")
        for row in failed:
            table.add_row(row["name"], row["error"])
        console.print(table)
    skipped = [r for r in state.rows.values() if r["status"] == "not_started"]
    if skipped:
        console.print(f"{len(skipped)} runs not started: {skipped[0]['note']}", markup=False)
