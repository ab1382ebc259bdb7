"""``bizbench tournament FILE.toml``: arenas between entrants over seeds, and their ratings (docs/arena.md).

A tournament file names an env with an arena, its entrants (baselines with their options, or
models), the
seeds, the seats a match has, and the format:

- ``round-robin``: every set of ``seats`` entrants meets on every seed, once in each rotation of
  the seats (each entrant sits in each seat once), so no seat is anyone's advantage;
- ``swiss``: ``rounds`` rounds; before each, the entrants are ordered by their rating so far
  and consecutive groups of ``seats`` meet (on the round's seed, in every rotation), so strong
  entrants meet strong ones; an entrant left over sits the round out.

Matches are arena directories under ``<out>/matches/`` (runner/arena.py), run on the sweep
backends (local processes or a Ray cluster). A match with its standings.json is never run
again, so a stopped tournament goes on where it stopped; a match cut short is moved aside and
played again; a tournament file whose settings changed is refused. Ratings are Plackett-Luce
ratings (``openskill``), updated match by match in a canonical order (round, seed, the seated
entrants' names) from each match's ranks (equal scores tie): ``mu``, ``sigma``, the
conservative ``ordinal`` (mu - 3 sigma) the table is sorted by, and a 95 % interval; with them,
each entrant's mean score and rank and the head-to-head table (in how many matches each
entrant finished ahead of each other).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from bizbench.core.envs import get_env
from bizbench.core.jsonio import read_json, write_json
from bizbench.runner.arena import STANDINGS, ranked_by, ranks, run_arena
from bizbench.runner.sweep_spec import SweepError, _Strict, parse_seeds, read_toml, validation_message
from bizbench.runner.sweep_worker import Backend, make_backend, set_aside

__all__ = [
    "Match",
    "TournamentSpec",
    "load_tournament",
    "play_match",
    "played",
    "ratings",
    "recorded",
    "rounds",
    "run_tournament",
    "schedule",
]

RATINGS = "ratings.json"
TOURNAMENT = "tournament.json"  # the file's settings, checked when a tournament goes on


class Entrant(_Strict):
    """One entrant under a name of its own: a baseline of the env with its options, or a model
    (``--model``'s forms, docs/models.md) in the env's paper harness or ``harness``."""

    name: str
    baseline: str | None = None
    model: str | None = None
    harness: str | None = None
    options: dict[str, Any] = Field(default_factory=dict)

    @field_validator("name")
    @classmethod
    def _plain_name(cls, name: str) -> str:
        if not re.fullmatch(r"[A-Za-z0-9_.-]+", name):
            raise ValueError(
                f"entrant name {name!r}: letters, digits, '_', '.' and '-' only (it names match directories)"
            )
        return name

    @model_validator(mode="after")
    def _one_player(self) -> Entrant:
        if (self.baseline is None) == (self.model is None):
            raise ValueError(f"entrant {self.name!r}: give a baseline or a model (one of them)")
        if self.model is not None and self.options:
            raise ValueError(f"entrant {self.name!r}: options are a baseline's")
        if self.baseline is not None and self.harness is not None:
            raise ValueError(f"entrant {self.name!r}: a harness is a model's")
        return self

    @property
    def player(self) -> str:
        """What sits in the seat: the baseline's name or the model spec."""
        return str(self.baseline or self.model)


class TournamentSpec(_Strict):
    """A tournament file (the module docstring)."""

    env: str
    preset: str | None = None
    seeds: list[int]
    seats: int = Field(default=2, ge=2)
    horizon: int | None = Field(default=None, ge=1)
    format: Literal["round-robin", "swiss"] = "round-robin"
    rounds: int | None = Field(default=None, ge=1)
    entrants: list[Entrant]
    world_options: dict[str, Any] = Field(default_factory=dict)  # the env's (ceo: database = false)
    out: str = "runs/tournament"

    @field_validator("seeds", mode="before")
    @classmethod
    def _seeds(cls, value: Any) -> list[int]:
        return parse_seeds(value)

    @model_validator(mode="after")
    def _consistent(self) -> TournamentSpec:
        try:
            spec = get_env(self.env)
        except KeyError as missing:
            raise ValueError(str(missing).strip("'\"")) from None
        if spec.arena is None:
            raise ValueError(f"env {self.env!r} has no arena (docs/arena.md lists the envs that do)")
        names = [e.name for e in self.entrants]
        if len(set(names)) != len(names):
            raise ValueError(f"entrants: names must differ, got {names}")
        most = spec.load(spec.arena).max_seats
        if self.seats > most:
            raise ValueError(f"seats: a {self.env} arena takes at most {most} seats, got {self.seats}")
        if len(self.entrants) < self.seats:
            raise ValueError(f"entrants: {len(self.entrants)} entrants cannot fill {self.seats} seats")
        for e in self.entrants:
            if e.baseline is not None:
                spec.check_baseline(e.baseline, e.options)
        if len({e.harness for e in self.entrants if e.model is not None}) > 1:
            raise ValueError("entrants: the model entrants of one tournament share one harness")
        unknown = sorted(set(self.world_options) - set(spec.world_options))
        if unknown:
            raise ValueError(f"world_options: env {self.env!r} takes no option {', '.join(unknown)}")
        if self.format == "swiss" and self.rounds is None:
            raise ValueError("rounds: a swiss tournament needs its number of rounds")
        if self.format == "round-robin" and self.rounds is not None:
            raise ValueError("rounds: only a swiss tournament has rounds")
        if self.rounds is not None and self.rounds > len(self.seeds):
            raise ValueError(
                f"rounds: each swiss round plays a seed of its own (a seed played again repeats the same "
                f"games); give at least {self.rounds} seeds, got {len(self.seeds)}"
            )
        return self


def load_tournament(path: str | Path) -> TournamentSpec:
    """Read and validate a tournament file; SweepError says what is wrong."""
    data = read_toml(path, "tournament file")
    try:
        return TournamentSpec.model_validate(data)
    except ValidationError as e:
        raise SweepError(validation_message(e, str(path), "tournament file", "docs/arena.md")) from None


# ---------------------------------------------------------------------------- the schedule
@dataclass(frozen=True)
class Match:
    """One arena of the tournament: who sits where, on which seed; ``name`` is its directory."""

    name: str
    seed: int
    entrants: tuple[str, ...]  # in seat order
    round: int = 0


def _rotations(group: tuple[str, ...], seed: int, round_: int) -> list[Match]:
    """The matches of ``group`` on ``seed``: each entrant in each seat once, the rotations of the
    group in the order of the names (so the order entrants are listed in changes nothing)."""
    group = tuple(sorted(group))
    out = []
    for r in range(len(group)):
        seated = group[r:] + group[:r]
        out.append(Match(f"r{round_}-s{seed}-" + "+".join(seated), seed, seated, round_))  # no name holds "+"
    return out


def schedule(spec: TournamentSpec, table: dict[str, dict[str, Any]] | None = None, round_: int = 0) -> list[Match]:
    """The matches of a round-robin, or of swiss round ``round_`` given the ratings ``table`` so far."""
    names = [e.name for e in spec.entrants]
    if spec.format == "round-robin":
        return [
            m
            for seed in spec.seeds
            for group in itertools.combinations(names, spec.seats)
            for m in _rotations(group, seed, 0)
        ]
    table = table or {}
    ordered = sorted(names, key=lambda n: (-table.get(n, {}).get("ordinal", 0.0), n))
    seed = spec.seeds[round_]
    groups = [tuple(ordered[i : i + spec.seats]) for i in range(0, len(ordered) - spec.seats + 1, spec.seats)]
    return [m for group in groups for m in _rotations(group, seed, round_)]


# ---------------------------------------------------------------------------- playing
MATCH = "match.json"  # what a match was played with, beside its arena's files
_SETTINGS = ("env", "preset", "horizon", "seed", "seated", "entrants", "world_options")


def _job(spec: TournamentSpec, m: Match, out: Path) -> dict[str, Any]:
    """What a worker needs to play match ``m`` (``execute_job``'s arena job)."""
    return {
        "kind": "arena",
        "env": spec.env,
        "preset": spec.preset,
        "horizon": spec.horizon,
        "seed": m.seed,
        "seated": list(m.entrants),
        "entrants": [e.model_dump() for e in sorted(spec.entrants, key=lambda e: e.name)],  # listing order aside
        "world_options": spec.world_options,
        "run_dir": str(out / "matches" / m.name),
        "secret_id": None,
    }


def played(job: dict[str, Any], path: Path) -> dict[str, Any] | None:
    """The standings of a match played to the end with ``job``'s settings; None when it was not
    (or was cut short); SweepError when it was played with other settings (the file changed)."""
    done, played_with = read_json(path / STANDINGS), read_json(path / MATCH)
    if done is None or played_with is None:
        return None
    by_name = {
        "entrants": sorted(
            played_with.get("entrants") or [], key=lambda e: str(e.get("name") if isinstance(e, dict) else e)
        )
    }
    if {**played_with, **by_name} != {k: job[k] for k in _SETTINGS}:
        raise SweepError(
            f"match {path.name} was played with other settings than the tournament file's now "
            "(entrants, seeds, horizon, preset or world options changed); choose another out directory"
        )
    return done


def play_match(job: dict[str, Any], path: Path) -> dict[str, Any]:
    """A match's standings.json content: :func:`played`'s, else played now (a directory left by
    a match cut short, without its match.json, is moved aside first)."""
    done = played(job, path)
    if done is not None:
        return done
    if path.exists():
        set_aside(path)
    entrants = {e["name"]: Entrant.model_validate(e) for e in job["entrants"]}
    seated = [entrants[name] for name in job["seated"]]
    harness = next((e.harness for e in seated if e.harness is not None), None)
    outcome = run_arena(
        job["env"],
        [e.player for e in seated],
        job["seed"],
        job["preset"],
        job["horizon"],
        path,
        [e.options for e in seated],
        secret=None,
        harness=harness,
        world_options=job["world_options"],
    )
    write_json(path / MATCH, {k: job[k] for k in _SETTINGS})  # last: a match without it was cut short
    return outcome


def _play(
    spec: TournamentSpec, matches: list[Match], out: Path, backend: Backend, log: Any
) -> dict[str, dict[str, Any]]:
    """Run every match not played yet on ``backend``; their standings by match name."""
    outcomes: dict[str, dict[str, Any]] = {}
    todo = []
    for m in matches:
        done = played(_job(spec, m, out), out / "matches" / m.name)
        if done is not None:
            outcomes[m.name] = done
        else:
            todo.append(m)
    running = 0
    while todo or running:
        while todo and running < backend.slots:
            m = todo.pop(0)
            job = _job(spec, m, out)
            backend.submit(m.name, job)
            running += 1
        for key, outcome in backend.wait():
            running -= 1
            if outcome["status"] != "done":
                raise SweepError(f"match {key} failed: {outcome['error']}")
            outcomes[str(key)] = outcome["result"]
            log(f"{key}: " + ", ".join(f"{r['agent']} #{r['rank']}" for r in outcome["result"]["standings"]))
    return outcomes


def run_tournament(
    spec: TournamentSpec,
    backend: Backend | str = "local",
    workers: int | None = None,
    address: str | None = None,
    log: Any = print,
) -> dict[str, Any]:
    """Play the tournament (resuming a stopped one) and write ``<out>/ratings.json``; returns it."""
    out = Path(spec.out).expanduser().absolute()
    _check_settings(spec, out)
    out.mkdir(parents=True, exist_ok=True)
    write_json(out / TOURNAMENT, spec.model_dump(mode="json"))
    pool = make_backend(backend, workers, address) if isinstance(backend, str) else backend
    try:
        matches: list[Match] = []
        outcomes: dict[str, dict[str, Any]] = {}
        for r in range(rounds(spec)):
            planned = next_round(spec, matches, outcomes, r)
            outcomes.update(_play(spec, planned, out, pool, log))
            matches += planned
    finally:
        pool.close()
    result = ratings(spec, matches, outcomes)
    write_json(out / RATINGS, result)
    return result


def rounds(spec: TournamentSpec) -> int:
    """A round-robin is one round; a swiss tournament has its ``rounds``."""
    return 1 if spec.format == "round-robin" else int(spec.rounds or 1)


def next_round(
    spec: TournamentSpec, matches: list[Match], outcomes: dict[str, dict[str, Any]], round_: int
) -> list[Match]:
    """The matches of round ``round_`` given those before it (swiss: paired by the ratings of the
    matches played so far)."""
    if not round_:
        return schedule(spec)
    table = ratings(spec, [m for m in matches if m.name in outcomes], outcomes)["entrants"]
    return schedule(spec, {row["name"]: row for row in table}, round_)


def recorded(spec: TournamentSpec, out: Path) -> tuple[list[Match], dict[str, dict[str, Any]], dict[str, str]]:
    """The matches of the tournament in ``out`` that its schedule has and that were played to the
    end with its settings, with their standings; and, by name, why each other match of the
    schedule is left out (not played yet, played with other settings, standings that do not hold)."""
    matches: list[Match] = []
    outcomes: dict[str, dict[str, Any]] = {}
    left_out: dict[str, str] = {}
    for r in range(rounds(spec)):
        planned = next_round(spec, matches, outcomes, r)
        for m in planned:
            try:
                done = played(_job(spec, m, out), out / "matches" / m.name)
            except SweepError as e:
                left_out[m.name] = str(e)
                continue
            problem = "not played to the end" if done is None else _standings_problem(done, len(m.entrants))
            if problem is not None:
                left_out[m.name] = problem
            elif done is not None:
                outcomes[m.name] = done
        matches += planned
    return [m for m in matches if m.name in outcomes], outcomes, left_out


def _standings_problem(outcome: dict[str, Any], seats: int) -> str | None:
    """Why a match's standings.json cannot be rated: a standing missing for a seat, a score that
    is not a number, ranks that do not follow the scores."""
    rows = outcome.get("standings")
    if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
        return "standings.json has no list of standings"
    if [r.get("seat") for r in rows] != list(range(seats)):
        return f"standings.json does not hold one standing for each of its {seats} seats, in seat order"
    scores = [r.get(ranked_by(rows)) for r in rows]
    if not all(isinstance(x, int | float) and not isinstance(x, bool) for x in scores):
        return "standings.json has a standing without its score"
    if [r.get("rank") for r in rows] != ranks(scores):
        return "standings.json's ranks do not follow its scores"
    return None


def _check_settings(spec: TournamentSpec, out: Path) -> None:
    """SweepError when ``out`` holds matches played from a tournament file with other settings:
    the settings compared as the tournament sees them (defaults filled in, entrants by name, a
    round-robin's seeds as a set). A tournament none of whose matches finished may change."""
    before = read_json(out / TOURNAMENT)
    if before is None or not any((out / "matches").glob(f"*/{MATCH}")):
        return
    try:
        kept = TournamentSpec.model_validate(before)
    except (ValidationError, ValueError, KeyError):  # a baseline gone since raises KeyError
        raise SweepError(
            f"{out}/{TOURNAMENT} is not a tournament file's settings; choose another out directory"
        ) from None
    old, new = _settings(kept), _settings(spec)
    changed = sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if changed:
        raise SweepError(
            f"{out} holds a tournament played with other settings ({', '.join(changed)} changed); "
            "choose another out directory"
        )


def _settings(spec: TournamentSpec) -> dict[str, Any]:
    settings = spec.model_dump(mode="json", exclude={"out"})
    settings["entrants"] = sorted(settings["entrants"], key=lambda e: e["name"])
    if spec.format == "round-robin":
        settings["seeds"] = sorted(settings["seeds"])
    return settings


# ---------------------------------------------------------------------------- ratings
def ratings(spec: TournamentSpec, matches: list[Match], outcomes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Plackett-Luce ratings from the matches in their canonical order (round, seed, the seated
    entrants' names), with mean scores, mean ranks and the head-to-head table (the module
    docstring). Neither the order the entrants are listed in nor the order of ``matches``
    changes them."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    names = [e.name for e in spec.entrants]
    rating = {n: model.rating(name=n) for n in names}
    scores: dict[str, list[float]] = {n: [] for n in names}
    ranks: dict[str, list[int]] = {n: [] for n in names}
    ahead = {a: dict.fromkeys(names, 0) for a in names}
    for m in sorted(matches, key=lambda m: (m.round, m.seed, sorted(m.entrants), m.entrants)):
        rows = outcomes[m.name]["standings"]
        seated = list(m.entrants)
        new = model.rate([[rating[n]] for n in seated], ranks=[standing["rank"] for standing in rows])
        for n, (r,) in zip(seated, new, strict=True):
            rating[n] = r
        by = ranked_by(rows)  # the headline score, as the ranks (the raw one in an older standings.json)
        for n, standing in zip(seated, rows, strict=True):
            scores[n].append(standing[by])
            ranks[n].append(standing["rank"])
        for (a, ra), (b, rb) in itertools.permutations(zip(seated, rows, strict=True), 2):
            ahead[a][b] += ra["rank"] < rb["rank"]

    def entry(n: str) -> dict[str, Any]:
        r = rating[n]
        return {
            "name": n,
            "mu": round(r.mu, 4),
            "sigma": round(r.sigma, 4),
            "ordinal": round(r.ordinal(), 4),
            "interval_95": [round(r.mu - 1.96 * r.sigma, 4), round(r.mu + 1.96 * r.sigma, 4)],
            "matches": len(scores[n]),
            "mean_score": round(sum(scores[n]) / len(scores[n]), 2) if scores[n] else None,
            "mean_rank": round(sum(ranks[n]) / len(ranks[n]), 3) if ranks[n] else None,
        }

    order = sorted(names, key=lambda n: (-rating[n].ordinal(), n))
    table = [entry(n) for n in order]
    return {
        "env": spec.env,
        "format": spec.format,
        "seats": spec.seats,
        "seeds": spec.seeds,
        "matches": len(matches),
        "rating": "openskill Plackett-Luce (ordinal = mu - 3 sigma)",
        "entrants": table,
        "head_to_head": ahead,
    }
