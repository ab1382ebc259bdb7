"""``bizbench resume RUN``: finish a run that was killed, with the result of an uninterrupted run.

A run directory is an event log (docs/run-format.md): config.json fixes the world (env,
preset, seed, the full config) and the agent (baseline and its options, or the model string,
sampling, harness and limits), and trajectory.jsonl holds every model reply received. Since
the world is deterministic (docs/principles.md principle 4), resuming re-executes the run from its first
step on a fresh world:

- the files of the killed attempt move to ``attempts/<n>/`` (nothing is deleted);
- a baseline (or a user's agent class) runs again with the same seed and options;
- a model run replays every reply its longest attempt received, with its
  recorded tokens and cost (:class:`~bizbench.agents.models.resuming.ResumingModel`), so no paid
  call is repeated and the meters equal an uninterrupted run's; the live model answers the
  rest, from the last recorded reply on (which is at or after the last completed turn);
- the new actions.jsonl must repeat the killed attempt's actions as a prefix; ``resume.jsonl``
  records each attempt (replies reused, actions checked, whether they matched).

A finished run (a readable result.json) is left unchanged. A run served to an outside agent
(``bizbench serve``) cannot be resumed: the agent is not ours to restart.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from bizbench.core.jsonio import read_jsonl
from bizbench.core.runlog import ATTEMPTS, RESUMING, read_result
from bizbench.core.runs import is_human
from bizbench.runner.runconfig import RunDirError, check_secret, config_changes, read_config

__all__ = ["archive_attempt", "exclusive", "finished", "log_attempt", "refuse_arena_seat", "resume_arena", "resume_run"]


def finished(path: str | Path) -> dict[str, Any] | None:
    """The result of a finished run, or None while the run is unfinished."""
    done = read_result(Path(path))
    if done is not None and done.get("agent") == "served" and read_config(Path(path)).get("harness"):
        return None  # the served seat of a terminal run writes its own result.json before the runner's
    return done


def resume_run(path: str | Path, model: Any | None = None, trust_agent_code: bool = False) -> dict[str, Any]:
    """Finish the run in ``path``; returns its result.json content.

    ``model`` replaces the live model client of a model run (needed when the run was started
    from Python with a client object rather than a model string). A run of a user's agent class
    (``module:Class`` in config.json) is resumed only with ``trust_agent_code``: resuming imports
    and runs that code, and a run directory may come from anyone (docs/security.md); so is a
    model run whose model names its own server (it would receive the provider's key).
    Everything is checked before a file moves: the config's fields, the secret of held-out
    seeds, that the preset still builds the recorded world, and that no other resume holds the
    directory."""
    path = Path(path)
    config = read_config(path)
    refuse_arena_seat(path, config)
    done = finished(path)
    if done is not None:
        return done
    if is_human(config["agent"]):
        raise RunDirError(f"{path} is a person's game (bizbench play): bizbench resume serves it again to play on")
    if config["agent"] == "served" and not config.get("harness"):
        raise RunDirError(
            f"{path} was served to an outside agent (bizbench serve), which bizbench cannot restart: it cannot be "
            "resumed, and an unfinished one cannot be replayed; its record up to its last call is kept"
        )
    agent_class = not config.get("harness") and ":" in config["agent"]  # a model run's agent is its model string
    if agent_class and not trust_agent_code:
        raise RunDirError(
            f"{path} is a run of the agent class {config['agent']!r}: resuming it imports and runs that code. "
            "If you trust this run directory's config.json, resume it with --trust-agent-code"
        )
    check_secret(path, config.get("seed_secret_id"))
    changed = config_changes(config)
    if changed:
        raise RunDirError(
            f"{path}: preset {config['preset']!r} no longer builds the recorded world (changed: {', '.join(changed)}); "
            "resume it with the bizbench version that started it"
        )
    live = _live_model(path, config, model, trust_agent_code) if config.get("harness") else None
    with exclusive(path):
        done = finished(path)
        if done is not None:  # another resume finished it while this one waited
            return done
        previous = archive_attempt(path)
        old_actions = _longest(previous, "actions.jsonl", len)
        reused = 0
        if live is not None:
            result, reused = _resume_model_run(path, config, live, previous)
        else:
            result = _rerun_agent(path, config)
        log_attempt(path, previous[-1].name, old_actions, replies_reused=reused)
    return result


def refuse_arena_seat(path: Path, config: dict[str, Any]) -> None:
    """RunDirError when ``path`` is a seat of an arena: its rivals play with it, so only the arena
    is resumed (or said finished)."""
    seat = config.get("arena")
    if isinstance(seat, dict):
        raise RunDirError(
            f"{path} is seat {seat.get('seat')} of the arena in {path.parent}: its rivals play with it, so resume "
            f"the arena (bizbench resume {path.parent})"
        )


def log_attempt(path: Path, attempt: str, old_actions: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    """Append to ``resume.jsonl`` what a resume did: the attempt it archived, ``extra`` (replies
    reused, calls sent again ...), how many old actions it checked and whether the new
    actions.jsonl repeats them; returns the row."""
    new_actions = read_jsonl(path / "actions.jsonl")
    row = {
        "attempt": attempt,
        **extra,
        "actions_checked": len(old_actions),
        "actions_match": new_actions[: len(old_actions)] == old_actions,
    }
    with (path / "resume.jsonl").open("a") as f:
        f.write(json.dumps(row) + "\n")
    return row


@contextmanager
def exclusive(path: Path) -> Iterator[None]:
    """One resume at a time per run directory (a lock on the directory itself)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RunDirError(f"{path} is being resumed by another process") from None
        yield
    finally:
        os.close(fd)


def archive_attempt(path: Path) -> list[Path]:
    """Move the killed attempt's files to ``attempts/<n>/`` (config.json stays; a copy goes
    along; an arena's arena.json likewise); returns every attempt so far, oldest first. An arena
    directory's attempt holds every seat's directory."""
    root = path / ATTEMPTS
    root.mkdir(exist_ok=True)
    n = 1 + max((int(p.name) for p in root.iterdir() if p.name.isdigit()), default=0)
    attempt = root / str(n)
    attempt.mkdir()
    for item in sorted(path.iterdir()):
        if item.name not in RESUMING:
            shutil.move(str(item), attempt / item.name)
    for kept in ("config.json", "arena.json"):  # a run's config, or an arena's set-up
        if (path / kept).is_file():
            shutil.copy2(path / kept, attempt / kept)
    return sorted((p for p in root.iterdir() if p.name.isdigit()), key=lambda p: int(p.name))


def _longest(attempts: list[Path], log: str, size: Callable[[list[dict[str, Any]]], int]) -> list[dict[str, Any]]:
    """The longest copy of a log among the attempts (a kill during a resume can leave a shorter one)."""
    return max((read_jsonl(a / log) for a in attempts), key=size, default=[])


def _record(path: Path, attempts: list[Path], name: str = "record") -> Path | None:
    """The longest trajectory of the attempts (the most model replies), as a clean record in
    ``attempts/<name>/`` with the run's config.json (``path``'s, else the attempts')."""
    best = _longest(attempts, "trajectory.jsonl", _replies)
    if not _replies(best):
        return None
    record = path / ATTEMPTS / name
    record.mkdir(exist_ok=True)
    with (record / "trajectory.jsonl").open("w") as f:
        f.writelines(json.dumps(r) + "\n" for r in best)
    config = next(c for c in (path / "config.json", *(a / "config.json" for a in attempts)) if c.is_file())
    shutil.copy2(config, record / "config.json")
    return record


def _replies(rows: list[dict[str, Any]]) -> int:
    return sum(r.get("kind") in ("model_call", "model_error") for r in rows)


def _live_model(path: Path, config: dict[str, Any], model: Any | None, trusted: bool) -> Any:
    """The client that answers after the record: ``model``, or one rebuilt from config.json (one
    whose spec names a server, ``openai-compatible/<name>@<url>``, only when ``trusted``: a run
    directory from anyone would otherwise receive the user's key, issue 16 review)."""
    if model is not None:
        return model
    from bizbench.agents.models.factory import make_model

    spec = config.get("model_spec")
    if not spec:
        raise RunDirError(f"{path} was started from Python with a model object; call resume_run(path, model=...)")
    if "@" in str(spec) and not trusted:
        raise RunDirError(
            f"{path} is a run of the model {spec!r}, which names its own server: resuming it sends your prompts "
            "and that provider's API key there. If you trust this run directory's config.json, resume it with "
            "--trust-agent-code"
        )
    return make_model(spec, config.get("sampling") or {}, prices=config.get("prices"))


def _resume_model_run(
    path: Path, config: dict[str, Any], model: Any, attempts: list[Path]
) -> tuple[dict[str, Any], int]:
    from bizbench.agents.models.resuming import ResumingModel
    from bizbench.agents.recording import Limits
    from bizbench.runner.agent_episode import run_agent_episode

    record = _record(path, attempts)
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
        horizon=_horizon(config),
    )
    return result, getattr(client, "reused", 0)


