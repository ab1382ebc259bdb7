"""What produced a result: package version, source commit, interpreter and numpy versions."""

from __future__ import annotations

import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["git_commit", "provenance"]


def git_commit(path: str | Path | None = None, timeout: float = 2.0) -> str | None:
    """``git rev-parse HEAD`` in ``path`` (default: this package's directory), or None."""
    cwd = Path(path) if path is not None else Path(__file__).resolve().parent
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    sha = out.stdout.strip()
    if out.returncode != 0 or len(sha) != 40:
        return None
    return sha


def provenance() -> dict[str, Any]:
    import numpy as np

    from bizbench import __version__

    return {
        "bizbench": __version__,
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "python_implementation": platform.python_implementation(),
        "numpy": np.__version__,
        "platform": platform.platform(),
        "executable": sys.executable,
    }
