"""Run one baseline episode of any env through a Session (run directory: docs/run-format.md)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from bizbench.core.envs import get_env
from bizbench.core.rng import secret_from_env
from bizbench.core.runlog import require_new
from bizbench.core.session import Session

__all__ = ["open_session", "run_baseline"]


def open_session(
    env_id: str,
    seed: int,
    preset: str | None = None,
    out: Path | None = None,
    agent: str = "?",
    horizon: int | None = None,
    config: Any = None,
    world_options: dict[str, Any] | None = None,
    attach: bool = False,
    secret: str | None | Literal["from-env"] = "from-env",
    **meta: Any,
) -> Session:
    """A fresh env of ``env_id`` in a Session writing ``out``. ``config`` (a recorded config, as
    resume and replay rebuild a world) replaces the preset's; ``horizon`` overrides its horizon;
    ``world_options`` are the env's own (ceo ``database``), recorded in config.json. ``out`` must
    be new or empty, unless ``attach``: then the record goes beside the files a harness already
    put there (a served terminal run: the runner's config.json, trajectory and server log).
    ``secret``: the held-out secret the world is drawn under (default: ``$BIZBENCH_SEED_SECRET``)."""
    spec = get_env(env_id)
    if not attach:
        require_new(out)
    preset = preset or spec.default_preset
    if config is None:
        config, preset_hash = spec.load_config(preset)
    else:
        config, preset_hash = spec.validate_config(config), meta.pop("preset_hash", "")
    config = spec.with_horizon(config, horizon)
    options = dict(world_options or {})
    env = spec.make(
        config, seed, preset, preset_hash, secret_from_env() if secret == "from-env" else secret, files=out, **options
    )
    extra = {**meta, **({"world_options": options} if options else {})}
    return Session(spec, env, out, agent=agent, **extra)


def run_baseline(
    env_id: str,
    agent: str | None = None,
    seed: int = 42,
    preset: str | None = None,
    horizon: int | None = None,
    out: Path | None = None,
    options: dict[str, Any] | None = None,
    on_turn: Callable[[int, int], None] | None = None,
    world_options: dict[str, Any] | None = None,
    config: Any = None,
) -> dict[str, Any]:
    """Run a baseline of ``env_id`` (the env's default when ``agent`` is None) for the horizon;
    returns result.json's content. ``options`` are the baseline's (ceo rule-based's Table 4)."""
    spec = get_env(env_id)
    baseline = spec.check_baseline(agent or spec.default_baseline, options)
    policy = baseline.make(seed, **(options or {}))
    session = open_session(
        env_id, seed, preset, out, baseline.name, horizon, config, world_options, agent_options=options or {}
    )
    turns = 0
    while not session.done:
        policy.act(session)
        turns += 1
        if on_turn is not None:
            on_turn(session.elapsed, session.horizon)
    return session.finish(agent=baseline.name, agent_options=options or {}, turns=turns)
