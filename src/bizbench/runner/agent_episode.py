"""Run an LLM (or a user's agent class) on an env through a harness, into a run directory.

The run directory is the baseline layout (docs/run-format.md) plus
``trajectory.jsonl`` (appended per event), ``system_prompt.txt`` and ``tools.json``;
result.json adds the model (as requested and as reported), the sampling parameters, the
harness, turns, tool calls, tokens, cost and why the run ended.
"""

from __future__ import annotations

import importlib
import inspect
import os
import sys
import time
from pathlib import Path
from typing import Any

from bizbench.agents.harness import HARNESSES, unusable
from bizbench.agents.models.base import ModelClient, ResumeDivergence
from bizbench.agents.recording import AgentRun, Limits, Trajectory, save_setup
from bizbench.core.envs import get_env
from bizbench.core.runlog import RunDir, require_new
from bizbench.runner.episode import open_session

__all__ = ["load_agent_class", "run_agent_episode", "run_user_agent"]


def make_harness(name: str, **options: Any) -> Any:
    try:
        module = importlib.import_module(HARNESSES[name])
    except KeyError:
        raise ValueError(f"unknown harness {name!r}; choose from {', '.join(HARNESSES)}") from None
    cls = next(v for k, v in vars(module).items() if k.endswith("Harness") and getattr(v, "name", None) == name)
    params = inspect.signature(cls).parameters
    unknown = sorted(set(options) - set(params))
    if unknown:
        accepted = ", ".join(p for p in params if p != "self") or "none"
        raise ValueError(f"the {name} harness takes no {', '.join(unknown)} (its options: {accepted})")
    return cls(**options)


def run_agent_episode(
    env_id: str,
    model: ModelClient,
    seed: int,
    preset: str | None = None,
    out: Path | None = None,
    harness: str | None = None,
    limits: Limits | None = None,
    harness_options: dict[str, Any] | None = None,
    model_spec: str | None = None,
    prices: str | None = None,
    horizon: int | None = None,
) -> dict[str, Any]:
    """One episode of ``model`` on ``env_id``; returns result.json's content.

    ``model_spec`` (the model string the client was made from) and ``prices`` (a price-table
    file) go to config.json so that ``bizbench resume`` can rebuild the client."""
    require_new(out)
    spec = get_env(env_id)
    harness_name = harness or spec.harness
    why = unusable(harness_name, spec)
    if why:
        raise ValueError(why)
    # A replay reports the recorded model, so a verified replay ends with the same result.json.
    model_name = getattr(model, "recorded_name", None) or model.name
    h = make_harness(harness_name, **(harness_options or {}))
    meta: dict[str, Any] = {
        "model": model.name,
        "model_spec": model_spec,
        "prices": prices,
        "sampling": model.sampling,
        "harness": harness_name,
        "harness_options": harness_options or {},
        "limits": vars(limits or Limits()),
    }
    if hasattr(h, "open_env"):  # the harness serves the env from its own process, which writes the record
        env: Any = h.open_env(env_id, seed, preset, horizon)
        rundir = RunDir(out, _served_config(spec, env, seed, model_name, meta)) if out is not None else None
    else:
        env = open_session(env_id, seed, preset, out, model_name, horizon, **meta)
        rundir = env.run
    trajectory = Trajectory(rundir.path / "trajectory.jsonl" if rundir else None)
    if rundir is not None:
        save_setup(rundir.path, h.system_prompt(env), h.tools(env))
    run = AgentRun(model, trajectory, limits or Limits())
    started = time.perf_counter()
    ended_by = "interrupted"
    try:
        ended_by = h.run(env, run)
    except ResumeDivergence:
        raise  # a resumed run that no longer follows its record stays unfinished (bizbench resume says why)
    except Exception as e:  # noqa: BLE001 - a harness bug must not lose the run: record it and finish
        import traceback

        ended_by = "harness_error"
        trajectory.event(
            "harness_error", error=f"{type(e).__name__}: {str(e)[:2000]}", traceback=traceback.format_exc()
        )
    finally:
        trajectory.event("end", ended_by=ended_by, **run.meter.summary(), **_client_notes(model))
        trajectory.close()
    extra = {
        "agent": model_name,
        "model": model_name,
        "sampling": model.sampling,
        **{k: v for k, v in _client_notes(model).items() if k != "replay_mismatches"},
        "harness": harness_name,
    }
    if hasattr(h, "open_env"):
        wall = round(time.perf_counter() - started, 3)
        result = env.result(ended_by=ended_by, **extra, **run.meter.summary(), wall_seconds=wall)
        if rundir is not None:
            h.finish(env, rundir, result, f"{env_id} / {env.preset} / {model_name} / seed {seed}")
        return dict(result)
    return env.finish(ended_by, run.meter.summary(), **extra)


