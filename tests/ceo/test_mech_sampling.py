"""Per-customer sampling from group distributions (paper eq 4; reference-notes §2.1), statistically."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bizbench.envs.ceo.world.sampling import sample_customers
from bizbench.envs.ceo.world.state import WorldState

N = 40_000


@pytest.fixture(scope="module")
def s3_sample(cfg, params):
    st = WorldState(config=cfg, seed=1)
    return sample_customers(np.random.default_rng(2024), st, params, 2, N, q_shift=0.0, c_drift=0.0)  # S3


@pytest.fixture(scope="module")
def e1_sample(cfg, params):
    st = WorldState(config=cfg, seed=1)
    return sample_customers(np.random.default_rng(77), st, params, 3, N, q_shift=0.0, c_drift=0.0)  # E1


def test_steepness_distributions(s3_sample):
    """Ref §2.1: s_L = clip(Exp(1) + 0.2, 0.2, 6); s_R = clip(Exp(2) + 0.8, 0.5, 7).
    E[min(Exp(s), b)] = s (1 - e^{-b/s})."""
    s_l, s_r = s3_sample["s_left"], s3_sample["s_right"]
    assert s_l.min() >= 0.2 and s_l.max() <= 6.0
    assert s_r.min() >= 0.8 and s_r.max() <= 7.0
    m_l = 0.2 + 1.0 * (1 - math.exp(-5.8))
    m_r = 0.8 + 2.0 * (1 - math.exp(-6.2 / 2))
    assert abs(s_l.mean() - m_l) < 4 * 1.0 / math.sqrt(N)
    assert abs(s_r.mean() - m_r) < 4 * 2.0 / math.sqrt(N)


def test_c_max_uses_1_2_sigma_and_floor(s3_sample):
    """Ref §2.1: c_max = max(15, N(mu_c, 1.2 sigma_c)); S3 mu 180, sigma 75 -> sd 90.
    The floor leaves median and IQR untouched: median 180, IQR 1.349 x 90."""
    c = s3_sample["c_max"]
    assert c.min() == 15.0
    assert abs(np.median(c) - 180) < 3.0
    q75, q25 = np.percentile(c, [75, 25])
    assert (q75 - q25) == pytest.approx(2 * 0.6744898 * 90, rel=0.03)


def test_quality_band_and_usage(s3_sample):
    """Ref §2.1: q_min = max(1e-4, N(0.25, 0.07)); q_max = q_min + max(1e-4, N(0.55, 0.1));
    usage = max(1, N(450, 250))."""
    q_min, q_max = s3_sample["q_min"], s3_sample["q_max"]
    assert q_min.min() >= 1e-4
    assert abs(q_min.mean() - 0.25) < 4 * 0.07 / math.sqrt(N)
    rng_ = q_max - q_min
    assert rng_.min() >= 1e-4 - 1e-12
    assert abs(rng_.mean() - 0.55) < 4 * 0.1 / math.sqrt(N)
    assert s3_sample["usage_demand"].min() >= 1.0
    assert abs(np.median(s3_sample["usage_demand"]) - 450) < 10


def test_enterprise_traits(e1_sample):
    """Ref §2.1 / §2.4 for E1: seats uniform integers in [50, 500] inclusive; offer factor
    clip(N(0.75, 0.05), 0.5, 0.95); max turns max(2, round(N(6, 2))); reply-delay mean
    max(0.5, N(5 / M_deal, 0.5 x 2)) with M_deal = 1 at start."""
    seats = e1_sample["seats"]
    assert seats.min() == 50 and seats.max() == 500
    assert np.all(seats == np.round(seats))
    f = e1_sample["offer_factor"]
    assert f.min() >= 0.5 and f.max() <= 0.95
    assert abs(f.mean() - 0.75) < 0.002
    turns = e1_sample["max_turns"]
    assert turns.min() == 2
    assert abs(np.median(turns) - 6) <= 0.5
    assert abs(np.median(e1_sample["reply_mean"]) - 5.0) < 0.05
    assert e1_sample["reply_mean"].min() >= 0.5


def test_customers_do_not_depend_on_batching(cfg, params):
    """Principle 4: the k-th prospect of a group is the same whether leads arrive 5 at once or
    3 then 2 (each customer consumes its own block of draws)."""
    st = WorldState(config=cfg, seed=1)
    together = sample_customers(np.random.default_rng(5), st, params, 0, 5, q_shift=0.0, c_drift=0.0)
    rng = np.random.default_rng(5)
    first, second = (
        sample_customers(rng, st, params, 0, 3, q_shift=0.0, c_drift=0.0),
        sample_customers(rng, st, params, 0, 2, q_shift=0.0, c_drift=0.0),
    )
    for col in ("c_max", "q_min", "q_max", "s_left", "s_right", "usage_demand", "eta_ads", "deal_noise"):
        assert np.array_equal(together[col], np.concatenate([first[col], second[col]])), col


# Two E1 prospects from scripted uniforms (docs/reference-notes.md §2.1, eq 4). Each customer's 16 draws: 4 uniforms,
# then 6 values 1 - u1 and 6 values u2 of the Box-Muller transform: z_j = r_j cos(2 pi u2_j),
# z_{j+6} = r_j sin(2 pi u2_j), r_j = sqrt(-2 ln u1_j). u1_j = exp(-r_j^2 / 2) gives the radius r_j.
_R = (1.0, 0.8, 1.2, 0.6, 1.1, 0.9)
_ANGLE = (0.05, 0.15, 0.3, 0.45, 0.6, 0.85)
_U = (0.3, 0.6, 0.25, 0.7)


def _block(radii, angles, uniforms):
    return [*uniforms, *(1.0 - math.exp(-r * r / 2) for r in radii), *angles]


def _z(radii, angles):
    return [r * math.cos(2 * math.pi * a) for r, a in zip(radii, angles, strict=True)] + [
        r * math.sin(2 * math.pi * a) for r, a in zip(radii, angles, strict=True)
    ]


def _two_e1_prospects(cfg, params, fake_rng, gidx, drift_once=True):
    st = WorldState(config=cfg, seed=1)
    if not drift_once:
        st.config = cfg.model_copy(update={"fixes": cfg.fixes.model_copy(update={"drift_counted_once": False})})
    st.day = 37
    e1 = gidx["E1"]
    st.macro_multipliers[e1, 2] = 2.0  # M_deal = 2 halves the reply-delay mean
    # the state's drift after a competitor event of today; the prospects get the start of the day's
    st.q_drift_global, st.q_drift_group[e1], st.c_drift_group[e1] = 0.5, 0.5, -90.0
    # customer B: radius 5 at angle 1/4: z_0..z_5 = 0 (cos), z_6..z_11 = 5 (sin); u0 = 0.999, u2 = 0.9999
    block = [_block(_R, _ANGLE, _U), _block((5.0,) * 6, (0.25,) * 6, (0.999, 0.999, 0.9999, 0.0))]
    return sample_customers(fake_rng(random=[block]), st, params, e1, 2, q_shift=0.03 + 0.05, c_drift=-45.0)


def test_every_trait_of_a_scripted_e1_prospect_follows_its_own_draw(cfg, params, fake_rng, gidx):
    """docs/reference-notes.md §2.1 for E1 (c_max 55/23, q_min 0.5/0.06, q_range 0.45/0.1, usage 60/38, seats 50-500,
    reply delay 5/2, negotiation 0.4/0.1, turns 6/2, lock-in 0.1/0.04, eta 0.08/0.03, rho 0.2/0.06),
    each trait from its own uniform or normal; with ``drift_counted_once`` the drift is not stored."""
    z = _z(_R, _ANGLE)  # 0.951, 0.470, -0.371, -0.571, -0.890, 0.529, 0.309, 0.647, 1.141, 0.185, -0.647, -0.728
    p = _two_e1_prospects(cfg, params, fake_rng, gidx)
    a = {k: v[0] for k, v in p.items()}
    assert a["s_left"] == pytest.approx(-math.log(0.7) + 0.2)  # 0.557
    assert a["s_right"] == pytest.approx(-2 * math.log(0.4) + 0.8)  # 2.633
    assert a["seats"] == 162  # 50 + floor(0.25 x 451) = 50 + 112
    assert a["deal_noise"] == pytest.approx(1.01)  # 0.8 + (1.1 - 0.8) x 0.7
    assert a["c_max"] == pytest.approx(55 + 1.2 * 23 * z[0])  # 81.25: no drift stored
    assert a["q_min"] == pytest.approx(0.5 + 0.06 * z[1])  # 0.528
    assert a["q_max"] == pytest.approx(0.5 + 0.06 * z[1] + 0.45 + 0.1 * z[2])  # 0.528 + 0.413
    assert a["usage_demand"] == pytest.approx(60 + 38 * z[3])  # 38.3
    assert a["reply_mean"] == pytest.approx(5 / 2 + 0.5 * 2 * z[4])  # 1.61
    assert a["reply_sd"] == pytest.approx(2 + 0.3 * 2 * z[5])  # 2.317
    assert a["negotiation_rate"] == pytest.approx(0.4 + 0.1 * z[6])  # 0.431
    assert a["offer_factor"] == pytest.approx(0.75 + 0.05 * z[7])  # 0.782
    assert a["max_turns"] == 8  # round(6 + 2 x 1.141) = round(8.28)
    assert a["lockin"] == pytest.approx(0.1 + 0.04 * z[9])  # 0.107
    assert a["eta_ads"] == pytest.approx(0.08 + 0.03 * z[10])  # 0.061
    assert a["rho_ads"] == pytest.approx(0.2 + 0.06 * z[11])  # 0.156
    assert list(p["group"]) == [gidx["E1"]] * 2
    assert list(p["created_day"]) == [37, 37]
    assert list(p["satisfaction"]) == [0.5, 0.5]
    assert list(p["relationship"]) == [0.5, 0.5]


def test_a_far_draw_meets_each_trait_s_bound(cfg, params, fake_rng, gidx):
    """docs/reference-notes.md §2.1 bounds: s_L <= 6, s_R <= 7, seats <= 500, negotiation <= 0.8, offer factor <= 0.95,
    for customer B (u0 = u1 = 0.999, u2 = 0.9999, z_6..z_11 = 5)."""
    b = {k: v[1] for k, v in _two_e1_prospects(cfg, params, fake_rng, gidx).items()}
    assert b["s_left"] == 6.0  # -ln(0.001) + 0.2 = 7.1
    assert b["s_right"] == 7.0  # 13.8 + 0.8
    assert b["seats"] == 500  # 50 + floor(0.9999 x 451) = 500
    assert b["deal_noise"] == pytest.approx(0.8)  # u3 = 0
    assert b["c_max"] == pytest.approx(55.0)  # z_0 = 0
    assert b["negotiation_rate"] == pytest.approx(0.8)  # 0.4 + 0.5 = 0.9, clipped
    assert b["offer_factor"] == pytest.approx(0.95)  # 0.75 + 0.25 = 1.0, clipped
    assert b["max_turns"] == 16  # 6 + 2 x 5
    assert b["lockin"] == pytest.approx(0.3)  # 0.1 + 0.04 x 5
    assert b["eta_ads"] == pytest.approx(0.23)  # 0.08 + 0.03 x 5
    assert b["rho_ads"] == pytest.approx(0.5)  # 0.2 + 0.06 x 5


def test_without_the_drift_fix_a_prospect_stores_the_drift_of_the_start_of_its_day(cfg, params, fake_rng, gidx):
    """docs/reference-notes.md §4.7 (the engine): q_min gets the global (+0.03) and the group's (+0.05) drift, c_max the
    group's c-drift (-45) under its $15 floor: A 81.25 - 45 = 36.25, B 55 - 45 = 10 -> 15; the drift of the start of
    the day (§1.2), not the state's after today's competitor event."""
    z = _z(_R, _ANGLE)
    p = _two_e1_prospects(cfg, params, fake_rng, gidx, drift_once=False)
    assert p["q_min"][0] == pytest.approx(0.5 + 0.06 * z[1] + 0.08)
    assert p["q_max"][0] == pytest.approx(0.5 + 0.06 * z[1] + 0.08 + 0.45 + 0.1 * z[2])
    assert p["c_max"][0] == pytest.approx(55 + 1.2 * 23 * z[0] - 45)
    assert p["c_max"][1] == 15.0


@pytest.mark.parametrize("drift_once", [True, False])
def test_a_days_prospects_of_several_groups_in_one_pass_are_each_groups_own_sample(cfg, params, drift_once):
    """``prospects`` over the day's rows of several groups (each group's draws from its own stream, as
    ``generate_leads`` takes them) gives every trait exactly as ``sample_customers`` of each group alone."""
    from bizbench.envs.ceo.world.sampling import draw_prospects, prospects

    cfg = cfg.model_copy(update={"fixes": cfg.fixes.model_copy(update={"drift_counted_once": drift_once})})
    st = WorldState(config=cfg, seed=1)
    st.macro_multipliers[:, 2] = np.linspace(0.8, 1.2, len(cfg.groups))  # the deal multiplier differs by group
    q_shift, c_drift = np.linspace(0.0, 0.05, len(cfg.groups)), np.linspace(-2.0, 3.0, len(cfg.groups))
    day = {0: 7, 2: 3, 3: 5, 4: 1}  # group: leads
    alone = [
        sample_customers(np.random.default_rng(g), st, params, g, n, q_shift=q_shift[g], c_drift=c_drift[g])
        for g, n in day.items()
    ]
    rows = np.repeat(list(day), list(day.values()))
    block = np.concatenate([draw_prospects(np.random.default_rng(g), n) for g, n in day.items()])
    together = prospects(st, params, rows, block, q_shift=q_shift[rows], c_drift=c_drift[rows])
    assert set(together) == set(alone[0])
    for name, values in together.items():
        assert values.tobytes() == np.concatenate([a[name] for a in alone]).tobytes(), name
