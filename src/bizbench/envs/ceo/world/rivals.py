"""Rival companies in one market: what a lead weighs when several companies sell to its group.

Not in CEO-Bench, which has one company; this is the arena's extension of the world
(docs/arena.md "The ceo arena", equations A1-A3). With no rival every function here leaves the
single-player world as it is, and draws nothing.

- A1, reach: company k's reach in group g is what eq 28 multiplies by the market factors,
  ``reach_gk = R_gk (sum_c x_cgk L_cgk / 1000 + sum_h N_hk NET[h,g])``.
- A2, saturation: eq 29's D_g counts every company's subscribers of the group
  (``N_g = sum_k N_gk``), rivals' as at the start of the day.
- A3, choice: a lead company k reached knows k, and knows each rival j with probability
  ``reach_gj / (reach_gj + reach_gk)``. For every company it knows it takes that company's best
  plan (the largest surplus ``Del_gj F(quota_pj, u) - Q_req(C_pj)`` among the plans it can
  afford, eq 5-6 with company j's price C_pj after j's lead promotion), and it goes to the
  company with the largest positive surplus; a tie with k stays with k, a tie between rivals
  is drawn. A rival's price is seen without its channel promotions (its ads did not reach the
  lead). A lead that goes to rival j is sampled and paid for by k (k's ads reached it) and
  converts at j at the end of the day, with j's offer (reference-notes §3.4's test), as an
  organic lead of j.
- A5, tenders: an enterprise prospect that k's gate admits as a lead (reference-notes §3.4)
  also approaches each rival it knows (the same probability as A3). A rival whose own gate
  admits it opens a negotiation thread of its own at the end of the day. The firm negotiates
  with each company separately; once it signs with one, its open threads with the others close
  (the lead is lost to a rival). A firm that signs with several on the same day keeps each
  contract, splitting its business.
- A4, switching: an individual subscriber of k who cancels at its billing review (no plan of k
  is acceptable any more, reference-notes §4.22) shops as a lead does (A3), knowing each rival
  with the same probability, k's offer out of the running; one that prefers a rival converts
  there at the end of the day, as a new organic lead of j with its own persona.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from bizbench.envs.ceo.world.customers import SOURCE_ORGANIC
from bizbench.envs.ceo.world.drift import drifted_c_max, quality_band
from bizbench.envs.ceo.world.offer import best_plan, lead_offer
from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.promotions import lead_promotion
from bizbench.envs.ceo.world.state import Settings, WorldState

__all__ = ["PERSONA", "Market", "Rival", "best_surplus", "persona", "reach", "shop", "switchers", "tenders"]

#: a customer's own columns (``sampling.sample_customers``), which go with it to a rival (A4)
PERSONA = (
    "group", "s_left", "s_right", "c_max", "q_min", "q_max", "usage_demand", "seats", "reply_mean", "reply_sd",
    "negotiation_rate", "offer_factor", "max_turns", "lockin", "eta_ads", "rho_ads", "deal_noise",
)  # fmt: skip
#: leads, churners and tenders that went to a rival: (the rival's seat, group, their columns, and
#: "lead", "churner" or "tender"; a tender's columns hold ``origin``, its row at the company it came from)
Moved = list[tuple[int, int, dict[str, np.ndarray], str]]


@dataclass(frozen=True)
class Rival:
    """A rival company as a lead sees it at the start of a day: its public offer and its reach."""

    seat: int
    settings: Settings  # its prices, quotas and promotions (agents change them only between turns)
    delivered: np.ndarray  # Del_{g,p}: each group's delivered quality of each plan
    reach: np.ndarray  # A1, per group
    counts: np.ndarray  # its subscribers per group


@dataclass
class Market:
    """One company's rivals on one day, and the stream its leads' awareness and ties draw from."""

    rivals: list[Rival]
    own_reach: np.ndarray
    rng: np.random.Generator

    def rival_counts(self) -> np.ndarray:
        return np.sum([r.counts for r in self.rivals], axis=0)

    def awareness(self, rival: Rival, group: int) -> float:
        """A3: the chance a lead of ``group`` this company reached knows ``rival``,
        ``reach_gj / (reach_gj + reach_gk)`` (0 when neither reaches the group)."""
        total = rival.reach[group] + self.own_reach[group]
        return float(rival.reach[group] / total) if total > 0 else 0.0

    def send(self, choice: np.ndarray, group: int, cols: dict[str, np.ndarray], kind: str) -> Moved:
        """The rows of ``cols`` whose ``choice`` is a rival's position, by rival."""
        out: Moved = []
        for pos, rival in enumerate(self.rivals):
            mine = choice == pos
            if mine.any():
                out.append((rival.seat, group, {k: v[mine] for k, v in cols.items()}, kind))
        return out


