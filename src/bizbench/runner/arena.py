"""``bizbench arena ENV``: rival companies in one market, one agent a seat (docs/arena.md).

A seat is played by a baseline of the env, by a model in an in-process harness (cli-chat,
react-json; the terminal harness serves its own env and cannot sit in an arena), or by an agent
outside, served in a workspace (``serve:WORKSPACE``, as ``bizbench serve`` serves a single
player). A model seat's directory also holds its trajectory.jsonl, system_prompt.txt and
tools.json.

An arena directory holds ``arena.json`` (written first: the env, preset, seed, the world config
and who sits where), one ordinary run directory per seat (``seat-0/``, ``seat-1/`` ...: the
seat's config.json, actions.jsonl, metrics, ledger.csv and result.json, docs/run-format.md) and,
written last, ``standings.json`` (each seat's score and rank, and the env's arena fields such as
the contests). Each seat's agent plays in its own thread; turns are simultaneous
(core/arena.py), so the outcome does not depend on how the threads ran.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from bizbench.core.arena import ArenaAborted
from bizbench.core.envs import get_env
from bizbench.core.jsonio import read_json, write_json
from bizbench.core.rng import secret_from_env
from bizbench.core.runlog import RUN_FORMAT, headline_score, require_new
from bizbench.core.runs import RunDirError
from bizbench.core.session import Session

__all__ = [
    "ARENA_CONFIG",
    "STANDINGS",
    "play_seats",
    "ranked_by",
    "ranks",
    "read_setup",
    "run_arena",
    "seat_dir",
    "seat_dirs",
    "standings",
]

ARENA_CONFIG = "arena.json"
STANDINGS = "standings.json"


def seat_dir(out: Path, seat: int) -> Path:
    """Seat ``seat``'s run directory inside an arena directory."""
    return Path(out) / f"seat-{seat}"


def seat_dirs(path: str | Path) -> list[Path]:
    """An arena directory's seat run directories in seat order; ``[path]`` for any other directory."""
    setup = read_json(Path(path) / ARENA_CONFIG)
    if setup is None or not isinstance(setup.get("seats"), int):
        return [Path(path)]
    return [seat_dir(Path(path), i) for i in range(setup["seats"])]


def read_setup(path: Path) -> tuple[dict[str, Any], Any]:
    """An arena directory's arena.json and its env's spec, for replay and resume: RunDirError when
    there is none, its env is not registered here or has no arena, or its seats are not a whole
    number of at least 1."""
    where = Path(path) / ARENA_CONFIG
    setup = read_json(where)
    if not isinstance(setup, dict):
        raise RunDirError(f"{path} has no readable {ARENA_CONFIG}: it is not an arena directory")
    try:
        spec = get_env(str(setup.get("env")))
    except KeyError as e:
        raise RunDirError(f"{where}: {e.args[0]}") from None
    if spec.arena is None:
        raise RunDirError(f"{where}: env {spec.id!r} has no arena")
    seats = setup.get("seats")
    if isinstance(seats, bool) or not isinstance(seats, int) or seats < 1:
        raise RunDirError(f"{where}: 'seats' must be a whole number of at least 1, got {seats!r}")
    return setup, spec


def play_seats(arena: Any, drivers: list[Callable[[Any], None]], sessions: list[Any]) -> None:
    """Run ``drivers[i](sessions[i])`` in a thread per seat until each returns; a seat leaves the
    arena when its driver returns or fails. A failure (a seat's, or of resolving a turn) or an
    interrupt here stops the arena and is raised once every seat has stopped."""
    errors: list[BaseException | None] = [None] * len(sessions)

    def play(i: int) -> None:
        try:
            drivers[i](sessions[i])
        except BaseException as error:  # noqa: BLE001 - raised below, once every seat stopped
            errors[i] = error
            arena.gate.abort(error)
        finally:
            try:
                arena.gate.leave(i)
            except BaseException as error:  # noqa: BLE001 - a turn resolved on leaving failed: the gate keeps it
                arena.gate.abort(error)

    threads = [
        threading.Thread(target=play, args=(i,), name=f"arena-seat-{i}", daemon=True) for i in range(len(sessions))
    ]
    for thread in threads:
        thread.start()
    try:
        for thread in threads:
            thread.join()
    except BaseException as interrupt:  # Ctrl-C: every seat stops at its next end of turn
        arena.gate.abort(interrupt)
        raise
    own = [e for e in errors if e is not None and not isinstance(e, ArenaAborted)]
    if own:
        raise own[0]
    if arena.gate.error is not None:
        raise arena.gate.error
    stopped = next((e for e in errors if e is not None), None)
    if stopped is not None:
        raise stopped


