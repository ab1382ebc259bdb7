"""The CEO-Bench presets load, validate and carry the reference values.

Spot values are checked against docs/reference-notes.md (CEO-Bench part: §2, §3.1, §4.5, Appendices
A1-A3); override presets must differ from ``default`` only in the fields they target.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

from bizbench.core.presets import list_presets
from bizbench.envs.ceo.config import CHANNELS, CeoConfig, load_config

GROUP_ORDER = (
    ("S1", "S2", "S3", "E1", "E2", "E3")
    + tuple(f"D_S{i:02d}" for i in range(1, 11))
    + tuple(f"D_E{i:02d}" for i in range(1, 11))
)

# preset name -> {flattened model_dump path: expected value} of every field that may differ
# from default ("description" always differs).
OVERRIDES: dict[str, dict[str, Any]] = {
    "no-surges": {"surges.enabled": False},
    "no-competitor": {"competitor.enabled": False},
    "stationary-competitor": {
        "competitor.global_catchup": (0.0, 0.0),
        "competitor.targeted_catchup": (0.0, 0.0),
    },
    "competitor-u0.1": {"competitor.global_catchup": (0.1, 0.1)},
    "competitor-u0.2": {"competitor.global_catchup": (0.2, 0.2)},
    "competitor-u0.3": {"competitor.global_catchup": (0.3, 0.3)},
    "horizon-50": {"horizon_days": 50},
}
ALL_PRESETS = ("default", *OVERRIDES)


@pytest.fixture(scope="module")
def default() -> CeoConfig:
    cfg, _ = load_config("default")
    return cfg


def _group(cfg: CeoConfig, gid: str) -> Any:
    return cfg.groups[cfg.group_ids.index(gid)]


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def test_all_presets_are_shipped() -> None:
    assert set(ALL_PRESETS) <= set(list_presets("bizbench.envs.ceo"))


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_preset_loads(name: str) -> None:
    cfg, digest = load_config(name)
    assert isinstance(cfg, CeoConfig)
    assert cfg.description
    assert len(digest) == 64
    assert cfg.group_ids == GROUP_ORDER


def test_default_top_level(default: CeoConfig) -> None:
    assert default.horizon_days == 500
    assert default.start_cash == 1_000_000.0
    assert default.days_per_turn == 7
    assert default.surges.enabled
    assert default.competitor.enabled
    assert default.competitor.global_catchup == (0.2, 0.5)
    assert math.isclose(default.macro.phase, 1.5 * math.pi, rel_tol=0, abs_tol=1e-12)


def test_discoverability_and_kinds(default: CeoConfig) -> None:
    for g in default.groups:
        assert g.discoverable == (g.id not in GROUP_ORDER[:6]), g.id
        expected_kind = "ENT" if g.id.startswith(("E", "D_E")) else "IND"
        assert g.kind == expected_kind, g.id
        assert set(g.channel_leads) == set(CHANNELS)
        if g.kind == "IND":
            assert (g.seats_min, g.seats_max) == (1, 1), g.id
    influencers = {g.id for g in default.groups if g.influencer}
    assert influencers == {"S3", "E3", "D_S07", "D_S08", "D_E07"}


def test_matrix_shapes(default: CeoConfig) -> None:
    for m in (default.referral_per_1000, default.reputation_spillover):
        assert len(m) == 26
        assert all(len(row) == 26 for row in m)
    assert len(default.model_tiers) == 5
    assert len(default.capacity_tiers) == 8
    assert len(default.rnd_tiers) == 20
    assert [lv.level for lv in default.research.levels] == [2, 3, 4, 5]


def test_reference_spot_values(default: CeoConfig) -> None:
    ids = default.group_ids
    net, rep = default.referral_per_1000, default.reputation_spillover
    s1, s2, e3 = _group(default, "S1"), _group(default, "S2"), _group(default, "E3")
    # reference-notes §3.1
    assert s1.channel_leads["content_marketing"] == 320.3613
    assert _group(default, "D_E10").channel_leads["content_marketing"] == 0.1209
    # reference-notes Appendix A1 (x1000) and A2
    assert net[ids.index("S1")][ids.index("S1")] == 29
    assert net[ids.index("D_E10")][ids.index("D_E10")] == 0.333
    assert net[ids.index("D_E01")][ids.index("D_E08")] == 0.0175
    assert rep[ids.index("D_E10")][ids.index("D_E10")] == 2
    assert rep[ids.index("S3")][ids.index("S1")] == 0.4
    # reference-notes Appendix A3, §4.5, §4.1
    assert default.rnd_tiers[19].cost == 25e6
    assert default.rnd_tiers[19].duration_sd == 1120
    assert default.rnd_tiers[0].cost == 166_667
    assert default.capacity_tiers[7].capacity == 300e6
    assert default.capacity_tiers[7].cost_per_day == 75_000
    assert default.capacity_tiers[0].capacity == 50_000
    assert default.model_tiers[4].cost_per_unit == 0.030
    assert default.model_tiers[4].quality == 1.10
    # reference-notes §2.2-2.5
    assert (e3.seats_min, e3.seats_max) == (200, 2000)
    assert (e3.reply_delay_mu, e3.max_turns_mu) == (21, 14)
    assert _group(default, "D_E01").beta_lead == -0.45
    assert s2.indiv_drift.steepness_left == 0.0003
    assert (s1.c_max_mu, s1.c_max_sd) == (50, 27)
    assert s1.drift_c == 0.001 and s1.drift_q == 0.0
    assert _group(default, "S3").drift_q == 0.000625
    assert (s1.negotiation_rate_mu, s1.reply_delay_mu, s1.max_turns_mu) == (0.3, 5, 2)
    assert _group(default, "D_E09").seats_max == 350
    # reference-notes §4.25
    assert [lv.cost for lv in default.research.levels] == [60_000, 175_000, 350_000, 700_000]


@pytest.mark.parametrize("name", list(OVERRIDES))
def test_override_changes_only_intended_fields(name: str, default: CeoConfig) -> None:
    cfg, _ = load_config(name)
    base = _flatten(default.model_dump())
    over = _flatten(cfg.model_dump())
    assert base.keys() == over.keys()
    changed = {k for k in base if base[k] != over[k]}
    assert changed == {"description", *OVERRIDES[name]}
    for key, value in OVERRIDES[name].items():
        assert over[key] == value, key


def test_hashes_distinct_and_stable() -> None:
    first = {name: load_config(name)[1] for name in ALL_PRESETS}
    second = {name: load_config(name)[1] for name in ALL_PRESETS}
    assert first == second
    assert len(set(first.values())) == len(ALL_PRESETS)


# [fixes] flags added after runs were recorded (issue 14): a config.json written before a flag
# existed lacks it, and must be rebuilt with the behaviour it was recorded with (flag off).
LATER_FLAGS = (
    "enterprise_market_finite",
    "enterprise_gate_as_negotiation",
    "enterprise_counter_on_a_winnable_plan",
    "enterprise_decline_says_so",
    "enterprise_offer_within_budget",
)


def test_a_recorded_config_without_the_later_fixes_flags_is_rebuilt_with_them_off() -> None:
    """Replay and resume rebuild the world from config.json's ``config`` (runner/runconfig.py); a run
    recorded before these flags existed ran without their fixes, so the rebuilt config has them False
    (docs/principles.md principles 4 and 9; a default-preset run of seed 42 otherwise replays $8 off)."""
    from bizbench.core.envs import get_env

    recorded = load_config("default")[0].model_dump(mode="json")
    for flag in LATER_FLAGS:
        del recorded["fixes"][flag]
    rebuilt = get_env("ceo").validate_config(recorded)
    assert {flag: getattr(rebuilt.fixes, flag) for flag in LATER_FLAGS} == dict.fromkeys(LATER_FLAGS, False)


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_every_preset_but_engine_bugs_turns_the_later_fixes_flags_on(name: str) -> None:
    """The presets keep the behaviour they had when the flags were added: on in default and all that
    extend it, off in engine-bugs (the engine)."""
    fixes = load_config(name)[0].fixes
    assert {flag: getattr(fixes, flag) for flag in LATER_FLAGS} == dict.fromkeys(LATER_FLAGS, True)
    bugs = load_config("engine-bugs")[0].fixes
    assert {flag: getattr(bugs, flag) for flag in LATER_FLAGS} == dict.fromkeys(LATER_FLAGS, False)


def test_a_recorded_config_without_the_relationship_flag_keeps_a_relationship_of_zero() -> None:
    """``relationship_zero_kept`` came after runs were recorded whose code kept a relationship of 0
    as 0 (the fix): such a config.json is rebuilt with the flag on, so it replays as it ran; the
    engine-bugs preset turns it off and every other preset keeps it on."""
    from bizbench.core.envs import get_env

    for name in (*ALL_PRESETS, "engine-bugs"):
        recorded = load_config(name)[0].model_dump(mode="json")
        del recorded["fixes"]["relationship_zero_kept"]
        assert get_env("ceo").validate_config(recorded).fixes.relationship_zero_kept is True
        assert load_config(name)[0].fixes.relationship_zero_kept is (name != "engine-bugs")
