"""The hosted yc seat: ``bizbench serve yc`` for an agent whose shell runs in the sandbox.

An env's ``sdk`` module is what ``bizbench serve ENV`` looks up: ``open_session``,
``write_workspace``, ``socket_path``, ``RUNTIME_DIR`` and ``sandbox_options`` (see
:mod:`bizbench.envs.ceo.sdk`). Here the "SDK" is one command: :func:`write_workspace` puts
``bin/bizbench`` (a standard-library script generated from :mod:`._shell_client`) and
``instructions.md`` (the system prompt) into the workspace. Inside the sandbox
``bizbench yc --session /workspace <command>`` sends the command's words to the server's
``POST /command``; the server, host-side, parses and runs them on :class:`ServedYcSession`
and writes the run directory of ``bizbench run yc``. The seed, the world and the run
directory stay on the host; ``sim init`` does not exist in the sandbox.

:func:`new_env` is also how host-side shell sessions (:mod:`bizbench.core.cmdsession`)
rebuild their env from ``meta.json``.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bizbench.core.registry import ToolResult
    from bizbench.envs.yc.config import YcConfig
    from bizbench.envs.yc.env import YcEnv
    from bizbench.runner.rundir import RunDir

__all__ = [
    "COMMAND_PREFIX",
    "RUNTIME_DIR",
    "SOCKET_NAME",
    "ServedYcSession",
    "client_source",
    "new_env",
    "open_session",
    "sandbox_options",
    "socket_path",
    "write_workspace",
]

RUNTIME_DIR = ".yc"  # socket and connection.json (read-only inside the sandbox)
SOCKET_NAME = "api.sock"
BIN_DIR = "bin"  # bin/bizbench (read-only inside the sandbox, first on PATH)
MOUNT = "/workspace"
COMMAND_PREFIX = f"bizbench yc --session {MOUNT}"
_HERE = Path(__file__).resolve().parent


def new_env(seed: int, preset: str = "default") -> YcEnv:
    """A fresh yc env (ValueError / FileNotFoundError for an unknown preset); with
    ``$BIZBENCH_SEED_SECRET`` set, its world is the held-out one of that secret."""
    from bizbench.core.rng import secret_from_env
    from bizbench.envs.yc.env import YcEnv

    return YcEnv.from_preset(preset, seed, secret=secret_from_env())


def client_source() -> str:
    """Source of ``bin/bizbench`` (the template module, verbatim)."""
    return (_HERE / "_shell_client.py").read_text(encoding="utf-8")


def socket_path(workspace: Path) -> Path:
    """Where the server listens for this workspace (the client looks for it under ``--session DIR``)."""
    return Path(workspace).absolute() / RUNTIME_DIR / SOCKET_NAME


def write_workspace(workspace: Path, config: YcConfig | None = None) -> list[Path]:
    """Write ``bin/bizbench`` and ``instructions.md`` (the system prompt for ``config``) into ``workspace``."""
    from bizbench.envs.yc.prompt import system_prompt

    if config is None:
        from bizbench.envs.yc.config import load_config

        config = load_config("default")[0]
    ws = Path(workspace)
    (ws / BIN_DIR).mkdir(parents=True, exist_ok=True)
    client = ws / BIN_DIR / "bizbench"
    client.write_text(client_source(), encoding="utf-8")
    client.chmod(0o755)
    instructions = ws / "instructions.md"
    instructions.write_text(system_prompt(config, COMMAND_PREFIX), encoding="utf-8")
    return [client, instructions]


def sandbox_options(mount: str = MOUNT) -> dict[str, Any]:
    """Keyword arguments for ``run_in_sandbox``: ``bizbench`` first on PATH; the client and socket read-only."""
    py_bin = Path(sys.base_prefix).resolve() / "bin"  # the sandbox's own PATH starts with the same directory
    return {
        "env": {"PATH": f"{mount}/{BIN_DIR}:{py_bin}:/usr/local/bin:/usr/bin:/bin"},
        "readonly": (RUNTIME_DIR, BIN_DIR),
    }


def open_session(
    seed: int, preset: str = "default", days: int | None = None, run_dir: Path | None = None
) -> ServedYcSession:
    """A served yc session writing the run directory of ``bizbench run yc`` (never inside the workspace)."""
    if days is not None:
        raise ValueError(
            "yc counts its horizon in months (the preset's clock.horizon_months), not days; "
            "--days applies to ceo only. Choose a preset instead."
        )
    from bizbench.runner.rundir import RunDir

    env = new_env(seed, preset)
    run = None
    if run_dir is not None:
        meta = {"env": "yc", "preset": preset, "preset_hash": env.preset_hash, "seed": seed, "agent": "served"}
        run = RunDir(Path(run_dir), {**meta, "config": env.config.model_dump(mode="json")})
    return ServedYcSession(env, run)


class ServedYcSession:
    """A yc env behind :class:`bizbench.core.server.ToolServer`, logging to a run directory.

    A turn is a successful ``sim resume``: each appends a ``metrics.jsonl`` line (the
    per-turn status of ``bizbench run yc``) and a point of the funds plot. The episode is
    done when the year is over or the company is bankrupt; the server then stops and
    ``bizbench serve`` calls :meth:`finish`.
    """

    lock_free_tools: frozenset[str] = frozenset()
    logs_tool_tamper = True  # the env records a refused call's tamper itself

    def __init__(self, env: YcEnv, run: RunDir | None = None) -> None:
        self.env = env
        self.run = run
        self.config = env.config
        self.command_schemas = env.registry.parameter_schemas()
        self.turns = 0
        self.points: list[tuple[str, float]] = [(env.time, env.world.funds_cents / 100)]
        self.started = time.perf_counter()
        self.lock = threading.Lock()  # the server's call and tamper locks are separate; the run files are shared

    def call_tool(self, name: str, args: dict[str, Any]) -> ToolResult:
        env = self.env
        with self.lock:
            n_actions, n_tamper = len(env.actions), len(env.tamper)
            result = env.call_tool(name, args)
            if result.ok and name == "sim_resume":
                self.turns += 1
                summary = env.status_summary()
                self.points.append((summary["time"], summary["funds_cents"] / 100))
                if self.run is not None:
                    self.run.append("metrics", [{"turn": self.turns, **summary}])
            if self.run is not None:
                self.run.append("actions", env.actions[n_actions:])
                if len(env.tamper) > n_tamper:
                    self.run.append("tamper", env.tamper[n_tamper:])
        return result

    def log_tamper(self, kind: str, detail: dict[str, Any]) -> None:
        with self.lock:
            n = len(self.env.tamper)
            self.env.log_tamper(kind, detail)
            if self.run is not None:
                self.run.append("tamper", self.env.tamper[n:])

    def status(self) -> dict[str, Any]:
        """``time``, ``funds_cents``, ``bankrupt`` and ``done`` (the year is over or the company bankrupt)."""
        return self.env.status()

    def finish(self, title: str, **extra: Any) -> dict[str, Any]:
        """End the run: result.json (with provenance), ledger.csv and the funds plot, as ``bizbench run yc``."""
        from bizbench.core.provenance import provenance

        with self.lock:
            wall = round(time.perf_counter() - self.started, 3)
            result = self.env.result(**extra, turns=self.turns, wall_seconds=wall)
            result["provenance"] = provenance()
            if self.run is not None:
                from bizbench.report.plots import plot_funds

                points = list(self.points)
                self.run.finish(result, self.env.world.ledger.rows, lambda path: plot_funds(points, path, title))
        return result