def standings(results: list[dict[str, Any]], by_headline: bool = True) -> list[dict[str, Any]]:
    """Each seat's agent, score, headline score and rank: 1 = the highest headline score (the score
    a report ranks a run by, 0 for a failed company: docs/reports.md), equal ones share a rank.
    ``by_headline`` False: the rows of a standings.json written before headline scores (ranked by
    the raw score, no ``headline_score``), which replay compares an old arena with."""
    rows = [
        {
            "seat": i,
            "agent": r.get("agent"),
            "score": r["score"],
            **({"headline_score": headline_score(r)} if by_headline else {}),
            "final_cash": r["final_cash"],
            "bankrupt": r["bankrupt"],
        }
        for i, r in enumerate(results)
    ]
    key = "headline_score" if by_headline else "score"
    for row, rank in zip(rows, ranks([row[key] for row in rows]), strict=True):
        row["rank"] = rank
    return rows


def ranked_by(rows: list[dict[str, Any]]) -> str:
    """The field a standings.json's ranks follow: ``headline_score``, or ``score`` in one written
    before headline scores."""
    return "headline_score" if rows and all("headline_score" in row for row in rows) else "score"


def ranks(scores: list[Any]) -> list[int]:
    """Each score's rank: 1 for the highest; equal scores share a rank and the next rank skips."""
    return [1 + sum(other > score for other in scores) for score in scores]


class _Player:
    """Who plays a seat: a baseline of the env, or a model in an in-process harness."""

    def __init__(
        self,
        spec: Any,
        entry: str,
        options: dict[str, Any],
        seed: int,
        harness: str | None,
        limits: Any,
        client: Any = None,
    ):
        self.options = options
        self.meta: dict[str, Any] = {"agent_options": options}
        self.turns = 0
        self.ended_by: str | None = None
        if entry in spec.baseline_table():
            self.name = spec.check_baseline(entry, options).name
            self.policy = spec.baseline(entry).make(seed, **options)
            self.run: Any = None
            return
        if options:
            raise ValueError(f"seat {entry!r}: options are a baseline's, and {entry!r} is not a {spec.id} baseline")
        from bizbench.agents.harness import unusable
        from bizbench.agents.models.factory import make_model
        from bizbench.agents.recording import AgentRun, Limits, Trajectory
        from bizbench.runner.agent_episode import make_harness

        try:
            model = client if client is not None else make_model(entry)
        except ValueError as e:
            choices = ", ".join(spec.baseline_table())
            raise ValueError(f"seat {entry!r} is neither a {spec.id} baseline ({choices}) nor a model: {e}") from None
        harness_name = harness or spec.harness
        why = unusable(harness_name, spec)
        if why:
            raise ValueError(why)
        self.harness = make_harness(harness_name)
        if hasattr(self.harness, "open_env"):
            raise ValueError(
                f"the {harness_name} harness serves its own env; an arena seat needs cli-chat or react-json"
            )
        self.name = getattr(model, "recorded_name", None) or model.name
        self.run = AgentRun(model, Trajectory(None), limits or Limits())
        self.meta = {
            "model": model.name,
            "model_spec": entry,
            "sampling": model.sampling,
            "harness": harness_name,
            "limits": vars(self.run.limits),
        }

    def open(self, session: Session) -> None:
        """Before play: a model seat's trajectory.jsonl, system prompt and tools beside its record."""
        if self.run is None or session.path is None:
            return
        from bizbench.agents.recording import Trajectory, save_setup

        self.run.trajectory = Trajectory(session.path / "trajectory.jsonl")
        save_setup(session.path, self.harness.system_prompt(session), self.harness.tools(session))

    def drive(self, session: Session) -> None:
        if self.run is None:
            while not session.done:
                self.policy.act(session)
                self.turns += 1
            return
        self.ended_by = "interrupted"
        try:
            self.ended_by = self.harness.run(session, self.run)
        finally:
            self.run.trajectory.event("end", ended_by=self.ended_by, **self.run.meter.summary())
            self.run.trajectory.close()

    def finish(self, session: Session, seat: int) -> dict[str, Any]:
        if self.run is None:
            return session.finish(agent=self.name, agent_options=self.options, turns=self.turns, arena_seat=seat)
        extra = {k: v for k, v in self.meta.items() if k not in ("model_spec", "limits")}
        return session.finish(
            self.ended_by, self.run.meter.summary(), agent=self.name, **{**extra, "model": self.name}, arena_seat=seat
        )


SERVE = "serve:"  # a seat entry ``serve:WORKSPACE``: the seat is served there, to an agent outside


