"""``bizbench ENV --session DIR <command>``: one command of any registered env on a persistent
host-side session (:mod:`bizbench.core.cmdsession`; docs/seats.md).

For humans and trusted tools (the caller can reach the host-side state); a sandboxed agent
gets the hosted seat of ``bizbench serve ENV`` instead (:mod:`bizbench.core.seat`). Kept free
of typer, rich and the simulator so a shell call starts fast (see :mod:`bizbench.entry`); the
session daemon parses the command. Prints exactly one JSON document on stdout; an error is
``{"error": ...}`` with status 1.

``sim init --seed N [--preset P] [--horizon H]`` starts (or replaces) a session; every other
command is a tool of the env's registry as words (``core/cmdline.py``), ``help [COMMAND]``,
``rules``, ``status``, ``observation`` or ``sim result``, answered by the session daemon
(``core/server.py``). A missing ``--session`` is a JSON error too.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from bizbench.core.cmdline import INTEGER, echo
from bizbench.core.cmdsession import CommandSession, new_env

__all__ = ["run_session_command", "split_session_argv"]

INIT_USAGE = "usage: sim init --seed N [--preset P] [--horizon H]"
MAX_INT64 = 2**63 - 1  # --seed and --horizon are stored and compared as 64-bit integers


def usage(env_id: str) -> str:
    return (
        f"usage: bizbench {env_id} --session DIR <command> [--flag value ...]; start with "
        f"'bizbench {env_id} --session DIR sim init --seed N', then 'help' lists the commands"
    )


def split_session_argv(argv: list[str]) -> tuple[str, list[str]]:
    """(DIR, command words) of ``--session DIR words...`` or ``--session=DIR words...`` (DIR "" when
    it is missing)."""
    if argv[0] == "--session":
        return (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    return argv[0].partition("=")[2], argv[1:]


def answer(ok: bool, out: Any) -> int:
    """Print one JSON document (the data, or ``{"error": ...}``); the exit status."""
    sys.stdout.write(json.dumps(out if ok else {"error": out}, default=str) + "\n")
    return 0 if ok else 1


def run_session_command(env_id: str, session: str | None, words: list[str]) -> int:
    """Run one command line on the session in ``session``; print its JSON answer; the exit status."""
    if not session or session.startswith("--"):
        if words in (["--help"], ["help"]) or session == "--help":
            return answer(True, {"usage": usage(env_id)})
        return answer(False, f"--session DIR is missing; {usage(env_id)}")
    try:
        from bizbench.core.envs import get_env

        get_env(env_id)
        cs = CommandSession(env_id, Path(session))
        served = _served_seat(cs.dir) if words[:2] == ["sim", "init"] or not cs.exists else None
        if served is not None:
            ok, out = False, served
        else:
            ok, out = _init(cs, words[2:]) if words[:2] == ["sim", "init"] else cs.run(words)
    except KeyError as e:  # an unknown env id
        ok, out = False, str(e.args[0])
    except (RuntimeError, OSError) as e:  # the session daemon could not be started or stopped
        ok, out = False, str(e)
    return answer(ok, out)


def _served_seat(directory: Path) -> str | None:
    """Why a host session may not start in ``directory``: it is, or is inside, the workspace of a
    seat that ``bizbench serve`` prepared (a runtime directory there holds the seat's marker), whose
    own ``bin/bizbench`` and SDK reach the served world; None for any other directory."""
    from bizbench.core.sandbox import SEAT_MARKER  # only before a session exists: not on every command

    real = Path(os.path.realpath(directory))
    for folder in (real, *real.parents):
        try:
            hidden = [p for p in folder.iterdir() if p.name.startswith(".") and p.is_dir()]
        except OSError:  # not there (yet), or not a directory: nothing of a seat
            continue
        if any((p / SEAT_MARKER).is_file() for p in hidden):
            return (
                f"{echo(str(directory))} is in the workspace of a served seat ({echo(str(folder))}, bizbench "
                "serve): act there with its bin/bizbench or its SDK; a host session needs a directory of its own."
            )
    return None


def _init(cs: CommandSession, flags: list[str]) -> tuple[bool, Any]:
    """`sim init --seed N [--preset P] [--horizon H]`: a new session (an existing one is replaced)."""
    if "--help" in flags:
        return True, {"command": "sim init", "usage": INIT_USAGE, "description": "start (or replace) this session"}
    flags = [part for f in flags for part in (f.split("=", 1) if f.startswith("--") and "=" in f else [f])]
    twice = sorted({f for f in flags[::2] if flags[::2].count(f) > 1})
    if twice:
        return False, f"Flag {echo(twice[0])} is given twice in 'sim init'; give each flag once. {INIT_USAGE}"
    opts = dict(zip(flags[::2], flags[1::2], strict=False))
    unknown = sorted(set(opts) - {"--seed", "--preset", "--horizon"}) + (
        ["(odd number of words)"] if len(flags) % 2 else []
    )
    if unknown or "--seed" not in opts:
        extra = f"; unexpected {', '.join(echo(u) for u in unknown)}" if unknown else ""
        return False, INIT_USAGE + extra
    numbers: dict[str, int | None] = {"--seed": None, "--horizon": None}
    for flag in numbers:
        if flag in opts:
            if not INTEGER.fullmatch(opts[flag]):  # not int(): it takes "1_0", " 7" and other scripts' digits
                return (
                    False,
                    f"{flag} expects an integer (up to 100 digits 0-9, an optional '-'), got '{echo(opts[flag])}'",
                )
            numbers[flag] = int(opts[flag])
            if abs(numbers[flag] or 0) > MAX_INT64:
                return False, f"{flag} must lie within +/-{MAX_INT64} (a 64-bit integer), got '{echo(opts[flag])}'"
    seed, horizon = numbers["--seed"], numbers["--horizon"]
    assert seed is not None
    try:
        env = new_env(cs.env_id, seed, opts.get("--preset"), horizon)
    except ValueError as e:  # an unknown preset: its name quoted bounded
        preset = opts.get("--preset")
        return False, str(e).replace(preset, echo(preset)) if preset else str(e)
    except OSError:  # a preset name no file can have (too long, a directory ...)
        from bizbench.core.envs import get_env

        known = ", ".join(get_env(cs.env_id).presets())
        return False, f"unknown preset '{echo(opts.get('--preset') or '')}' (available: {known})"
    cs.init(env, {"preset": env.preset, **({"horizon": horizon} if horizon is not None else {})}, horizon)
    return True, env.observation()
