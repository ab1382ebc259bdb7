"""Template text of the social feed (reference-notes §4.12; paper §2.3, eq 26): the text must reflect the
author's true cause, speak in the group's voice, vary, fit in 280 characters, be
deterministic for a seeded generator and never carry digits (hidden values) except the
public PMI in macro posts."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bizbench.envs.ceo.config import load_config
from bizbench.envs.ceo.world import posttext as pt

CONFIG, _ = load_config("default")
GROUPS = {g.id: g for g in CONFIG.groups}
IND_IDS = [g.id for g in CONFIG.groups if g.kind == "IND"]
ENT_IDS = [g.id for g in CONFIG.groups if g.kind == "ENT"]

# Words a reader needs to see to know the cause (reference-notes §4.12: text given the event context).
CAUSE_WORDS = {
    "outage": r"outage|down\b|offline|downtime|unavailable|crashed",
    "overload": r"slow|lag|sluggish|times out|overloaded|waiting game|response times",
    "quota": r"limit|quota|\bcap|capped|allowance|throttled",
    "issue": r"support|ticket|bug|issue",
    "price_increase": r"pric|expensive|costs more",
    "price_cut": r"pric|cheaper",
    "promotion": r"discount|promo|coupon",
    "new_customer": r"signed up|joined|new (here|to|subscriber)|day one|first (week|impressions)|started with",
    "enterprise_churn": r"contract|negotiat|terms",
}
LEFT_WORDS = r"cancel|ended|closed|done|moved on|\bout\b"


def draws(n: int, group_id: str, sentiment: str, events: list[str], churned: bool = False, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    return [pt.customer_post(rng, GROUPS[group_id], sentiment, events, "B", churned) for _ in range(n)]


# ----------------------------------------------------------------------------- customer posts


@pytest.mark.parametrize("cause", sorted(CAUSE_WORDS))
@pytest.mark.parametrize("sentiment", pt.SENTIMENTS)
def test_customer_post_names_its_cause(cause: str, sentiment: str) -> None:
    group_ids = ["E2", "D_E04"] if cause == "enterprise_churn" else ["S1", "S3", "E1", "D_S05"]
    for gid in group_ids:
        for text in draws(60, gid, sentiment, [cause], churned=cause == "enterprise_churn"):
            assert re.search(CAUSE_WORDS[cause], text, re.I), (cause, text)


def test_main_cause_is_the_most_salient_event() -> None:
    assert pt.main_cause(["price_cut", "outage", "new_customer"]) == "outage"
    assert pt.main_cause(["quota", "issue"]) == "quota"
    assert pt.main_cause([], churned=True) == "churned"
    assert pt.main_cause([]) == "general"
    assert pt.main_cause(["churned", "overload"]) == "overload"


def test_churned_author_with_an_outage_complains_about_downtime_and_says_they_left() -> None:
    for text in draws(100, "S2", "positive", ["outage", "churned"], churned=True):
        assert re.search(CAUSE_WORDS["outage"], text, re.I), text
        assert re.search(LEFT_WORDS, text, re.I), text


def test_churned_author_without_other_events_says_they_left() -> None:
    for gid in ("S1", "D_S07", "E1"):
        for text in draws(50, gid, "neutral", ["churned"], churned=True):
            assert re.search(LEFT_WORDS, text, re.I), text


def test_second_cause_can_be_mentioned() -> None:
    texts = draws(200, "S3", "negative", ["overload", "quota"])
    assert all(re.search(CAUSE_WORDS["overload"], t, re.I) for t in texts)
    assert any(re.search(r"usage cap|usage limits", t, re.I) for t in texts)


def test_positive_outage_post_is_not_a_complaint() -> None:
    for text in draws(50, "S2", "positive", ["outage"]):
        assert not re.search(r"cancel|alternatives|do better|warned", text, re.I), text


def test_general_posts_speak_in_the_group_voice() -> None:
    students = " ".join(draws(150, "S1", "positive", []))
    devs = " ".join(draws(150, "S3", "positive", []))
    assert re.search(r"student|budget|coursework|assignments|study notes", students)
    assert re.search(r"\bAPI\b|dev|automation|coding|batch jobs", devs)
    assert not re.search(r"student", devs)


@pytest.mark.parametrize("gid", ENT_IDS)
def test_enterprise_accounts_speak_as_we(gid: str) -> None:
    for text in draws(40, gid, "negative", ["outage"]) + draws(40, gid, "neutral", []):
        assert not re.search(r"\bI\b|\bI'm\b|\bI've\b|\bmy\b|\bme\b", text), text


def test_price_post_names_the_plan() -> None:
    texts = draws(100, "S1", "negative", ["price_increase"])
    assert any("Plan B" in t for t in texts)
    rng = np.random.default_rng(0)
    no_plan = [pt.customer_post(rng, GROUPS["S1"], "negative", ["price_increase"], None, False) for _ in range(100)]
    assert not any("Plan None" in t for t in no_plan)


CASES = [(c, s) for c in ("general", *pt.CAUSE_ORDER) for s in pt.SENTIMENTS if c not in ("churned",)]


@pytest.mark.parametrize(("cause", "sentiment"), CASES)
def test_customer_posts_vary(cause: str, sentiment: str) -> None:
    events = [] if cause == "general" else [cause]
    gid = "E2" if cause == "enterprise_churn" else "S1"
    texts = draws(200, gid, sentiment, events, churned=cause == "enterprise_churn", seed=11)
    assert len(set(texts)) >= 50, (cause, sentiment, len(set(texts)))


def test_churned_posts_vary() -> None:
    assert len(set(draws(200, "S1", "negative", ["churned"], churned=True))) >= 50


def test_thousand_posts_are_not_a_handful_of_strings() -> None:
    rng = np.random.default_rng(5)
    texts = {
        pt.customer_post(rng, CONFIG.groups[i % 26], pt.SENTIMENTS[i % 3], [pt.EVENTS[i % 8]], None, False)
        for i in range(1000)
    }
    assert len(texts) > 900


def test_customer_posts_are_deterministic_for_a_seed() -> None:
    a = draws(50, "D_S06", "negative", ["issue", "quota"], seed=3)
    b = draws(50, "D_S06", "negative", ["issue", "quota"], seed=3)
    c = draws(50, "D_S06", "negative", ["issue", "quota"], seed=4)
    assert a == b
    assert a != c


@settings(max_examples=300, deadline=None)
@given(
    gi=st.integers(0, 25),
    sentiment=st.sampled_from(pt.SENTIMENTS),
    events=st.lists(st.sampled_from(pt.EVENTS), max_size=5),
    plan=st.sampled_from([None, "A", "B", "C"]),
    churned=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_customer_posts_fit_and_leak_nothing(
    gi: int, sentiment: str, events: list[str], plan: str | None, churned: bool, seed: int
) -> None:
    group = CONFIG.groups[gi]
    text = pt.customer_post(np.random.default_rng(seed), group, sentiment, events, plan, churned)
    assert 0 < len(text) <= pt.MAX_CHARS
    assert not re.search(r"\d", text), text  # no satisfaction, willingness to pay or ids
    assert "{" not in text and "}" not in text
    assert not re.search(r"(^|[.!?] )[a-z]", text), text  # sentences start with a capital
    assert "  " not in text


def test_unknown_group_and_sentiment_fall_back() -> None:
    rng = np.random.default_rng(0)
    stranger = SimpleNamespace(id="X9", name="Mystery Buyers", kind="ENT")
    text = pt.customer_post(rng, stranger, "ecstatic", ["outage", "not-an-event"], None, False)
    assert re.search(CAUSE_WORDS["outage"], text, re.I)
    assert not re.search(r"\bI\b|\bmy\b", text)


def test_every_group_has_a_voice() -> None:
    for g in CONFIG.groups:
        assert g.id in pt.VOICES
        assert pt.VOICES[g.id].plural == (g.kind == "ENT")
        assert g.name in pt.describe_group(g)


# ----------------------------------------------------------------------------- competitor posts

SEVERITY_WORDS = {
    "minor": r"minor|small|patch|maintenance|tweak|routine|modest|incremental",
    "moderate": r"solid|meaningful|decent|notable|respectable",
    "major": r"big|major|serious|leap forward|new generation|substantially",
    "transformative": r"game-changing|breakthrough|generational|transformative|jaw-dropping|industry-shaking",
}


def test_competitor_constants() -> None:
    assert pt.COMPETITORS == ("RivalTech", "NexGen Solutions", "CloudPeak", "QuantumEdge", "ApexSaaS")
    assert len(pt.PERSONAS) == 7
    assert set(pt.PERSONAS) == set(pt.COMPETITOR_PERSONAS)


@pytest.mark.parametrize("severity", pt.SEVERITIES)
def test_competitor_post_reads_as_its_severity(severity: str) -> None:
    rng = np.random.default_rng(1)
    for persona in pt.PERSONAS:
        for name in pt.COMPETITORS:
            text = pt.competitor_post(rng, severity, name, persona)
            assert name in text
            assert len(text) <= pt.MAX_CHARS
            assert re.search(SEVERITY_WORDS[severity], text, re.I), text
            assert not re.search(r"\d", text), text  # never the boost
            if severity == "minor":
                assert not re.search(SEVERITY_WORDS["transformative"], text, re.I), text
            if severity == "transformative":
                assert not re.search(r"\bminor\b|\bsmall\b|patch", text, re.I), text


@pytest.mark.parametrize("severity", pt.SEVERITIES)
def test_competitor_templates_per_severity(severity: str) -> None:
    rng = np.random.default_rng(2)
    cores = {pt.competitor_post(rng, severity, "CloudPeak", "no-such-persona") for _ in range(200)}
    assert len(cores) >= 5
    framed = {pt.competitor_post(rng, severity, "CloudPeak", pt.PERSONAS[i % 7]) for i in range(300)}
    assert len(framed) >= 40


# ----------------------------------------------------------------------------- macro posts

GOOD = r"spend|hiring|growth|growing|budgets are (loosening|steady)|yes|funding|boom|demand|expanding|adding"
BAD = (
    r"slow|longer|consolidat|with less|freeze|frozen|cut|tight|layoff|trimming|chopping|pickier|survival|cancel"
    r"|downturn|worst|rough|stalled|review|auditing|churn|preservation|for a discount"
)


@pytest.mark.parametrize("trend", pt.PMI_TRENDS)
def test_macro_post_carries_the_public_reading(trend: str) -> None:
    rng = np.random.default_rng(0)
    for phase in ("peak", "declining", "trough", "recovering"):
        text = pt.macro_post(rng, {"pmi_value": 51.26, "pmi_trend": trend, "cycle_phase": phase})
        assert "51.3" in text
        assert len(text) <= pt.MAX_CHARS
        assert pt._TREND_WORDS[trend] in text


def test_macro_post_derives_a_missing_trend() -> None:
    text = pt.macro_post(np.random.default_rng(0), {"pmi_value": 40.0})
    assert "severe contraction" in text
    assert pt.trend_of(58) == "strong_expansion" and pt.trend_of(52) == "expansion"
    assert pt.trend_of(48) == "neutral" and pt.trend_of(42) == "contraction"


@pytest.mark.parametrize("trend", pt.PMI_TRENDS)
def test_macro_chatter_is_consistent_with_the_trend(trend: str) -> None:
    rng = np.random.default_rng(4)
    texts = [pt.macro_chatter(rng, trend) for _ in range(100)]
    assert len(set(texts)) >= 40  # a batch of up to 8 posts rarely repeats a line
    for t in texts:
        assert len(t) <= pt.MAX_CHARS and not re.search(r"\d", t)
        if trend in ("strong_expansion", "expansion"):
            assert not re.search(BAD, t, re.I), t
        if trend in ("contraction", "severe_contraction"):
            assert re.search(BAD, t, re.I), t
            assert not re.search(r"boom|good times", t, re.I), t


# ----------------------------------------------------------------------------- viral replies


def test_viral_reply_tone_follows_the_score_and_picks_up_the_topic() -> None:
    rng = np.random.default_rng(0)
    post = "Sorry about the outage on Tuesday. We've added failover so it won't happen again."
    pos = [pt.viral_reply(rng, GROUPS["S1"], 0.8, post) for _ in range(60)]
    neg = [pt.viral_reply(rng, GROUPS["S1"], -0.8, post) for _ in range(60)]
    assert all(re.search(r"outage|downtime", t, re.I) for t in pos + neg)
    assert not any(re.search(r"not buying|yikes|hard pass|tone-deaf|spin|elsewhere", t, re.I) for t in pos)
    assert not any(re.search(r"respect|love this|good to see|sticking", t, re.I) for t in neg)
    for t in pos + neg:
        assert len(t) <= pt.MAX_CHARS and not re.search(r"\d", t)


def test_viral_replies_vary() -> None:
    rng = np.random.default_rng(3)
    for score in (0.9, -0.9):
        texts = {pt.viral_reply(rng, GROUPS["S3"], score, "We've raised the daily limits.") for _ in range(100)}
        assert len(texts) >= 30


def test_viral_reply_of_an_enterprise_speaks_as_we() -> None:
    rng = np.random.default_rng(0)
    for _ in range(40):
        t = pt.viral_reply(rng, GROUPS["E1"], 0.9, "We cut the price of Plan A.")
        assert not re.search(r"\bI\b|\bI'm\b|\bmy\b", t), t


# ----------------------------------------------------------------------------- writers


def test_template_writer_is_the_feed_contract() -> None:
    w = pt.TEMPLATE_WRITER
    rng = np.random.default_rng(0)
    assert w.customer_post(rng, GROUPS["S1"], "negative", ["quota"], "A", False)
    assert w.competitor_post(rng, "major", "RivalTech", pt.PERSONAS[0])
    assert w.macro_post(rng, {"pmi_value": 50.0, "pmi_trend": "neutral", "cycle_phase": "peak"})
    assert w.macro_chatter(rng, "expansion")
    assert w.viral_reply(rng, GROUPS["S1"], 0.7, "hello")


class FakeClient:
    """An OpenAI-compatible client double: records calls, answers from a script."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.calls: list[dict[str, Any]] = []
        self.chat = SimpleNamespace(completions=SimpleNamespace(create=self._create))

    def _create(self, **kwargs: Any) -> Any:
        self.calls.append(kwargs)
        if isinstance(self.answer, Exception):
            raise self.answer
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content=self.answer))])


