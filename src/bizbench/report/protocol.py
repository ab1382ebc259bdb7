"""The evaluation protocol: each env's score and its normalisation between two anchors.

normalised = (score - zero) / (one - zero), so the do-nothing anchor scores 0 and the env's
reference scores 1 (above 1 beats the reference; below 0 is worse than doing nothing).

What the score and the anchors are is the env's, from its report module
(:class:`~bizbench.core.reporting.ReportModule`; the table per env is in docs/reports.md):
``SCORE_KEYS`` (the result fields of the headline score), ``ZERO_ANCHOR`` (the baseline that
scores 0) and ``ONE_ANCHOR`` (the baseline that scores 1, or a reference computed from the run
itself, such as ceo's Appendix D upper bound or cfo's human experts).

Baseline anchors are computed by running the baseline on the run's own world: its recorded
config (config.json's ``config``, horizon included) and seed; the baselines are
deterministic (same seed + same actions, same result). That is possible only when

* the env is registered here and the recorded config still validates;
* the run's world can be rebuilt: a run on a held-out seed (``seed_secret_id``) needs
  ``$BIZBENCH_SEED_SECRET`` set to the same secret.

Otherwise the baseline anchors are missing with a note saying why; a reference computed
from the run needs no world and is still given. A missing anchor, or a one anchor not above
the zero anchor (a ceo run much shorter than the upper bound's billing days), leaves the
normalised score missing, never guessed.

**Cache.** Anchor runs are cached in a JSON file (default
``$XDG_CACHE_HOME/bizbench/report-anchors.json``, i.e. ``~/.cache/bizbench/...``;
``bizbench report --anchor-cache PATH`` picks another), one entry per
``v<scoring>/env/preset/seed/config-digest/secret-id`` where the config digest is the SHA-256
of the run's full config (so a changed preset or horizon is a new key) and ``<scoring>`` the
version of the scoring rules (:data:`SCORING`). Entries hold the two
anchors and the env's facts computed from the same re-created world (the report module's
``world_facts``; ceo: the competitor event days). Deleting the file is always safe.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bizbench.core.envs import get_env
from bizbench.core.jsonio import write_json
from bizbench.core.reporting import ReportModule
from bizbench.core.runlog import FAILED_SCORE, headline_score
from bizbench.core.runs import Run
from bizbench.report import common

__all__ = [
    "FAILED_SCORE",
    "AnchorCache",
    "Anchors",
    "anchors_for",
    "default_cache_path",
    "normalise",
    "report_module",
    "score",
    "world_facts",
]


def report_module(env_id: str) -> ReportModule:
    """The report module of a registered env (:mod:`bizbench.report.common` for an env without
    one); KeyError naming the registered envs for an env not registered here."""
    spec = get_env(env_id)
    if spec.report is None:
        return common
    module: ReportModule = spec.module("report")
    return module


def _score_of(module: ReportModule, result: dict[str, Any]) -> float | None:
    for key in module.SCORE_KEYS:
        if result.get(key) is not None:
            return float(result[key])
    return None


#: The version of the scoring rules in the anchor cache's keys: entries computed under other
#: rules (before failed runs scored FAILED_SCORE) are never reused.
SCORING = 2


def _headline(module: ReportModule, result: dict[str, Any]) -> float | None:
    """A finished run's headline score (:func:`~bizbench.core.runlog.headline_score`) with the
    env's score field; a damaged score is an error, failed run or not."""
    return headline_score(result, _score_of(module, result))


def score(run: Run) -> float | None:
    """The env's headline score from result.json (None if unfinished or the env is unknown;
    ``FAILED_SCORE`` for a run that went bankrupt or ended early)."""
    try:
        module = report_module(run.env)
    except KeyError:
        return None
    return None if run.result is None else _headline(module, run.result)


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
            except (OSError, ValueError):
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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_json(self.path, self.entries)


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def _key(run: Run) -> str:
    digest = hashlib.sha256(_canonical(run.inner_config).encode()).hexdigest()[:16]
    return f"v{SCORING}/{run.env}/{run.preset}/{run.seed}/{digest}/{run.secret_id or '-'}"


