"""The NovaMind world: state plus the daily step in the engine's order (reference-notes §1.2).

``World`` mutates only its own state and returns plain records; it performs no I/O and
reads no clock (docs/principles.md principle 2). Every stochastic component draws from its own
named stream (principle 4).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from bizbench.core.allocator import keep_freed_memory
from bizbench.core.ledger import to_cents
from bizbench.core.rng import RngStreams
from bizbench.envs.ceo.config import PLANS, CeoConfig
from bizbench.envs.ceo.world import (
    acquisition,
    billing,
    competitor,
    costs,
    development,
    drift,
    enterprise,
    feed,
    judge,
    kernels,
    macro,
    quality,
    reputation,
    research,
    rivals,
    satisfaction,
    service,
    social,
    support,
    surges,
    usage,
)
from bizbench.envs.ceo.world.customers import LEAD, LOST, SOURCE_ORGANIC, for_blocks
from bizbench.envs.ceo.world.params import Params
from bizbench.envs.ceo.world.state import AgentPost, WorldState


class World:
    """One seeded NovaMind world."""

    def __init__(
        self,
        config: CeoConfig,
        seed: int,
        post_judge: judge.PostJudge | None = None,
        writer: Any = None,
    ) -> None:
        keep_freed_memory()
        self.config = config
        self.params = Params.from_config(config)
        self.state = WorldState(config=config, seed=seed)
        self.streams = RngStreams(seed)
        self.book = enterprise.EnterpriseBook()
        self.judge = post_judge if post_judge is not None else default_judge(config)
        self.feed = feed.Feed(config, self.streams)
        self.feed.writer = writer if writer is not None else default_writer(config)
        self.group_streams = [self.streams.get(f"customers/{g.id}") for g in config.groups]
        self.state.ledger.post(0, "initial_funding", to_cents(config.start_cash))
        for g in np.flatnonzero(self.state.discovered):  # day-0 insight snapshots (reference-notes §1.1)
            research.take_snapshot(self.state, self.params, int(g))
        self.service_history: list[service.ServiceDay] = []
        self.metrics: list[dict[str, Any]] = []
        self.notifications: list[dict[str, Any]] = []
        self.channel_log: list[tuple[int, np.ndarray, np.ndarray]] = []  # (day, spend, leads)
        # (day, opened, resolved, closed because the customer left)
        self.issue_log: list[tuple[int, np.ndarray, np.ndarray, np.ndarray]] = []
        self.price_log: list[tuple[int, np.ndarray]] = []  # (first day in force, list prices)
        self.churn_log: list[tuple[int, np.ndarray]] = []  # (day, cancellations by group)
        self.ad_revenue_today = costs.ad_revenue_by_customer(self.state, np.empty(0, dtype=np.int64))
        self.usage_accounts = np.empty(0, dtype=np.int64)  # the accounts whose usage the last day counted
        self.usage_units = np.empty(0)  # and their units (eq 8), one per account
        self._invol_cache: dict[int, np.ndarray] = {}
        self._ledger_mark = 0
        self.rivals: rivals.Market | None = None  # an arena's rivals of the day (docs/arena.md), set by the arena
        self.to_rivals: rivals.Moved = []  # the day's leads and churners that went to a rival

    # ------------------------------------------------------------------ helpers
    @property
    def day(self) -> int:
        return self.state.day

    @property
    def done(self) -> bool:
        return self.state.bankrupt or self.state.day >= self.config.horizon_days

    @property
    def social_posts(self) -> list[dict[str, Any]]:
        return self.feed.posts

    def notify(self, kind: str, message: str) -> None:
        self.notifications.append(
            {"notification_id": len(self.notifications) + 1, "day": self.state.day, "type": kind, "message": message}
        )

    def involuntary_rates(self, month: int) -> np.ndarray:
        """mu_{g,m} for month m, from a stream of its own so it is exogenous (eq 19)."""
        if month not in self._invol_cache:
            self._invol_cache[month] = billing.involuntary_rates(self.params, self.streams.get(f"involuntary/{month}"))
        return self._invol_cache[month]

    def delivered_quality(self) -> np.ndarray:
        s = self.state
        return quality.delivered_quality(
            self.config.quality.base, s.bonus_shared, s.bonus_group, self.params.tier_quality[s.settings.tiers - 1]
        )

    def market_view(self) -> quality.MarketView:
        """What customers read of the product and the market now (reference-notes §4.7), a copy."""
        s = self.state
        return quality.MarketView(self.delivered_quality(), s.q_drift_global + s.q_drift_group, s.c_drift_group.copy())

    # ------------------------------------------------------------------ time
    def advance(
        self, days: int | None = None, on_day: Callable[[dict[str, Any]], None] | None = None
    ) -> list[dict[str, Any]]:
        """Simulate one agent turn: roll surges for the coming days, then step each day.

        Customer social posts are sampled only on the turn's last day (reference-notes §1.3).
        ``on_day`` sees each day's metrics as soon as the day is stepped (the session's store).
        """
        days = self.begin_turn(days)
        out = []
        for k in range(days):
            out.append(self.step_day(sample_posts=k == days - 1))
            if on_day is not None:
                on_day(out[-1])
            if self.state.bankrupt:
                break
        return out

    def begin_turn(self, days: int | None = None) -> int:
        """The days of a turn (the preset's, fewer at the horizon), with their surges rolled; an
        arena begins every company's turn so, then steps the days of all together (docs/arena.md)."""
        days = self.config.days_per_turn if days is None else days
        days = min(days, self.config.horizon_days - self.state.day)
        surges.roll_surges(self.state, self.streams.get("surges"), self.state.day + 1, days)
        return days

    def opening(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The subscribers as a day opens: their rows, their groups (gathered once a day, in blocks)
        and each group's count. An arena takes it before stepping its companies' day, to show each
        its rivals' counts, and hands it to ``step_day`` (docs/arena.md)."""
        cust = self.state.customers
        active = cust.active()
        groups = np.empty(len(active), dtype=np.intp)

        def block(b: slice) -> np.ndarray:
            counts = np.zeros(self.params.n_groups, dtype=np.int64)
            kernels.groups_of(active[b], cust.group, groups[b], counts)
            return counts

        return active, groups, sum(for_blocks(len(active), block), np.zeros(self.params.n_groups, dtype=np.int64))

    def step_day(
        self, sample_posts: bool = True, opening: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    ) -> dict[str, Any]:
        """One simulated day in the engine's order (reference-notes §1.2, steps 1-24); ``opening``: the
        day's ``opening()``, when taken already."""
        st, p, cfg, rs = self.state, self.params, self.config, self.streams
        st.day += 1
        d = st.day
        cust = st.customers
        if not self.price_log or not np.array_equal(self.price_log[-1][1], st.settings.prices):
            self.price_log.append((d, st.settings.prices.copy()))
        # 3-4. start-of-day caches
        start = self.market_view()
        delivered, q_shift, c_drift = start
        active, groups, start_counts = self.opening() if opening is None else opening
        # 5. usage and service health
        units = usage.compute_usage(st, active)
        self.usage_accounts, self.usage_units = active, units
        units_by_plan = costs.usage_by_plan(st, active, units)  # billed at step 21 whatever churns today
        svc = service.service_day(st, p, rs.get("service"), float(units.sum()))
        self.service_history.append(svc)
        # 6-7. research completions
        for proj in development.complete_projects(st):
            self.notify("research_complete", f"R&D {proj.project_id} complete: quality +{proj.gain:.4f}")
        for job in research.complete_group_research(st, p):
            self.notify("group_research_complete", f"Research on {cfg.groups[job.group].id} reached level {job.level}")
        # 8-9. monthly drift and channel noise
        if drift.is_drift_day(d, st):
            drift.apply_group_drift(st, p)
            drift.apply_individual_drift(st, p, active)
        if d % 30 == 0:
            acquisition.channel_noise(st, rs.get("channel_noise"))
        # 10. macro
        macro.step_pmi(st, rs.get("macro"))
        macro.update_multipliers(st, p)
        macro.close_measurement(st)
        published = [r for r in st.macro_readings if r["visible_day"] == d]
        for r in published:
            self.notify("macro_economic_update", f"PMI {r['pmi_value']} ({r['pmi_trend']})")
        readings = macro.published_readings(st)
        self.feed.macro_posts(d, published, readings[-1] if readings else None)
        # 11-12. competitor event and its posts
        competitor.maybe_fire(st, p, rs.get("competitor"))
        self._competitor_posts(rs.get("competitor_posts"))
        # 13. development
        development.apply_daily_development(st, rs.get("quality_noise"))
        # 14. satisfaction
        svc_penalty = svc.quality_penalty(cfg.quality.overload_penalty, cfg.quality.outage_penalty)
        s_before = satisfaction.update_satisfaction(st, active, delivered, q_shift, c_drift, svc_penalty)
        # 15. support, from the issues open as the update saw them (also the posts' issue event, step 18)
        open_issue = cust.open_issue(active)
        sup = support.run_support(st, p, rs.get("support"), active, s_before, svc.outage, open_issue)
        # 16. billing decisions
        dec = billing.billing_decisions(
            st, p, rs.get("billing"), self.involuntary_rates(d // 30), active, delivered, q_shift, c_drift
        )
        self.book.close_customers(dec.involuntary, "customer_churned")
        switching = (  # docs/arena.md A4
            [] if self.rivals is None else rivals.switchers(st, self.rivals, delivered, q_shift, c_drift, dec.cancelled)
        )
        rep_rng = rs.get("reputation")
        reputation.cancellation_damage(
            st, p, rep_rng, cust.group[dec.cancelled], dec.cancelled_satisfaction, start_counts
        )
        # 17. enterprise negotiation: replies read the product and the market as they are now
        ent = enterprise.process_day(st, p, rs.get("enterprise"), self.book, start, self.market_view())
        churned_ent = np.array(ent.churned, dtype=np.int64)
        reputation.cancellation_damage(st, p, rep_rng, cust.group[churned_ent], None, start_counts)
        for c in ent.won:
            self.notify("deal_won", f"Deal closed with customer {c}")
        for c in ent.lost_leads:
            why = " (declined: no price works for them at the quality they see)" if c in ent.declined else ""
            self.notify("lead_lost", f"Lead lost: customer {c}{why}")
        for c in ent.opened:
            self.notify("large_customer_message", f"Enterprise customer {c} opened a thread")
        for c in ent.countered:
            self.notify("large_customer_message", f"Enterprise customer {c} sent a counter-offer")
        # 18. reputation and the customer posts' candidates: the subscribers whose satisfaction step 14
        # updated, those who left today included (reference-notes §1.2, §4.12)
        reputation.daily_update(st, p, active, groups, start_counts)
        if sample_posts:
            self._customer_posts(active, open_issue, svc, dec, churned_ent)
        active = cust.active()
        # 19. new leads
        counts = np.zeros(p.n_groups, dtype=np.int64)
        kernels.group_counts(active, cust.group, counts)
        leads = acquisition.generate_leads(
            st,
            p,
            rs.get("leads"),
            rs.get("conversion"),
            self.group_streams,
            counts,
            delivered,
            q_shift,
            c_drift,
            social.social_multiplier(st, p, d),
            surges.surge_multiplier(st, d),
            self.rivals,
        )
        self.to_rivals = switching + leads.to_rivals
        for c in leads.enterprise_leads:
            self.book.open_thread(int(c), enterprise.NEW_LEAD, d, "New enterprise lead.")
            self.notify("large_customer_message", f"New enterprise lead: customer {int(c)}")
        self._notify_dropped_prospects(leads)
        n_leads = int(leads.leads.sum())
        if n_leads:
            st.ledger.post(
                d, "lead_acquisition_cost", -to_cents(n_leads * cfg.acquisition.lead_cost), f"{n_leads} leads"
            )
        self.channel_log.append((d, st.settings.ad_spend.copy(), leads.channel_leads))
        # 20. payments: step 18's subscribers and today's new ones, the rows step 19 appended after every other
        # row (no status changes between step 18 and here but step 19's new rows)
        active = np.concatenate([active, leads.new_subscribers])
        pay = billing.take_payments(st, p, rs.get("payments"), active, ent.suspended, c_drift)
        self._book_payments(pay)
        # 21. daily costs and ad revenue
        self.ad_revenue_today = costs.book_daily_costs(st, p, active, units_by_plan)
        cancelled_by_group = np.bincount(cust.group[dec.cancelled], minlength=p.n_groups)
        self.churn_log.append((d, cancelled_by_group + np.bincount(cust.group[churned_ent], minlength=p.n_groups)))
        # 23. judge agent posts
        for post in social.judge_posts(st, p, rs.get("post_views"), self._judge_post):
            self._after_judging(post, active)
        # 24. bankruptcy
        if st.ledger.balance_cents < 0:
            st.bankrupt = True
        # 25. the open issues of customers who left today are closed at the day's end, after their
        # cancellation posts have told of them (support.close_churned_issues)
        self.issue_log.append((d, sup.opened, sup.resolved, support.close_churned_issues(st)))
        record = self._daily_metrics(active, svc, dec, leads, ent, n_leads)
        self.metrics.append(record)
        return record

    def welcome_leads(self, group: int, cols: dict[str, np.ndarray]) -> np.ndarray:
        """Leads a rival reached that chose this company (docs/arena.md A3): at the end of the day
        each converts with this company's offer (reference-notes §3.4's test) as an organic lead,
        its draws from a stream of their own; returns the new subscribers."""
        cols = {**cols, "source": np.full(len(cols["group"]), SOURCE_ORGANIC)}
        delivered, prefs = self._arrival(group, cols)
        rng = self.streams.get("arena/leads")
        return acquisition.admit(self.state, self.params, rng, cols, prefs, delivered).subscribers

    def _arrival(
        self, group: int, cols: dict[str, np.ndarray]
    ) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """What a customer arriving from a rival meets here now: the delivered quality, and its
        preferences with the group's drift of now (``acquisition.lead_preferences``)."""
        delivered, q_shift, c_drift = self.market_view()
        prefs = acquisition.lead_preferences(
            self.state, cols, q_shift=float(q_shift[group]), c_drift=float(c_drift[group])
        )
        return delivered, prefs

    def welcome_tenders(self, group: int, cols: dict[str, np.ndarray]) -> list[tuple[int, int]]:
        """Enterprise prospects a rival admitted that also approach this company (docs/arena.md
        A5): at the end of the day this company's own gate decides (reference-notes §3.4), and each
        it admits opens a negotiation thread; returns (its row at the rival, its row here) of each."""
        st = self.state
        own = {k: v for k, v in cols.items() if k != "origin"}
        delivered, prefs = self._arrival(group, own)
        first = st.customers.n
        gated = acquisition.admit(st, self.params, None, own, prefs, delivered)  # the gate draws nothing
        for c in gated.leads:
            self.book.open_thread(int(c), enterprise.NEW_LEAD, st.day, "New enterprise lead.")
            self.notify("large_customer_message", f"New enterprise lead: customer {int(c)}")
        return [(int(cols["origin"][c - first]), int(c)) for c in gated.leads]

    def lose_to_rival(self, customer: int) -> None:
        """An enterprise lead whose firm signed with a rival (docs/arena.md A5): its open thread
        closes and the lead is lost."""
        thread = self.book.open_by_customer.get(customer)
        if thread is None or self.state.customers.status[customer] != LEAD:
            return
        self.book.close(thread, "signed_with_rival")
        self.state.customers.status[customer] = LOST
        self.notify("lead_lost", f"Lead lost: customer {customer} signed with a rival")

    # ------------------------------------------------------------------ bookkeeping
    def _book_payments(self, pay: billing.Payments) -> None:
        if len(pay.customers) == 0:
            return
        groups = self.state.customers.group[pay.customers]
        totals = np.zeros(self.params.n_groups, dtype=np.int64)
        np.add.at(totals, groups, pay.cents)
        counts = np.bincount(groups, minlength=self.params.n_groups)
        for g in np.flatnonzero(counts):
            self.state.ledger.post(
                self.state.day,
                "subscription_payment",
                int(totals[g]),
                f"{int(counts[g])} payments",
                group=self.config.groups[g].id,
            )

    def _customer_posts(
        self,
        active: np.ndarray,
        open_issue: np.ndarray,
        svc: service.ServiceDay,
        dec: billing.BillingDecisions,
        churned_ent: np.ndarray,
    ) -> None:
        """Up to 5 posts sampled from the day's subscribers (``active``: those of step 14, today's leavers
        among them) and, as churn candidates too, today's cancellations and enterprise churns (reference-notes
        §4.12)."""
        so = self.config.social
        cust = self.state.customers
        w_active = social.subscriber_weights(self.state, self.params, active, svc.overload > 0, svc.outage, open_issue)
        w_cancel = so.cancelled_weight * (
            1.0 + so.extremity_weight * np.abs(np.minimum(cust.satisfaction[dec.cancelled], 0))
        )
        w_ent = so.ent_churn_weight * cust.whole_seats(churned_ent)
        cands = social.PostCandidates(
            customers=np.concatenate([active, dec.cancelled, churned_ent]),
            weights=np.concatenate([w_active, w_cancel, w_ent]),
            churned=np.concatenate([np.zeros(len(active), bool), np.ones(len(dec.cancelled) + len(churned_ent), bool)]),
        )
        records = social.sample_posts(self.state, self.params, self.streams.get("social"), cands)
        recent = self.service_history[-self.config.days_per_turn :]
        for r in records:
            r["events"] = social.author_events(
                self.state,
                self.params,
                r["customer"],
                r["churned"],
                any(h.outage for h in recent),
                any(h.overload > 0 for h in recent),
            )
            plan = int(cust.plan[r["customer"]])
            r["plan"] = PLANS[plan] if plan >= 0 else None
        self.feed.customer_posts(self.state.day, records)

    def _notify_dropped_prospects(self, leads: acquisition.LeadsDay) -> None:
        """One notification per enterprise group whose prospects did not open talks today, by cause.

        The engine drops them silently (reference-notes §3.4); a sales team hears why a firm walks
        away, so the agent is told the count and the cause (docs/ceo-seat.md, "Enterprise deals"),
        never a firm's own usage or thresholds (docs/principles.md principle 3).
        """
        for g in np.flatnonzero(leads.dropped_quota + leads.dropped_quality):
            quota, qual = int(leads.dropped_quota[g]), int(leads.dropped_quality[g])
            parts = []
            if quota:
                parts.append(
                    f"{quota} need a larger daily usage quota than any plan whose quality suits them grants "
                    "(the quota must cover usage per seat x seats)"
                )
            if qual:
                parts.append(f"{qual} found no plan's quality good enough at any price")
            self.notify(
                "large_customer_message",
                f"{quota + qual} enterprise prospect(s) from {self.config.groups[g].id} did not open talks: "
                + "; ".join(parts)
                + ".",
            )

    def _competitor_posts(self, rng: np.random.Generator) -> None:
        """Two posts a day while an event's window is open, with a noisy size (reference-notes §4.12)."""
        c = self.config.competitor
        open_events = [e for e in self.state.competitor_events if e["post_end_day"] >= self.state.day]
        if not open_events:
            return
        event = open_events[0]
        for _ in range(c.posts_per_day):
            noisy = max(0.0, event["boost"] * (1.0 + rng.uniform(-0.25, 0.25)))
            self.feed.competitor_post(self.state.day, competitor.severity(noisy), noisy)

    # ------------------------------------------------------------------ agent posts
    def _judge_post(self, post: AgentPost) -> dict[str, judge.Verdict]:
        return self.judge(post.content, self.judge_context(post))

    def judge_context(self, post: AgentPost) -> judge.JudgeContext:
        """What each discovered group truly lived through in the last 14 days (reference-notes §4.13 inputs)."""
        st, p, cfg = self.state, self.params, self.config
        window = cfg.social.experience_window_days
        first = st.day - window + 1
        hist = [h for k, h in enumerate(self.service_history, start=1) if k >= first]
        log = self.price_log or [(st.day, st.settings.prices)]
        old_prices = next((pr for day, pr in reversed(log) if day <= first), log[0][1])
        change = (st.settings.prices - old_prices) / np.maximum(old_prices, 1e-9)
        churn = sum((c for day, c in self.churn_log if day >= first), np.zeros(p.n_groups, dtype=np.int64))
        active = st.customers.active()
        g_active = st.customers.group[active]
        counts = np.bincount(g_active, minlength=p.n_groups)
        quota_short = social.over_quota(st, active)
        issue = st.customers.open_issue(active)
        short_by_group = np.bincount(g_active, weights=quota_short, minlength=p.n_groups)
        issue_by_group = np.bincount(g_active, weights=issue, minlength=p.n_groups)
        launch = any(e["day"] >= first for e in st.competitor_events)
        topics: dict[str, set[str]] = {}  # the causes behind each group's recent customer posts
        for q in reversed(self.feed.posts):
            if q["day"] < first:
                break
            if q["kind"] == "customer":
                topics.setdefault(q["source_group_id"], set()).update(q["events"])
        groups = {}
        for g in np.flatnonzero(st.discovered):
            grp = cfg.groups[g]
            groups[grp.id] = judge.GroupExperience(
                group_id=grp.id,
                name=grp.name,
                kind=grp.kind,
                outage_days=sum(h.outage for h in hist),
                overload_days=sum(h.overload > 0 for h in hist),
                downtime_minutes=sum(h.downtime_minutes for h in hist),
                price_change={PLANS[i]: float(change[i]) for i in range(len(PLANS))},
                quota_short_share=float(short_by_group[g] / counts[g]) if counts[g] else 0.0,
                issue_share=float(issue_by_group[g] / counts[g]) if counts[g] else 0.0,
                churn_count=int(churn[g]),
                competitor_launch=launch,
                active=int(counts[g]),
                recent_post_topics=sorted(topics.get(grp.id, ())),
            )
        recent = [q.content for q in st.agent_posts if first <= q.day and q.post_id != post.post_id][-10:]
        replied = None
        if post.reply_to is not None and 1 <= post.reply_to <= len(self.feed.posts):
            replied = self.feed.posts[post.reply_to - 1]
        return judge.JudgeContext(
            groups=groups,
            recent_agent_posts=recent,
            replied_post=replied["content"] if replied else None,
            replied_group_id=replied["source_group_id"] if replied else None,
        )

    def _after_judging(self, post: AgentPost, active: np.ndarray) -> None:
        """Viral replies and the ``social_media`` notification of a judged post (reference-notes §4.13)."""
        assert post.scores is not None and post.views is not None
        so = self.config.social
        rng = self.streams.get("viral_replies")
        cust = self.state.customers
        for g in np.flatnonzero(np.abs(post.scores) >= so.viral_threshold):
            members = active[cust.group[active] == g]
            author = int(members[rng.integers(len(members))]) if len(members) else None
            post.comment_post_ids.append(
                self.feed.viral_reply(self.state.day, int(g), float(post.scores[g]), post, author)
            )
        known = np.flatnonzero(self.state.discovered)
        mean = float(post.scores[known].mean()) if len(known) else 0.0
        tone = "positive" if mean > 0.1 else "negative" if mean < -0.1 else "neutral"
        top = known[np.argsort(-np.abs(post.scores[known]), kind="stable")[:3]]
        ids = self.config.group_ids
        self.notify(
            "social_media",
            f"Your post #{post.post_id} reached {int(post.views.sum()):,} views; overall tone {tone}; "
            f"strongest reactions: " + ", ".join(f"{ids[g]} ({post.scores[g]:+.2f})" for g in top),
        )

    def _daily_metrics(
        self,
        active: np.ndarray,
        svc: service.ServiceDay,
        dec: billing.BillingDecisions,
        leads: acquisition.LeadsDay,
        ent: enterprise.EnterpriseDay,
        n_leads: int,
    ) -> dict[str, Any]:
        st, p = self.state, self.params
        cust = st.customers
        # the per-subscriber reads, in blocks (``for_blocks``, compiled): satisfaction and the MRR terms price x
        # whole seats into two buffers, each summed over the whole buffer; the counts of each block (accounts,
        # whole seats of enterprise groups, open issues: whole numbers, so their sum is exact in any order)
        # are added up
        satisfactions, mrr_terms = np.empty(len(active)), np.empty(len(active))
        is_ent = p.is_ent.view(np.uint8)

        def counts(b: slice) -> tuple[np.ndarray, np.ndarray, int]:
            accounts, seats = np.zeros(p.n_groups, dtype=np.int64), np.zeros(p.n_groups)
            open_issues = kernels.daily_metrics(
                active[b],
                cust.group,
                is_ent,
                cust.satisfaction,
                cust.effective_price,
                cust.billed_seats,
                cust.issue_days,
                satisfactions[b],
                mrr_terms[b],
                accounts,
                seats,
            )
            return accounts, seats, open_issues

        by_block = for_blocks(len(active), counts)
        accounts = sum((a for a, _, _ in by_block), np.zeros(p.n_groups, dtype=np.int64))
        seats = sum((s for _, s, _ in by_block), np.zeros(p.n_groups))
        open_issues = sum(n for _, _, n in by_block)
        mean_satisfaction = float(satisfactions.mean()) if len(active) else None
        ids = self.config.group_ids
        # Cash flow by category since the previous record: this day's rows plus lump sums
        # (research, R&D) the agent bought between turns, so each record reconciles cash.
        by_cat: dict[str, float] = {}
        for row in st.ledger.rows[self._ledger_mark :]:
            by_cat[row.category] = by_cat.get(row.category, 0.0) + row.cents / 100.0
        self._ledger_mark = len(st.ledger.rows)
        return {
            "day": st.day,
            "cash": st.ledger.cash,
            "subscribers": int(accounts[~p.is_ent].sum()),
            "enterprise_accounts": int(accounts[p.is_ent].sum()),
            "enterprise_seats": int(seats[p.is_ent].sum()),
            "subscribers_by_group": {ids[i]: int(accounts[i]) for i in np.flatnonzero(accounts)},
            "seats_by_group": {ids[i]: int(seats[i]) for i in np.flatnonzero(accounts) if p.is_ent[i]},
            "ledger": by_cat,
            "revenue": sum(v for v in by_cat.values() if v > 0),
            "costs": -sum(v for v in by_cat.values() if v < 0),
            "leads": n_leads,
            "individual_leads": int(leads.leads[~p.is_ent].sum()),
            "enterprise_leads": len(leads.enterprise_leads),
            "enterprise_lead_seats": int(cust.whole_seats(leads.enterprise_leads).sum()),
            "enterprise_new_seats": int(cust.whole_seats(np.array(ent.won, dtype=np.int64)).sum()),
            "open_issues": open_issues,
            "downtime_minutes": svc.downtime_minutes,
            "p95_ms": svc.p95_ms,
            "error_rate": svc.error_rate,
            "new_subscribers": len(leads.new_subscribers),
            "lost_leads": len(leads.lost),
            "cancellations": len(dec.cancelled),
            "involuntary_churn": len(dec.involuntary),
            "upgrades": len(dec.upgrades),
            "downgrades": len(dec.downgrades),
            "enterprise_won": len(ent.won),
            "enterprise_churned": len(ent.churned),
            "usage": svc.total_usage,
            "overload": svc.overload,
            "outage": svc.outage,
            "product_quality": self.config.quality.base + st.bonus_shared,
            "quality_bonus_by_group": {ids[i]: float(st.bonus_group[i]) for i in np.flatnonzero(st.bonus_group)},
            "q_drift_global": st.q_drift_global,
            "reputation": {ids[i]: round(float(st.reputation[i]), 6) for i in np.flatnonzero(st.discovered)},
            "mean_satisfaction": mean_satisfaction,
            "pmi": st.pmi,
            "mrr": float(np.sum(mrr_terms)),
        }


def default_judge(config: CeoConfig) -> judge.PostJudge:
    """The agent-post judge when none is injected: the deterministic RuleJudge (reference-notes §4.13); a
    preset whose judge is an LLM needs it injected (:class:`bizbench.envs.ceo.env.CeoEnv` does)."""
    if config.social.judge == "llm":
        raise ValueError("this preset judges posts with an LLM ([social] judge = 'llm'): inject post_judge")
    return judge.RuleJudge()


def default_writer(config: CeoConfig) -> Any:
    """The post writer when none is injected: the templates (reference-notes §4.12); a preset whose writer is
    an LLM needs it injected (:class:`bizbench.envs.ceo.env.CeoEnv` does)."""
    if config.social.writer == "llm":
        raise ValueError("this preset writes posts with an LLM ([social] writer = 'llm'): inject writer")
    return feed.posttext.TEMPLATE_WRITER
