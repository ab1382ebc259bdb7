"""The registry of envs (Gymnasium's ``registration.py`` in small): id -> :class:`EnvSpec`.

The three built-in envs are listed here by the module of their spec; a plug-in env is added by

- :func:`register` (in-process: a test, a notebook);
- the ``bizbench.envs`` entry-point group of an installed package (``name = "pkg.spec:SPEC"``);
- ``$BIZBENCH_ENVS``: ``module:ATTR`` references separated by commas, imported on first use,
  so that processes started by bizbench (sweep workers, ``serve``, ``resume``) see the same envs.

Spec modules import only :mod:`bizbench.core.env`, so listing envs stays light.
"""

from __future__ import annotations

import importlib
import os
from importlib.metadata import entry_points

from bizbench.core.env import EnvSpec

__all__ = ["PLUGINS_VAR", "EnvSpec", "get_env", "list_envs", "register", "unregister"]

PLUGINS_VAR = "BIZBENCH_ENVS"
BUILT_IN = {
    "ceo": "bizbench.envs.ceo.spec:SPEC",
    "yc": "bizbench.envs.yc.spec:SPEC",
    "cfo": "bizbench.envs.cfo.spec:SPEC",
}
_registered: dict[str, EnvSpec] = {}


def register(spec: EnvSpec) -> EnvSpec:
    """Add ``spec`` (replacing a registered env of the same id, never a built-in one)."""
    if spec.id in BUILT_IN:
        raise ValueError(f"env id {spec.id!r} is a built-in env")
    _registered[spec.id] = spec
    return spec


def unregister(env_id: str) -> None:
    _registered.pop(env_id, None)


def _load(ref: str) -> EnvSpec:
    module, _, attr = ref.partition(":")
    try:
        spec = getattr(importlib.import_module(module), attr or "SPEC")
    except (ImportError, AttributeError) as e:
        raise KeyError(f"env spec {ref!r} cannot be loaded ({e})") from None
    if not isinstance(spec, EnvSpec):
        raise KeyError(f"env spec {ref!r} is not an EnvSpec")
    return spec


def _plugin_refs() -> dict[str, str]:
    """Entry points and ``$BIZBENCH_ENVS`` references, by the name they are listed under."""
    refs = {ep.name: ep.value for ep in entry_points(group="bizbench.envs")}
    for ref in filter(None, (r.strip() for r in os.environ.get(PLUGINS_VAR, "").split(","))):
        refs[ref] = ref
    return refs


def _all() -> dict[str, EnvSpec]:
    specs = {env_id: _load(ref) for env_id, ref in BUILT_IN.items()}
    for ref in _plugin_refs().values():
        spec = _load(ref)
        if spec.id not in BUILT_IN:
            specs[spec.id] = spec
    specs.update(_registered)
    return specs


def get_env(env_id: str) -> EnvSpec:
    """The spec of ``env_id``; ``KeyError`` listing the registered ids otherwise."""
    if env_id in _registered:
        return _registered[env_id]
    if env_id in BUILT_IN:
        return _load(BUILT_IN[env_id])
    specs = _all()
    if env_id not in specs:
        raise KeyError(f"unknown env {env_id!r} (registered: {', '.join(sorted(specs)) or 'none'})")
    return specs[env_id]


def list_envs() -> list[EnvSpec]:
    specs = _all()
    return [specs[k] for k in sorted(specs)]
