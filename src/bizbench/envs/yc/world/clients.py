"""Clients: reward multipliers, trust, and the hidden adversaries with their scope creep.

Paper section 3 "Clients" and "Adversarial clients", Table 2 ("Clients 6", "Trust",
"Adversarial"); trust formulas from the reference (reference-notes "Clients, trust, adversaries"):

* trust t in [0, 5], one value per client, starting at 0;
* a success for client c: t_c += 1.6 (1 - t_c / 5)^1.5 (capped at 5);
* every success costs every *other* client 0.018 ("focus pressure", floor 0);
* decay 0.009 per calendar day, applied continuously (floor 0);
* work required from client c is cut by 0.5 x t_c / 5 (50 % at max trust, linear);
* exactly round(6 x 0.35) = 2 adversarial clients, chosen by the seed; after acceptance
  their tasks need at least 3x the advertised work (scope creep). Adversarial status is
  never shown (docs/principles.md principle 3).

Trust is stored lazily as (value, as_of) so that reading it costs nothing per simulated day.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bizbench.envs.yc.config import Clients, Triangular, Trust
from bizbench.envs.yc.world.clock import MINUTES_PER_DAY

__all__ = [
    "Client",
    "draw_clients",
    "trust_gain",
    "work_factor",
]


@dataclass(slots=True)
class Client:
    name: str
    multiplier: float  # reward multiplier (agent sees only its tier band)
    adversarial: bool  # HIDDEN
    trust_value: float = 0.0
    trust_as_of: int = 0  # minute at which trust_value was exact
    succeeded: int = 0
    failed: int = 0
    cancelled: int = 0

    def trust(self, t: int, cfg: Trust) -> float:
        """Trust at minute ``t`` (>= ``trust_as_of``): linear decay per calendar day, floor 0."""
        if cfg.decay_per_day <= 0 or t <= self.trust_as_of:
            return self.trust_value
        return max(0.0, self.trust_value - cfg.decay_per_day * (t - self.trust_as_of) / MINUTES_PER_DAY)

    def set_trust(self, t: int, value: float, cfg: Trust) -> None:
        self.trust_value = min(cfg.max, max(0.0, value))
        self.trust_as_of = t


def tier_label(multiplier: float, cfg: Clients) -> str:
    lo, hi = cfg.tier_thresholds
    return cfg.tier_names[0] if multiplier < lo else cfg.tier_names[1] if multiplier < hi else cfg.tier_names[2]


def _triangular(rng: np.random.Generator, tri: Triangular) -> float:
    return float(rng.triangular(tri.low, tri.mode, tri.high))


def draw_clients(cfg: Clients, trust: Trust, rng: np.random.Generator) -> list[Client]:
    """The clients of one seed (stream ``clients``): names, which are adversarial, multipliers.

    Draw order is fixed (names, adversarial set, then one honest and one adversarial
    multiplier per client) so the stream stays aligned whatever the preset's shares are.
    """
    names = [cfg.names[i] for i in rng.permutation(len(cfg.names))[: cfg.count].tolist()]
    adversarial = set(rng.permutation(cfg.count)[: cfg.adversarial_count].tolist())
    out = []
    for i, name in enumerate(names):
        honest_m = _triangular(rng, cfg.multiplier)
        adv_m = _triangular(rng, cfg.adversarial_multiplier)
        is_adv = i in adversarial
        m = round(adv_m if is_adv else honest_m, 4)
        out.append(Client(name=name, multiplier=m, adversarial=is_adv, trust_value=trust.initial))
    return out


def trust_gain(t: float, cfg: Trust) -> float:
    """Trust gained by one success at trust ``t``: 1.6 (1 - t/5)^1.5 (ref)."""
    return cfg.gain_scale * max(0.0, 1.0 - t / cfg.max) ** cfg.gain_exponent


def work_factor(t: float, cfg: Trust) -> float:
    """Share of the base work a client at trust ``t`` asks for: 1 - 0.5 t / 5 (Table 2, linear)."""
    return 1.0 - cfg.max_work_reduction * min(t, cfg.max) / cfg.max


def on_success(clients: list[Client], winner: int, t: int, cfg: Trust) -> tuple[float, float]:
    """Apply a success for client ``winner`` at minute ``t``; returns (trust before, trust after)."""
    before = clients[winner].trust(t, cfg)
    for i, c in enumerate(clients):
        now = c.trust(t, cfg)
        if i == winner:
            c.set_trust(t, now + trust_gain(now, cfg), cfg)
        else:
            c.set_trust(t, now - cfg.focus_pressure, cfg)
    return before, clients[winner].trust_value


def on_failure(client: Client, t: int, cfg: Trust) -> None:
    """A failed task costs its client ``fail_loss`` trust (0 in the paper presets)."""
    if cfg.fail_loss > 0:
        client.set_trust(t, client.trust(t, cfg) - cfg.fail_loss, cfg)
