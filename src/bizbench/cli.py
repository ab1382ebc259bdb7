"""The ``bizbench`` command line.

Keep module-level imports light (typer, rich): heavy ones (numpy, matplotlib, env
packages, model clients) go inside the command functions so ``bizbench --help`` is fast.
"""

from __future__ import annotations

import importlib
from typing import Any, NoReturn

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


# ---------------------------------------------------------------------------- info commands
@app.command()
def envs() -> None:
    """List the registered environments with their baselines (the default first) and arena seats."""
    from bizbench.core.envs import list_envs

    table = Table(title="bizbench environments")
    table.add_column("id", style="bold cyan")
    table.add_column("title")
    table.add_column("description")
    table.add_column("baselines")
    table.add_column("arena")
    table.add_column("package", style="dim")
    for spec in list_envs():
        names = sorted(spec.baseline_table(), key=lambda n: (n != spec.default_baseline, n))
        arena = f"1-{spec.load(spec.arena).max_seats} seats" if spec.arena else "-"
        table.add_row(spec.id, spec.title, spec.description, ", ".join(names), arena, spec.package)
    console.print(table)


@app.command()
def presets(env: str = typer.Argument(..., help="Env id (bizbench envs).")) -> None:
    """List the presets of an environment (with descriptions when the config loads)."""
    from bizbench.core.presets import list_presets, load_preset

    spec = _env_spec(env)
    try:
        names = list_presets(spec.package)
    except ValueError as e:
        err_console.print(f"[red]env {env!r} is not installed or has no presets: {e}[/red]")
        raise typer.Exit(1) from None
    try:
        model = spec.config_model
    except Exception:  # noqa: BLE001 - env not importable: list the preset names only
        model = None
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


def _option_owner(option: str, kind: str) -> str:
    """Which envs have ``option`` (a baseline option or a world option), for an error message."""
    from bizbench.core.envs import list_envs

    owners = []
    for spec in list_envs():
        try:
            if kind == "world" and option in spec.world_options:
                owners.append(spec.id)
            if kind == "baseline":
                owners += [
                    f"the {spec.id} {b.name} baseline" for b in spec.baseline_table().values() if option in b.options
                ]
        except Exception:  # noqa: BLE001 - a broken plug-in must not hide the message
            continue
    return ", ".join(owners) or "no env"


def _fail(message: str) -> NoReturn:
    err_console.print(message, style="red", markup=False, soft_wrap=True)
    raise typer.Exit(2)


def _parse_options(pairs: list[str]) -> dict[str, Any]:
    """``--option key=value`` pairs; a value is JSON when it parses (numbers, true, lists), else a string."""
    import json

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            _fail(f"--option {pair!r}: expected key=value, e.g. --option price_book=cheap")
        try:
            out[key] = json.loads(value)
        except ValueError:
            out[key] = value
    return out


