"""The ``bizbench`` console script.

``bizbench ENV --session DIR <command>`` (any registered env) is answered without importing
the typer CLI (it is called once per agent command, so start-up time matters; target <= 300
ms): :mod:`bizbench.cli_session`. Anything else goes to :mod:`bizbench.cli`.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    session = len(argv) >= 2 and (argv[1] == "--session" or argv[1].startswith("--session="))
    if session and not argv[0].startswith("-"):  # always one JSON answer, --help included
        sys.exit(_session(argv))
    from bizbench.cli import app

    app()


def _session(argv: list[str]) -> int:
    """``ENV --session DIR words...`` or ``ENV --session=DIR words...``: one command, one JSON line."""
    from bizbench.cli_session import run_session_command, split_session_argv

    session, words = split_session_argv(argv[1:])
    return run_session_command(argv[0], session, words)


if __name__ == "__main__":  # python -m bizbench.entry: the console script without installing it
    main()
