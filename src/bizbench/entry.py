"""The ``bizbench`` console script.

``bizbench yc --session DIR <command>`` is answered without importing the typer CLI (it is
called once per agent command, so start-up time matters; issue target <= 300 ms); anything
else goes to :mod:`bizbench.cli`.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if len(argv) >= 3 and argv[0] == "yc" and argv[1].startswith("--session") and "--help" not in argv:
        sys.exit(_yc(argv[1:]))
    from bizbench.cli import app

    app()


def _yc(argv: list[str]) -> int:
    """``--session DIR words...`` or ``--session=DIR words...``: one command, one JSON line."""
    if argv[0] == "--session":
        session, words = argv[1], argv[2:]
    else:
        session, words = argv[0].partition("=")[2], argv[1:]
    from bizbench.cli_yc import run_yc_command

    return run_yc_command(session, words)
