"""Per-domain prestige (paper section 3 "Tasks and domains"; Table 2 "Prestige", "Deadlines").

Prestige lies in [1, 10] per domain and does not decay. A task may be accepted only when the
company's prestige in its domain is at least the task's required prestige. Each task carries a
prestige delta (reference-notes: 0.35 x Beta(1.2, 2.8), drawn with the task and shown in the market):

* success: prestige += delta;
* failure: prestige -= fail_prestige_factor x delta (1 x in the default preset, CHOSEN);
* cancel:  prestige -= 1.5 x delta (Table 2 "Cancel penalty 1.5x delta").

All changes are clipped to the range.
"""

from __future__ import annotations

from bizbench.envs.yc.config import Prestige

__all__ = ["adjust", "initial_prestige", "meets"]


def initial_prestige(domains: tuple[str, ...], cfg: Prestige) -> dict[str, float]:
    return {d: cfg.initial for d in domains}


def adjust(prestige: dict[str, float], domain: str, delta: float, cfg: Prestige) -> float:
    """Add ``delta`` (signed) to a domain's prestige, clipped to [min, max]; returns the applied change."""
    before = prestige[domain]
    after = min(cfg.max, max(cfg.min, before + delta))
    prestige[domain] = after
    return after - before


def meets(prestige: dict[str, float], domain: str, required: int) -> bool:
    """Whether the company's prestige in ``domain`` reaches ``required`` (to 1e-9)."""
    return prestige[domain] + 1e-9 >= required
