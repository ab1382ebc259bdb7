"""Recorded runs for the viewer's tests, made once per test process (a few seconds in all).

Imported by ``test_viewer*.py`` (pytest puts this directory on the path). The runs are real:
baselines of the three envs, scripted model runs of cfo (react-json) and yc (cli-chat) whose
replies, notes and scratchpad carry an HTML/script payload, and a hand-written ceo terminal
run directory (the served terminal harness needs a sandbox; its trajectory events are
written here in the harness's shapes).
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import Limits
from bizbench.runner.agent_episode import run_agent_episode
from bizbench.runner.episode import run_baseline

XSS = "</script><img src=x onerror=alert(1)>"


def _cfo_model(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
    """Each month: a note (with the payload), a tool, then book_closing."""
    step = sum(m["role"] == "assistant" for m in messages)
    month = json.loads(messages[1]["content"].split("\n", 1)[1])["current_month"]
    if step == 0:
        block = {"type": "memory", "operation": "save_note", "content": f"month {month} {XSS}", "tags": ["plan"]}
        return {"content": f"Planning month {month}. {XSS}\n" + json.dumps(block)}
    if step == 1:
        return {"content": 'Cash first.\n```json\n{"type": "tool", "name": "check_cash_in_bank", "params": {}}\n```'}
    return {"content": f"Closing month {month}.\n" + '{"type": "action", "name": "book_closing", "params": {}}'}


def _yc_model(messages: list[dict[str, Any]], tools: Any) -> dict[str, Any]:
    turn = sum(m["role"] == "assistant" for m in messages)
    commands = ["company status", f'scratchpad append --content "turn {turn} {XSS}\n"', "sim resume"]
    calls = [{"name": "run_command", "arguments": {"command": c}} for c in commands]
    return {"content": f"Turn {turn}: status, a note, then resume. {XSS}", "tool_calls": calls}


def _ceo_terminal(path: Path) -> Path:
    """A ceo terminal-harness run directory in the harness's shapes (config, trajectory, actions)."""
    path.mkdir()
    config = {"env": "ceo", "preset": "horizon-50", "seed": 7, "agent": "scripted", "model": "scripted"}
    config.update({"harness": "terminal", "horizon_days": 21, "config": {"days_per_turn": 7, "horizon_days": 21}})
    (path / "config.json").write_text(json.dumps(config))
    (path / "system_prompt.txt").write_text("# Your role\nRun NovaMind. " + XSS)
    events: list[dict[str, Any]] = [{"kind": "workspace", "day": 0, "commit": "abc"}]
    actions: list[dict[str, Any]] = []
    metrics = []
    for week in range(3):
        day = 7 * week
        memory = "" if week == 0 else f"# Memory\nMARKER-{week}\n"
        events += [
            {"kind": "reset", "day": day, "turn": week + 1, "memory": memory, "memory_cut": False, "dashboard": "D"},
            {"kind": "model_call", "content": f"week {week + 1} thinking", "tool_calls": [], "day": day},
            {
                "kind": "tool_call",
                "name": "write_file",
                "arguments": {"path": "MEMORY.md", "content": "..."},
                "ok": True,
                "result": "Wrote 3 characters",
                "day": day,
                "turn": week + 1,
            },
            {"kind": "advance", "from_day": day, "to_day": day + 7, "turn": week + 1, "calls": 2},
        ]
        predictions = {k: {"point": 1.0, "lower": 0.0, "upper": 2.0} for k in ("cash_1wk", "cash_4wk")}
        actions += [
            {"day": day, "tool": "get_status", "args": {}, "ok": True, "error": None},
            {
                "day": day,
                "tool": "next_week",
                "args": {"rationale": "bad", "predictions": {}},
                "ok": False,
                "error": "predictions: lower > point",
            },
            # logged once the week is simulated, with the new day
            {
                "day": day + 7,
                "tool": "next_week",
                "args": {"rationale": f"plan of week {week + 1}", "predictions": predictions},
                "ok": True,
                "error": None,
            },
        ]
        for d in range(day + 1, day + 8):
            metrics.append({"day": d, "cash": 1e6 - 100 * d, "subscribers": d, "subscribers_by_group": {"S1": d}})
    events.append({"kind": "end", "ended_by": "completed"})
    for name, rows in (("trajectory", events), ("actions", actions), ("metrics", metrics)):
        with (path / f"{name}.jsonl").open("w") as f:
            for i, row in enumerate(rows):
                f.write(json.dumps({"i": i, **row} if name == "trajectory" else row) + "\n")
    (path / "result.json").write_text(json.dumps({"final_cash": 997900.0, "ended_by": "completed"}))
    return path


@functools.cache
def recorded_runs() -> dict[str, Path]:
    """name -> run directory: ceo, yc, cfo (baselines), cfo_model, yc_model, ceo_model."""
    base = Path(tempfile.mkdtemp(prefix="bizbench-viewer-runs-"))
    atexit.register(shutil.rmtree, base, True)
    runs = {name: base / name for name in ("ceo", "yc", "cfo", "cfo_model", "yc_model")}
    run_baseline("ceo", "rule-based", 42, horizon=28, out=runs["ceo"], world_options={"database": False})
    run_baseline("yc", "greedy", 1, out=runs["yc"])
    run_baseline("cfo", "prudent-cfo", 1, "paper", out=runs["cfo"])
    run_agent_episode("cfo", ScriptedModel(_cfo_model), 1, None, runs["cfo_model"], None, Limits(max_turns=4))
    run_agent_episode("yc", ScriptedModel(_yc_model), 1, None, runs["yc_model"], None, Limits(max_turns=4))
    runs["ceo_model"] = _ceo_terminal(base / "ceo_model")
    return runs
