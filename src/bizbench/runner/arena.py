"""``bizbench arena ENV``: rival companies in one market, one agent a seat (docs/arena.md).

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

from bizbench.core.envs import get_env
from bizbench.core.jsonio import read_json, write_json
from bizbench.core.rng import secret_from_env
from bizbench.core.runlog import RUN_FORMAT, require_new
from bizbench.core.session import Session

__all__ = ["ARENA_CONFIG", "STANDINGS", "play_seats", "run_arena", "seat_dir", "standings"]

ARENA_CONFIG = "arena.json"
STANDINGS = "standings.json"


def seat_dir(out: Path, seat: int) -> Path:
    """Seat ``seat``'s run directory inside an arena directory."""
    return Path(out) / f"seat-{seat}"


def play_seats(arena: Any, drivers: list[Callable[[Any], None]], sessions: list[Session]) -> None:
    """Run ``drivers[i](sessions[i])`` in a thread per seat until each returns; a seat leaves the
    arena when its driver returns or fails, and a failure stops the arena and is raised here."""
    errors: list[BaseException | None] = [None] * len(sessions)

    def play(i: int) -> None:
        try:
            drivers[i](sessions[i])
        except BaseException as error:  # noqa: BLE001 - re-raised below, once every seat stopped
            errors[i] = error
            arena.gate.abort(error)
        finally:
            arena.gate.leave(i)

    threads = [threading.Thread(target=play, args=(i,), name=f"arena-seat-{i}") for i in range(len(sessions))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    first = next((e for e in errors if e is not None), None)
    if first is not None:
        raise first


def standings(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each seat's agent, score and rank (1 = the highest score; equal scores share a rank)."""
    rows = [
        {
            "seat": i,
            "agent": r.get("agent"),
            "score": r["score"],
            "final_cash": r["final_cash"],
            "bankrupt": r["bankrupt"],
        }
        for i, r in enumerate(results)
    ]
    for row in rows:
        row["rank"] = 1 + sum(other["score"] > row["score"] for other in rows)
    return rows


def run_arena(
    env_id: str,
    agents: list[str],
    seed: int = 42,
    preset: str | None = None,
    horizon: int | None = None,
    out: Path | None = None,
    options: list[dict[str, Any]] | None = None,
    secret: str | None | Literal["from-env"] = "from-env",
) -> dict[str, Any]:
    """An arena of ``len(agents)`` seats, seat i played by the baseline ``agents[i]`` (with
    ``options[i]``); returns standings.json's content."""
    spec = get_env(env_id)
    options = options or [{} for _ in agents]
    if len(options) != len(agents):
        raise ValueError(f"{len(agents)} agents but {len(options)} option sets")
    baselines = [spec.check_baseline(name, opts) for name, opts in zip(agents, options, strict=True)]
    if out is not None:
        require_new(out)
    preset = preset or spec.default_preset
    config, preset_hash = spec.load_config(preset)
    config = spec.with_horizon(config, horizon)
    secret = secret_from_env() if secret == "from-env" else secret
    arena = spec.make_arena(config, seed, len(agents), preset, preset_hash, secret)
    names = [b.name for b in baselines]
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
                "agents": names,
                "agent_options": options,
                "config": config.model_dump(mode="json"),
            },
        )
    sessions = [
        Session(
            spec,
            env,
            seat_dir(out, i) if out is not None else None,
            agent=names[i],
            agent_options=options[i],
            arena={"seat": i, "seats": len(agents)},
        )
        for i, env in enumerate(arena.seats)
    ]
    policies = [b.make(seed, **opts) for b, opts in zip(baselines, options, strict=True)]
    turns = [0] * len(agents)

    def driver(i: int) -> Callable[[Session], None]:
        def drive(session: Session) -> None:
            while not session.done:
                policies[i].act(session)
                turns[i] += 1

        return drive

    play_seats(arena, [driver(i) for i in range(len(agents))], sessions)
    results = [
        s.finish(agent=names[i], agent_options=options[i], turns=turns[i], arena_seat=i) for i, s in enumerate(sessions)
    ]
    outcome = {"env": spec.id, "preset": preset, "seed": seed, "standings": standings(results), **arena.result()}
    if out is not None:
        write_json(Path(out) / STANDINGS, outcome)
    return outcome


def read_arena(path: Path) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """(arena.json, standings.json) of an arena directory, each None when absent or unreadable."""
    return read_json(Path(path) / ARENA_CONFIG), read_json(Path(path) / STANDINGS)