def _horizon(config: dict[str, Any]) -> int:
    """The run's horizon in its env's unit (format 1 recorded it only inside the world config)."""
    from bizbench.core.envs import get_env

    spec = get_env(config["env"])
    return int(config.get("horizon") or spec.horizon_of(config["config"]))


def _rerun_agent(path: Path, config: dict[str, Any]) -> dict[str, Any]:
    """A baseline or a user's agent class: deterministic, so it runs again from the start."""
    from bizbench.runner.agent_episode import run_user_agent
    from bizbench.runner.episode import run_baseline

    env, agent, seed, preset = config["env"], config["agent"], config["seed"], config["preset"]
    world = config.get("world_options")
    if world is None and "database" in config:  # format 1 (ceo)
        world = {"database": bool(config["database"])}
    if ":" in agent:
        return run_user_agent(env, agent, seed, preset, path, _horizon(config), world)
    options = config.get("agent_options") or None
    return run_baseline(env, agent, seed, preset, _horizon(config), path, options, world_options=world)


def resume_arena(path: str | Path, trust_agent_code: bool = False) -> dict[str, Any]:
    """Finish the arena in ``path`` (docs/arena.md) like a run: the killed attempt moves to
    ``attempts/<n>/`` (every seat; arena.json stays, a copy goes along), the arena plays again
    from the start on fresh worlds, baseline seats deterministically and model seats replaying
    the replies their longest attempt received before their live model answers the rest; each
    seat's resume.jsonl says whether its actions repeat the killed attempt's. Returns
    standings.json's content (a finished arena's, unchanged).

    Everything is checked before a file moves: arena.json, every seat's config.json (from the
    arena, else from its newest attempt; a seat without one must be a baseline), the secret, that
    the preset still builds the recorded world, the trust rule of a model on its own server, and
    that a model seat's limits are recorded. A served seat's agent is not ours to restart: such
    an arena cannot be resumed."""
    from bizbench.agents.models.resuming import ResumingModel
    from bizbench.agents.recording import Limits
    from bizbench.core.jsonio import read_json
    from bizbench.runner.arena import STANDINGS, run_arena, seat_dir

    path = Path(path)
    setup, spec = _arena_setup(path)
    done = read_json(path / STANDINGS)
    if done is not None:
        return done
    seats = [seat_dir(path, i) for i in range(setup["seats"])]
    configs = [_seat_config(path, seat) for seat in seats]
    for i, (agent, config) in enumerate(zip(setup["agents"], configs, strict=True)):
        if config is None and agent not in spec.baseline_table():
            raise RunDirError(
                f"{path}: seat {i} ({agent!r}) has no config.json in the arena or its attempts, so its model, "
                "harness and limits are unknown; the arena cannot be resumed"
            )
        if config is not None and config["agent"] == "served":
            raise RunDirError(f"{path}: seat {i} was served to an outside agent; the arena cannot be resumed")
        if config is not None and config.get("harness") and "limits" not in config:
            raise RunDirError(
                f"{seats[i]} was recorded before a model seat's limits were kept in its config.json: resumed, it "
                "would play without its --max-turns/--max-dollars, so the arena cannot be resumed"
            )
    recorded = next((c for c in configs if c is not None), None)
    # no seat had started: the world's secret is the shell's, as for the command started again
    secret = check_secret(path, recorded.get("seed_secret_id")) if recorded is not None else "from-env"
    changed = config_changes({k: setup[k] for k in ("env", "preset", "config")})
    if changed:
        raise RunDirError(
            f"{path}: preset {setup['preset']!r} no longer builds the recorded world (changed: {', '.join(changed)}); "
            "resume it with the bizbench version that started it"
        )
    models = {
        i: (c, _live_model(seats[i], c, None, trust_agent_code))
        for i, c in enumerate(configs)
        if c is not None and c.get("harness")
    }
    with exclusive(path):
        if read_json(path / STANDINGS) is not None:  # another resume finished it while this one waited
            return dict(read_json(path / STANDINGS) or {})
        attempts = archive_attempt(path)
        clients: dict[int, Any] = {}
        for i, (_, live) in models.items():
            record = _record(path, [a / seats[i].name for a in attempts], f"record-{seats[i].name}")
            clients[i] = ResumingModel(record, live) if record is not None else live
        agents = [
            str(models[i][0]["model_spec"]) if i in models else str(c["agent"] if c is not None else agent)
            for i, (agent, c) in enumerate(zip(setup["agents"], configs, strict=True))
        ]
        recorded_limits = next((c.get("limits") for c, _ in models.values()), None)
        outcome = run_arena(
            spec.id,
            agents,
            int(setup["seed"]),
            setup["preset"],
            int(spec.horizon_of(setup["config"])),
            path,
            setup.get("agent_options"),
            secret=secret,
            harness=next((c.get("harness") for c, _ in models.values()), None),
            limits=Limits(**recorded_limits) if recorded_limits else None,
            world_options=setup.get("world_options") or {},
            clients=clients,
        )
        for i, seat in enumerate(seats):
            old = _longest([a / seat.name for a in attempts], "actions.jsonl", len)
            log_attempt(seat, attempts[-1].name, old, replies_reused=getattr(clients.get(i), "reused", 0))
    return outcome


