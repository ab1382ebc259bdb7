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


class StandKeeper:
    """A user's own agent class (``--agent lemonade_helpers:StandKeeper``; docs/agents.md)."""

    def run(self, env: Any) -> None:
        while not env.done:
            env.call("set_price", price=1.1)
            env.call("buy_lemons", units=25)
            env.call("end_day")


#: One day of a scripted model in each harness's own words: shell commands (cli-chat), JSON
#: blocks (react-json), a bash call of the seat's shell client (terminal).
COMMANDS = ["set price --price 1.2", "buy lemons --units 30", "end day"]
BLOCKS = [
    {"type": "tool", "name": "set_price", "params": {"price": 1.2}},
    {"type": "tool", "name": "buy_lemons", "params": {"units": 30}},
    {"type": "action", "name": "end_day", "params": {}},
]
SHELL = "bizbench lemonade --session /workspace"
SOCKET_CALLS = f"{SHELL} set price --price 1.2 && {SHELL} buy lemons --units 30 && {SHELL} end day"


def scripted_day(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> dict[str, Any]:
    """A scripted model that plays a lemonade day in whatever harness asks it."""
    names = {t.get("name") for t in tools or []}
    if "run_command" in names:
        return {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": c}} for c in COMMANDS]}
    if "bash" in names:
        return {"content": "", "tool_calls": [{"name": "bash", "arguments": {"command": SOCKET_CALLS}}]}
    said = sum(1 for m in messages if m.get("role") == "assistant")
    return {"content": "```json\n" + json.dumps(BLOCKS[said % len(BLOCKS)]) + "\n```"}


def scripted_file(path: Path, harness: str, days: int) -> Path:
    """The same day as a ``scripted:FILE.jsonl`` for the command line."""
    if harness == "react-json":
        lines = [{"content": json.dumps(b)} for _ in range(days) for b in BLOCKS]
    elif harness == "cli-chat":
        lines = [scripted_day([], [{"name": "run_command"}])]
    else:
        lines = [scripted_day([], [{"name": "bash"}])]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path
