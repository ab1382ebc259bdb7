"""Reading run directories: the one reader of what a :class:`~bizbench.core.runlog.RunDir` wrote.

A run directory (docs/run-format.md) holds ``config.json`` from its first moment and
``result.json`` once the run has ended. :func:`load_run` reads one into a :class:`Run`;
:func:`find_runs` expands paths (a run directory, or a directory whose subdirectories are run
directories, e.g. a sweep's output) into runs. A directory without ``config.json`` is not a
run directory and is a :class:`RunDirError` naming the path; a run directory without
``result.json`` loads as *unfinished* (``Run.finished`` is False).

Both run formats load. Format 2 records the run's ``horizon`` and ``unit`` in config.json and
the common result core (``score``, ``survived`` ...) in result.json; format 1 has neither, so
:attr:`Run.horizon` and :attr:`Run.unit` come from the env's spec and the recorded world
config, and a reader of the result core must allow for the missing fields.

The JSONL files are read lazily (a yc run's actions run to megabytes) and cached on the
object. A line that is not JSON (a run killed mid-write) is skipped: every line before it
was flushed whole.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from bizbench.core.env import EnvSpec
from bizbench.core.envs import get_env
from bizbench.core.jsonio import read_jsonl
from bizbench.core.runlog import ATTEMPTS, ended_early

__all__ = [
    "HUMAN",
    "Run",
    "RunDirError",
    "agent_label",
    "find_runs",
    "human_agent",
    "human_name",
    "is_human",
    "load_run",
]

ACTIONS, LEDGER = "actions.jsonl", "ledger.csv"
#: the agent of a run a person played (``bizbench play --name NAME``: ``human:NAME``, docs/play.md)
HUMAN = "human:"
_HUMAN_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def human_agent(name: str) -> str:
    """The agent of a person's run, ``human:NAME`` (ValueError naming what a name may hold)."""
    if not isinstance(name, str) or not _HUMAN_NAME.fullmatch(name):
        raise ValueError(
            "a player's name is 1-64 ASCII letters, digits, '_', '.' or '-', starting with a letter or digit; "
            f"got {name!r}"
        )
    return HUMAN + name


def is_human(agent: object) -> bool:
    """Whether a run's agent is a person (``human:NAME``)."""
    return isinstance(agent, str) and agent.startswith(HUMAN)


def human_name(agent: str) -> str:
    """The NAME of a person's agent ``human:NAME``."""
    return agent[len(HUMAN) :]


def agent_label(agent: str) -> str:
    """How a table names an agent: a person's run as ``NAME (human)``, anything else as it is."""
    return f"{human_name(agent)} (human)" if is_human(agent) else agent


class RunDirError(ValueError):
    """A run directory that cannot be read, resumed or replayed as asked (the message says why)."""


