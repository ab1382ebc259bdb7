"""The servers of the standard interfaces (docs/interfaces.md): ``bizbench mcp ENV --seed N`` (one
episode as an MCP server) and ``bizbench openenv ENV`` (an OpenEnv server, one world per session).

Module-level imports are typer and rich only; each door's library (extras ``[mcp]``,
``[openenv]``) and the env are imported inside its command. Over stdio nothing but the
protocol is written to stdout; the commands' own messages go to stderr.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console

__all__ = ["mcp", "openenv"]

err_console = Console(stderr=True)


def _fail(message: str) -> typer.Exit:
    err_console.print(message, style="red", markup=False, highlight=False, soft_wrap=True)
    return typer.Exit(2)


@contextmanager
def _options_checked() -> Iterator[None]:
    """Exit 2 with the message of a bad option: an unknown env (KeyError), a bad preset, seed,
    split, horizon or limit (ValueError), a run directory that cannot be made (OSError)."""
    try:
        yield
    except KeyError as e:
        raise _fail(str(e.args[0])) from None
    except (ValueError, OSError) as e:
        raise _fail(str(e)) from None


def _check_listen(host: str, port: int) -> None:
    """Refuse (exit 2) an address the server could not listen on (a port in use, an unknown
    host) before anything, such as a run directory, is made."""
    import socket

    try:
        with socket.create_server((host, port)):
            pass
    except OSError as e:
        raise _fail(f"cannot listen on {host}:{port} ({e})") from None


# The options both servers take.
ENV = typer.Argument(..., help="Env id (see `bizbench envs`).")
PRESET = typer.Option(None, help="Preset name (default: the env's; see `bizbench presets ENV`).")
HORIZON = typer.Option(None, help="Override the preset's horizon, in the env's unit.")
SPLIT = typer.Option("dev", help="dev: the public world of a seed; test: its held-out world ($BIZBENCH_SEED_SECRET).")


def mcp(
    env: str = ENV,
    seed: int = typer.Option(..., help="World seed (kept in the server; the client never sees it)."),
    preset: str | None = PRESET,
    horizon: int | None = HORIZON,
    split: str = SPLIT,
    out: Path | None = typer.Option(None, help="Run directory to record the episode in (new or empty)."),
    agent: str = typer.Option("mcp", help="The player's name in config.json and result.json."),
    max_steps: int | None = typer.Option(None, help="Tool calls after which the episode is cut short."),
    http: int | None = typer.Option(
        None, min=0, max=65535, help="Serve streamable HTTP on this port (0: a free one) instead of stdio."
    ),
    host: str = typer.Option("127.0.0.1", help="With --http: the address to listen on."),
) -> None:
    """Serve one episode of ENV as an MCP server: over stdio (default) or streamable HTTP (--http PORT).

    Tools are the env's registry; resources its public documents and the observation; the
    prompt its instructions. With --out the episode is a normal run directory (`bizbench replay`),
    finished when the episode ends, the client disconnects (stdio) or the server stops.
    """
    try:
        from bizbench.interfaces.mcp import serve_http, serve_stdio
    except ImportError as e:
        raise _fail(f"bizbench mcp needs the MCP SDK: pip install 'bizbench[mcp]' ({e})") from None
    from bizbench.interfaces.episode import ToolEpisode

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if http is not None:
        _check_listen(host, http)
    with _options_checked():
        episode = ToolEpisode(
            env,
            seed,
            preset=preset,
            horizon=horizon,
            split=split,  # type: ignore[arg-type]  # checked by the episode
            out=out,
            agent=agent,
            interface="mcp",
            max_steps=max_steps,
        )
    if http is None:
        err_console.print(f"serving {env} over stdio", markup=False, highlight=False)
        result = serve_stdio(episode)
    else:
        result = serve_http(
            episode, http, host, on_listen=lambda url: err_console.print(f"serving {env} at {url}", markup=False)
        )
    where = f"; run directory: {out}" if out is not None else ""
    err_console.print(f"stopped ({result['ended_by']}){where}", markup=False, highlight=False)


def openenv(
    env: str = ENV,
    preset: str | None = PRESET,
    horizon: int | None = HORIZON,
    split: str = SPLIT,
    out: Path | None = typer.Option(None, help="Write each episode's run directory under this root."),
    max_steps: int | None = typer.Option(None, help="Steps after which an episode is cut short."),
    max_sessions: int = typer.Option(8, help="Concurrent sessions (one world each)."),
    host: str = typer.Option("127.0.0.1", help="The address to listen on."),
    port: int = typer.Option(8000, min=0, max=65535, help="The port to listen on."),
) -> None:
    """Serve ENV as an OpenEnv server until interrupted: reset(seed) / step / state, the env's tools
    over MCP, one world per session. With --out each episode is a normal run directory."""
    try:
        from bizbench.interfaces.openenv import create_app
    except ImportError as e:
        raise _fail(f"bizbench openenv needs openenv-core: pip install 'bizbench[openenv]' ({e})") from None
    _check_listen(host, port)
    with _options_checked():
        app = create_app(
            env,
            preset=preset,
            horizon=horizon,
            split=split,  # type: ignore[arg-type]  # checked by the episode
            out=out,
            max_steps=max_steps,
            max_sessions=max_sessions,
        )
    import uvicorn

    uvicorn.run(app, host=host, port=port)
