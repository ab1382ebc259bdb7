"""What the lemonade plug-in tests share (a module of its own name: every test directory has a
``conftest``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ENV = "lemonade"
SEED = 7_364_519_028  # distinctive: a whole-number match of it anywhere the agent reads is a leak
#: the fields every env's result.json has (docs/run-format.md)
CORE = (
    "final_cash",
    "bankrupt",
    "completed",
    "survived",
    "survived_fraction",
    "score",
    "horizon",
    "unit",
    "tool_calls",
    "tokens",
    "cost_usd",
    "ended_by",
)
VOLATILE = ("wall_seconds", "provenance")


def bizbench(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The ``bizbench`` command in a new process, with this session's environment (the plug-in)."""
    code = "from bizbench.entry import main; main()"
    argv = [sys.executable, "-c", code, *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=cwd, env=dict(os.environ))


def outcome(run: Path) -> dict[str, Any]:
    """result.json without the host's fields."""
    data = json.loads((run / "result.json").read_text())
    return {k: v for k, v in data.items() if k not in VOLATILE}


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