class _Served:
    """A seat served to an agent outside (``serve:WORKSPACE``): the env's SDK, ``bin/bizbench`` and
    docs in the workspace and the tool server on its socket, exactly as ``bizbench serve`` seats a
    single player (docs/seats.md); its week waits for the rivals' like any seat's."""

    def __init__(self, spec: Any, entry: str, options: dict[str, Any]) -> None:
        from bizbench.core.seat import seat_of

        if options:
            raise ValueError(f"seat {entry!r}: options are a baseline's")
        if spec.seat is None:
            raise ValueError(f"env {spec.id!r} has no seat to serve (docs/seats.md)")
        self.workspace = Path(entry[len(SERVE) :]).resolve()  # one directory, however it is named
        if not entry[len(SERVE) :]:
            raise ValueError("serve: needs a workspace directory, e.g. serve:ws0")
        seat_of(spec).check_workspace(self.workspace)
        self.name = "served"
        self.meta: dict[str, Any] = {"served": True}
        self.server: Any = None
        self.gate: Any = None
        self.ended_by = "interrupted"

    def open(self, session: Session) -> None:
        from bizbench.core.seat import open_seat

        self.server = open_seat(session, self.workspace)

    def drive(self, session: Session) -> None:
        """Serve until the seat's episode ends, its agent stops it, or the arena stops."""
        while not self.server.wait(timeout=0.2):
            if self.gate.error is not None:
                raise ArenaAborted(f"the arena stopped: {self.gate.error}")
        self.ended_by = "episode_end" if self.server.done.is_set() else "stopped"

    def finish(self, session: Session, seat: int) -> dict[str, Any]:
        self.server.stop()
        return session.finish(ended_by=self.ended_by, agent=self.name, arena_seat=seat)


def run_arena(
    env_id: str,
    agents: list[str],
    seed: int = 42,
    preset: str | None = None,
    horizon: int | None = None,
    out: Path | None = None,
    options: list[dict[str, Any]] | None = None,
    secret: str | None | Literal["from-env"] = "from-env",
    harness: str | None = None,
    limits: Any = None,
    world_options: dict[str, Any] | None = None,
    on_served: Callable[[int, Any, Path], None] | None = None,
    clients: dict[int, Any] | None = None,
) -> dict[str, Any]:
    """An arena of ``len(agents)`` seats; seat i is played by ``agents[i]``: a baseline of the env
    (with ``options[i]``) or a model spec (``--model``'s forms, docs/models.md) in ``harness``
    (default: the env's paper harness) under ``limits``, or ``serve:WORKSPACE``, a seat served to
    an agent outside (``on_served(seat, server, workspace)`` is called once it listens: start the
    agent there); ``world_options`` are the env's (ceo ``database``), for every seat;
    ``clients[i]`` is the model client of model seat i instead of one made from its spec (a
    resumed arena's). Returns standings.json's content."""
    spec = get_env(env_id)
    options = options or [{} for _ in agents]
    if len(options) != len(agents):
        raise ValueError(f"{len(agents)} agents but {len(options)} option sets")
    clients = clients or {}
    players: list[Any] = [
        _Served(spec, entry, opts)
        if entry.startswith(SERVE)
        else _Player(spec, entry, opts, seed, harness, limits, clients.get(i))
        for i, (entry, opts) in enumerate(zip(agents, options, strict=True))
    ]
    workspaces = [p.workspace for p in players if isinstance(p, _Served)]
    shared = next((w for w in workspaces if workspaces.count(w) > 1), None)
    if shared is not None:
        raise ValueError(f"two served seats share the workspace {shared}: give each served seat its own")
    if out is not None:
        require_new(out)
    preset = preset or spec.default_preset
    config, preset_hash = spec.load_config(preset)
    config = spec.with_horizon(config, horizon)
    secret = secret_from_env() if secret == "from-env" else secret
    files = [seat_dir(out, i) for i in range(len(agents))] if out is not None else None
    arena = spec.make_arena(config, seed, len(agents), preset, preset_hash, secret, files, **(world_options or {}))
    if out is not None:
        Path(out).mkdir(parents=True, exist_ok=True)
        write_json(
            Path(out) / ARENA_CONFIG,
            {
                "run_format": RUN_FORMAT,
                "env": spec.id,
                "preset": preset,
                "preset_hash": preset_hash,
                "seed": seed,
                "seats": len(agents),
                "agents": [p.name for p in players],
                "agent_options": options,
                "world_options": world_options or {},
                "config": config.model_dump(mode="json"),
            },
        )
    sessions = [
        Session(
            spec,
            env,
            seat_dir(out, i) if out is not None else None,
            agent=players[i].name,
            **players[i].meta,
            arena={"seat": i, "seats": len(agents)},
        )
        for i, env in enumerate(arena.seats)
    ]
    for i, (player, session) in enumerate(zip(players, sessions, strict=True)):
        player.gate = arena.gate
        player.open(session)
        if isinstance(player, _Served) and on_served is not None:
            on_served(i, player.server, player.workspace)
    try:
        play_seats(arena, [p.drive for p in players], sessions)
    finally:
        for player in players:
            if isinstance(player, _Served) and player.server is not None:
                player.server.stop(grace_s=5.0)
    results = [player.finish(session, i) for i, (player, session) in enumerate(zip(players, sessions, strict=True))]
    outcome = {"env": spec.id, "preset": preset, "seed": seed, "standings": standings(results), **arena.result()}
    if out is not None:
        write_json(Path(out) / STANDINGS, outcome)
    return outcome
