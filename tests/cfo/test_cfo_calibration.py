"""The baseline ladder of issue 5 on 20 seeds (docs/calibration.md, "cfo calibration").

Targets, paper preset: always-pass goes bankrupt on every seed with a mean month in 25-50
(paper: GPT-5.4's passivity dies at 43 +- 14; independent runs of the original: ~33);
one-raise dies later; prudent-cfo survives >= 90 % of seeds with a mean score within 2x of
the human experts' $152.2M (Table 2). The random-macro ladder must keep the same order.
The late-leverage audit policy (issue 14) beats prudent-cfo on the paper's score, which counts
debt repaid after the horizon in full, but not on the hardened preset recommended for new
evaluations, nor net of its debt.
"""

from __future__ import annotations

from functools import cache
from statistics import mean
from typing import Any

import pytest

from bizbench.envs.cfo.baselines import make_policy, run_policy
from bizbench.envs.cfo.env import CfoEnv

SEEDS = range(1, 21)
HUMAN_SCORE = 152.2e6


@cache
def ladder(preset: str, agent: str) -> tuple[dict[str, Any], ...]:
    return tuple(run_policy(CfoEnv.from_preset(preset, s), make_policy(agent)) for s in SEEDS)


def test_always_pass_dies_between_month_25_and_50() -> None:
    runs = ladder("paper", "always-pass")
    assert all(r["bankrupt"] for r in runs)
    assert 25 <= mean(r["months_survived"] for r in runs) <= 50


def test_one_raise_dies_later_than_always_pass() -> None:
    one = mean(r["months_survived"] for r in ladder("paper", "one-raise"))
    never = mean(r["months_survived"] for r in ladder("paper", "always-pass"))
    assert one > never + 6


@pytest.mark.parametrize("preset", ["paper", "random-macro"])
def test_prudent_cfo_survives_and_scores_like_the_human_experts(preset: str) -> None:
    runs = ladder(preset, "prudent-cfo")
    assert sum(not r["bankrupt"] for r in runs) >= 0.9 * len(runs)
    assert HUMAN_SCORE / 2 <= mean(r["score"] for r in runs) <= HUMAN_SCORE * 2


def test_the_ladder_keeps_its_order_on_random_macro() -> None:
    months = {a: mean(r["months_survived"] for r in ladder("random-macro", a)) for a in ("always-pass", "one-raise")}
    assert months["always-pass"] < months["one-raise"]
    assert all(r["bankrupt"] for r in ladder("random-macro", "always-pass"))
    greedy = ladder("random-macro", "greedy-equity")
    assert mean(r["months_survived"] for r in greedy) > months["one-raise"]


def test_blind_equity_raises_are_weaker_when_hardened() -> None:
    """The hardened preset fixes the original's weakness: repeated blind raises no longer carry a run."""
    paper = mean(r["score"] for r in ladder("random-macro", "greedy-equity"))
    hardened = mean(r["score"] for r in ladder("hardened", "greedy-equity"))
    assert hardened < paper / 2


def _mean_score(preset: str, agent: str, seeds: tuple[int, ...], key: str = "score") -> float:
    return mean(run_policy(CfoEnv.from_preset(preset, s), make_policy(agent))[key] for s in seeds)


def test_late_leverage_does_not_beat_prudent_cfo_on_the_hardened_preset() -> None:
    seeds = (1, 2, 3)
    assert _mean_score("hardened", "late-leverage", seeds) < _mean_score("hardened", "prudent-cfo", seeds)
    # the weakness it audits: on the paper's score it wins, and loses once its debt is netted
    assert _mean_score("paper", "late-leverage", seeds) > _mean_score("paper", "prudent-cfo", seeds) + 50e6
    net = {a: _mean_score("paper", a, seeds, "score_net_of_debt") for a in ("late-leverage", "prudent-cfo")}
    assert net["late-leverage"] < net["prudent-cfo"]


@pytest.mark.slow
def test_late_leverage_does_not_beat_prudent_cfo_on_the_hardened_preset_over_the_audit_seeds() -> None:
    """The audit's seeds 1-10 and 17 (docs/calibration.md: $22.2M vs $25.8M on hardened;
    $272.0M vs $210.5M on the paper's score)."""
    seeds = (*range(1, 11), 17)
    assert _mean_score("hardened", "late-leverage", seeds) < _mean_score("hardened", "prudent-cfo", seeds)
