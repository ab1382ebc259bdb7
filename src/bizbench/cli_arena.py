"""``bizbench arena ENV`` and ``bizbench tournament FILE.toml`` (docs/arena.md).

Module-level imports are typer and rich only; the runner is imported inside the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

__all__ = ["arena", "tournament"]

_console = Console()
_err = Console(stderr=True)


def _fail(message: str) -> None:
    _err.print(message, style="red", markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def arena(
    env: Annotated[str, typer.Argument(help="Env id with an arena (docs/arena.md).")],
    agent: Annotated[
        list[str] | None,
        typer.Option(
            "--agent",
            "-a",
            help="Who plays the next seat (repeat, one a seat; default: the env's baseline): a baseline "
            "(`bizbench envs` lists them), a model (openai/<model>, anthropic/<model>, scripted:FILE.jsonl ..., "
            "docs/models.md) or serve:WORKSPACE (an agent outside).",
        ),
    ] = None,
    seats: Annotated[int | None, typer.Option(help="Seats; with one --agent (or none), every seat plays it.")] = None,
    seed: Annotated[int, typer.Option(help="World seed.")] = 42,
    preset: Annotated[str | None, typer.Option(help="Preset; default: the env's default.")] = None,
    horizon: Annotated[int | None, typer.Option(help="Override the preset's horizon, in the env's unit.")] = None,
    out: Annotated[str | None, typer.Option(help="Arena directory (default runs/arena-<env>-<agents>-<seed>).")] = None,
    harness: Annotated[
        str | None, typer.Option(help="Model seats: cli-chat | react-json (default: the env's).")
    ] = None,
    max_turns: Annotated[
        int | None, typer.Option(help="Model seats: end a seat cleanly after this many turns.")
    ] = None,
    max_dollars: Annotated[
        float | None, typer.Option(help="Model seats: end a seat once it has cost this much.")
    ] = None,
    db: Annotated[
        bool | None, typer.Option("--db/--no-db", help="ceo: write each seat's company.db (default on).")
    ] = None,
    exec_: Annotated[
        list[str] | None,
        typer.Option(
            "--exec",
            help="The agent of the next served seat (-a serve:WORKSPACE), a shell command line run by bash in "
            "its sandbox (repeat, one a served seat; one for all).",
        ),
    ] = None,
    exec_timeout: Annotated[float, typer.Option(min=1, help="Seconds before an --exec agent is killed.")] = 86_400.0,
) -> None:
    """Rival companies in one market, turns simultaneous: in each seat a baseline, a model, or an
    agent outside served in its workspace (-a serve:WORKSPACE, as `bizbench serve` seats one)."""
    import re

    from bizbench.agents.recording import Limits
    from bizbench.core.envs import get_env
    from bizbench.runner.arena import run_arena

    try:
        spec = get_env(env)
    except (KeyError, ValueError) as e:
        _fail(str(e).strip("'\""))
    agents = list(agent or [spec.default_baseline])
    if seats is not None:
        if seats < 1 and spec.arena:  # the env's own check, as every other seat count gets it
            from bizbench.core.arena import seat_count

            try:
                seat_count(seats, spec.load(spec.arena).max_seats)
            except ValueError as e:
                _fail(str(e))
        if len(agents) == 1:
            agents *= seats
        elif len(agents) != seats:
            _fail(f"--seats {seats} but {len(agents)} --agent options: give one --agent a seat, or one for all")
    model_options = [
        name
        for name, v in (("--harness", harness), ("--max-turns", max_turns), ("--max-dollars", max_dollars))
        if v is not None
    ]
    if model_options and all(a.startswith("serve:") or a in spec.baseline_table() for a in agents):
        _fail(f"{', '.join(model_options)}: for model seats, and no seat is a model")
    slugs = [re.sub(r"[^A-Za-z0-9_.-]+", "_", a).strip("_") for a in agents]
    out_dir = Path(out) if out else Path("runs") / f"arena-{env}-{'-'.join(slugs)}-{seed}"
    limits = Limits(max_dollars=max_dollars, max_turns=max_turns)
    world = {} if db is None else {"database": db}
    if world and "database" not in spec.world_options:
        _fail(f"--db/--no-db is a world option of an env with a database; {env} has none")
    served = [a for a in agents if a.startswith("serve:")]
    commands = list(exec_ or [])
    if commands and len(commands) not in (1, len(served)):
        _fail(f"{len(served)} served seats but {len(commands)} --exec options: give one a served seat, or one for all")
    if commands:
        from bizbench.cli_sandbox import sandbox_refusal

        refusal = sandbox_refusal("--exec")
        if refusal:
            _fail(refusal)
    elif served:
        _err.print(
            "warning: no --exec: the served seats' agents are not isolated by this command; start each of their "
            "processes with `bizbench sandbox WORKSPACE -- CMD...` (docs/agents.md).",
            style="yellow",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    processes: list[Any] = []

    def start_agent(seat: int, server: Any, workspace: Path) -> None:
        _err.print(f"seat {seat} served in {workspace}", markup=False, highlight=False)
        if not commands:
            return
        from bizbench.cli_sandbox import AgentProcess
        from bizbench.core.seat import seat_of

        command = commands[0] if len(commands) == 1 else commands[len(processes)]
        argv = ["bash", "-c", command]
        processes.append(AgentProcess(workspace, seat_of(spec), argv, exec_timeout, server.request_stop).start())

    try:
        outcome = run_arena(
            env,
            agents,
            seed,
            preset,
            horizon,
            out_dir,
            harness=harness,
            limits=limits,
            world_options=world,
            on_served=start_agent,
        )
    except ValueError as e:
        _fail(str(e))
    except KeyboardInterrupt:
        _err.print(
            f"interrupted: `bizbench resume {out_dir}` finishes the arena",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
        raise typer.Exit(130) from None
    finally:
        for process in processes:
            process.stop()
    table = Table(title=f"{env} arena / seed {seed}")
    for column in ("rank", "seat", "agent", "score", "bankrupt"):
        table.add_column(column, justify="right" if column in ("rank", "seat", "score") else "left")
    for row in sorted(outcome["standings"], key=lambda r: (r["rank"], r["seat"])):
        table.add_row(
            str(row["rank"]), str(row["seat"]), str(row["agent"]), f"{row['score']:,.2f}", str(row["bankrupt"])
        )
    _console.print(table)
    if "contests" in outcome:
        _console.print(f"contested tasks: {outcome['contests']}", markup=False)
    _console.print(f"arena directory: {out_dir} (arena.json, seat-*/, standings.json)", markup=False)


def tournament(
    file: Annotated[Path, typer.Argument(metavar="FILE.toml", help="The tournament file (docs/arena.md).")],
    backend: Annotated[str, typer.Option(help="local | ray | inline.")] = "local",
    workers: Annotated[int | None, typer.Option(help="Matches at once (default: the CPUs).")] = None,
    address: Annotated[str | None, typer.Option(help="Ray: the cluster's address.")] = None,
    out: Annotated[str | None, typer.Option(help="Override the file's out directory.")] = None,
) -> None:
    """Play a round-robin or swiss tournament of arenas and print the ratings (resumable)."""
    from bizbench.runner.sweep_spec import SweepError
    from bizbench.runner.tournament import load_tournament, run_tournament

    try:
        spec = load_tournament(file)
        if out is not None:
            spec = spec.model_copy(update={"out": out})
        result = run_tournament(spec, backend, workers, address, log=lambda line: _console.print(line, markup=False))
    except SweepError as e:
        _fail(str(e))
    _print_ratings(result)
    _console.print(f"ratings: {Path(spec.out) / 'ratings.json'}", markup=False)


def _print_ratings(result: dict[str, Any]) -> None:
    """The ratings, narrow enough for 80 columns (ratings.json adds the 95 % intervals)."""
    table = Table(title=f"{result['env']} {result['format']}: {result['matches']} matches", caption=result["rating"])
    table.add_column("entrant", no_wrap=True)
    for column in ("ordinal", "mu ± σ", "n", "rank", "mean score"):
        table.add_column(column, justify="right", no_wrap=True)
    for row in result["entrants"]:
        table.add_row(
            row["name"],
            f"{row['ordinal']:.2f}",
            f"{row['mu']:.1f} ± {row['sigma']:.1f}",
            str(row["matches"]),
            "-" if row["mean_rank"] is None else f"{row['mean_rank']:.2f}",
            "-" if row["mean_score"] is None else f"{row['mean_score']:,.0f}",
        )
    _console.print(table)
    names = [row["name"] for row in result["entrants"]]
    h2h = Table(title="head to head: matches the row finished ahead of the column")
    h2h.add_column("")
    for n in names:
        h2h.add_column(n, justify="right")
    for a in names:
        h2h.add_row(a, *("-" if a == b else str(result["head_to_head"][a][b]) for b in names))
    _console.print(h2h)
