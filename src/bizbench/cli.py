"""The ``bizbench`` command line.

Keep module-level imports light (typer, rich): heavy ones (numpy, matplotlib, env
packages, model clients) go inside the command functions so ``bizbench --help`` is fast.
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    name="bizbench",
    help="Long-horizon business simulations for evaluating LLM agents.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_show_locals=False,
)
console = Console()
err_console = Console(stderr=True)


def _config_model(env_id: str, package: str) -> Any | None:
    """The env's config model by convention ``<package>.config:<Id>Config``, or None."""
    try:
        mod = importlib.import_module(f"{package}.config")
    except Exception:  # noqa: BLE001 - env not installed or not importable yet
        return None
    return getattr(mod, f"{env_id.capitalize()}Config", None)


# ---------------------------------------------------------------------------- info commands
@app.command()
def envs() -> None:
    """List the registered environments."""
    from bizbench.core.envs import list_envs

    table = Table(title="bizbench environments")
    table.add_column("id", style="bold cyan")
    table.add_column("title")
    table.add_column("description")
    table.add_column("package", style="dim")
    for spec in list_envs():
        table.add_row(spec.id, spec.title, spec.description, spec.package)
    console.print(table)


@app.command()
def presets(env: str = typer.Argument(..., help="Env id, e.g. 'ceo'.")) -> None:
    """List the presets of an environment (with descriptions when the config loads)."""
    from bizbench.core.presets import list_presets, load_preset

    spec = _env_spec(env)
    try:
        names = list_presets(spec.package)
    except ValueError as e:
        err_console.print(f"[red]env {env!r} is not installed or has no presets: {e}[/red]")
        raise typer.Exit(1) from None
    model = _config_model(spec.id, spec.package)
    table = Table(title=f"{spec.id} presets")
    table.add_column("preset", style="bold cyan")
    if model is not None:
        table.add_column("description")
        table.add_column("hash", style="dim")
    for name in names:
        if model is None:
            table.add_row(name)
            continue
        try:
            cfg, h = load_preset(spec.package, name, model)
            table.add_row(name, str(getattr(cfg, "description", "")), h[:12])
        except Exception as e:  # noqa: BLE001 - show the broken preset, keep listing
            table.add_row(name, f"[red]invalid: {e}[/red]", "")
    console.print(table)


@app.command()
def version(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also show provenance."),
) -> None:
    """Print the bizbench version."""
    from bizbench import __version__

    if not verbose:
        console.print(f"bizbench {__version__}")
        return
    from bizbench.core.provenance import provenance

    for k, v in provenance().items():
        console.print(f"[bold]{k}[/bold]: {v}")


# ---------------------------------------------------------------------------- run commands
def _progress() -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        transient=True,
    )


def _env_spec(env: str) -> Any:
    """The registered env's spec; exit 2 with the list of envs if ``env`` is unknown."""
    from bizbench.core.envs import get_env

    try:
        return get_env(env)
    except KeyError as e:
        err_console.print(f"[red]{e.args[0]}[/red]")
        raise typer.Exit(2) from None


def _check_env(env: str, supported: tuple[str, ...] = ("ceo",)) -> None:
    _env_spec(env)
    if env not in supported:
        err_console.print(f"[red]env '{env}' has no baselines yet[/red]")
        raise typer.Exit(2)