def _served_config(spec: Any, env: Any, seed: int, agent: str, meta: dict[str, Any]) -> dict[str, Any]:
    """config.json of a run whose env is served from another process."""
    return {
        "env": spec.id,
        "preset": env.preset,
        "preset_hash": env.preset_hash,
        "seed": seed,
        "agent": agent,
        **meta,
        "horizon": spec.horizon_of(env.config),
        "unit": spec.unit,
        "config": env.config.model_dump(mode="json"),
    }


def _client_notes(model: ModelClient) -> dict[str, Any]:
    """What a client knows about its own bookkeeping: unpriced models (so costs and
    --max-dollars are not to be trusted), sampling options the provider dropped, replay
    mismatches. Only what the client has."""
    notes: dict[str, Any] = {}
    if getattr(model, "price_known", None) is False:
        notes["price_known"] = False
        notes["unpriced_models"] = list(getattr(model, "unpriced", []))
    if getattr(model, "dropped", None):
        notes["sampling_dropped"] = dict(model.dropped)  # type: ignore[attr-defined]
    if getattr(model, "mismatches", None):
        notes["replay_mismatches"] = list(model.mismatches)  # type: ignore[attr-defined]
    return notes


def load_agent_class(path: str) -> type:
    """``package.module:ClassName`` -> the class (ValueError naming what is missing)."""
    module_name, _, class_name = path.partition(":")
    if not module_name or not class_name:
        raise ValueError(f"--agent {path!r}: expected module:Class, e.g. my_agents.cfo:MyCfo")
    if os.getcwd() not in sys.path:  # like `python -m`: modules in the working directory are found
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise ValueError(f"--agent {path!r}: cannot import {module_name!r} ({e})") from None
    cls = getattr(module, class_name, None)
    if not isinstance(cls, type) or not callable(getattr(cls, "run", None)):
        raise ValueError(f"--agent {path!r}: {class_name!r} must be a class with a run(env) method")
    return cls


def run_user_agent(
    env_id: str,
    agent_path: str,
    seed: int,
    preset: str | None = None,
    out: Path | None = None,
    horizon: int | None = None,
    world_options: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A user's own agent class, acting through the env's tools (``env.call(name, **args)``)
    until ``env.done`` (docs/agents.md), recorded like any run."""
    require_new(out)
    cls = load_agent_class(agent_path)
    session = open_session(env_id, seed, preset, out, agent_path, horizon, world_options=world_options)
    return session.finish(_drive(cls, session), agent=agent_path)


def _drive(cls: type, env: Any) -> str:
    """Run a user's agent; why it ended: completed, bankrupt, incomplete (it returned early) or
    agent_error (it raised; the traceback goes to stderr and the run is still written)."""
    try:
        cls().run(env)
    except Exception:  # noqa: BLE001 - the user's code failed; keep what it did
        import traceback

        traceback.print_exc()
        return "agent_error"
    if not env.done:
        return "incomplete"
    return "bankrupt" if env.bankrupt else "completed"
