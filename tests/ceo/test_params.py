"""Params: the array form of a ceo preset (world/params.py)."""

from __future__ import annotations

import dataclasses

import numpy as np

from bizbench.envs.ceo.world.params import Params


def test_params_hold_the_presets_numbers_as_floats_and_seat_bounds_as_integers(cfg) -> None:
    """Every per-group column and matrix is float64 and equal to the preset's value (the referral
    matrix is per 1,000 subscribers in the preset, per subscriber here); seat bounds are int64 and
    the two flags (enterprise, influencer) boolean."""
    p = Params.from_config(cfg)
    assert np.array_equal(p.referral, np.array(cfg.referral_per_1000) / 1000.0)
    assert np.array_equal(p.spillover, np.array(cfg.reputation_spillover))
    assert p.seats_min.tolist() == [g.seats_min for g in cfg.groups]
    assert p.seats_max.tolist() == [g.seats_max for g in cfg.groups]
    assert (p.seats_min.dtype, p.seats_max.dtype) == (np.int64, np.int64)
    floats = {
        f.name: getattr(p, f.name).dtype
        for f in dataclasses.fields(p)
        if isinstance(getattr(p, f.name), np.ndarray)
        and f.name not in ("is_ent", "influencer", "seats_min", "seats_max")
    }
    assert (p.is_ent.dtype, p.influencer.dtype) == (np.bool_, np.bool_)
    assert set(floats.values()) == {np.dtype(np.float64)}, floats