@app.command()
def run(
    env: str = typer.Argument(..., help="Env id, e.g. 'ceo'."),
    agent: str = typer.Option(
        "rule-based",
        help="Baseline: ceo do-nothing|random|rule-based; yc do-nothing|random|greedy|heuristic; "
        "cfo always-pass|one-raise|greedy-equity|greedy-debt|prudent-cfo.",
    ),
    seed: int = typer.Option(42, help="World seed."),
    preset: str | None = typer.Option(None, help="Preset (see `bizbench presets ENV`); default: the env's default."),
    days: int | None = typer.Option(None, help="Override the preset's horizon in days."),
    out: str | None = typer.Option(None, help="Run directory to write (default runs/<env>-<agent>-<preset>-<seed>)."),
    price_book: str = typer.Option("mid", help="rule-based: cheap | mid."),
    target_rule: str = typer.Option("s1_only", help="rule-based: s1_only | s1_then_s3."),
    spend_package: str = typer.Option("heavy", help="rule-based: light | medium | heavy."),
    cash_floor: float = typer.Option(100_000.0, help="rule-based: cash floor in dollars."),
    db: bool = typer.Option(True, "--db/--no-db", help="Write the agent-visible company.db (large for long runs)."),
    model: str | None = typer.Option(
        None,
        help="Put an LLM in the seat: openai/<model>, anthropic/<model>, litellm/<model>, "
        "openai-compatible/<name>@<base_url>, scripted:FILE.jsonl, replay:RUN_DIR (docs/models.md).",
    ),
    harness: str | None = typer.Option(None, help="terminal | cli-chat | react-json (default: the env's paper's)."),
    context_turns: int | None = typer.Option(None, help="cli-chat: turns of history kept (YC-Bench default 20)."),
    max_dollars: float | None = typer.Option(None, help="End the run cleanly once the model has cost this much."),
    max_tokens: int | None = typer.Option(None, help="End the run cleanly after this many tokens."),
    max_turns: int | None = typer.Option(None, help="End the run cleanly after this many turns."),
    temperature: float | None = typer.Option(None, help="Sampling temperature (recorded)."),
    max_output_tokens: int | None = typer.Option(None, help="Maximum tokens per model reply (recorded)."),
    reasoning_effort: str | None = typer.Option(None, help="Reasoning effort for models that take one (recorded)."),
    prices: str | None = typer.Option(None, help="A TOML/JSON price table overriding the built-in one."),
) -> None:
    """Run one episode (a baseline, an LLM with --model, or your agent with --agent module:Class)."""
    from pathlib import Path

    from bizbench.runner.episode import run_ceo_baseline

    _check_env(env, ("ceo", "yc", "cfo"))
    preset = preset or _env_spec(env).default_preset
    if model is not None or ":" in agent:
        sampling = {"temperature": temperature, "max_tokens": max_output_tokens, "reasoning_effort": reasoning_effort}
        limits = {"max_dollars": max_dollars, "max_tokens": max_tokens, "max_turns": max_turns}
        name = _slug(model) if model is not None else agent.rsplit(":", 1)[-1]
        out_dir = Path(out) if out else Path("runs") / f"{env}-{name}-{preset}-{seed}"
        harness_options = {"context_turns": context_turns, "days": days}
        _run_agent(env, model, agent, seed, preset, out_dir, harness, harness_options, sampling, limits, prices)
        return
    options = None
    if agent == "rule-based":
        options = {
            "price_book": price_book,
            "target_rule": target_rule,
            "spend_package": spend_package,
            "cash_floor": cash_floor,
        }
    out_dir = Path(out) if out else Path("runs") / f"{env}-{agent}-{preset}-{seed}"
    if env in _EPISODES:
        _run_episode(env, agent, seed, preset, out_dir)
        return
    with _progress() as progress:
        task = progress.add_task("days simulated", total=None)

        def on_turn(day: int, horizon: int) -> None:
            progress.update(task, completed=day, total=horizon)

        try:
            result = run_ceo_baseline(agent, seed, preset, days, out_dir, options, on_turn, database=db)
        except ValueError as e:
            err_console.print(f"[red]{e}[/red]")
            raise typer.Exit(2) from None
    keys: tuple[str, ...] = ("final_cash", "bankrupt", "days_survived", "peak_subscribers", "peak_subscribers_day")
    keys += ("min_cash", "min_cash_day", "final_subscribers", "wall_seconds")
    _print_result(f"{env} / {preset} / {agent} / seed {seed}", result, keys, money=("final_cash", "min_cash"))
    files = "result.json, metrics.jsonl, actions.jsonl, ledger.csv, cash.png" + (", company.db" if db else "")
    console.print(f"run directory: {out_dir}  ({files})")