def reach(state: WorldState, params: Params, counts: np.ndarray) -> np.ndarray:
    """A1: ``R_g (sum_c x_cg L_cg / 1000 + sum_h N_h NET[h,g])`` for discovered groups, 0 elsewhere."""
    a = state.config.acquisition
    channel = state.settings.ad_spend * state.channel_leads / a.ad_reference_spend
    network = (counts * state.discovered) @ params.referral
    return np.where(state.discovered, state.reputation * (channel.sum(axis=1) + network), 0.0)


def best_surplus(
    state: WorldState,
    settings: Settings,
    delivered_g: np.ndarray,
    group: int,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    sources: np.ndarray,
) -> np.ndarray:
    """Each lead's largest surplus over the plans of the company of ``settings`` it can afford
    (``-inf`` when it can afford none), the price after that company's lead promotion for a lead
    of ``sources`` (``offer.lead_offer``)."""
    promotion = lead_promotion(settings, group, sources)
    return best_plan(lead_offer(settings, delivered_g, promotion, cols, prefs, state.config.curve).surplus)[1]


def persona(state: WorldState, rows: np.ndarray) -> dict[str, np.ndarray]:
    """Customers ``rows`` as a rival receives them: their own columns (``PERSONA``), as organic leads."""
    cols = {name: getattr(state.customers, name)[rows] for name in PERSONA}
    cols["source"] = np.full(len(rows), SOURCE_ORGANIC)
    return cols


def shop(
    state: WorldState,
    market: Market,
    group: int,
    delivered: np.ndarray,
    cols: dict[str, np.ndarray],
    prefs: tuple[np.ndarray, np.ndarray, np.ndarray],
    leaving: bool = False,
) -> np.ndarray:
    """A3: for each lead, the position in ``market.rivals`` of the rival it goes to, or -1 when it
    stays with this company (``leaving``: this company is out of the running, A4)."""
    n = len(cols["group"])
    organic = np.full(n, SOURCE_ORGANIC)  # a rival did not reach the lead: no channel promotion of its applies
    if leaving:
        best = np.zeros(n)
    else:
        best = best_surplus(state, state.settings, delivered[group], group, cols, prefs, cols["source"])
        best = np.where(best > 0, best, 0.0)  # a rival must offer a positive surplus, and more than this company
    choice = np.full(n, -1, dtype=np.int64)
    tied = np.zeros(n, dtype=np.int64)
    draws = market.rng.random((2, len(market.rivals), n))
    for pos, rival in enumerate(market.rivals):
        aware = draws[0, pos] < market.awareness(rival, group)
        surplus = best_surplus(state, rival.settings, rival.delivered[group], group, cols, prefs, organic)
        better = aware & (surplus > best)
        tie = aware & (surplus == best) & (choice >= 0) & (surplus > 0)
        tied = np.where(better, 1, tied + tie)
        take = better | (tie & (draws[1, pos] * tied < 1.0))  # the m-th tied rival wins with chance 1/m
        choice = np.where(take, pos, choice)
        best = np.where(take, surplus, best)
    return choice


def switchers(
    state: WorldState,
    market: Market,
    delivered: np.ndarray,
    q_shift: np.ndarray,
    c_drift: np.ndarray,
    cancelled: np.ndarray,
) -> Moved:
    """A4: the subscribers who cancelled today at their billing review and prefer a rival, with
    their persona, by rival."""
    cust = state.customers
    floor = state.config.sampling.c_max_floor
    out: Moved = []
    groups = cust.group[cancelled]
    for g in np.unique(groups):
        idx = cancelled[groups == g]
        cols = persona(state, idx)
        prefs = (drifted_c_max(cust, idx, c_drift, floor), *quality_band(cust, idx, q_shift[g]))
        choice = shop(state, market, int(g), delivered, cols, prefs, leaving=True)
        out += market.send(choice, int(g), cols, "churner")
    return out


def tenders(state: WorldState, market: Market, group: int, leads: np.ndarray) -> Moved:
    """A5: the enterprise leads this company admitted today, as copies for each rival they know."""
    out: Moved = []
    draws = market.rng.random((len(market.rivals), len(leads)))
    for pos, rival in enumerate(market.rivals):
        knows = draws[pos] < market.awareness(rival, group)
        if knows.any():
            rows = leads[knows]
            cols = {**persona(state, rows), "origin": rows}
            out.append((rival.seat, group, cols, "tender"))
    return out
