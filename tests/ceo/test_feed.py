"""The feed's posts by kind (src/bizbench/envs/ceo/world/feed.py; the posts' words are
tests/ceo/test_posttext.py's)."""

from __future__ import annotations

from bizbench.core.rng import RngStreams
from bizbench.envs.ceo.world import posttext
from bizbench.envs.ceo.world.feed import Feed


class _CompetitorWriter:
    """A post writer that records its competitor_post calls and answers with a fixed text."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, str, str, str]] = []

    def competitor_post(self, rng: object, severity: str, name: str, persona: str) -> str:
        self.calls.append((rng, severity, name, persona))
        return "Is it just me or is the other API down again?"


def test_a_competitor_post_is_written_from_its_own_stream_about_a_competitor_by_a_persona(cfg) -> None:
    """docs/reference-notes.md §4.12: an observer (a persona) posts about a competitor's open event; the
    post keeps the event's severity and noisy boost and the competitor's name, hidden."""
    writer = _CompetitorWriter()
    feed = Feed(cfg, RngStreams(5), writer=writer)
    feed.competitor_post(12, "major", 0.25)
    [(rng, severity, name, persona)] = writer.calls
    assert rng is feed.streams.get("feed/competitor")
    assert severity == "major" and name in posttext.COMPETITORS and persona in posttext.PERSONAS
    assert feed.posts == [
        {
            "post_id": 1,
            "day": 12,
            "content": "Is it just me or is the other API down again?",
            "reply_to_agent_post_id": None,
            "source_group_id": None,
            "kind": "competitor",
            "severity": "major",
            "noisy_boost": 0.25,
            "competitor": name,
        }
    ]


class _Writer:
    """A post writer that records every call (with the generator it got) and answers a fixed text."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def customer_post(self, rng, group, sentiment, events, plan, churned) -> str:
        self.calls.append(("customer", rng, group, sentiment, events, plan, churned))
        return f"customer post {len(self.calls)}"

    def macro_post(self, rng, reading) -> str:
        self.calls.append(("macro", rng, reading))
        return f"macro post {len(self.calls)}"

    def macro_chatter(self, rng, trend) -> str:
        self.calls.append(("chatter", rng, trend))
        return f"chatter {len(self.calls)}"


class _ScriptedStream:
    """A generator whose ``integers(low, high)`` answers scripted values and records its bounds."""

    def __init__(self, values: list[int]) -> None:
        self.values = list(values)
        self.bounds: list[tuple] = []

    def integers(self, low, high=None):
        self.bounds.append((low, high))
        return self.values.pop(0)


class _ScriptedStreams:
    def __init__(self, **by_name: _ScriptedStream) -> None:
        self.by_name = by_name

    def get(self, name: str) -> _ScriptedStream:
        return self.by_name[name]


def test_the_first_macro_batch_falls_on_a_day_from_5_to_20(cfg) -> None:
    """docs/reference-notes.md §4.12: the observer's next batch comes U{5..20} days later, the first
    from day 0: over 500 seeds every first batch day is within 5..20 and both ends occur (each end
    is missed by all 500 with probability (15/16)^500 < 1e-13)."""
    days = {Feed(cfg, RngStreams(seed)).next_macro_batch_day for seed in range(500)}
    assert min(days) == 5 and max(days) == 20 and days <= set(range(5, 21))


def test_a_customer_post_is_written_from_its_own_stream_for_the_authors_group(cfg) -> None:
    """Reference-notes §4.12: the world's records (group, sentiment, true causes, plan, churned) go to
    the writer with the customer stream and the author's group; each post shows the record's day
    and group and keeps every other field hidden, numbered on from the feed's last post."""
    writer = _Writer()
    feed = Feed(cfg, RngStreams(5), writer=writer)
    feed.add(3, "macro", "earlier post")
    records = [
        {
            "day": 9,
            "group_id": "E2",
            "customer": 41,
            "sentiment": "negative",
            "events": ["outage"],
            "plan": "C",
            "churned": True,
        },
        {
            "day": 9,
            "group_id": "S3",
            "customer": 7,
            "sentiment": "positive",
            "events": [],
            "plan": "A",
            "churned": False,
        },
    ]
    feed.customer_posts(9, records)
    rng = feed.streams.get("feed/customer")
    e2, s3 = (cfg.groups[cfg.group_ids.index(g)] for g in ("E2", "S3"))
    assert e2.id == "E2" and s3.id == "S3"
    assert writer.calls == [
        ("customer", rng, e2, "negative", ["outage"], "C", True),
        ("customer", rng, s3, "positive", [], "A", False),
    ]
    assert feed.posts[1:] == [
        {
            "post_id": 2,
            "day": 9,
            "content": "customer post 1",
            "reply_to_agent_post_id": None,
            "source_group_id": "E2",
            "kind": "customer",
            "customer": 41,
            "sentiment": "negative",
            "events": ["outage"],
            "plan": "C",
            "churned": True,
        },
        {
            "post_id": 3,
            "day": 9,
            "content": "customer post 2",
            "reply_to_agent_post_id": None,
            "source_group_id": "S3",
            "kind": "customer",
            "customer": 7,
            "sentiment": "positive",
            "events": [],
            "plan": "A",
            "churned": False,
        },
    ]


def test_macro_posts_are_one_per_reading_and_a_batch_of_2_to_8_on_the_batch_day(cfg) -> None:
    """Reference-notes §4.12: a post per PMI reading published today (its trend kept); on the batch
    day (and not the day before) U{2..8} chatter posts on the latest reading's trend ("neutral"
    with none yet), then the next batch U{5..20} days later. Scripted draws: 3 posts on day 10,
    next batch 10 + 7 = 17; 2 posts on day 17, next 17 + 20 = 37."""
    writer = _Writer()
    feed = Feed(cfg, RngStreams(5), writer=writer)
    stream = _ScriptedStream([3, 7, 2, 20])
    feed.streams = _ScriptedStreams(**{"feed/macro": stream})
    feed.next_macro_batch_day = 10
    readings = [{"pmi_value": 51.0, "pmi_trend": "expansion"}, {"pmi_value": 48.0, "pmi_trend": "contraction"}]
    feed.macro_posts(9, readings, readings[-1])
    assert stream.bounds == [] and writer.calls == [("macro", stream, readings[0]), ("macro", stream, readings[1])]
    assert [(p["post_id"], p["day"], p["kind"], p["trend"], p["content"]) for p in feed.posts] == [
        (1, 9, "macro", "expansion", "macro post 1"),
        (2, 9, "macro", "contraction", "macro post 2"),
    ]
    feed.macro_posts(10, [], {"pmi_trend": "expansion"})
    assert stream.bounds == [(2, 9), (5, 21)] and feed.next_macro_batch_day == 17
    assert writer.calls[2:] == [("chatter", stream, "expansion")] * 3
    assert feed.posts[2:] == [
        {
            "post_id": k,
            "day": 10,
            "content": f"chatter {k}",
            "reply_to_agent_post_id": None,
            "source_group_id": None,
            "kind": "macro",
            "trend": "expansion",
        }
        for k in (3, 4, 5)
    ]
    feed.macro_posts(16, [], None)
    assert len(feed.posts) == 5
    feed.macro_posts(17, [], None)
    assert [(p["day"], p["trend"]) for p in feed.posts[5:]] == [(17, "neutral")] * 2
    assert feed.next_macro_batch_day == 37 and stream.bounds[2:] == [(2, 9), (5, 21)]