def _slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9._-]+", "_", text.split("@")[0]).strip("_")[:80]


def _run_agent(
    env: str,
    model: str | None,
    agent: str,
    seed: int,
    preset: str,
    out_dir: Any,
    harness: str | None,
    harness_options: dict[str, Any],
    sampling: dict[str, Any],
    limits: dict[str, Any],
    prices: str | None,
) -> None:
    """An LLM episode (--model) or a user's agent class (--agent module:Class)."""
    from bizbench.agents.recording import Limits
    from bizbench.runner import agent_episode

    try:
        if model is not None:
            from pathlib import Path

            from bizbench.agents.models.factory import make_model, portable_spec

            client = make_model(model, {k: v for k, v in sampling.items() if v is not None}, prices=prices)
            options = {k: v for k, v in harness_options.items() if v is not None}
            price_file = str(Path(prices).absolute()) if prices else None
            result = agent_episode.run_agent_episode(
                env, client, seed, preset, out_dir, harness, Limits(**limits), options, portable_spec(model), price_file
            )
        else:
            result = agent_episode.run_user_agent(env, agent, seed, preset, out_dir)
    except ValueError as e:
        err_console.print(str(e), style="red", markup=False)
        raise typer.Exit(2) from None
    keys = [
        k for k in ("score", "final_cash", "final_funds", "bankrupt", "ended_by", "turns", "cost_usd") if k in result
    ]
    money = ("score", "final_cash", "final_funds")
    _print_result(f"{env} / {preset} / {result.get('agent')} / seed {seed}", result, (*keys, "wall_seconds"), money)
    console.print(f"run directory: {out_dir}  (result.json, trajectory.jsonl, system_prompt.txt, tools.json, ...)")


def _print_result(title: str, result: dict[str, Any], keys: tuple[str, ...], money: tuple[str, ...]) -> None:
    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in keys:
        v = result[key]
        table.add_row(key, f"${v:,.2f}" if key in money else str(v))
    console.print(table)