def _read_object(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as e:
        raise RunDirError(f"{path}: cannot read ({e})") from None
    if not isinstance(data, dict):
        raise RunDirError(f"{path}: expected a JSON object")
    return data


def _spec(env_id: str) -> EnvSpec | None:
    try:
        return get_env(env_id)
    except KeyError:
        return None


@cache
def _preset_horizon(env_id: str, preset: str) -> int | None:
    """The horizon of an env's preset as installed (None when it cannot be loaded)."""
    spec = _spec(env_id)
    if spec is None:
        return None
    try:
        return spec.horizon_of(spec.load_config(preset)[0])
    except Exception:  # noqa: BLE001 - a preset gone or broken since the run: no horizon to compare
        return None


@dataclass
class Run:
    """One run directory: its config, its result (None while unfinished) and its logs."""

    path: Path
    config: dict[str, Any]
    result: dict[str, Any] | None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)  # log ("metrics", "ledger.csv") -> rows
    #: a view of part of the record (:meth:`part`): a file it was not given reads as absent
    sealed: bool = field(default=False, repr=False)

    # ------------------------------------------------------------------ identity
    @property
    def env(self) -> str:
        return str(self.config.get("env") or (self.result or {}).get("env") or "?")

    @property
    def spec(self) -> EnvSpec | None:
        """The env's spec, or None when the env is not registered here."""
        return _spec(self.env)

    @property
    def preset(self) -> str:
        return str(self.config.get("preset") or (self.result or {}).get("preset") or "?")

    @property
    def seed(self) -> int:
        return int(self.config.get("seed", (self.result or {}).get("seed", -1)))

    @property
    def agent(self) -> str:
        """The model (model runs) or the baseline / agent class name."""
        return str(self.config.get("agent") or (self.result or {}).get("agent") or "?")

    @property
    def human(self) -> bool:
        """Whether a person played the run (``bizbench play``)."""
        return is_human(self.agent)

    @property
    def run_format(self) -> int:
        value = self.config.get("run_format", 1)
        return value if isinstance(value, int) else 1

    @property
    def horizon(self) -> int | None:
        """The run's horizon in :attr:`unit`: config.json's ``horizon`` (format 2), else read from
        the recorded world config through the env's spec (format 1); None when neither says."""
        value = self.config.get("horizon")
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        spec = self.spec
        if spec is None:
            return None
        try:
            return spec.horizon_of(self.inner_config)
        except (KeyError, AttributeError, TypeError, ValueError):
            return None

    @property
    def unit(self) -> str | None:
        """The env's time unit (``day``, ``turn``, ``month``) the horizon counts in."""
        value = self.config.get("unit")
        if isinstance(value, str):
            return value
        spec = self.spec
        return spec.unit if spec is not None else None

    @property
    def group_key(self) -> tuple[str, str, str]:
        """What runs are aggregated by: (env, preset, agent/model), where the preset is
        qualified when the run changed its world (a horizon other than the preset's) or its
        harness (options such as the context window), so different set-ups are never pooled."""
        preset = self.preset
        horizon = self.horizon
        if horizon is not None and horizon != _preset_horizon(self.env, self.preset):
            preset += f" ({horizon} {self.unit or 'step'}s)"
        options = {k: v for k, v in (self.config.get("harness_options") or {}).items() if v is not None}
        if options:
            preset += " [" + ", ".join(f"{k}={v}" for k, v in sorted(options.items())) + "]"
        return (self.env, preset, self.agent)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def ended_early(self) -> str | None:
        """Why this finished run stopped before its natural end, or None
        (:func:`~bizbench.core.runlog.ended_early`)."""
        return None if self.result is None else ended_early(self.result)

    @property
    def label(self) -> str:
        return f"{self.env}/{self.preset}/{self.agent}/seed {self.seed}"

    def get(self, key: str, default: Any = None) -> Any:
        """A result.json field (``default`` when absent or unfinished)."""
        return (self.result or {}).get(key, default)

    @property
    def model_cost(self) -> float | None:
        """The run's API cost in dollars (result.json ``cost_usd``) when it metered a model; None for
        a run that called none (a baseline, an agent class: format 2 records null), whose cost is
        not measurable, not zero."""
        cost = self.get("cost_usd")
        if cost is None or (self.get("tokens") is None and self.get("model_calls") is None):
            return None
        return float(cost)

    @property
    def secret_id(self) -> str | None:
        """The fingerprint of the held-out secret the world was drawn under (None: public seed)."""
        value = self.get("seed_secret_id", self.config.get("seed_secret_id"))
        return str(value) if value else None

    # ------------------------------------------------------------------ logs (lazy)
    def _jsonl(self, name: str) -> list[dict[str, Any]]:
        if name not in self._cache:
            self._cache[name] = [] if self.sealed else read_jsonl(self.path / f"{name}.jsonl")
        rows: list[dict[str, Any]] = self._cache[name]
        return rows

    @property
    def metrics(self) -> list[dict[str, Any]]:
        """metrics.jsonl: one line per day (ceo), turn (yc) or month (cfo)."""
        return self._jsonl("metrics")

    @property
    def actions(self) -> list[dict[str, Any]]:
        """actions.jsonl: every tool call (and baseline turn) in order."""
        return self._jsonl("actions")

    @property
    def trajectory(self) -> list[dict[str, Any]]:
        """trajectory.jsonl: model runs only ([] for baselines)."""
        return self._jsonl("trajectory")

    @property
    def model_run(self) -> bool:
        """Whether a model played the run (it has a trajectory.jsonl)."""
        return (self.path / "trajectory.jsonl").is_file()

    @property
    def ledger(self) -> list[dict[str, str]]:
        """ledger.csv rows as strings (day, category, amount, group, note); [] if absent."""
        if LEDGER not in self._cache:
            path = self.path / LEDGER
            rows = []
            if path.exists() and not self.sealed:
                with path.open(newline="") as f:
                    rows = list(csv.DictReader(f))
            self._cache[LEDGER] = rows
        ledger: list[dict[str, str]] = self._cache[LEDGER]
        return ledger

    @property
    def inner_config(self) -> dict[str, Any]:
        """The env's full config as the run used it (config.json's ``config``)."""
        inner = self.config.get("config")
        return inner if isinstance(inner, dict) else {}

    def text(self, name: str) -> str | None:
        """Another file of the run as text (``system_prompt.txt`` ...), or None when absent."""
        path = self.path / name
        return path.read_text(errors="replace") if path.is_file() and not self.sealed else None

    def part(self, result_fields: Iterable[str], files: Iterable[str], action_lines: Iterable[int]) -> Run:
        """This run seen through part of its record: the named result.json fields, the named
        files whole (``metrics.jsonl``, ``ledger.csv`` ...) and, of actions.jsonl, only the given
        lines (0-based among its JSON lines); every other file reads as absent. The report
        measures what replay verified this way (docs/reports.md "Verified figures")."""
        fields = set(result_fields)
        result = {k: v for k, v in (self.result or {}).items() if k in fields}
        given: dict[str, Any] = {}
        for name in set(files) - {ACTIONS}:
            key = name.removesuffix(".jsonl")  # the cache's key: the log's name, or ledger.csv
            given[key] = self.ledger if name == LEDGER else self._jsonl(key)
        actions = self.actions
        given["actions"] = [actions[i] for i in action_lines if 0 <= i < len(actions)]
        return Run(self.path, self.config, result, given, sealed=True)


