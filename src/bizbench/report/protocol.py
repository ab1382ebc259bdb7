"""The evaluation protocol: each env's score and its normalisation between two anchors.

normalised = (score - zero) / (one - zero), so the do-nothing anchor scores 0 and the env's
reference scores 1 (above 1 beats the reference; below 0 is worse than doing nothing).

* ``ceo``: score ``final_cash``; zero = the ``do-nothing`` baseline's final cash (same seed
  and config); one = the Appendix D upper-bound estimate of the run's config
  (:func:`bizbench.envs.ceo.upper_bound.estimate`, ``reported``; $2.28B on ``default``).
* ``yc``: score ``final_funds``; zero = the ``do-nothing`` baseline's final funds; one = the
  ``heuristic`` baseline's final funds (both same seed and config).
* ``cfo``: score ``score`` (eq 2, 0 if bankrupt); zero = the ``always-pass`` baseline's score
  (same seed and config); one = the human experts' mean score, $152.2M (EnterpriseArena
  Table 2).

Anchors that depend on the seed are computed by running the baseline on the run's own
config and seed (the baselines are deterministic: same seed + same actions, same result).
That is possible only when

* the run's config equals the current preset's (plus the run's ceo horizon), so the
  baseline plays the same world: otherwise the anchor is missing with the note "preset
  changed since the run";
* the run's world can be rebuilt: a run on a held-out seed (``seed_secret_id`` in
  result.json) needs ``$BIZBENCH_SEED_SECRET`` set to the same secret.

A missing anchor, or a one anchor not above the zero anchor (a ceo run much shorter than
the upper bound's billing days), leaves the normalised score missing, never guessed.

**Cache.** Anchor runs are cached in a JSON file (default
``$XDG_CACHE_HOME/bizbench/report-anchors.json``, i.e. ``~/.cache/bizbench/...``;
``bizbench report --anchor-cache PATH`` picks another), one entry per
``env/preset/seed/config-digest/secret-id`` where the config digest is the SHA-256 of the
run's full config (so a changed preset or horizon is a new key). Entries hold the two
anchors and env facts computed from the same re-created world (ceo: the competitor event
days, see :mod:`bizbench.report.metrics_ceo`). Deleting the file is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bizbench.report.loader import Run

__all__ = [
    "ANCHOR_SOURCES",
    "HUMAN_CFO_SCORE",
    "AnchorCache",
    "Anchors",
    "anchors_for",
    "default_cache_path",
    "normalise",
    "score",
    "world_facts",
]

#: EnterpriseArena Table 2: the two human experts' mean terminal valuation score.
HUMAN_CFO_SCORE = 152.2e6

#: env -> (zero anchor, one anchor), as shown in reports
ANCHOR_SOURCES: dict[str, tuple[str, str]] = {
    "ceo": ("do-nothing baseline", "Appendix D upper bound"),
    "yc": ("do-nothing baseline", "heuristic baseline"),
    "cfo": ("always-pass baseline", "human experts $152.2M"),
}

_SCORE_KEY = {"ceo": "final_cash", "yc": "final_funds", "cfo": "score"}
_ZERO_AGENT = {"ceo": "do-nothing", "yc": "do-nothing", "cfo": "always-pass"}


def score(run: Run) -> float | None:
    """The env's headline score from result.json (None if unfinished or unknown env)."""
    key = _SCORE_KEY.get(run.env)
    value = run.get(key) if key else None
    return None if value is None else float(value)


@dataclass(frozen=True)
class Anchors:
    zero: float | None
    one: float | None
    note: str = ""


def normalise(value: float | None, anchors: Anchors) -> float | None:
    """(value - zero) / (one - zero); None if anything is missing or one <= zero."""
    if value is None or anchors.zero is None or anchors.one is None or anchors.one <= anchors.zero:
        return None
    return (value - anchors.zero) / (anchors.one - anchors.zero)


def default_cache_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bizbench" / "report-anchors.json"


