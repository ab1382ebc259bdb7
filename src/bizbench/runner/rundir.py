"""The run directory, written as the run goes (DESIGN.md principle 9); docs/run-format.md.

Layout shared by ``bizbench run``, ``bizbench serve``, ``bizbench resume`` and sweeps:

- ``config.json``: env, preset (and its hash), seed, agent, full config
- ``actions.jsonl``: every tool call and turn, appended and flushed as it happens
- ``metrics.jsonl``: one line per simulated day, appended as the day ends
- ``tamper.jsonl``: suspicious attempts (unknown tools, hidden tables, NaN spends ...)
- ``company.db``: the agent-visible SQLite database (ceo)
- ``ledger.csv``, ``cash.png``, then ``result.json`` (atomically, last): written when the run ends
- model runs add ``trajectory.jsonl``, ``system_prompt.txt`` and ``tools.json``; a resumed run
  adds ``attempts/`` (the killed attempts' files) and ``resume.jsonl``
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from bizbench.core.rng import secret_from_env, secret_id


def jsonable(value: Any) -> Any:
    """Plain JSON values from numpy scalars, tuples and non-string keys."""
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


#: The version of the layout documented in docs/run-format.md (config.json's ``run_format``).
RUN_FORMAT = 1

#: The folder of a run directory that keeps the files of its killed attempts (:mod:`bizbench.runner.resume`).
ATTEMPTS = "attempts"
#: What a directory being resumed holds before the run starts again.
RESUMING = frozenset({"config.json", ATTEMPTS, "resume.jsonl"})


def require_new(path: Path | None) -> None:
    """A run writes into a new or empty directory: appending a second run to a first one's
    trajectory and metrics would corrupt both. The one exception is a run being resumed,
    whose killed attempts ``bizbench resume`` has moved to ``attempts/``."""
    if path is None or not Path(path).is_dir():
        return
    names = {p.name for p in Path(path).iterdir()}
    if names and not (ATTEMPTS in names and names <= RESUMING):
        raise ValueError(
            f"the run directory {path} already holds a run; choose another --out or remove it "
            "(`bizbench resume` finishes a killed run)"
        )


def finite(value: Any) -> Any:
    """NaN and infinities (a model, a hand-edited file) as strings, so the value is strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


def iter_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """The complete JSON objects of a ``.jsonl`` log, one line at a time (a kill may leave the
    last line cut short; it is skipped, like a line that is not JSON)."""
    if not path.is_file():
        return
    with path.open(errors="replace") as f:
        for line in f:
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict):
                yield row


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """:func:`iter_jsonl` as a list."""
    return list(iter_jsonl(path))


def write_json(path: Path, data: dict[str, Any]) -> None:
    """A JSON file written atomically (a kill leaves the old file or the new one, never half)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(jsonable(data), indent=2) + "\n")
    tmp.replace(path)


def read_result(path: Path) -> dict[str, Any] | None:
    """result.json of a finished run, or None (absent, cut short by a kill, or not an object)."""
    try:
        data = json.loads((Path(path) / "result.json").read_text())
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None


def write_result(path: Path, result: dict[str, Any]) -> None:
    """result.json, written last: its presence means the run is finished."""
    write_json(Path(path) / "result.json", result)


class RunDir:
    """Append-only writer of one run directory."""

    def __init__(self, path: Path, config: dict[str, Any]) -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        held_out = secret_id(secret_from_env())  # worlds drawn under $BIZBENCH_SEED_SECRET (core.rng)
        write_json(self.path / "config.json", {"run_format": RUN_FORMAT, "seed_secret_id": held_out, **config})
        self.tamper_log.touch()  # an empty log is an explicit "no attempts"
        self._files: dict[str, IO[str]] = {}

    @property
    def db_path(self) -> Path:
        return self.path / "company.db"

    @property
    def tamper_log(self) -> Path:
        return self.path / "tamper.jsonl"

    def append(self, name: str, rows: list[dict[str, Any]]) -> None:
        """Append rows to ``<name>.jsonl`` and flush, so a crash loses nothing already done."""
        f = self._files.get(name)
        if f is None:
            f = self._files[name] = (self.path / f"{name}.jsonl").open("a")
        for row in rows:
            f.write(json.dumps(jsonable(row), default=str) + "\n")
        f.flush()

    def finish(self, result: dict[str, Any], ledger_rows: list[Any], plot: Callable[[Path], Any]) -> None:
        """Write the end-of-run files: ledger.csv, result.json and the cash plot (``plot(path)``)."""
        with (self.path / "ledger.csv").open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["day", "category", "amount", "group", "note"])
            for row in ledger_rows:
                w.writerow([row.day, row.category, f"{row.cents / 100:.2f}", row.group, row.note])
        plot(self.path / "cash.png")
        write_result(self.path, result)
        self.close()

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()