@app.command()
def resume(run_dir: str = typer.Argument(..., help="The run directory of a killed run.")) -> None:
    """Finish a killed run with the result an uninterrupted run would have (docs/run-format.md).

    The run is re-executed from its record on a fresh world: recorded model replies are
    reused (no paid call twice), the live model answers the rest. A finished run is left as it is.
    """
    from pathlib import Path

    from bizbench.agents.models.base import ResumeDivergence
    from bizbench.runner.resume import finished, resume_run
    from bizbench.runner.rundir import read_jsonl

    try:
        if finished(run_dir) is not None:
            console.print(f"{run_dir} is already finished; nothing to do", soft_wrap=True, markup=False)
            return
        result = resume_run(run_dir)
    except (ValueError, ResumeDivergence) as e:
        err_console.print(str(e), style="red", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    keys = [k for k in ("score", "final_cash", "final_funds", "bankrupt", "ended_by", "turns") if k in result]
    _print_result(f"resumed: {run_dir}", result, tuple(keys), ("score", "final_cash", "final_funds"))
    last = read_jsonl(Path(run_dir) / "resume.jsonl")[-1]
    if not last["actions_match"]:
        err_console.print(
            f"warning: the resumed run did not repeat the killed attempt's {last['actions_checked']} actions "
            f"(attempts/{last['attempt']}/actions.jsonl); its result may differ from an uninterrupted run",
            style="yellow",
            markup=False,
            soft_wrap=True,
        )


@app.command()
def replay(
    run_dir: str = typer.Argument(..., help="A finished run directory (a submission)."),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Re-execute a run's recorded actions on a fresh world of its seed and check its result.

    Exit 0 when the world is the preset's, every action is accepted again and the outcome
    matches result.json; 1 when not; 2 when the directory cannot be replayed.
    """
    import json

    from bizbench.runner.replay import replay_run

    try:
        report = replay_run(run_dir)
    except ValueError as e:
        err_console.print(str(e), style="red", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    if json_output:
        print(json.dumps(report.summary(), default=str))
    else:
        verdict = "[green]verified[/green]" if report.ok else "[red]does not match[/red]"
        console.print(
            f"{run_dir}: {verdict} ({report.actions_sent} actions re-sent, {report.actions_skipped} not re-sent, "
            f"{len(report.compared)} result fields compared)",
            soft_wrap=True,
        )
        lines = [
            f"the world differs from preset {report.result.get('preset')!r} in: {', '.join(report.config_changes)}"
        ]
        lines = lines if report.config_changes else []
        lines += [report.divergence] if report.divergence else []
        lines += [
            f"  {k}: recorded {v['recorded']!r}, replayed {v['replayed']!r}" for k, v in report.mismatches.items()
        ]
        lines.append(f"not verifiable from the actions: {', '.join(report.unverified) or 'nothing'}")
        for line in lines:
            console.print(line, markup=False, soft_wrap=True)
    if not report.ok:
        raise typer.Exit(1)


# env -> (runner in bizbench.runner.episode, result rows, money rows, run-directory files)
_EPISODES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], str]] = {
    "yc": (
        "run_yc_baseline",
        ("final_funds", "bankrupt", "time", "tasks_succeeded", "tasks_failed", "tasks_cancelled", "turns"),
        ("final_funds",),
        "result.json, metrics.jsonl, actions.jsonl, ledger.csv, cash.png",
    ),
    "cfo": (
        "run_cfo_baseline",
        ("score", "final_cash", "bankrupt", "months_survived", "equity_raised", "debt_raised", "tool_calls"),
        ("score", "final_cash", "equity_raised", "debt_raised"),
        "result.json, metrics.jsonl, actions.jsonl, statements.jsonl, ledger.csv, cash.png",
    ),
}


def _run_episode(env: str, agent: str, seed: int, preset: str, out_dir: Any) -> None:
    """A yc or cfo baseline episode: run it, print its result table and where its files are."""
    from bizbench.runner import episode

    runner, keys, money, files = _EPISODES[env]
    try:
        result = getattr(episode, runner)(agent, seed, preset, out_dir)
    except ValueError as e:
        err_console.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    _print_result(f"{env} / {preset} / {agent} / seed {seed}", result, (*keys, "wall_seconds"), money=money)
    console.print(f"run directory: {out_dir}  ({files})")


@app.command()
def search(
    env: str = typer.Argument(..., help="Env id: 'ceo'."),
    preset: str = typer.Option("no-surges", help="Preset (the official baseline figures use no-surges)."),
    seed: int = typer.Option(42, help="Seed for the 24-configuration search."),
    workers: int | None = typer.Option(None, help="Parallel processes (default: all cores)."),
    best_seeds: str | None = typer.Option(None, help="Also run the best configuration on these seeds, e.g. 1-10."),
) -> None:
    """Run the 24 rule-based configurations of Table 4 and print them ranked."""
    from bizbench.envs.ceo.search import search as run_search
    from bizbench.envs.ceo.search import seeds_of
    from bizbench.runner.sweep_spec import parse_seeds

    _check_env(env)
    try:
        seeds = parse_seeds(best_seeds) if best_seeds else []
    except ValueError as e:  # before the 24 runs, not after them
        err_console.print(f"--best-seeds: {e}", style="red", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    with _progress() as progress:
        task = progress.add_task("configurations", total=24)
        ranked = run_search(preset, seed, workers, on_done=lambda r: progress.advance(task))
    table = Table(title=f"Table 4 search: {env} / {preset} / seed {seed}")
    for col in ("rank", "configuration", "final cash", "bankrupt", "peak subs", "min cash (day)"):
        table.add_column(col, justify="right" if col != "configuration" else "left")
    for i, r in enumerate(ranked, 1):
        table.add_row(
            str(i),
            r["label"],
            f"${r['final_cash']:,.0f}",
            str(r["bankrupt"]),
            f"{r['peak_subscribers']:,}",
            f"${r['min_cash']:,.0f} ({r['min_cash_day']})",
        )
    console.print(table)
    if seeds:
        best = ranked[0]["agent_options"]
        with _progress() as progress:
            task = progress.add_task("seeds", total=len(seeds))
            rows = seeds_of(best, seeds, preset, workers, on_done=lambda r: progress.advance(task))
        t2 = Table(title=f"best configuration {ranked[0]['label']} across seeds")
        for col in ("seed", "final cash", "bankrupt", "peak subs", "min cash"):
            t2.add_column(col, justify="right")
        for r in rows:
            t2.add_row(
                str(r["seed"]),
                f"${r['final_cash']:,.0f}",
                str(r["bankrupt"]),
                f"{r['peak_subscribers']:,}",
                f"${r['min_cash']:,.0f}",
            )
        console.print(t2)


@app.command("upper-bound")
def upper_bound(
    env: str = typer.Argument(..., help="Env id: 'ceo'."),
    preset: str = typer.Option("default", help="Preset whose parameters feed the estimate."),
) -> None:
    """The Appendix D upper-bound final-cash estimate (Table 5), computed from the preset."""
    from bizbench.envs.ceo.config import load_config
    from bizbench.envs.ceo.upper_bound import estimate

    _check_env(env)
    config, _ = load_config(preset)
    est = estimate(config)
    table = Table(title=f"Appendix D upper bound ({preset})")
    table.add_column("quantity")
    table.add_column("amount ($M)", justify="right")
    for name, value in est.rows():
        table.add_row(name, f"x {value:.2f}" if name.startswith("Friction") else f"{value / 1e6:,.1f}")
    console.print(table)


# ---------------------------------------------------------------------------- isolation commands
def _env_module(env: str, module: str) -> Any:
    """``<package>.<module>`` of a registered env (e.g. its ``tools`` or ``sdk``); exit 2 if missing."""
    spec = _env_spec(env)
    try:
        return importlib.import_module(f"{spec.package}.{module}")
    except ImportError as e:
        err_console.print(f"[red]env {env!r} has no {module} module: {e}[/red]")
        raise typer.Exit(2) from None


@app.command()
def tools(
    env: str = typer.Argument(..., help="Env id, e.g. 'ceo'."),
    fmt: str = typer.Option("markdown", "--format", help="json | markdown."),
) -> None:
    """Print an env's tool registry (json: only a JSON list on stdout)."""
    import json
    import sys

    if fmt not in ("json", "markdown"):
        err_console.print(f"[red]--format must be json or markdown, got {fmt!r}[/red]")
        raise typer.Exit(2)
    registry = _env_module(env, "tools").registry
    if fmt == "json":
        sys.stdout.write(json.dumps([s.to_dict() for s in registry.specs()], indent=2) + "\n")
    else:
        sys.stdout.write(registry.markdown_docs(f"{env} tool reference"))


@app.command()
def serve(
    env: str = typer.Argument(..., help="Env id, e.g. 'ceo'."),
    seed: int = typer.Option(..., help="World seed (never written to the workspace)."),
    workspace: str = typer.Option(..., help="Agent workspace: receives the SDK, docs and the API socket."),
    run_dir: str | None = typer.Option(
        None, help="Run directory (default runs/serve-<env>-<seed>; not in the workspace)."
    ),
    preset: str = typer.Option("default", help="Preset name (see `bizbench presets ENV`)."),
    port: int | None = typer.Option(None, help="Also listen on TCP 127.0.0.1:PORT (0 = a free port)."),
    days: int | None = typer.Option(None, help="Override the preset's horizon in days (ceo; yc refuses it)."),
) -> None:
    """Serve an env's tools to an (isolated) agent until the episode ends or SIGINT/SIGTERM.

    ceo: the novamind_api SDK in the workspace; yc: `bizbench yc --session /workspace <command>`
    (bin/bizbench) and instructions.md.
    """
    import json
    import logging
    import re
    import signal
    import time
    from pathlib import Path

    from bizbench.core.server import ToolServer, connection_info
    from bizbench.runner.rundir import write_result

    sdk = _env_module(env, "sdk")
    ws = Path(workspace).absolute()
    run = (Path(run_dir) if run_dir else Path("runs") / f"serve-{env}-{seed}").absolute()
    if ws == run or ws in run.parents or run in ws.parents:
        err_console.print("[red]the run directory and the workspace must not contain each other[/red]")
        raise typer.Exit(2)
    if re.search(rf"(?<![0-9]){seed}(?![0-9])", str(ws)):
        err_console.print(
            "[red]the workspace path contains the seed; the sandbox shows its path to the agent "
            "(/proc/self/mountinfo). Choose another path.[/red]"
        )
        raise typer.Exit(2)
    ws.mkdir(parents=True, exist_ok=True)
    run.mkdir(parents=True, exist_ok=True)
    logging.basicConfig(
        filename=run / "server.log", level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s"
    )
    try:
        session = sdk.open_session(seed, preset, days, run)
    except (ValueError, FileNotFoundError) as e:
        err_console.print(f"[red]{e}[/red]")
        raise typer.Exit(2) from None
    sdk.write_workspace(ws, config=getattr(session, "config", None))
    server = ToolServer(session, socket_path=sdk.socket_path(ws), port=port)
    for sig in (signal.SIGINT, signal.SIGTERM):  # from now on a stop request ends the run cleanly
        signal.signal(sig, lambda *_: server.request_stop())
    server.start()
    info = connection_info(ws, server.socket_path, server.port)
    (ws / sdk.RUNTIME_DIR / "connection.json").write_text(json.dumps(info, indent=2) + "\n")
    err_console.print(
        f"serving {env} on {server.socket_path}" + (f" and 127.0.0.1:{server.port}" if port is not None else "")
    )
    started = time.time()
    reason = server.serve(handle_signals=False)
    finish = getattr(session, "finish", None)
    if callable(finish):  # envs with a run directory of their own (same layout as `bizbench run`)
        finish(title=f"{env} / {preset} / served / seed {seed}", ended_by=reason, agent="served")
    else:
        status = session.status()
        result = {"env": env, "seed": seed, "preset": preset, "ended_by": reason, **status}
        result["wall_seconds"] = round(time.time() - started, 3)
        write_result(run, result)
    err_console.print(f"stopped ({reason}); run directory: {run}", markup=False)


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True},
)
def yc(
    ctx: typer.Context,
    session: str = typer.Option(..., help="Session directory (holds no hidden state)."),
) -> None:
    """Run one YC-Bench command on a session: `sim init --seed N [--preset P]`, then e.g. `market browse`.

    Prints only JSON on stdout; an error is {"error": ...} with exit status 1.
    """
    from bizbench.cli_yc import run_yc_command

    raise typer.Exit(run_yc_command(session, list(ctx.args)))


# ---------------------------------------------------------------------------- many runs
# Each command lives in its own light module (typer and rich at import; the work inside).
from bizbench.cli_report import report  # noqa: E402
from bizbench.cli_sweep import sweep  # noqa: E402
from bizbench.cli_view import view  # noqa: E402

app.command("sweep")(sweep)
app.command("report")(report)
app.command("view")(view)


def main() -> None:  # pragma: no cover - entry point convenience
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
