"""Model runs for the report's tests: a scripted model played through the env's paper harness on
a Session, recorded as ``bizbench run ENV --model ...`` records it (config.json with the model
and harness, trajectory.jsonl, system_prompt.txt, the Session's logs and result.json)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bizbench.agents.harness.cli_chat import CliChatHarness
from bizbench.agents.harness.react_json import ReactJsonHarness
from bizbench.agents.models.base import ModelClient
from bizbench.agents.recording import AgentRun, Limits, Trajectory, save_setup
from bizbench.runner.episode import open_session

HARNESS = {"yc": CliChatHarness, "cfo": ReactJsonHarness}


def model_run(
    env_id: str, model: ModelClient, seed: int, preset: str | None, out: Path, limits: Limits | None = None
) -> dict[str, Any]:
    """One episode of ``model`` on ``env_id`` (yc or cfo) into ``out``; result.json's content."""
    harness = HARNESS[env_id]()
    limits = limits or Limits()
    meta = {"model": model.name, "harness": harness.name, "harness_options": {}, "limits": vars(limits)}
    session = open_session(env_id, seed, preset, out, model.name, **meta)
    trajectory = Trajectory(out / "trajectory.jsonl")
    save_setup(out, harness.system_prompt(session), harness.tools(session))
    run = AgentRun(model, trajectory, limits)
    ended_by = harness.run(session, run)
    trajectory.event("end", ended_by=ended_by, **run.meter.summary())
    trajectory.close()
    return session.finish(ended_by, run.meter.summary(), agent=model.name, model=model.name, harness=harness.name)
