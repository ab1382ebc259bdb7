"""Enterprise negotiation threads, offer evaluation and counter-offers (eq 39-42; reference-notes §4.23).

Threads are few, so they are small Python objects; the customers they concern are rows of
the customer columns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bizbench.envs.ceo.config import PLANS
from bizbench.envs.ceo.world.curve import max_acceptable_price, required_quality
from bizbench.envs.ceo.world.customers import CANCELLED, LEAD, LOST, REASON_ENTERPRISE, SUBSCRIBED
from bizbench.envs.ceo.world.drift import drifted_c_max, quality_band
from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.promotions import ad_strength, ongoing_promotion
from bizbench.envs.ceo.world.quality import (
    MarketView,
    effective_ad_load,
    perceived_quality,
    quota_factor,
    relationship_as_read,
)
from bizbench.envs.ceo.world.state import WorldState
from bizbench.envs.ceo.world.usage import draw_usage_rate, weekly_factor

NEW_LEAD, CHURN_PREVENTION, PLAN_CHANGE, RENEGOTIATION = "new_lead", "churn_prevention", "plan_change", "renegotiation"
DECLINE_TEXT = "We are ending these talks: at the quality we see, no price on the plans offered works for us."


@dataclass
class MessageIds:
    """Message ids, unique across all threads of a world in the order written (``enterprise_turns``)."""

    last: int = 0

    def next(self) -> int:
        self.last += 1
        return self.last


@dataclass
class Thread:
    thread_id: int
    customer: int
    kind: str
    opened_day: int
    turns: list[dict[str, Any]] = field(default_factory=list)
    awaiting_agent: bool = True
    last_counterparty_day: int = 0
    next_reply_day: int | None = None
    offers: list[tuple[int, float]] = field(default_factory=list)
    agent_turn: int = 0  # turn number of the agent's latest message in the thread
    status: str = "open"  # open, accepted, agent_rejected, timeout, ghosted, declined, customer_churned
    message_ids: MessageIds = field(default_factory=MessageIds, repr=False, compare=False)  # shared by the book

    def add_turn(self, sender: str, day: int, text: str, offer: Any = None) -> None:
        """Append a message; ``message_id`` is unique across all threads, in the order written."""
        self.turns.append(
            {
                "message_id": self.message_ids.next(),
                "turn": len(self.turns),
                "sender": sender,
                "day": day,
                "text": text,
                "offer": offer,
            }
        )


@dataclass
class EnterpriseBook:
    """All negotiation threads of a world."""

    threads: list[Thread] = field(default_factory=list)
    open_by_customer: dict[int, Thread] = field(default_factory=dict)
    message_ids: MessageIds = field(default_factory=MessageIds, repr=False)

    def open_thread(self, customer: int, kind: str, day: int, text: str | None) -> Thread:
        """Open a thread; ``text`` is the system's turn 0 (None when the agent's offer is turn 0)."""
        t = Thread(len(self.threads) + 1, customer, kind, day, last_counterparty_day=day, message_ids=self.message_ids)
        if text is not None:
            t.add_turn("system", day, text)
        self.threads.append(t)
        self.open_by_customer[customer] = t
        return t

    def close(self, thread: Thread, status: str) -> None:
        thread.status = status
        self.open_by_customer.pop(thread.customer, None)

    def close_customers(self, customers: np.ndarray, status: str) -> None:
        """Close the open thread of each of ``customers`` that has one, in their order (a day's churned
        accounts are hundreds, the open threads a few: only those are looked up)."""
        with_thread = np.fromiter(self.open_by_customer, dtype=np.int64, count=len(self.open_by_customer))
        for c in customers[np.isin(customers, with_thread)]:
            thread = self.open_by_customer.get(int(c))
            if thread is not None:  # None: a customer named twice, closed already
                self.close(thread, status)


@dataclass
class EnterpriseDay:
    won: list[int] = field(default_factory=list)
    lost_leads: list[int] = field(default_factory=list)
    churned: list[int] = field(default_factory=list)  # timeout or ghost churns (damage + posts)
    countered: list[int] = field(default_factory=list)
    opened: list[int] = field(default_factory=list)
    declined: list[int] = field(default_factory=list)  # said no price works at the quality they see
    # accounts whose payment is suspended today: a churn-prevention thread open when the day's step 17 began
    suspended: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))


def negotiation_quality(
    state: WorldState,
    params: Params,
    customer: int,
    plans: np.ndarray,
    delivered: np.ndarray,
    lead: bool,
) -> np.ndarray:
    """Perceived quality of offered plans, clipped to [-1, 1] (eq 39 Q_perc; reference-notes §4.7).

    Demand uses W = 1 and no quota limit for leads (no usage rate yet); new leads apply
    their sticky U(0.8, 1.1) impression noise. The engine's tenure term is always zero here
    (it reads a day that is never written); ``fixes.tenure_in_negotiation`` uses the real tenure.
    """
    cfg = state.config
    cust = state.customers
    idx = np.full(len(plans), customer)
    g = cust.group[idx]
    demand = np.zeros(len(plans)) if lead else np.full(len(plans), cust.usage_rate[customer])
    tenure = state.day - cust.start_day[idx] if (cfg.fixes.tenure_in_negotiation and not lead) else np.zeros(len(plans))
    ads = effective_ad_load(ad_strength(state.settings, idx, g, include_customer=False))
    q = perceived_quality(
        delivered[g, plans],
        relationship_as_read(cust.relationship[idx], cfg.fixes.relationship_zero_kept),
        tenure,
        cust.issue_days[idx],
        cust.eta_ads[idx] * ads,
        quota_factor(state.settings.quotas[plans], demand),
        cfg.quality,
    )
    q = np.clip(q, -1.0, 1.0)
    if lead:
        q = q * cust.deal_noise[customer]
    return q


CurveArgs = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _curve_args(state: WorldState, customer: int, q_shift: np.ndarray, c_drift: np.ndarray, n: int) -> CurveArgs:
    cust = state.customers
    idx = np.full(n, customer)
    g = cust.group[customer]
    c_max = drifted_c_max(cust, idx, c_drift, state.config.sampling.c_max_floor)
    q_lo, q_hi = quality_band(cust, idx, q_shift[g])
    return (c_max, q_lo, q_hi, cust.s_left[idx], cust.s_right[idx])


def evaluate_offers(
    state: WorldState,
    params: Params,
    thread: Thread,
    delivered: np.ndarray,
    q_shift: np.ndarray,
    c_drift: np.ndarray,
) -> tuple[str, int, float]:
    """Customer's reply to the agent's offers: ("accept"|"counter"|"ghost"|"decline", plan, price).

    The acceptance curve (docs/calibration.md, "Enterprise acceptance curve"). Surplus =
    Q_perc - Q_req(price) (CEO-Bench eq 39; one-month contracts, so no lock-in term), so an offer
    is accepted exactly when its price is below the customer's willingness C_max(Q) (eq 40) for
    that plan. The engine also accepts any price when Q exceeds q_max (Q_req is q_max above the
    budget, reference-notes §4.2); with ``fixes.enterprise_offer_within_budget`` an offer above the
    firm's budget c_max (drifted) is never accepted, as eq 40 bounds the willingness by the budget
    (C_max(Q) <= c_i) and A.2's participation rule requires C <= c_i: the offer with the largest
    positive surplus among those within the budget is accepted. Otherwise the best offer is countered
    at C_max(Q) (1 - (1 - f) 0.7^t) (eq 41: f ~ N(0.75, 0.05) clipped to [0.5, 0.95], t the
    thread turn of the agent's latest message; reference-notes §4.23). A customer past its
    maximum turns stops replying ("ghost", the paper's rule). A customer whose willingness is 0
    for every offered plan (Q < Q_req(0): no price justifies the quality) gets a counter <= 0,
    which the engine turns into a silent ghost (reference-notes §4.23); with
    ``fixes.enterprise_decline_says_so`` it says so ("decline", same consequences as a ghost),
    the paper being silent on the case. The engine counters on the best-surplus offer even when
    that plan's willingness is 0 and another offered plan's is not; with
    ``fixes.enterprise_counter_on_a_winnable_plan`` the counter then falls to the offered plan
    with the highest willingness.
    """
    cust = state.customers
    c = thread.customer
    if thread.agent_turn >= cust.max_turns[c]:
        return "ghost", -1, 0.0
    plans = np.array([p for p, _ in thread.offers])
    prices = np.array([x for _, x in thread.offers])
    lead = thread.kind == NEW_LEAD
    q = negotiation_quality(state, params, c, plans, delivered, lead)
    args = _curve_args(state, c, q_shift, c_drift, len(plans))
    surplus = q - required_quality(prices, *args, state.config.curve)
    best = int(np.argmax(surplus))
    if state.config.fixes.enterprise_offer_within_budget:
        within = np.where(prices <= args[0], surplus, -np.inf)
        pick = int(np.argmax(within))
        if within[pick] > 0:
            return "accept", int(plans[pick]), float(prices[pick])
    elif surplus[best] > 0:
        return "accept", int(plans[best]), float(prices[best])
    ceilings = max_acceptable_price(q, *args, state.config.curve)
    if ceilings[best] <= 0 and state.config.fixes.enterprise_counter_on_a_winnable_plan:
        best = int(np.argmax(ceilings))
    ceiling = ceilings[best]
    f = cust.offer_factor[c]
    counter = round(float(ceiling * (1.0 - (1.0 - f) * state.config.enterprise.counter_decay**thread.agent_turn)), 2)
    if counter <= 0:
        verdict = "decline" if state.config.fixes.enterprise_decline_says_so else "ghost"
        return verdict, int(plans[best]), 0.0
    return "counter", int(plans[best]), counter


def send_offers(
    state: WorldState, rng: np.random.Generator, book: EnterpriseBook, customer: int, offers: list[tuple[int, float]]
) -> Thread:
    """Agent offer: reply on the open thread or open a renegotiation (reference-notes §4.23, eq 42 delay).

    The caller validates the customer and offers. A reply later than one day after the
    customer's last message costs 0.02 relationship per extra day.
    """
    cfg = state.config.enterprise
    cust = state.customers
    thread = book.open_by_customer.get(customer)
    if thread is None:
        thread = book.open_thread(customer, RENEGOTIATION, state.day, None)
    else:
        delay = state.day - thread.last_counterparty_day
        if delay > 1:
            cust.relationship[customer] = max(0.0, cust.relationship[customer] - cfg.late_reply_penalty * (delay - 1))
    thread.offers = list(offers[: cfg.max_offers])
    thread.agent_turn = len(thread.turns)  # the turn number of this agent message (eq 41's r)
    text = "; ".join(f"Plan {PLANS[p]} at ${x:,.2f}/seat/month" for p, x in thread.offers)
    thread.add_turn("agent", state.day, text, [{"plan": PLANS[p], "price_per_seat": x} for p, x in thread.offers])
    thread.awaiting_agent = False
    delay_days = max(1, int(round(rng.normal(cust.reply_mean[customer], cust.reply_sd[customer]))))
    thread.next_reply_day = state.day + delay_days
    return thread


def reject(state: WorldState, book: EnterpriseBook, customer: int) -> Thread:
    """Agent rejects: the thread closes; a new lead is lost, a customer stays (reference-notes §4.23)."""
    thread = book.open_by_customer[customer]
    thread.add_turn("agent", state.day, "Declined.")
    book.close(thread, "agent_rejected")
    if thread.kind == NEW_LEAD:
        state.customers.status[customer] = LOST
    return thread


def _end_account(state: WorldState, customer: int, relationship_change: float) -> None:
    cust = state.customers
    cust.status[customer] = CANCELLED
    cust.end_day[customer] = state.day
    cust.churn_reason[customer] = REASON_ENTERPRISE
    cust.relationship[customer] = float(np.clip(cust.relationship[customer] + relationship_change, 0, 1))


def _close_deal(
    state: WorldState, params: Params, rng: np.random.Generator, thread: Thread, plan: int, price: float
) -> None:
    cfg = state.config
    cust = state.customers
    c = thread.customer
    idx = np.array([c])
    promo = float(ongoing_promotion(state.settings, idx, cust.group[idx], np.array([plan]))[0])
    cust.plan[c] = plan
    cust.listed_price[c] = price
    cust.promotion[c] = promo
    cust.effective_price[c] = max(0.0, price - promo)
    cust.forget_requirement(c)
    if thread.kind == NEW_LEAD:
        cust.status[c] = SUBSCRIBED
        cust.effective_c_max[c] = cust.c_max[c]
        cust.usage_rate[c] = draw_usage_rate(
            rng, cust.usage_demand[idx], cust.whole_seats(idx), cfg.usage.rate_sd_fraction
        )[0]
        cust.start_day[c] = state.day
        cust.relationship[c] = min(1.0, cust.relationship[c] + cfg.enterprise.relationship_deal_won)


def process_day(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    book: EnterpriseBook,
    start: MarketView,
    now: MarketView,
) -> EnterpriseDay:
    """Step 17: agent-reply timeouts, customer replies due today, new customer-initiated threads.

    As in the engine (reference-notes §1.2, §4.23): the customers' replies read the product and
    the market as they are ``now`` (today's R&D, monthly drift, competitor event and development
    included), the new threads the start of the day's caches ``start``; the threads open when the
    step begins decide whose payment is suspended today (``EnterpriseDay.suspended``) and who
    cannot open a new thread today, even if their thread closes in between.
    """
    cfg = state.config.enterprise
    d = state.day
    at_start = list(book.open_by_customer.values())
    had_thread = np.array([t.customer for t in at_start], dtype=np.int64)
    out = EnterpriseDay(
        suspended=np.array([t.customer for t in at_start if t.kind == CHURN_PREVENTION], dtype=np.int64)
    )
    for thread in at_start:
        c = thread.customer
        if state.customers.status[c] not in (SUBSCRIBED, LEAD):
            book.close(thread, "customer_churned")
            continue
        if thread.awaiting_agent and d - thread.last_counterparty_day >= cfg.reply_deadline_days:
            book.close(thread, "timeout")
            if thread.kind == NEW_LEAD:
                state.customers.status[c] = LOST
                out.lost_leads.append(c)
            else:
                _end_account(state, c, cfg.relationship_timeout)
                out.churned.append(c)
            continue
        if thread.awaiting_agent or thread.next_reply_day is None or thread.next_reply_day > d:
            continue
        verdict, plan, price = evaluate_offers(state, params, thread, *now)
        if verdict == "accept":
            _close_deal(state, params, rng, thread, plan, price)
            thread.add_turn(
                "system", d, f"[DEAL CLOSED] Plan {PLANS[plan]} at ${price:,.2f}/seat/month, 1-month contract."
            )
            book.close(thread, "accepted")
            out.won.append(c)
        elif verdict == "counter":
            thread.add_turn(
                "customer",
                d,
                f"Counter-offer: Plan {PLANS[plan]}, ${price:,.2f}/seat/month, 1-month contract.",
                {"plan": PLANS[plan], "price": price},
            )
            thread.awaiting_agent = True
            thread.last_counterparty_day = d
            thread.next_reply_day = None
            out.countered.append(c)
        else:
            if verdict == "decline":
                thread.add_turn("customer", d, DECLINE_TEXT)
                out.declined.append(c)
            book.close(thread, "declined" if verdict == "decline" else "ghosted")
            if thread.kind == NEW_LEAD:
                state.customers.status[c] = LOST
                out.lost_leads.append(c)
            else:
                change = (
                    cfg.relationship_ghost_renegotiation if thread.kind == RENEGOTIATION else cfg.relationship_ghost
                )
                _end_account(state, c, change)
                out.churned.append(c)
    _open_customer_threads(state, params, rng, book, start, had_thread, out)
    return out


def enterprise_rows(state: WorldState, params: Params) -> np.ndarray:
    """The customer rows of enterprise groups, in row order. A row's group never changes, so each row is
    looked at once, the first time this runs after it was added (``WorldState.enterprise_rows``)."""
    cust = state.customers
    first = state.enterprise_rows_scanned
    new = first + np.flatnonzero(params.is_ent.take(cust.group[first:]))
    state.enterprise_rows = np.concatenate([state.enterprise_rows, new])
    state.enterprise_rows_scanned = cust.n
    return state.enterprise_rows


def _open_customer_threads(
    state: WorldState,
    params: Params,
    rng: np.random.Generator,
    book: EnterpriseBook,
    start: MarketView,
    had_thread: np.ndarray,
    out: EnterpriseDay,
) -> None:
    """Churn-prevention when the current deal's surplus is negative; plan-change when another
    plan is >10 % better and a U < 0.3 draw passes (reference-notes §4.23 thread types), for the
    enterprise subscribers with no thread when the day's step 17 began (``had_thread``)."""
    cfg = state.config
    cust = state.customers
    delivered, q_shift, c_drift = start
    rows = enterprise_rows(state, params)
    subs = rows[cust.status[rows] == SUBSCRIBED]
    subs = subs[~np.isin(subs, had_thread)]
    if len(subs) == 0:
        return
    g = cust.group[subs]
    ads = effective_ad_load(ad_strength(state.settings, subs, g, include_customer=False))
    c_max = drifted_c_max(cust, subs, c_drift, cfg.sampling.c_max_floor)
    lo, hi = quality_band(cust, subs, q_shift[g])
    surplus = np.empty((len(subs), len(PLANS)))
    for p in range(len(PLANS)):
        q = perceived_quality(
            delivered[g, p],
            relationship_as_read(cust.relationship[subs], cfg.fixes.relationship_zero_kept),
            state.day - cust.start_day[subs],
            cust.issue_days[subs],
            cust.eta_ads[subs] * ads,
            quota_factor(state.settings.quotas[p], cust.usage_rate[subs] * weekly_factor(state, state.day)),
            cfg.quality,
        )
        is_current = cust.plan[subs] == p
        price = np.where(is_current, cust.listed_price[subs], state.settings.prices[p])
        req = required_quality(price, c_max, lo, hi, cust.s_left[subs], cust.s_right[subs], cfg.curve)
        surplus[:, p] = np.where(is_current | (price <= c_max), q - req, -np.inf)
    rows = np.arange(len(subs))
    current = surplus[rows, cust.plan[subs]]
    other = surplus.copy()
    other[rows, cust.plan[subs]] = -np.inf
    best = other.argmax(axis=1)
    best_val = other[rows, best]
    draws = rng.random(len(subs))
    at_risk = current < 0
    gain = (best_val - current) / np.maximum(0.01, np.abs(current))
    wants_change = (
        ~at_risk
        & (best_val > 0)
        & (best_val > current)
        & (gain > cfg.enterprise.plan_change_min_improvement)
        & (draws < cfg.enterprise.plan_change_probability)
    )
    for k in np.flatnonzero(at_risk | wants_change):  # only accounts that open a thread
        c = int(subs[k])
        if at_risk[k]:
            t = book.open_thread(c, CHURN_PREVENTION, state.day, "Account flagged at risk of churn.")
            t.add_turn(
                "customer",
                state.day,
                "We are not getting enough value for what we pay. Please propose better terms or we will cancel.",
            )
        else:
            t = book.open_thread(c, PLAN_CHANGE, state.day, "Customer requested a plan change.")
            t.add_turn("customer", state.day, f"We would like to move to Plan {PLANS[best[k]]}.")
        out.opened.append(c)
