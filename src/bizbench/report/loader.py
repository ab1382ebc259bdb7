"""Reading run directories (layout: :mod:`bizbench.runner.rundir`) into typed objects.

A run directory holds ``config.json`` from its first moment and ``result.json`` once the run
has ended. :func:`load_run` reads one; :func:`find_runs` expands the paths given to
``bizbench report`` (a run directory, or a directory whose subdirectories are run
directories, e.g. a sweep's output) into run directories. A directory without
``config.json`` is not a run directory and is an error naming the path; a run directory
without ``result.json`` loads as *unfinished* (``Run.finished`` is False): the report lists
it and leaves it out of every table and aggregate.

The JSONL files are read lazily (a yc run's actions run to megabytes) and cached on the
object. A line that is not JSON (a run killed mid-write) is skipped: every line before it
was flushed whole.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path
from typing import Any

from bizbench.runner.rundir import read_jsonl

__all__ = ["ReportInputError", "Run", "find_runs", "load_run", "read_jsonl"]


class ReportInputError(ValueError):
    """A path given to the report is not a (readable) run directory."""


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ReportInputError(f"{path}: cannot read ({e})") from None
    if not isinstance(data, dict):
        raise ReportInputError(f"{path}: expected a JSON object")
    return data


@cache
def _preset_horizon(preset: str) -> int | None:
    """The horizon of a ceo preset as installed (None when it cannot be loaded)."""
    from bizbench.envs.ceo.config import load_config

    try:
        return load_config(preset)[0].horizon_days
    except ValueError:
        return None


@dataclass
class Run:
    """One run directory: its config, its result (None while unfinished) and its logs."""

    path: Path
    config: dict[str, Any]
    result: dict[str, Any] | None
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ identity
    @property
    def env(self) -> str:
        return str(self.config.get("env") or (self.result or {}).get("env") or "?")

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
    def group_key(self) -> tuple[str, str, str]:
        """What runs are aggregated by: (env, preset, agent/model), where the preset is
        qualified when the run changed its world (a horizon override) or its harness
        (options such as the context window), so different set-ups are never pooled."""
        preset = self.preset
        horizon = self.inner_config.get("horizon_days")
        if self.env == "ceo" and horizon != _preset_horizon(self.preset):
            preset += f" ({horizon} days)"
        options = {k: v for k, v in (self.config.get("harness_options") or {}).items() if v is not None}
        if options:
            preset += " [" + ", ".join(f"{k}={v}" for k, v in sorted(options.items())) + "]"
        return (self.env, preset, self.agent)

    @property
    def finished(self) -> bool:
        return self.result is not None

    @property
    def label(self) -> str:
        return f"{self.env}/{self.preset}/{self.agent}/seed {self.seed}"

    def get(self, key: str, default: Any = None) -> Any:
        """A result.json field (``default`` when absent or unfinished)."""
        return (self.result or {}).get(key, default)

    # ------------------------------------------------------------------ logs (lazy)
    def _jsonl(self, name: str) -> list[dict[str, Any]]:
        if name not in self._cache:
            self._cache[name] = read_jsonl(self.path / f"{name}.jsonl")
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

    @cached_property
    def ledger(self) -> list[dict[str, str]]:
        """ledger.csv rows as strings (day, category, amount, group, note); [] if absent."""
        path = self.path / "ledger.csv"
        if not path.exists():
            return []
        with path.open(newline="") as f:
            return list(csv.DictReader(f))

    @property
    def inner_config(self) -> dict[str, Any]:
        """The env's full config as the run used it (config.json's ``config``)."""
        inner = self.config.get("config")
        return inner if isinstance(inner, dict) else {}


def load_run(path: str | Path) -> Run:
    """Read one run directory; ReportInputError naming the path if it is not one."""
    p = Path(path)
    if not p.is_dir():
        raise ReportInputError(f"{p}: not a directory (expected a run directory holding config.json)")
    if not (p / "config.json").exists():
        raise ReportInputError(f"{p}: not a run directory (no config.json)")
    config = _read_json(p / "config.json")
    result = _read_json(p / "result.json") if (p / "result.json").exists() else None
    return Run(p, config, result)


def find_runs(paths: list[str | Path]) -> list[Run]:
    """Expand ``paths`` into runs: each is a run directory or holds run directories (searched
    recursively, in name order). A path that is neither is a ReportInputError naming it."""
    runs: list[Run] = []
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw)
        if (p / "config.json").exists() or not p.is_dir():
            found = [p]
        else:
            dirs = sorted(c.parent for c in p.rglob("config.json"))
            # a config.json inside a run directory (e.g. a kept workspace) is not another run
            found = [d for d in dirs if not any(o != d and o in d.parents for o in dirs)]
            if not found:
                raise ReportInputError(f"{p}: neither a run directory (no config.json) nor a directory of runs")
        for d in found:
            key = d.resolve()
            if key not in seen:
                seen.add(key)
                runs.append(load_run(d))
    return runs
