"""Shared pieces of the sweep tests: writing sweep files and scripts, a backend that runs nothing."""

from __future__ import annotations

import json
from collections import Counter, deque
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from bizbench.runner.sweep import RunSpec, SweepSpec, load_sweep, provider_of


def write_sweep(tmp_path: Path, body: str, name: str = "sweep.toml") -> Path:
    path = tmp_path / name
    path.write_text(f'out = "{tmp_path / "out"}"\n' + body)
    return path


def spec_of(tmp_path: Path, body: str) -> SweepSpec:
    return load_sweep(write_sweep(tmp_path, body))


def cfo_script(tmp_path: Path, name: str = "pass.jsonl") -> Path:
    """A react-json script that passes every month (token usage so the meters move)."""
    block = json.dumps({"type": "action", "name": "pass", "params": {}})
    reply = {"content": f"Nothing to do.\n```json\n{block}\n```", "usage": {"input_tokens": 120, "output_tokens": 9}}
    path = tmp_path / name
    path.write_text(json.dumps(reply) + "\n")
    return path


def scripted_cfo_block(script: Path, model_keys: str = "") -> str:
    """A ``[[runs]]`` block: the scripted model on cfo seeds 1-2, twice each (plus more model keys)."""
    return f'\n[[runs]]\nenv = "cfo"\nseeds = "1-2"\nn = 2\n[[runs.models]]\nmodel = "scripted:{script}"\n{model_keys}'


class FakeBackend:
    """Runs nothing: each job 'finishes' in submission order with a made-up result costing
    ``cost`` dollars per model run, and records how many jobs were in flight per provider."""

    def __init__(self, slots: int, cost: float = 0.0) -> None:
        self.slots = slots
        self.cost = cost
        self.queue: deque[tuple[Hashable, dict[str, Any]]] = deque()
        self.in_flight: Counter[str | None] = Counter()
        self.peak: Counter[str | None] = Counter()
        self.peak_total = 0
        self.submitted: list[str] = []

    def submit(self, key: Hashable, job: dict[str, Any]) -> None:
        run = RunSpec(**job["run"])
        provider = provider_of(run.agent) if run.kind == "model" else None
        self.queue.append((key, job))
        self.submitted.append(run.name)
        self.in_flight[provider] += 1
        self.peak[provider] = max(self.peak[provider], self.in_flight[provider])
        self.peak_total = max(self.peak_total, len(self.queue))

    def wait(self) -> list[tuple[Hashable, dict[str, Any]]]:
        key, job = self.queue.popleft()
        run = RunSpec(**job["run"])
        provider = provider_of(run.agent) if run.kind == "model" else None
        self.in_flight[provider] -= 1
        cost = self.cost if run.kind == "model" else 0.0
        result = {"env": run.env, "seed": run.seed, "cost_usd": cost, "seed_secret_id": job["secret_id"]}
        return [(key, {"status": "done", "result": result, "note": ""})]

    def close(self) -> None:
        pass
