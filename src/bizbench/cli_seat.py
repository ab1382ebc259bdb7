"""``bizbench serve ENV`` and ``bizbench ENV --session DIR <command>``: the seats of every env (docs/seats.md).

Module-level imports are typer and rich only; the work is imported inside the commands.
:func:`add_session_commands` adds one ``ENV`` command per built-in env to the typer app; the
``bizbench`` console script answers ``ENV --session`` for every registered env, faster and
without typer (:mod:`bizbench.entry`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

__all__ = ["SESSION_CONTEXT", "add_session_commands", "serve"]

#: the words (``--help`` too) go to the session, which answers every one with JSON
SESSION_CONTEXT = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}
#: files of a session's record: a run directory holding one of them holds a run already
RECORD = ("actions.jsonl", "metrics.jsonl", "result.json", "ledger.csv")

err_console = Console(stderr=True)
#: the agent's time limit (``serve --exec-timeout``, ``sandbox --timeout``): a day, as a coding
#: agent's whole episode runs in one process
DEFAULT_TIMEOUT_S = 86_400.0


def _fail(message: str) -> typer.Exit:
    err_console.print(message, style="red", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(2)


def _horizon(spec: Any, horizon: int | None, days: int | None) -> int | None:
    """``--horizon``, or ``--days`` as its alias for envs counted in days (an error otherwise)."""
    if days is None:
        return horizon
    if spec.unit != "day":
        from bizbench.core.envs import list_envs

        daily = ", ".join(s.id for s in list_envs() if s.unit == "day") or "none"
        raise _fail(f"--days applies to envs counted in days ({daily}); {spec.id} counts {spec.unit}s: use --horizon")
    if horizon is not None and horizon != days:
        raise _fail("give --horizon or --days, not both")
    return days


def serve(
    env: str = typer.Argument(..., help="Env id, e.g. 'cfo' (see `bizbench envs`)."),
    seed: int = typer.Option(..., help="World seed (never written to the workspace)."),
    workspace: str = typer.Option(..., help="Agent workspace: receives the SDK, bin/bizbench, docs and the socket."),
    run_dir: str | None = typer.Option(
        None,
        help="Run directory (default runs/serve-<env>-<seed>; not in the workspace): new, empty, or prepared by "
        "a harness (its files are kept; no record of a session yet).",
    ),
    preset: str | None = typer.Option(None, help="Preset name (default: the env's; see `bizbench presets ENV`)."),
    horizon: int | None = typer.Option(None, help="Override the preset's horizon, in the env's unit."),
    days: int | None = typer.Option(None, help="Alias of --horizon for envs counted in days (ceo)."),
    port: int | None = typer.Option(None, help="Also listen on TCP 127.0.0.1:PORT (0 = a free port)."),
    exec_: str | None = typer.Option(
        None,
        "--exec",
        help="The agent: a shell command line run by bash in the sandbox (workspace at /workspace, no network); "
        "the seat ends when it exits.",
    ),
    exec_timeout: float = typer.Option(
        DEFAULT_TIMEOUT_S, min=1, help="Seconds before the --exec process is killed (the run ends: agent_timeout)."
    ),
) -> None:
    """Serve an env's seat to an agent until the episode ends, the --exec process exits, or SIGINT/SIGTERM.

    The workspace gets the env's Python SDK, `bin/bizbench` (`bizbench ENV --session /workspace
    <command>`), docs/ and the socket; the run directory gets the record of `bizbench run`.
    Without --exec the agent is not isolated by this command (a warning says how to isolate it).
    """
    import logging
    import signal

    from bizbench.cli_sandbox import AgentProcess, sandbox_refusal
    from bizbench.core.envs import get_env
    from bizbench.core.runlog import CRASHED
    from bizbench.core.seat import SeatError, open_seat, seat_of
    from bizbench.runner.episode import open_session

    try:
        spec = get_env(env)
        seat = seat_of(spec)
    except (KeyError, ValueError) as e:
        raise _fail(str(e.args[0] if isinstance(e, KeyError) else e)) from None
    if exec_ is not None:
        refusal = sandbox_refusal("--exec") or (None if exec_.strip() else "--exec needs a command line")
        if refusal:
            raise _fail(refusal)
    ws = Path(workspace).absolute()
    run = (Path(run_dir) if run_dir else Path("runs") / f"serve-{env}-{seed}").absolute()
    if ws == run or ws in run.parents or run in ws.parents:
        raise _fail("the run directory and the workspace must not contain each other")
    if re.search(rf"(?<![0-9]){seed}(?![0-9])", str(ws)):
        raise _fail(
            "the workspace path contains the seed; the sandbox shows its path to the agent "
            "(/proc/self/mountinfo). Choose another path."
        )
    try:
        seat_of(spec).check_workspace(ws)  # before any run directory is made
    except SeatError as e:
        raise _fail(str(e)) from None
    held = [name for name in RECORD if (run / name).exists()]
    if held:
        raise _fail(f"the run directory {run} already holds a run ({', '.join(held)}); choose another --run-dir")
    if exec_ is None:
        err_console.print(
            f"warning: the agent is not isolated by this command: a process on the host can read {run} (hidden "
            "figures) and this command line (the seed). Run the agent in the sandbox: add --exec CMD, or start "
            f"each of its processes with `bizbench sandbox {ws} -- CMD...` (docs/agents.md).",
            style="yellow",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    from bizbench.core.cgroups import server_group
    from bizbench.core.server import SERVER_MEMORY_LIMIT, SERVER_PIDS_LIMIT

    with server_group(SERVER_MEMORY_LIMIT, SERVER_PIDS_LIMIT) as confined:
        try:
            h = _horizon(spec, horizon, days)
            attach = run.is_dir() and any(run.iterdir())  # a harness's run: its config.json, trajectory, serve.log ...
            session = open_session(env, seed, preset, run, agent="served", horizon=h, attach=attach)
        except (ValueError, FileNotFoundError) as e:
            raise _fail(str(e)) from None
        logging.basicConfig(
            filename=run / "server.log", level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s"
        )
        logging.getLogger("bizbench.server").info("server limits: %s", confined.limits)
        token = _control_token(run)
        try:
            server = open_seat(session, ws, port)
        except SeatError as e:  # e.g. a user's bin/ in the workspace: refused, nothing taken over
            session.finish(ended_by="server_error", agent="served")
            raise _fail(str(e)) from None
        except BaseException:
            session.finish(ended_by="server_error", agent="served")
            raise
        server.app.control_token = token  # the host (a harness reading the run directory) may advance
        for sig in (signal.SIGINT, signal.SIGTERM):  # from now on a stop request ends the run cleanly
            signal.signal(sig, lambda *_: server.request_stop())
        where = f"{server.socket_path}" + (f" and 127.0.0.1:{server.port}" if port is not None else "")
        err_console.print(f"serving {env} on {where}; server {confined.limits}", markup=False, highlight=False)
        agent = None
        if exec_ is not None:  # its exit ends the seat; the seat's end (episode, signal) ends it
            agent = AgentProcess(ws, seat, ["bash", "-c", exec_], exec_timeout, on_exit=server.request_stop).start()
        reason = server.serve(handle_signals=False)
        if agent is not None:
            if reason != "episode_end" and agent.exited:
                reason = agent.ended_by()
            agent.stop()
        session.finish(ended_by=reason, agent="served")
        if agent is not None:
            agent.report()
        err_console.print(f"stopped ({reason}); run directory: {run}", markup=False, highlight=False)
        if reason in CRASHED:
            raise typer.Exit(1)


def _control_token(run: Path) -> str:
    """A fresh secret for ``POST /advance``, written to ``run/control.token`` (owner-only)."""
    import os
    import secrets

    from bizbench.core.server import CONTROL_TOKEN

    token = secrets.token_hex(32)
    path = run / CONTROL_TOKEN
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    return token


def _session_command(env_id: str) -> Any:
    def command(
        ctx: typer.Context,
        session: str | None = typer.Option(None, help="Session directory (holds no hidden state)."),
    ) -> None:
        from bizbench.cli_session import run_session_command  # no --session: a JSON error too

        raise typer.Exit(run_session_command(env_id, session, list(ctx.args)))

    command.__doc__ = (
        f"Run one {env_id} command on a session: `sim init --seed N [--preset P] [--horizon H]`, then "
        f"its tools as words (`bizbench tools {env_id}`; `help`, `rules`, `sim result`). Prints only JSON on "
        "stdout; an error is "
        '{"error": ...} with exit status 1.'
    )
    return command


def add_session_commands(app: typer.Typer) -> None:
    """One ``ENV --session DIR <command>`` command per built-in env, named without importing it
    (the CLI starts light). A plug-in env's sessions go through the ``bizbench`` console script,
    whose fast path (:mod:`bizbench.entry`) takes any registered env id."""
    from bizbench.core.envs import BUILT_IN

    for env_id in BUILT_IN:
        app.command(env_id, context_settings=SESSION_CONTEXT)(_session_command(env_id))
