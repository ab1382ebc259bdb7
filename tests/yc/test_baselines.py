"""The yc baseline ladder over seeds 1-10 (issue targets; docs/calibration.md) and `bizbench run yc`."""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from bizbench.envs.yc.baselines import make_policy, run_policy
from bizbench.envs.yc.env import YcEnv

SEEDS = range(1, 11)


def _finals(agent: str) -> list[tuple[float, bool]]:
    out = []
    for seed in SEEDS:
        r = run_policy(YcEnv.from_preset("default", seed), make_policy(agent, seed)).result()
        out.append((r["final_funds"], r["bankrupt"]))
    return out


@pytest.fixture(scope="module")
def ladder() -> dict[str, list[tuple[float, bool]]]:
    return {agent: _finals(agent) for agent in ("do-nothing", "random", "greedy", "heuristic")}


def test_do_nothing_goes_bankrupt_on_payroll(ladder: dict[str, list[tuple[float, bool]]]) -> None:
    assert all(bankrupt for _, bankrupt in ladder["do-nothing"])


def test_random_goes_bankrupt_on_most_seeds(ladder: dict[str, list[tuple[float, bool]]]) -> None:
    assert sum(bankrupt for _, bankrupt in ladder["random"]) >= 7


def test_greedy_ends_between_bankrupt_and_about_500k(ladder: dict[str, list[tuple[float, bool]]]) -> None:
    finals = [f for f, _ in ladder["greedy"]]
    assert max(finals) < 1_000_000
    assert statistics.mean(finals) < 600_000


def test_heuristic_beats_a_million_and_three_greedies_on_every_seed(
    ladder: dict[str, list[tuple[float, bool]]],
) -> None:
    greedy_mean = statistics.mean(f for f, _ in ladder["greedy"])
    bar = max(1_000_000, 3 * greedy_mean)
    assert all(f >= bar and not b for f, b in ladder["heuristic"]), (bar, ladder["heuristic"])


def test_baselines_are_deterministic() -> None:
    a = run_policy(YcEnv.from_preset("default", 4), make_policy("heuristic")).state_digest()
    b = run_policy(YcEnv.from_preset("default", 4), make_policy("heuristic")).state_digest()
    assert a == b


def test_run_yc_writes_a_run_directory(tmp_path: Path) -> None:
    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "bizbench.cli", "run", "yc", "--agent", "greedy", "--seed", "3", "--out", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads((out / "result.json").read_text())
    assert result["env"] == "yc" and result["agent"] == "greedy" and result["seed"] == 3
    assert result["done"] and "provenance" in result
    for name in ("config.json", "actions.jsonl", "metrics.jsonl", "ledger.csv", "cash.png"):
        assert (out / name).stat().st_size > 0, name
