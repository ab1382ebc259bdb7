"""Every in-process harness on every env (issue 13): cli-chat and react-json drive ceo, yc and cfo
with a scripted model, the run is recorded as it goes, and its record replays.

Each script acts once (a valid call of the env's), then ends turns the env's way until the
run's turn limit; the terminal harness is tested in test_terminal.py (it serves its env)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import Limits
from bizbench.core.jsonio import read_jsonl
from bizbench.runner.agent_episode import run_agent_episode
from bizbench.runner.replay import replay_run

FLAT = {"point": 1_000_000.0, "lower": 500_000.0, "upper": 1_500_000.0}
PREDICTIONS = {k: FLAT for k in ("cash_1wk", "cash_4wk", "cash_12wk", "cash_26wk")}
#: per env: (an acting call, a turn-ending call), each as (tool, args)
CALLS: dict[str, tuple[tuple[str, dict[str, Any]], tuple[str, dict[str, Any]]]] = {
    "ceo": (
        ("set_prices", {"A": 19.0, "B": 39.0, "C": 79.0}),
        ("next_week", {"rationale": "r", "predictions": PREDICTIONS}),
    ),
    "yc": (("market_browse", {}), ("sim_resume", {})),
    "cfo": (("save_note", {"content": "plan: hold", "tags": ["plan"]}), ("pass", {})),
}
HORIZON = {"ceo": 21, "yc": 1, "cfo": 4}


def _words(tool: str, args: dict[str, Any]) -> str:
    values = {k: json.dumps(v) if isinstance(v, dict) else v for k, v in args.items()}
    flags = " ".join(f"--{k.replace('_', '-')} '{v}'" for k, v in values.items())
    return f"{tool.replace('_', ' ')} {flags}".strip()


def _reply(harness: str, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    if harness == "cli-chat":
        return {"content": "", "tool_calls": [{"name": "run_command", "arguments": {"command": _words(tool, args)}}]}
    if tool == "save_note":  # cfo's notepad is a memory block
        block = {"type": "memory", "operation": tool, **args}
    else:
        block = {"type": "tool", "name": tool, "params": args}
    return {"content": "Thinking.\n```json\n" + json.dumps(block) + "\n```"}


@pytest.mark.parametrize("harness", ["cli-chat", "react-json"])
@pytest.mark.parametrize("env_id", ["ceo", "yc", "cfo"])
def test_every_in_process_harness_plays_every_env_and_the_record_replays(
    env_id: str, harness: str, tmp_path: Path
) -> None:
    act, end = CALLS[env_id]
    script = [_reply(harness, *act)] + [_reply(harness, *end)] * 400
    out = tmp_path / "run"
    result = run_agent_episode(
        env_id, ScriptedModel(script), 3, None, out, harness, Limits(max_turns=6), horizon=HORIZON[env_id]
    )
    assert result["harness"] == harness and result["env"] == env_id
    assert result["ended_by"] in ("completed", "max_turns", "bankrupt"), result["ended_by"]
    actions = read_jsonl(out / "actions.jsonl")
    assert actions[0]["tool"] == act[0] and actions[0]["ok"], actions[0]
    assert any(a["tool"] == end[0] and a["ok"] for a in actions)
    config = json.loads((out / "config.json").read_text())
    assert config["harness"] == harness and config["horizon"] == HORIZON[env_id]
    for name in ("trajectory.jsonl", "system_prompt.txt", "tools.json", "metrics.jsonl", "ledger.csv", "cash.png"):
        assert (out / name).exists(), name
    report = replay_run(out)
    assert report.ok, report.summary()
