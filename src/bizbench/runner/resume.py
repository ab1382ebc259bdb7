"""``bizbench resume RUN``: finish a run that was killed, with the result of an uninterrupted run.

A run directory is an event log (docs/run-format.md): config.json fixes the world (env,
preset, seed, the full config) and the agent (baseline and its options, or the model string,
sampling, harness and limits), and trajectory.jsonl holds every model reply received. Since
the world is deterministic (DESIGN principle 4), resuming re-executes the run from its first
step on a fresh world:

- the files of the killed attempt move to ``attempts/<n>/`` (nothing is deleted);
- a baseline (or a user's agent class) runs again with the same seed and options;
- a model run replays every reply its attempts received, the longest record first, with its
  recorded tokens and cost (:class:`~bizbench.agents.models.resuming.ResumingModel`), so no paid
  call is repeated and the meters equal an uninterrupted run's; the live model answers the
  rest, from the last recorded reply on (which is at or after the last completed turn);
- the new actions.jsonl must repeat the killed attempt's actions as a prefix; ``resume.jsonl``
  records each attempt (replies reused, actions checked, whether they matched).

A finished run (a readable result.json) is left unchanged. A run served to an outside agent
(``bizbench serve``) cannot be resumed: the agent is not ours to restart.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from bizbench.runner.rundir import read_jsonl

__all__ = ["ResumeError", "finished", "read_result", "resume_run"]

#: the folder of a run directory that keeps the files of its killed attempts
ATTEMPTS = "attempts"


class ResumeError(ValueError):
    """The directory cannot be resumed (not a run, a served run, a missing model ...)."""


def read_result(path: Path) -> dict[str, Any] | None:
    """result.json of a finished run, or None (absent or cut short by a kill)."""
    try:
        data = json.loads((Path(path) / "result.json").read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return data if isinstance(data, dict) else None


def finished(path: str | Path) -> dict[str, Any] | None:
    """The result of a finished run, or None while the run is unfinished."""
    done = read_result(Path(path))
    if done is not None and done.get("agent") == "served" and _read_config(Path(path)).get("harness"):
        return None  # the served seat of a terminal run writes its own result.json before the runner's
    return done


def resume_run(path: str | Path, model: Any | None = None) -> dict[str, Any]:
    """Finish the run in ``path``; returns its result.json content.

    ``model`` replaces the live model client of a model run (needed when the run was started
    from Python with a client object rather than a model string)."""
    path = Path(path)
    config = _read_config(path)
    done = finished(path)
    if done is not None:
        return done
    if config.get("agent") == "served" and not config.get("harness"):
        raise ResumeError(f"{path} was served to an outside agent (bizbench serve); it cannot be resumed")
    live = _live_model(path, config, model) if config.get("harness") else None
    attempt = _archive(path)
    old_actions = read_jsonl(attempt / "actions.jsonl")
    reused = 0
    if live is not None:
        result, reused = _resume_model_run(path, config, live)
    else:
        result = _rerun_agent(path, config)
    new_actions = read_jsonl(path / "actions.jsonl")
    matches = _same_actions(old_actions, new_actions[: len(old_actions)])
    with (path / "resume.jsonl").open("a") as f:
        row = {
            "attempt": attempt.name,
            "replies_reused": reused,
            "actions_checked": len(old_actions),
            "actions_match": matches,
        }
        f.write(json.dumps(row) + "\n")
    return result


def _read_config(path: Path) -> dict[str, Any]:
    try:
        config = json.loads((path / "config.json").read_text())
    except FileNotFoundError:
        raise ResumeError(f"{path} is not a run directory (no config.json)") from None
    except (OSError, json.JSONDecodeError) as e:
        raise ResumeError(f"{path}/config.json cannot be read ({e})") from None
    if not isinstance(config, dict) or config.get("env") not in ("ceo", "yc", "cfo"):
        raise ResumeError(f"{path}/config.json does not describe a bizbench run")
    return config


def _archive(path: Path) -> Path:
    """Move the killed attempt's files to ``attempts/<n>/`` (config.json stays; a copy goes along)."""
    root = path / ATTEMPTS
    root.mkdir(exist_ok=True)
    n = 1 + max((int(p.name) for p in root.iterdir() if p.name.isdigit()), default=0)
    attempt = root / str(n)
    attempt.mkdir()
    for item in sorted(path.iterdir()):
        if item.name in (ATTEMPTS, "config.json", "resume.jsonl"):
            continue
        shutil.move(str(item), attempt / item.name)
    shutil.copy2(path / "config.json", attempt / "config.json")
    return attempt


def _longest_record(path: Path) -> Path | None:
    """The attempt that received the most model replies, as a clean record (complete lines only)."""
    best: list[dict[str, Any]] = []
    for attempt in (path / ATTEMPTS).iterdir():
        rows = read_jsonl(attempt / "trajectory.jsonl")
        if _replies(rows) > _replies(best):
            best = rows
    if not best:
        return None
    record = path / ATTEMPTS / "record"
    record.mkdir(exist_ok=True)
    with (record / "trajectory.jsonl").open("w") as f:
        f.writelines(json.dumps(r) + "\n" for r in best)
    shutil.copy2(path / "config.json", record / "config.json")
    return record


def _replies(rows: list[dict[str, Any]]) -> int:
    return sum(r.get("kind") in ("model_call", "model_error") for r in rows)


def _live_model(path: Path, config: dict[str, Any], model: Any | None) -> Any:
    """The client that answers after the record: ``model``, or one rebuilt from config.json."""
    if model is not None:
        return model
    from bizbench.agents.models.factory import make_model

    spec = config.get("model_spec")
    if not spec:
        raise ResumeError(f"{path} was started from Python with a model object; call resume_run(path, model=...)")
    return make_model(spec, config.get("sampling") or {}, prices=config.get("prices"))


def _resume_model_run(path: Path, config: dict[str, Any], model: Any) -> tuple[dict[str, Any], int]:
    from bizbench.agents.models.resuming import ResumingModel
    from bizbench.agents.recording import Limits
    from bizbench.runner.agent_episode import run_agent_episode

    record = _longest_record(path)
    client = ResumingModel(record, model) if record is not None else model
    result = run_agent_episode(
        config["env"],
        client,
        int(config["seed"]),
        config.get("preset"),
        path,
        config["harness"],
        Limits(**(config.get("limits") or {})),
        config.get("harness_options") or {},
        model_spec=config.get("model_spec"),
        prices=config.get("prices"),
    )
    return result, getattr(client, "reused", 0)


def _rerun_agent(path: Path, config: dict[str, Any]) -> dict[str, Any]:
    """A baseline or a user's agent class: deterministic, so it runs again from the start."""
    from bizbench.runner import episode
    from bizbench.runner.agent_episode import run_user_agent

    env, agent, seed, preset = config["env"], str(config["agent"]), int(config["seed"]), config.get("preset")
    if ":" in agent:
        return run_user_agent(env, agent, seed, preset, path)
    if env == "ceo":
        return episode.run_ceo_baseline(
            agent,
            seed,
            preset or "default",
            days=config.get("horizon_days"),
            out=path,
            options=config.get("agent_options") or None,
            database=bool(config.get("database", True)),
        )
    runner = episode.run_yc_baseline if env == "yc" else episode.run_cfo_baseline
    return runner(agent, seed, preset or ("default" if env == "yc" else "paper"), path)


#: action-log fields that record when something happened on the host, not what happened
_VOLATILE = ("time_s", "wall_s")


def _same_actions(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> bool:
    def strip(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in r.items() if k not in _VOLATILE} for r in rows]

    return strip(old) == strip(new)
