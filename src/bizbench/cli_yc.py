"""``bizbench yc --session DIR <command>``: one YC-Bench command on a persistent host-side session.

For humans and trusted tools (the caller can reach the host-side state); a sandboxed agent
gets the hosted seat of ``bizbench serve yc`` instead (:mod:`bizbench.envs.yc.sdk`).
Kept free of typer, rich and the simulator so a shell call starts fast (see
:mod:`bizbench.entry`); the session daemon parses the command. Prints exactly one JSON
document on stdout; an error is ``{"error": ...}`` with status 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bizbench.core.cmdsession import CommandSession


def run_yc_command(session: str, words: list[str]) -> int:
    cs = CommandSession("yc", Path(session))
    try:
        ok, out = _init(cs, words[2:]) if words[:2] == ["sim", "init"] else cs.run(words)
    except (RuntimeError, OSError) as e:  # the session daemon could not be started or stopped
        ok, out = False, str(e)
    sys.stdout.write(json.dumps(out if ok else {"error": out}, default=str) + "\n")
    return 0 if ok else 1


def _init(cs: CommandSession, flags: list[str]) -> tuple[bool, Any]:
    """`sim init --seed N [--preset P]`: a new session (an existing one is replaced)."""
    opts = dict(zip(flags[::2], flags[1::2], strict=False))
    unknown = sorted(set(opts) - {"--seed", "--preset"}) + (["(odd number of words)"] if len(flags) % 2 else [])
    if unknown or "--seed" not in opts:
        extra = f"; unexpected {', '.join(unknown)}" if unknown else ""
        return False, "usage: sim init --seed N [--preset P]" + extra
    try:
        seed = int(opts["--seed"])
    except ValueError:
        return False, f"--seed expects an integer, got '{opts['--seed']}'"
    preset = opts.get("--preset", "default")
    from bizbench.envs.yc.sdk import new_env

    try:
        env = new_env(seed, preset)
    except (ValueError, FileNotFoundError) as e:
        return False, str(e)
    cs.init(env, {"preset": preset})
    return True, env.status_summary()
