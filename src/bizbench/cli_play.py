"""``bizbench play ENV``: a person plays any env in the browser, recorded like any run (docs/play.md).

Module-level imports are typer and rich only; the game and its web app are imported inside the
commands. :func:`serve_game` is shared with ``bizbench resume``, which reopens a person's game.
"""

from __future__ import annotations

import getpass
import html
import os
import re
import sys
import tempfile
import threading
import webbrowser
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

__all__ = ["play", "serve_game"]

console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)


def play(
    env: Annotated[str, typer.Argument(help="The env to play (bizbench envs lists them).")],
    seed: Annotated[int, typer.Option("--seed", min=0, help="The world's seed.")] = 42,
    preset: Annotated[str | None, typer.Option("--preset", help="A preset of the env (default: its default).")] = None,
    name: Annotated[
        str | None,
        typer.Option("--name", help="Your name in the record: the run's agent is human:NAME (default: $USER)."),
    ] = None,
    out: Annotated[
        Path | None, typer.Option("--out", metavar="RUN", help="The run directory (default: runs/play-ENV-NAME-SEED).")
    ] = None,
    horizon: Annotated[
        int | None, typer.Option("--horizon", help="Override the preset's horizon, in the env's unit.")
    ] = None,
    split: Annotated[str, typer.Option("--split", help="dev (public worlds) or test (held-out worlds).")] = "dev",
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="The loopback port (0: a free one).")] = 0,
    no_browser: Annotated[bool, typer.Option("--no-browser", help="Print the URL only.")] = False,
) -> None:
    """Play ENV in your browser: a local page on 127.0.0.1 shows what an agent sees, every tool as a form.

    Every action is recorded as it happens in a normal run directory (agent human:NAME):
    bizbench resume continues a closed game, replay verifies it, report and view show it.
    """
    from bizbench.play.game import Game

    player = name if name is not None else _default_name()
    directory = out if out is not None else Path("runs") / f"play-{env}-{player}-{seed}"
    try:
        game = Game(env, seed, out=directory, name=player, preset=preset, horizon=horizon, split=split)
    except KeyError as e:
        _fail(str(e.args[0]) if e.args else str(e))
    except ValueError as e:
        _fail(f"{e}\n(a closed game continues with: bizbench resume {directory})" if directory.exists() else str(e))
    serve_game(game, port, not no_browser)


def serve_game(game: Any, port: int = 0, browser: bool = True) -> None:
    """Serve ``game`` until Ctrl-C, printing its URL (and opening a browser when there is a display)."""
    from bizbench.play.app import PlayServer

    try:
        server = PlayServer(game, port)
    except OSError as e:
        game.close()
        _fail(f"cannot listen on 127.0.0.1:{port}: {e.strerror or e}")
    console.print(f"playing {game.spec.id} ({game.spec.title}); the record: {game.path}", markup=False, soft_wrap=True)
    console.print(f"open {server.url}", markup=False, soft_wrap=True)
    console.print(
        "press Ctrl-C here to stop serving (the game is kept: bizbench resume continues it)",
        markup=False,
        soft_wrap=True,
    )
    launcher = _launcher(server.url) if browser and _has_display() else None
    try:
        if launcher is not None:  # from a thread: a browser command may wait until it is closed
            threading.Thread(target=webbrowser.open, args=(launcher.as_uri(),), daemon=True).start()
        server.run()
    except KeyboardInterrupt:
        pass  # Ctrl-C: uvicorn has shut down and raised it again; the game is kept
    finally:
        game.close()
        if launcher is not None:
            launcher.unlink(missing_ok=True)
    result = game.episode.result
    if result is None:
        console.print(
            f"the game is not over; continue it with: bizbench resume {game.path}", markup=False, soft_wrap=True
        )
    else:
        counted = game.episode.score()  # the score reports count: 0 for a game stopped before its end
        console.print(f"the game is over ({result['ended_by']}): score {counted:,.2f}", markup=False, soft_wrap=True)


def _launcher(url: str) -> Path:
    """A page readable by this user only that sends the browser on to ``url``: the browser is
    started with its path, so the game's token never shows on a command line (``ps`` shows every
    account's), as Jupyter opens its server."""
    fd, name = tempfile.mkstemp(prefix="bizbench-play-", suffix=".html")  # mode 0600
    page = f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={html.escape(url)}">'
    with os.fdopen(fd, "w") as f:
        f.write(page + f'<p><a href="{html.escape(url)}">open the game</a></p>\n')
    return Path(name)


def _default_name() -> str:
    try:
        user = getpass.getuser()
    except (KeyError, OSError):
        user = ""
    cleaned = re.sub(r"[^A-Za-z0-9_.-]", "", user)[:64].lstrip("_.-")
    return cleaned or "player"


def _has_display() -> bool:
    """Whether a graphical browser can open (a terminal one would take over the console)."""
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def _fail(message: str) -> None:
    err_console.print(message, style="red", markup=False, soft_wrap=True)
    raise typer.Exit(2)
