"""What a run directory's config.json says about its run, checked before anything acts on it.

``bizbench resume`` and ``bizbench replay`` trust nothing in a run directory that they have
not checked: the fields they use must have the right types (a clear :class:`RunDirError`
otherwise, before any file moves), the recorded world config must still be the named
preset's (a run is never silently continued or verified in another world), and a run made
under held-out seeds needs the same secret (docs/run-format.md).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bizbench.core.rng import secret_from_env, secret_id
from bizbench.runner.rundir import jsonable

__all__ = ["RunDirError", "check_secret", "config_changes", "open_recorded_env", "read_config"]

ENVS = ("ceo", "yc", "cfo")
#: the key of each env's config that a run may override (``--days``, ``months=`` ...)
HORIZON_KEYS = {"ceo": ("horizon_days",), "yc": ("clock", "horizon_months"), "cfo": ("months",)}
_LIMITS = ("max_dollars", "max_tokens", "max_turns")


class RunDirError(ValueError):
    """A run directory that cannot be resumed or replayed as asked (the message says why)."""


def read_config(path: Path) -> dict[str, Any]:
    """config.json with the fields resume and replay use checked (RunDirError naming the field)."""
    where = Path(path) / "config.json"
    try:
        config = json.loads(where.read_text())
    except FileNotFoundError:
        raise RunDirError(f"{path} is not a run directory (no config.json)") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RunDirError(f"{where} cannot be read ({e})") from None
    if not isinstance(config, dict) or config.get("env") not in ENVS:
        raise RunDirError(f"{where} does not describe a bizbench run (env must be one of {', '.join(ENVS)})")
    checks: list[tuple[str, type | tuple[type, ...], bool]] = [
        ("seed", int, True),
        ("agent", str, True),
        ("preset", str, True),
        ("config", dict, True),
        ("harness", str, False),
        ("harness_options", dict, False),
        ("sampling", dict, False),
        ("limits", dict, False),
        ("model_spec", str, False),
        ("prices", str, False),
        ("agent_options", dict, False),
        ("horizon_days", int, False),
    ]
    for key, kind, required in checks:
        value = config.get(key)
        if value is None and not required:
            continue
        if isinstance(value, bool) or not isinstance(value, kind):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise RunDirError(f"{where}: {key!r} must be {'an' if names[0] in 'aeiou' else 'a'} {names}, got {value!r}")
    unknown = sorted(set(config.get("limits") or {}) - set(_LIMITS))
    if unknown:
        raise RunDirError(f"{where}: unknown limits {', '.join(unknown)} (known: {', '.join(_LIMITS)})")
    return config


def check_secret(path: Path, recorded_id: str | None) -> str | None:
    """The secret of ``$BIZBENCH_SEED_SECRET`` when it is the one the run was made under."""
    secret = secret_from_env()
    if recorded_id == secret_id(secret):
        return secret
    if recorded_id is None:
        raise RunDirError(f"{path} was run on public seeds; unset $BIZBENCH_SEED_SECRET to continue or check it")
    raise RunDirError(
        f"{path} was run with held-out seeds (secret {recorded_id}); set the same $BIZBENCH_SEED_SECRET "
        f"(now: {secret_id(secret) or 'unset'})"
    )


def config_changes(config: dict[str, Any]) -> list[str]:
    """The fields where the recorded world config differs from its preset as installed now
    (the horizon override aside): empty when the run's world is the preset's."""
    env_id, recorded = config["env"], config["config"]
    try:
        current = jsonable(_config_model(env_id)[1](config["preset"])[0].model_dump(mode="json"))
    except ValueError as e:
        return [f"preset {config['preset']!r} cannot be loaded ({e})"]
    recorded = json.loads(json.dumps(recorded))
    *parents, leaf = HORIZON_KEYS[env_id]
    for mapping in (current, recorded):
        for key in parents:
            mapping = mapping.get(key) if isinstance(mapping, dict) else None
        if isinstance(mapping, dict):
            mapping.pop(leaf, None)
    return sorted(k for k in set(current) | set(recorded) if current.get(k) != recorded.get(k))


def open_recorded_env(config: dict[str, Any], secret: str | None) -> Any:
    """A fresh env built from the config the run recorded (not from today's preset file)."""
    env_id, seed, preset = config["env"], config["seed"], config["preset"]
    model, _ = _config_model(env_id)
    try:
        cfg = model.model_validate(config["config"])
    except ValueError as e:
        raise RunDirError(f"config.json: the recorded world config is not valid ({e})") from None
    if env_id == "ceo":
        from bizbench.envs.ceo.env import CeoEnv

        return CeoEnv(cfg, seed, preset, secret=secret)
    if env_id == "yc":
        from bizbench.envs.yc.env import YcEnv

        return YcEnv(cfg, seed, preset, config.get("preset_hash") or "", secret)
    from bizbench.envs.cfo.env import CfoEnv

    return CfoEnv(cfg, seed, preset, config.get("preset_hash") or "", secret)


def _config_model(env_id: str) -> tuple[Any, Any]:
    """(the env's config model, its load_config)."""
    if env_id == "ceo":
        from bizbench.envs.ceo.config import CeoConfig, load_config

        return CeoConfig, load_config
    if env_id == "yc":
        from bizbench.envs.yc.config import YcConfig
        from bizbench.envs.yc.config import load_config as load_yc

        return YcConfig, load_yc
    from bizbench.envs.cfo.config import CfoConfig
    from bizbench.envs.cfo.config import load_config as load_cfo

    return CfoConfig, load_cfo