def _arena_setup(path: Path) -> tuple[dict[str, Any], Any]:
    """arena.json (``runner.arena.read_setup``) with the further fields a resume uses checked, and
    the env's spec (RunDirError naming what is wrong, before anything moves)."""
    from bizbench.runner.arena import ARENA_CONFIG, read_setup

    setup, spec = read_setup(path)
    seats, agents, options, seed = setup["seats"], setup.get("agents"), setup.get("agent_options"), setup.get("seed")
    checks = [
        (isinstance(agents, list) and len(agents) == seats and all(isinstance(a, str) for a in agents),
         "'agents' must list one agent a seat"),
        (options is None or (isinstance(options, list) and len(options) == seats
                             and all(isinstance(o, dict) for o in options)),
         "'agent_options' must list one object a seat"),
        (isinstance(setup.get("preset"), str), "'preset' must be a string"),
        (isinstance(seed, int) and not isinstance(seed, bool), "'seed' must be a whole number"),
        (isinstance(setup.get("config"), dict), "'config' must be an object"),
        (isinstance(setup.get("world_options", {}), dict), "'world_options' must be an object"),
    ]  # fmt: skip
    problems = [message for ok, message in checks if not ok]
    if problems:
        raise RunDirError(f"{path / ARENA_CONFIG}: " + "; ".join(problems))
    return setup, spec


def _seat_config(path: Path, seat: Path) -> dict[str, Any] | None:
    """A seat's config.json: the arena's, else its newest attempt's (a resume killed before the
    seat started again leaves it only there); None when no attempt has one."""
    root = path / ATTEMPTS
    attempts = (
        sorted((p for p in root.iterdir() if p.name.isdigit()), key=lambda p: -int(p.name)) if root.is_dir() else []
    )
    for where in (seat, *(a / seat.name for a in attempts)):
        if (where / "config.json").is_file():
            return read_config(where)
    return None
