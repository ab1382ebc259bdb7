"""Every harness on the lemonade plug-in, with scripted models (offline), and a user's agent class.

terminal, cli-chat and react-json each drive any env (issue 13): here an env none of them was
written for. The terminal harness serves it from the seat lemonade declares (lemonade/seat.py:
one declaration; bizbench generates the SDK and the shell client).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lemonade_helpers import CORE, ENV, SEED, bizbench, jsonl, outcome, scripted_day, scripted_file

from bizbench.agents.models.scripted import ScriptedModel
from bizbench.agents.recording import Limits
from bizbench.core.sandbox import sandbox_unavailable_reason

HARNESSES = ["terminal", "cli-chat", "react-json"]
DAYS = 4


def needs(harness: str) -> None:
    if harness == "terminal" and (reason := sandbox_unavailable_reason()) is not None:
        pytest.skip(f"the terminal harness runs its agent in the sandbox: {reason}")


def check_run(out: Path, harness: str, days: int = DAYS) -> dict:
    result = outcome(out)
    assert set(CORE) <= set(result) and result["env"] == ENV and result["harness"] == harness
    assert result["completed"] and result["survived"] == days and result["ended_by"] == "completed"
    actions = jsonl(out / "actions.jsonl")
    accepted = [a["tool"] for a in actions if a["ok"]]
    assert accepted.count("end_day") == days and "buy_lemons" in accepted and "set_price" in accepted
    assert (out / "trajectory.jsonl").is_file() and (out / "system_prompt.txt").is_file()
    return result


@pytest.mark.parametrize("harness", HARNESSES)
def test_each_harness_plays_a_season(harness: str, tmp_path: Path) -> None:
    needs(harness)
    from bizbench.runner.agent_episode import run_agent_episode
    from bizbench.runner.replay import replay_run

    out = tmp_path / "run"
    run_agent_episode(ENV, ScriptedModel(scripted_day), SEED, "short", out, harness, Limits(max_turns=30))
    check_run(out, harness, days=7)  # the short preset: a week
    assert replay_run(out).ok


@pytest.mark.parametrize("harness", [*HARNESSES, None])
def test_bizbench_run_with_a_scripted_model(harness: str | None, tmp_path: Path) -> None:
    """``--harness`` picks one; without it the env's own (its spec's ``harness``: cli-chat)."""
    needs(harness or "cli-chat")
    script = scripted_file(tmp_path / "day.jsonl", harness or "cli-chat", DAYS)
    args = ["run", ENV, "--model", f"scripted:{script}", "--seed", "5", "--horizon", str(DAYS)]
    args += ["--max-turns", "20", "--out", str(tmp_path / "run")] + (["--harness", harness] if harness else [])
    proc = bizbench(*args, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    check_run(tmp_path / "run", harness or "cli-chat")


def test_a_user_agent_class(tmp_path: Path) -> None:
    args = ["run", ENV, "--agent", "lemonade_helpers:StandKeeper", "--seed", "5", "--horizon", str(DAYS)]
    proc = bizbench(*args, "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = outcome(tmp_path / "run")
    assert result["agent"] == "lemonade_helpers:StandKeeper" and result["completed"]
    assert len(jsonl(tmp_path / "run" / "actions.jsonl")) == 3 * DAYS
