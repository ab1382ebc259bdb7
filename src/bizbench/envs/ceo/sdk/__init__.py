"""The ``novamind_api`` SDK of the ceo env: its client runtime, docs template and writer.

An env's ``sdk`` module is what ``bizbench serve ENV`` looks up: ``open_session``,
``write_workspace``, ``socket_path``, ``RUNTIME_DIR`` and ``sandbox_options``.

The runtime (:mod:`._runtime`, standard library only) and ``README.md`` are templates copied
into the agent's workspace; :func:`write_workspace` generates the per-tool package around them
with :func:`bizbench.core.sdkgen.write_sdk`. :func:`sandbox_options` gives the settings
:func:`bizbench.core.sandbox.run_in_sandbox` needs so sandboxed code reaches the server and
runs the guard.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bizbench.core.registry import ToolRegistry
    from bizbench.core.sdkgen import SdkFiles
    from bizbench.envs.ceo.env import CeoEnv

__all__ = [
    "PACKAGE",
    "RUNTIME_DIR",
    "SOCKET_NAME",
    "docs_template",
    "open_session",
    "runtime_source",
    "sandbox_options",
    "socket_path",
    "write_workspace",
]

logger = logging.getLogger(__name__)

PACKAGE = "novamind_api"
RUNTIME_DIR = ".novamind"  # socket, connection.json, site/ (read-only inside the sandbox)
SOCKET_NAME = "api.sock"
TITLE = "NovaMind API"
_HERE = Path(__file__).resolve().parent


def runtime_source() -> str:
    """Source of the client runtime copied to ``novamind_api/_runtime.py``."""
    return (_HERE / "_runtime.py").read_text(encoding="utf-8")


def docs_template() -> str:
    """The agent instructions written to ``docs/README.md``."""
    return (_HERE / "README.md").read_text(encoding="utf-8")


def socket_path(workspace: Path) -> Path:
    """Where the server listens for this workspace."""
    return Path(workspace).absolute() / RUNTIME_DIR / SOCKET_NAME


def write_workspace(workspace: Path, registry: ToolRegistry | None = None, config: Any = None) -> SdkFiles:
    """Write ``novamind_api/``, ``.novamind/site/`` and ``docs/`` into ``workspace``.

    With the session's ``config`` the env's public documents (instructions, table reference,
    day-0 channel table from :mod:`bizbench.envs.ceo.workspace`) are added to ``docs/``.
    """
    from bizbench.core.sdkgen import write_sdk

    if registry is None:
        from bizbench.envs.ceo.tools import registry as ceo_registry

        registry = ceo_registry
    extra: list[tuple[str, str]] = []
    if config is not None:
        try:
            from bizbench.envs.ceo.workspace import workspace_documents

            docs = workspace_documents(config)
        except ImportError as e:  # the public documents are optional for the SDK itself
            logger.warning("ceo workspace documents unavailable: %s", e)
            docs = {}
        extra = [(rel.removeprefix("docs/"), text) for rel, text in sorted(docs.items())]
    return write_sdk(
        Path(workspace),
        registry,
        PACKAGE,
        docs_template(),
        runtime_source=runtime_source(),
        runtime_dir=RUNTIME_DIR,
        title=TITLE,
        extra_docs=extra,
    )


def open_session(seed: int, preset: str = "default", days: int | None = None, run_dir: Path | None = None) -> CeoEnv:
    """A served ceo session writing the run directory of ``bizbench run`` (never inside the workspace)."""
    from bizbench.core.rng import secret_from_env
    from bizbench.envs.ceo.config import load_config
    from bizbench.envs.ceo.env import CeoEnv
    from bizbench.runner.rundir import RunDir

    config, preset_hash = load_config(preset)
    if days is not None:
        config = config.model_copy(update={"horizon_days": days})
    run = None
    if run_dir is not None:
        meta = {"env": "ceo", "preset": preset, "preset_hash": preset_hash, "seed": seed, "agent": "served"}
        run = RunDir(Path(run_dir), {**meta, "horizon_days": config.horizon_days, "config": config.model_dump()})
    return CeoEnv(config, seed, preset, run=run, secret=secret_from_env())


def sandbox_options(mount: str = "/workspace") -> dict[str, Any]:
    """Keyword arguments for ``run_in_sandbox``: the SDK's environment and read-only paths."""
    return {
        "env": {
            "PYTHONPATH": f"{mount}/{RUNTIME_DIR}/site:{mount}",
            "NOVAMIND_API_SOCKET": f"{mount}/{RUNTIME_DIR}/{SOCKET_NAME}",
        },
        "readonly": (RUNTIME_DIR,),
    }
