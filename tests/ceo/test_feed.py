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