def load_run(path: str | Path) -> Run:
    """Read one run directory; RunDirError naming the path if it is not one."""
    p = Path(path)
    if not p.is_dir():
        raise RunDirError(f"{p}: not a directory (expected a run directory holding config.json)")
    if not (p / "config.json").exists():
        raise RunDirError(f"{p}: not a run directory (no config.json)")
    config = _read_object(p / "config.json")
    result = _read_object(p / "result.json") if (p / "result.json").exists() else None
    return Run(p, config, result)


def find_runs(paths: list[str | Path]) -> list[Run]:
    """Expand ``paths`` into runs: each is a run directory or holds run directories (searched
    recursively, in name order). A path that is neither is a RunDirError naming it."""
    runs: list[Run] = []
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if (p / "config.json").exists() or not p.is_dir():
            found = [p]
        else:
            dirs = sorted(c.parent for c in p.rglob("config.json"))
            # a config.json inside a run directory (e.g. a kept workspace) is not another run, nor is a
            # killed attempt kept by bizbench resume (attempts/<n>/, an arena's seats too)
            found = [
                d
                for d in dirs
                if not any(o != d and o in d.parents for o in dirs) and ATTEMPTS not in d.relative_to(p).parts
            ]
            if not found:
                raise RunDirError(f"{p}: neither a run directory (no config.json) nor a directory of runs")
        for d in found:
            key = d.resolve()
            if key not in seen:
                seen.add(key)
                runs.append(load_run(d))
    return runs