def _reproducible(run: Run) -> str:
    """'' if the anchor baselines can play the run's world here, else why not."""
    from bizbench.core.rng import secret_from_env, secret_id

    spec = run.spec
    if spec is None:
        return f"unknown env {run.env!r}"
    if report_module(run.env).ZERO_ANCHOR is None:
        return f"env {run.env!r} names no anchors"
    if run.secret_id != secret_id(secret_from_env()):
        return "held-out seed: set BIZBENCH_SEED_SECRET to the run's secret to compute anchors"
    try:
        spec.validate_config(run.inner_config)
    except Exception as e:  # noqa: BLE001 - a config from another version: say so, never guess
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        return f"the recorded config no longer loads ({reason}): its baselines cannot rebuild the world"
    return ""


def _compute(run: Run) -> dict[str, Any]:
    """Run the anchor baselines on the run's world and compute the env's facts of it."""
    from bizbench.runner.episode import run_baseline

    module = report_module(run.env)
    options = dict(getattr(module, "ANCHOR_WORLD_OPTIONS", {})) or None

    def baseline(name: str) -> float | None:
        result = run_baseline(run.env, name, run.seed, run.preset, config=run.inner_config, world_options=options)
        return _headline(module, result)

    zero, one = module.ZERO_ANCHOR, module.ONE_ANCHOR
    assert zero is not None and one is not None  # _reproducible: an env without anchors has no entry
    entry: dict[str, Any] = {"zero_agent": zero, "zero": baseline(zero)}
    entry["one"], entry["one_note"] = (baseline(one), "") if isinstance(one, str) else one(run)
    facts = getattr(module, "world_facts", None)
    if facts is not None:
        entry.update(facts(run))
    return entry


def _reference(run: Run, cache: AnchorCache) -> float | None:
    """A one anchor computed from the run alone (no world needed), or None."""
    try:
        module = report_module(run.env)
    except KeyError:
        return None
    reference = module.ONE_ANCHOR
    if reference is None or isinstance(reference, str):
        return None

    def compute() -> dict[str, Any]:
        one, note = reference(run)
        return {"one": one, "one_note": note}

    try:
        return cache.get_or_compute(_key(run) + "/reference", compute).get("one")
    except Exception:  # noqa: BLE001 - a config the reference cannot read: no anchor
        return None


def world_facts(run: Run, cache: AnchorCache | None) -> dict[str, Any] | None:
    """The cached anchor entry of the run's world (computing it if needed), or None when the
    world cannot be re-created here or anchors are off (``cache`` None)."""
    if cache is None or _reproducible(run):
        return None
    return cache.get_or_compute(_key(run), lambda: _compute(run))


def anchors_for(run: Run, cache: AnchorCache | None) -> Anchors:
    """The run's zero and one anchors (missing ones carry a note saying why). A seat of an arena
    with rivals has none: its rivals change its world, so anchors played alone do not measure it
    (its rank in the arena does, docs/arena.md)."""
    if cache is None:
        return Anchors(None, None, "anchors off")
    seat = run.config.get("arena")
    if isinstance(seat, dict) and seat.get("seats") != 1:
        return Anchors(None, None, "an arena seat: anchors played alone do not measure a company with rivals")
    why = _reproducible(run)
    if why:
        return Anchors(None, _reference(run, cache), why)
    entry = world_facts(run, cache)
    assert entry is not None
    zero, one = entry.get("zero"), entry.get("one")
    if one is None and entry.get("one_note"):
        return Anchors(zero, None, str(entry["one_note"]))
    note = "" if zero is None or one is None or one > zero else "the one anchor is not above the zero anchor"
    return Anchors(zero, one, note)
