"""The Ray backend, on a local Ray instance started here, gives the local backend's results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sweep_helpers import spec_of

from bizbench.runner import sweep as sw

ray = pytest.importorskip("ray")

BASELINES = """
[[runs]]
env = "cfo"
agents = ["prudent-cfo", "greedy-debt"]
seeds = "1-2"

[[runs]]
env = "yc"
agents = ["greedy", "heuristic"]
seeds = 3
"""
#: wall-clock and machine fields, which differ between any two runs of the same world
VOLATILE = ("wall_seconds", "provenance")


def results(out: Path) -> dict[str, dict[str, Any]]:
    found = {}
    for path in sorted(out.glob("*/result.json")):
        result = json.loads(path.read_text())
        found[path.parent.name] = {k: v for k, v in result.items() if k not in VOLATILE}
    return found


@pytest.fixture
def local_ray() -> Any:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def test_ray_and_local_backends_give_identical_results(tmp_path: Path, local_ray: Any) -> None:
    (tmp_path / "local").mkdir()
    (tmp_path / "ray").mkdir()
    local = sw.run_sweep(spec_of(tmp_path / "local", BASELINES), "local", workers=2)
    on_ray = sw.run_sweep(spec_of(tmp_path / "ray", BASELINES), "ray")
    assert local.counts() == on_ray.counts() == {"done": 6}
    assert on_ray.workers == 2  # the cluster's CPUs
    a, b = results(tmp_path / "local" / "out"), results(tmp_path / "ray" / "out")
    assert len(a) == 6 and a == b
    assert ray.is_initialized()  # a Ray this process started itself is left running


def test_without_ray_the_backend_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "ray", None)
    with pytest.raises(sw.SweepError, match=r"pip install 'bizbench\[cluster\]'"):
        sw.RayBackend()


def test_a_tournament_on_ray_gives_the_local_ratings(tmp_path: Path, local_ray: Any) -> None:
    from bizbench.runner.tournament import TournamentSpec, run_tournament

    def spec(where: str) -> TournamentSpec:
        entrants = [{"name": n, "baseline": n} for n in ("greedy", "heuristic", "random")]
        data = {"env": "yc", "seeds": [1], "horizon": 2, "entrants": entrants, "out": str(tmp_path / where)}
        return TournamentSpec.model_validate(data)

    local = run_tournament(spec("local"), "local", workers=2, log=lambda line: None)
    on_ray = run_tournament(spec("ray"), "ray", log=lambda line: None)
    assert on_ray["matches"] == local["matches"] == 6
    assert on_ray["entrants"] == local["entrants"] and on_ray["head_to_head"] == local["head_to_head"]