def _all_kinds(writer: Any, seed: int) -> tuple[list[str], float]:
    rng = np.random.default_rng(seed)
    out = [
        writer.customer_post(rng, GROUPS["S3"], "negative", ["outage", "churned"], "C", True),
        writer.competitor_post(rng, "transformative", "QuantumEdge", "vc_investor"),
        writer.macro_post(rng, {"pmi_value": 44.4, "pmi_trend": "contraction", "cycle_phase": "declining"}),
        writer.macro_chatter(rng, "contraction"),
        writer.viral_reply(rng, GROUPS["S3"], -0.7, "Our API is great"),
    ]
    return out, float(rng.random())


def test_llm_writer_uses_the_model_reply() -> None:
    client = FakeClient('  "Down again, so I cancelled."  ')
    texts, _ = _all_kinds(pt.LlmPostWriter(client, "fake-model"), 0)
    assert texts == ["Down again, so I cancelled."] * 5
    assert len(client.calls) == 5
    call = client.calls[0]
    assert call["model"] == "fake-model" and call["temperature"] == 0.9 and call["max_tokens"] == 200
    prompt = call["messages"][-1]["content"]
    assert "cancelled" in prompt and "outage" in prompt and "Power Users" in prompt


@pytest.mark.parametrize("answer", [RuntimeError("network down"), "", "   ", None])
def test_llm_writer_falls_back_to_templates_and_keeps_the_stream(answer: Any) -> None:
    writer = pt.LlmPostWriter(FakeClient(answer), "fake-model")
    texts, after = _all_kinds(writer, 7)
    expected, expected_after = _all_kinds(pt.TEMPLATE_WRITER, 7)
    assert texts == expected
    assert after == expected_after  # the world's random stream advances the same way
    assert writer.failures == 5


def test_llm_writer_clips_long_replies() -> None:
    writer = pt.LlmPostWriter(FakeClient("word " * 200), "m")
    text = writer.macro_chatter(np.random.default_rng(0), "neutral")
    assert len(text) <= pt.MAX_CHARS