class AnchorCache:
    """A small JSON file of computed anchor entries (see the module docstring)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.entries: dict[str, dict[str, Any]] = {}
        if path is not None and path.exists():
            try:
                data = json.loads(path.read_text())
            except (OSError, json.JSONDecodeError):
                data = {}  # a corrupt cache is rebuilt
            self.entries = data if isinstance(data, dict) else {}

    def get_or_compute(self, key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        if key not in self.entries:
            self.entries[key] = compute()
            self.save()
        return self.entries[key]

    def save(self) -> None:
        if self.path is None:
            return
        from bizbench.core.jsonio import write_json

        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_json(self.path, self.entries)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _key(run: Run) -> str:
    digest = hashlib.sha256(_canonical(run.inner_config).encode()).hexdigest()[:16]
    return f"{run.env}/{run.preset}/{run.seed}/{digest}/{run.get('seed_secret_id') or '-'}"


def _reproducible(run: Run) -> str:
    """'' if the run's world can be re-created here, else why not."""
    from bizbench.core.rng import secret_from_env, secret_id

    if run.env not in _SCORE_KEY:
        return f"unknown env {run.env!r}"
    if run.get("seed_secret_id") != secret_id(secret_from_env()):
        return "held-out seed: set BIZBENCH_SEED_SECRET to the run's secret to compute anchors"
    current = _current_config(run)
    if current is None or _canonical(current) != _canonical(run.inner_config):
        return "preset changed since the run: its baselines would play another world"
    return ""


def _current_config(run: Run) -> dict[str, Any] | None:
    """The run's preset as it is now (with the run's ceo horizon), as JSON values."""
    import importlib

    try:
        module = importlib.import_module(f"bizbench.envs.{run.env}.config")
        config, _ = module.load_config(run.preset)
    except Exception:  # noqa: BLE001 - an unknown or broken preset is just "not reproducible"
        return None
    if run.env == "ceo" and "horizon_days" in run.inner_config:
        config = config.model_copy(update={"horizon_days": run.inner_config["horizon_days"]})
    dumped: dict[str, Any] = json.loads(json.dumps(config.model_dump(mode="json"), default=str))
    return dumped


def _compute(run: Run) -> dict[str, Any]:
    """Run the anchor baselines (and env facts) for the run's config and seed."""
    from bizbench.runner import episode

    env, seed, preset = run.env, run.seed, run.preset
    entry: dict[str, Any] = {"zero_agent": _ZERO_AGENT[env]}
    if env == "ceo":
        from bizbench.envs.ceo.config import CeoConfig
        from bizbench.envs.ceo.upper_bound import estimate
        from bizbench.report.metrics_ceo import competitor_event_days

        config = CeoConfig.model_validate(run.inner_config)
        zero = episode.run_ceo_baseline("do-nothing", seed, preset, days=config.horizon_days, database=False)
        entry["zero"] = float(zero["final_cash"])
        entry["one"] = float(estimate(config).reported)
        entry["competitor_event_days"] = competitor_event_days(config, seed)
    elif env == "yc":
        entry["zero"] = float(episode.run_yc_baseline("do-nothing", seed, preset)["final_funds"])
        entry["one"] = float(episode.run_yc_baseline("heuristic", seed, preset)["final_funds"])
    else:
        entry["zero"] = float(episode.run_cfo_baseline("always-pass", seed, preset)["score"])
        entry["one"] = _human_anchor(run)
    return entry


def _human_anchor(run: Run) -> float | None:
    """The experts' score, for runs scored as they were (eq 2 on the whole company); a
    per-share or net-cash score (the hardened preset) is another scale: no anchor."""
    from bizbench.envs.cfo.config import CfoConfig, Score

    return HUMAN_CFO_SCORE if CfoConfig.model_validate(run.inner_config).score == Score() else None


def world_facts(run: Run, cache: AnchorCache | None) -> dict[str, Any] | None:
    """The cached anchor entry of the run's world (computing it if needed), or None when the
    world cannot be re-created here or anchors are off (``cache`` None)."""
    if cache is None or _reproducible(run):
        return None
    return cache.get_or_compute(_key(run), lambda: _compute(run))


def anchors_for(run: Run, cache: AnchorCache | None) -> Anchors:
    """The run's zero and one anchors (missing ones carry a note saying why)."""
    if cache is None:
        return Anchors(None, None, "anchors off")
    why = _reproducible(run)
    if why and run.env == "cfo":
        return Anchors(None, _human_anchor(run), why)  # a constant needs no world
    if why:
        return Anchors(None, None, why)
    entry = world_facts(run, cache)
    assert entry is not None
    zero, one = entry.get("zero"), entry.get("one")
    if one is None and run.env == "cfo":
        return Anchors(zero, None, "the human experts played the paper's score; this preset scores another way")
    note = "" if zero is None or one is None or one > zero else "the one anchor is not above the zero anchor"
    return Anchors(zero, one, note)
