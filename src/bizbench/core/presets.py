"""Preset TOML files validated by pydantic config models (docs/principles.md principle 5).

An env package ``bizbench.envs.X`` keeps its presets in ``presets/<name>.toml``. A preset
may start with ``extends = "other"``: the base preset is loaded first (recursively) and the
preset's own values are deep-merged over it (tables merge key by key; lists and scalars
replace). Config models are expected to define ``description: str = ""`` for the preset's
top-level ``description``.

Each loaded config comes with ``preset_hash``: sha256 of the canonical JSON of the validated
config, so two runs with the same hash ran under identical constants.
"""

from __future__ import annotations

import hashlib
import json
import tomllib
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import pydantic
from pydantic import BaseModel

__all__ = [
    "config_hash",
    "deep_merge",
    "list_presets",
    "load_preset",
    "load_preset_file",
]

M = TypeVar("M", bound=BaseModel)
_MAX_DEPTH = 16


def _presets_dir(package: str) -> Any:
    try:
        return resources.files(package).joinpath("presets")
    except ModuleNotFoundError as e:
        raise ValueError(f"unknown package {package!r}: {e}") from None


def list_presets(package: str) -> list[str]:
    """Sorted names of the presets shipped with ``package``."""
    d = _presets_dir(package)
    if not d.is_dir():
        return []
    return sorted(p.name[:-5] for p in d.iterdir() if p.name.endswith(".toml"))


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    """Recursive merge: dicts merge key by key; anything else in ``over`` replaces."""
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = v
    return out


def config_hash(cfg: BaseModel) -> str:
    """sha256 hex of the canonical JSON of a validated config."""
    blob = json.dumps(cfg.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _read_package_preset(package: str, name: str) -> dict[str, Any]:
    d = _presets_dir(package)
    f = d.joinpath(f"{name}.toml")
    if not f.is_file():
        avail = ", ".join(list_presets(package)) or "none"
        raise ValueError(f"unknown preset {name!r} for {package} (available: {avail})")
    try:
        return tomllib.loads(f.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"preset {name!r}: invalid TOML: {e}") from None


def _resolve(
    data: dict[str, Any],
    package: str | None,
    local_dir: Path | None,
    chain: tuple[str, ...],
) -> dict[str, Any]:
    data = dict(data)
    base_name = data.pop("extends", None)
    if base_name is None:
        return data
    if not isinstance(base_name, str):
        raise ValueError(f"preset {chain[-1]!r}: 'extends' must be a string")
    if base_name in chain or len(chain) > _MAX_DEPTH:
        raise ValueError(f"preset 'extends' cycle: {' -> '.join((*chain, base_name))}")
    base: dict[str, Any] | None = None
    if package is not None and base_name in list_presets(package):
        base = _read_package_preset(package, base_name)
        base = _resolve(base, package, None, (*chain, base_name))
    elif local_dir is not None:
        p = Path(base_name)
        cand = p if p.suffix == ".toml" else p.with_suffix(".toml")
        cand = cand if cand.is_absolute() else local_dir / cand
        if cand.is_file():
            with open(cand, "rb") as fh:
                base = tomllib.load(fh)
            base = _resolve(base, package, cand.parent, (*chain, base_name))
    if base is None:
        if package is not None:
            base = _read_package_preset(package, base_name)  # raises with available list
        raise ValueError(f"preset {chain[-1]!r} extends unknown preset {base_name!r}")
    return deep_merge(base, data)


def _validate(model: type[M], data: dict[str, Any], label: str) -> M:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as e:
        parts = []
        for err in e.errors(include_url=False):
            loc = ".".join(str(x) for x in err["loc"]) or "(root)"
            parts.append(f"{loc}: {err['msg']}")
        raise ValueError(f"preset {label!r} is invalid: " + "; ".join(parts)) from None


def load_preset(package: str, name: str, model: type[M]) -> tuple[M, str]:
    """Load ``<package>/presets/<name>.toml``, resolve ``extends``, validate with ``model``.

    Returns ``(config, preset_hash)``. Unknown names raise ``ValueError`` listing the
    available presets; validation errors raise ``ValueError`` naming the field path.
    """
    data = _read_package_preset(package, name)
    data = _resolve(data, package, None, (name,))
    cfg = _validate(model, data, name)
    return cfg, config_hash(cfg)


def load_preset_file(path: str | Path, model: type[M], package: str | None = None) -> tuple[M, str]:
    """Load a user's own TOML file. ``extends`` is looked up among ``package``'s presets
    first, then relative to the file's directory."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"preset file not found: {p}")
    try:
        with open(p, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"preset file {str(p)!r}: invalid TOML: {e}") from None
    data = _resolve(data, package, p.parent.resolve(), (str(p),))
    cfg = _validate(model, data, str(p))
    return cfg, config_hash(cfg)