@app.command()
def run(
    env: str = typer.Argument(..., help="Env id (bizbench envs)."),
    agent: str | None = typer.Option(
        None,
        help="A baseline (default: the env's; `bizbench envs` lists them) or your agent class module:Class.",
    ),
    seed: int = typer.Option(42, help="World seed."),
    preset: str | None = typer.Option(None, help="Preset (see `bizbench presets ENV`); default: the env's default."),
    horizon: int | None = typer.Option(None, help="Override the preset's horizon, in the env's unit (day/month)."),
    days: int | None = typer.Option(None, help="The horizon of an env counted in days (ceo): same as --horizon."),
    out: str | None = typer.Option(None, help="Run directory to write (default runs/<env>-<agent>-<preset>-<seed>)."),
    option: list[str] | None = typer.Option(None, "--option", help="A baseline option key=value (repeatable)."),
    price_book: str | None = typer.Option(None, help="ceo rule-based: cheap | mid."),
    target_rule: str | None = typer.Option(None, help="ceo rule-based: s1_only | s1_then_s3."),
    spend_package: str | None = typer.Option(None, help="ceo rule-based: light | medium | heavy."),
    cash_floor: float | None = typer.Option(None, help="ceo rule-based: cash floor in dollars."),
    db: bool | None = typer.Option(None, "--db/--no-db", help="ceo: write the agent-visible company.db (default on)."),
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
    """Run one episode: a baseline (the env's by default), an LLM (--model) or your agent (--agent module:Class)."""
    from pathlib import Path

    spec = _env_spec(env)
    if days is not None:
        if spec.unit != "day":
            _fail(
                f"--days sets the horizon of envs counted in days ({_unit_envs('day')}); {env} counts "
                f"{spec.unit}s: use --horizon"
            )
        if horizon is not None and horizon != days:
            _fail("give --horizon or --days, not both")
        horizon = days
    world: dict[str, Any] = {}
    if db is not None:
        if "database" not in spec.world_options:
            _fail(f"--db/--no-db is a world option of {_option_owner('database', 'world')}; {env} has no database")
        world["database"] = db
    named = {
        "price_book": price_book,
        "target_rule": target_rule,
        "spend_package": spend_package,
        "cash_floor": cash_floor,
    }
    options = {**{k: v for k, v in named.items() if v is not None}, **_parse_options(option or [])}
    preset = preset or spec.default_preset
    model_only = {
        "harness": harness,
        "context_turns": context_turns,
        "max_dollars": max_dollars,
        "max_tokens": max_tokens,
        "max_turns": max_turns,
        "temperature": temperature,
        "max_output_tokens": max_output_tokens,
        "reasoning_effort": reasoning_effort,
        "prices": prices,
    }
    given = ["--" + k.replace("_", "-") for k, v in model_only.items() if v is not None]
    if given and model is None:
        what = "an agent class" if agent is not None and ":" in agent else "a baseline"
        _fail(f"{', '.join(given)}: options of a model in the seat (--model), not of {what}")
    if world and model is not None:
        _fail("--db/--no-db: a model's run keeps the files its harness gives the model; not an option of --model")
    if model is not None or (agent is not None and ":" in agent):
        if options:
            flags = ", ".join("--" + k.replace("_", "-") for k in options)
            _fail(f"{flags}: options of baselines, not of --model or --agent module:Class")
        sampling = {"temperature": temperature, "max_tokens": max_output_tokens, "reasoning_effort": reasoning_effort}
        limits = {"max_dollars": max_dollars, "max_tokens": max_tokens, "max_turns": max_turns}
        from bizbench.runner.sweep_spec import model_slug

        name = model_slug(model) if model is not None else str(agent).rsplit(":", 1)[-1]
        out_dir = Path(out) if out else Path("runs") / f"{env}-{name}-{preset}-{seed}"
        harness_options = {"context_turns": context_turns}
        _run_agent(
            spec,
            model,
            agent,
            seed,
            preset,
            out_dir,
            harness,
            harness_options,
            sampling,
            limits,
            prices,
            horizon,
            world,
        )
        return
    try:
        baseline = spec.baseline(agent or spec.default_baseline)
    except ValueError as e:
        _fail(str(e))
    for key in options:
        if key not in baseline.options:
            _fail(
                f"--{key.replace('_', '-')} is an option of {_option_owner(key, 'baseline')}; the {env} "
                f"{baseline.name} baseline takes {', '.join(baseline.options) or 'none'}"
            )
    out_dir = Path(out) if out else Path("runs") / f"{env}-{baseline.name}-{preset}-{seed}"
    from bizbench.runner.episode import run_baseline

    with _progress() as progress:
        task = progress.add_task(f"{spec.unit}s simulated", total=None)

        def on_turn(elapsed: int, total: int) -> None:
            progress.update(task, completed=elapsed, total=total)

        try:
            result = run_baseline(
                env, baseline.name, seed, preset, horizon, out_dir, options or None, on_turn, world or None
            )
        except ValueError as e:
            _fail(str(e))
    _print_result(f"{env} / {preset} / {baseline.name} / seed {seed}", result, spec.unit)
    _print_files(out_dir)


def _unit_envs(unit: str) -> str:
    from bizbench.core.envs import list_envs

    return ", ".join(s.id for s in list_envs() if s.unit == unit) or "none"


def _run_agent(
    spec: Any,
    model: str | None,
    agent: str | None,
    seed: int,
    preset: str,
    out_dir: Any,
    harness: str | None,
    harness_options: dict[str, Any],
    sampling: dict[str, Any],
    limits: dict[str, Any],
    prices: str | None,
    horizon: int | None,
    world: dict[str, Any],
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
                spec.id,
                client,
                seed,
                preset,
                out_dir,
                harness,
                Limits(**limits),
                options,
                portable_spec(model),
                price_file,
                horizon,
            )
        else:
            result = agent_episode.run_user_agent(spec.id, str(agent), seed, preset, out_dir, horizon, world or None)
    except ValueError as e:
        _fail(str(e))
    _print_result(f"{spec.id} / {preset} / {result.get('agent')} / seed {seed}", result, spec.unit)
    _print_files(out_dir)
    _exit_if_crashed(result)


#: result fields shown after a run, in order (those a result has)
_SHOWN = (
    "score",
    "final_cash",
    "bankrupt",
    "completed",
    "incomplete_reason",
    "survived",
    "ended_by",
    "tool_calls",
    "turns",
    "cost_usd",
    "wall_seconds",
)
_MONEY = ("score", "final_cash")


def _print_result(title: str, result: dict[str, Any], unit: str = "") -> None:
    table = Table(title=title)
    table.add_column("metric")
    table.add_column("value", justify="right")
    for key in _SHOWN:
        if key not in result:
            continue
        v = result[key]
        label = f"survived ({unit}s of {result.get('horizon')})" if key == "survived" and unit else key
        table.add_row(label, f"${v:,.2f}" if key in _MONEY and isinstance(v, int | float) else str(v))
    console.print(table)


def _exit_if_crashed(result: dict[str, Any]) -> None:
    """Say when a run ended before its horizon; exit 1 when the agent's side crashed (the run is
    written, and counted by `bizbench report` as a failed run: docs/reports.md)."""
    from bizbench.core.runlog import CRASHED, ended_early

    why = ended_early(result)
    if why is None:
        return
    crashed = result.get("ended_by") in CRASHED
    err_console.print(
        f"incomplete run ({why}): the score above is the company it left behind, not a result; "
        "bizbench report counts it as a failed run (score 0)",
        style="red" if crashed else "yellow",
        markup=False,
        soft_wrap=True,
    )
    if crashed:
        raise typer.Exit(1)


def _print_files(out_dir: Any) -> None:
    from pathlib import Path

    names = sorted(p.name for p in Path(out_dir).iterdir()) if Path(out_dir).is_dir() else []
    console.print(f"run directory: {out_dir}  ({', '.join(names)})", soft_wrap=True, markup=False)


@app.command()
def resume(
    run_dir: str = typer.Argument(..., help="The run directory of a killed run, or a killed arena's directory."),
    trust_agent_code: bool = typer.Option(
        False,
        "--trust-agent-code",
        help="Allow resuming a run of an agent class (module:Class) or of a model on its own server (name@url).",
    ),
    port: int = typer.Option(0, "--port", min=0, max=65535, help="A person's game: the loopback port (0: a free one)."),
    no_browser: bool = typer.Option(False, "--no-browser", help="A person's game: print the URL only."),
) -> None:
    """Finish a killed run with the result an uninterrupted run would have (docs/run-format.md).

    The run is re-executed from its record on a fresh world: recorded model replies are
    reused (no paid call twice), the live model answers the rest. A finished run is left as it is.
    A run of an agent class is resumed only with --trust-agent-code (docs/security.md).
    A person's game (bizbench play) is rebuilt from its record and served again to play on.
    """
    from pathlib import Path

    from bizbench.agents.models.base import ResumeDivergence
    from bizbench.core.jsonio import read_jsonl
    from bizbench.core.runs import is_human
    from bizbench.runner.arena import ARENA_CONFIG
    from bizbench.runner.resume import finished, refuse_arena_seat, resume_run
    from bizbench.runner.runconfig import read_config

    if (Path(run_dir) / ARENA_CONFIG).is_file():
        _resume_arena(Path(run_dir), trust_agent_code)
        return
    try:
        refuse_arena_seat(Path(run_dir), read_config(Path(run_dir)))
        if finished(run_dir) is not None:
            console.print(f"{run_dir} is already finished; nothing to do", soft_wrap=True, markup=False)
            return
        if is_human(read_config(Path(run_dir)).get("agent")):
            from bizbench.play.game import Game

            game = Game.resume(Path(run_dir))
            last = read_jsonl(Path(run_dir) / "resume.jsonl")[-1]
            same = "the same record" if last["actions_match"] else "a record that differs from the old one"
            console.print(
                f"resumed at {game.spec.unit} {game.episode.env.elapsed} (turn {game.episode.turn}): "
                f"{last['actions_resent']} recorded calls sent again, {same}",
                markup=False,
                soft_wrap=True,
            )
            serve_game(game, port, not no_browser)
            return
        result = resume_run(run_dir, trust_agent_code=trust_agent_code)
    except (ValueError, ResumeDivergence) as e:
        err_console.print(str(e), style="red", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    _print_result(f"resumed: {run_dir}", result, str(result.get("unit", "")))
    last = read_jsonl(Path(run_dir) / "resume.jsonl")[-1]
    if not last["actions_match"]:
        err_console.print(
            f"warning: the resumed run did not repeat the killed attempt's {last['actions_checked']} actions "
            f"(attempts/{last['attempt']}/actions.jsonl); its result may differ from an uninterrupted run",
            style="yellow",
            markup=False,
            soft_wrap=True,
        )
    _exit_if_crashed(result)


def _resume_arena(path: Any, trust_agent_code: bool) -> None:
    """``bizbench resume ARENA_DIR``: the arena played again from its record (docs/arena.md)."""
    from bizbench.agents.models.base import ResumeDivergence
    from bizbench.core.jsonio import read_json, read_jsonl
    from bizbench.runner.arena import STANDINGS, seat_dirs
    from bizbench.runner.resume import resume_arena

    if read_json(path / STANDINGS) is not None:
        console.print(f"{path} is already finished; nothing to do", soft_wrap=True, markup=False)
        return
    try:
        outcome = resume_arena(path, trust_agent_code)
    except (ValueError, ResumeDivergence) as e:
        err_console.print(str(e), style="red", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    except KeyboardInterrupt:
        err_console.print(f"interrupted: `bizbench resume {path}` goes on", markup=False, soft_wrap=True)
        raise typer.Exit(130) from None
    for row in sorted(outcome["standings"], key=lambda r: (r["rank"], r["seat"])):
        console.print(f"#{row['rank']} seat {row['seat']} {row['agent']}: {row['score']:,.2f}", markup=False)
    for seat in seat_dirs(path):
        last = read_jsonl(seat / "resume.jsonl")[-1]
        if not last["actions_match"]:
            err_console.print(
                f"warning: {seat.name} did not repeat the killed attempt's {last['actions_checked']} actions "
                f"(attempts/{last['attempt']}/{seat.name}/actions.jsonl); the arena may differ from an "
                "uninterrupted one",
                style="yellow",
                markup=False,
                soft_wrap=True,
            )
    console.print(f"resumed: {path} (arena.json, seat-*/, standings.json)", markup=False, soft_wrap=True)


@app.command()
def replay(
    run_dir: str = typer.Argument(..., help="A finished run directory (a submission), or an arena directory."),
    json_output: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    verdicts: str | None = typer.Option(
        None, "--verdicts", help="Where the verdict is kept for `bizbench report` (default: ~/.cache/bizbench/replays)."
    ),
) -> None:
    """Re-execute a run's recorded actions on a fresh world of its seed and check its record.

    Exit 0 when the world is the preset's, every action is accepted again, the outcome matches
    result.json and the files the world writes (metrics, the env's other logs, ledger.csv) are
    the recorded ones; 1 when not; 2 when the directory cannot be replayed. The verdict is
    kept (outside the run directory) for `bizbench report`. An arena directory is replayed
    whole, its seats together, with one report a seat (docs/arena.md).
    """
    import json
    from pathlib import Path

    from bizbench.runner.arena import ARENA_CONFIG
    from bizbench.runner.replay import default_verdict_store, replay_arena, replay_run, save_verdict

    try:
        reports = replay_arena(run_dir) if (Path(run_dir) / ARENA_CONFIG).is_file() else [replay_run(run_dir)]
    except ValueError as e:
        err_console.print(str(e), style="red", markup=False, soft_wrap=True)
        raise typer.Exit(2) from None
    store = Path(verdicts) if verdicts else default_verdict_store()
    for found in reports:
        if json_output:
            print(json.dumps(found.summary(), default=str))
        else:
            _print_replay(found)
        try:
            save_verdict(found, store)
        except OSError as e:  # the record was replayed; its verdict has nowhere to go
            _fail(f"the verdict could not be kept in {store} ({e.strerror or e}): give --verdicts a directory")
    if not all(found.ok for found in reports):
        raise typer.Exit(1)


def _print_replay(report: Any) -> None:
    verdict = "[green]verified[/green]" if report.ok else "[red]does not match[/red]"
    console.print(
        f"{report.path}: {verdict} ({report.actions_sent} actions re-sent, {report.actions_skipped} not re-sent, "
        f"{len(report.compared)} result fields and {len(report.files_verified)} files verified)",
        soft_wrap=True,
    )
    lines = [f"the world differs from preset {report.result.get('preset')!r} in: {', '.join(report.config_changes)}"]
    lines = lines if report.config_changes else []
    lines += [report.divergence] if report.divergence else []
    lines += [f"  {k}: recorded {v['recorded']!r}, replayed {v['replayed']!r}" for k, v in report.mismatches.items()]
    lines += [f"  {name}: {why}" for name, why in report.file_mismatches.items()]
    if report.recorded_with and not report.ok:
        lines.append(
            f"the run was recorded with {report.recorded_with}: a change of the world since then also makes a "
            "replay differ; replay it with that version to tell an edited record from an upgrade"
        )
    unverified = [*report.unverified, *report.files_unverified]
    lines.append(f"not verifiable from the actions: {', '.join(unverified) or 'nothing'}")
    for line in lines:
        console.print(line, markup=False, soft_wrap=True)


@app.command()
def search(
    env: str = typer.Argument(..., help="Env id (an env whose baseline has an option search, e.g. ceo)."),
    agent: str | None = typer.Option(None, help="The baseline whose options are searched (default: the env's)."),
    preset: str | None = typer.Option(None, help="Preset (ceo's official baseline figures use no-surges)."),
    seed: int = typer.Option(42, help="Seed of the search."),
    workers: int | None = typer.Option(None, help="Parallel processes (default: all cores)."),
    best_seeds: str | None = typer.Option(None, help="Also run the best configuration on these seeds, e.g. 1-10."),
) -> None:
    """Run every configuration of a baseline's option search (ceo: Table 4's 24) and print them ranked."""
    from bizbench.runner.search import search as run_search
    from bizbench.runner.search import seeds_of
    from bizbench.runner.sweep_spec import parse_seeds

    spec = _env_spec(env)
    try:
        baseline = spec.baseline(agent or spec.default_baseline)
        seeds = parse_seeds(best_seeds) if best_seeds else []  # before the runs, not after them
    except ValueError as e:
        _fail(str(e))
    if baseline.search_space is None:
        _fail(f"the {env} {baseline.name} baseline has no option search")
    preset = preset or spec.default_preset
    with _progress() as progress:
        task = progress.add_task("configurations", total=len(baseline.search_space()))
        ranked = run_search(env, baseline.name, preset, seed, workers, on_done=lambda r: progress.advance(task))
    columns = ("score", "final_cash", "bankrupt", "survived")
    table = Table(title=f"{baseline.name} search: {env} / {preset} / seed {seed}")
    for col in ("rank", "configuration", *columns):
        table.add_column(col, justify="right" if col != "configuration" else "left")
    for i, r in enumerate(ranked, 1):
        table.add_row(str(i), r["label"], *_cells(r, columns))
    console.print(table)
    if seeds:
        best = ranked[0]["agent_options"]
        with _progress() as progress:
            task = progress.add_task("seeds", total=len(seeds))
            rows = seeds_of(env, baseline.name, best, seeds, preset, workers, on_done=lambda r: progress.advance(task))
        t2 = Table(title=f"best configuration {ranked[0]['label']} across seeds")
        for col in ("seed", *columns):
            t2.add_column(col, justify="right")
        for r in rows:
            t2.add_row(str(r["seed"]), *_cells(r, columns))
        console.print(t2)


def _cells(result: dict[str, Any], columns: tuple[str, ...]) -> list[str]:
    return [f"${result[c]:,.0f}" if c in _MONEY else str(result.get(c)) for c in columns]


@app.command("upper-bound")
def upper_bound(
    env: str = typer.Argument(..., help="Env id (an env with an analytic upper bound, e.g. ceo)."),
    preset: str | None = typer.Option(None, help="Preset whose parameters feed the estimate."),
) -> None:
    """The env's analytic upper bound on its score (ceo: Appendix D, Table 5), computed from the preset."""
    spec = _env_spec(env)
    module = _env_module(env, "upper_bound")
    config, _ = spec.load_config(preset)
    est = module.estimate(config)
    table = Table(title=f"{env} upper bound ({preset or spec.default_preset})")
    table.add_column("quantity")
    table.add_column("amount ($M)", justify="right")
    for name, value in est.rows():
        table.add_row(name, f"x {value:.2f}" if name.startswith("Friction") else f"{value / 1e6:,.1f}")
    console.print(table)


# ---------------------------------------------------------------------------- isolation commands
def _env_module(env: str, module: str) -> Any:
    """``<package>.<module>`` of a registered env (e.g. its ``tools`` or ``sdk``); exit 2 if missing."""
    spec = _env_spec(env)
    name = f"{spec.package}.{module}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:  # the module is there, one of its imports is not: say which
            _fail(f"env {env!r}: its {module} module cannot be imported ({e})")
        from importlib.util import find_spec

        from bizbench.core.envs import list_envs

        have = [s.id for s in list_envs() if find_spec(f"{s.package}.{module}") is not None]
        _fail(f"env {env!r} has no {module.replace('_', ' ')} module; {', '.join(have) or 'no env'} has one")
    except ImportError as e:
        _fail(f"env {env!r}: its {module} module cannot be imported ({e})")


@app.command()
def tools(
    env: str = typer.Argument(..., help="Env id (bizbench envs)."),
    fmt: str = typer.Option("markdown", "--format", help="json | markdown."),
    preset: str | None = typer.Option(
        None, "--preset", help="Preset whose tools to print (default: the env's default)."
    ),
) -> None:
    """Print an env's tool registry for a preset (json: only a JSON list on stdout); descriptions
    state that preset's limits and fees (the env class's ``registry_for(config)``)."""
    import json
    import sys

    if fmt not in ("json", "markdown"):
        err_console.print(f"[red]--format must be json or markdown, got {fmt!r}[/red]")
        raise typer.Exit(2)
    spec = _env_spec(env)
    try:
        config = spec.load_config(preset)[0]
    except (ValueError, FileNotFoundError) as e:
        err_console.print(str(e), markup=False, highlight=False)
        raise typer.Exit(2) from None
    registry = spec.env_class.registry_for(config)
    if fmt == "json":
        sys.stdout.write(json.dumps([s.to_dict() for s in registry.specs()], indent=2) + "\n")
    else:
        sys.stdout.write(registry.markdown_docs(f"{env} tool reference"))


# ---------------------------------------------------------------------------- many runs
# Each command lives in its own light module (typer and rich at import; the work inside).
from bizbench.cli_arena import arena, tournament  # noqa: E402
from bizbench.cli_interfaces import mcp, openenv  # noqa: E402
from bizbench.cli_play import play, serve_game  # noqa: E402
from bizbench.cli_report import report  # noqa: E402
from bizbench.cli_sandbox import sandbox  # noqa: E402
from bizbench.cli_seat import add_session_commands, serve  # noqa: E402
from bizbench.cli_sweep import sweep  # noqa: E402
from bizbench.cli_view import view  # noqa: E402

app.command("sweep")(sweep)
app.command("arena")(arena)
app.command("tournament")(tournament)
app.command("report")(report)
app.command("view")(view)
app.command("play")(play)
app.command("serve")(serve)
app.command("sandbox", context_settings={"allow_interspersed_args": False})(sandbox)  # CMD's own options stay CMD's
app.command("mcp")(mcp)
app.command("openenv")(openenv)
add_session_commands(app)


def main() -> None:  # pragma: no cover - entry point convenience
    app()


if __name__ == "__main__":  # pragma: no cover
    main()
