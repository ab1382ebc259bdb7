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

from pydantic import ValidationError

from bizbench.core.envs import get_env
from bizbench.core.jsonio import jsonable
from bizbench.core.rng import secret_from_env, secret_id
from bizbench.core.runs import RunDirError

__all__ = ["RunDirError", "check_secret", "config_changes", "open_recorded_env", "read_config", "recorded_config"]

_LIMITS = ("max_dollars", "max_tokens", "max_turns")


def read_config(path: Path) -> dict[str, Any]:
    """config.json with the fields resume and replay use checked (RunDirError naming the field)."""
    where = Path(path) / "config.json"
    if not Path(path).is_dir():
        what = "is a file, not a run directory" if Path(path).exists() else "does not exist"
        raise RunDirError(f"{path} {what}")
    try:
        config = json.loads(where.read_text())
    except FileNotFoundError:
        raise RunDirError(f"{path} is not a run directory (no config.json)") from None
    except (OSError, json.JSONDecodeError, UnicodeDecodeError) as e:
        raise RunDirError(f"{where} cannot be read ({e})") from None
    if not isinstance(config, dict) or not isinstance(config.get("env"), str):
        raise RunDirError(f"{where} does not describe a bizbench run (no env)")
    try:
        get_env(config["env"])
    except KeyError as e:
        raise RunDirError(f"{where}: {e.args[0]}") from None
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
        ("horizon", int, False),
        ("world_options", dict, False),
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
    spec, recorded = get_env(config["env"]), config["config"]
    try:
        current = jsonable(spec.load_config(config["preset"])[0].model_dump(mode="json"))
    except (ValueError, FileNotFoundError) as e:
        return [f"preset {config['preset']!r} cannot be loaded ({e})"]
    recorded = json.loads(json.dumps(recorded))
    *parents, leaf = spec.horizon_key
    for mapping in (current, recorded):
        for key in parents:
            mapping = mapping.get(key) if isinstance(mapping, dict) else None
        if isinstance(mapping, dict):
            mapping.pop(leaf, None)
    changes = sorted(k for k in set(current) | set(recorded) if current.get(k) != recorded.get(k))
    return changes + _labels_changed(spec, config)


def _labels_changed(spec: Any, config: dict[str, Any]) -> list[str]:
    """config.json's own ``horizon`` and ``unit`` where they are not the recorded world's: the
    report groups runs by them, so a short run labelled with the preset's horizon would be pooled
    with full ones (issue 16 review). A format-1 run has neither."""
    try:
        world = spec.horizon_of(config["config"])
    except (KeyError, TypeError, ValueError):
        return ["horizon (not in the recorded world config)"]
    labels = {"horizon": world, "unit": spec.unit}
    return [
        f"{key} (config.json says {config[key]!r}, the world's is {value!r})"
        for key, value in labels.items()
        if key in config and config[key] is not None and config[key] != value
    ]


def recorded_config(config: dict[str, Any]) -> Any:
    """The world config the run recorded, as the env's model (RunDirError when it is not valid)."""
    try:
        return get_env(config["env"]).validate_config(config["config"])
    except ValidationError as e:  # one line: the count and the first problem, not pydantic's listing
        first = e.errors()[0]
        where = ".".join(map(str, first["loc"])) or "(the whole config)"
        raise RunDirError(
            f"config.json: the recorded world config is not a valid {config['env']} config "
            f"({e.error_count()} problems; the first: {where}: {first['msg']})"
        ) from None
    except ValueError as e:
        raise RunDirError(f"config.json: the recorded world config is not valid ({e})") from None


def open_recorded_env(config: dict[str, Any], secret: str | None) -> Any:
    """A fresh env built from the config the run recorded (not from today's preset file),
    without agent-visible files (no company.db)."""
    spec = get_env(config["env"])
    cfg = recorded_config(config)
    return spec.make(cfg, config["seed"], config["preset"], config.get("preset_hash") or "", secret, **spec.headless())
