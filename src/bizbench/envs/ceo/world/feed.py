"""The public social feed: customer, competitor, macro and reply posts with their text (reference-notes §4.12-4.13).

The world decides who posts, why and with which sentiment (``social.py``); this module
numbers the posts, writes their text through a :class:`~bizbench.envs.ceo.world.posttext`
writer and schedules the market observer's macro chatter. Each post is a dict whose
visible keys are those of the agent's ``social_media_posts`` table (``post_id``, ``day``,
``content``, ``reply_to_agent_post_id``, ``source_group_id``); every other key (author,
sentiment, engagement, causes) is hidden and never leaves the world.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from bizbench.core.rng import RngStreams
from bizbench.envs.ceo.config import CeoConfig
from bizbench.envs.ceo.world import posttext

VISIBLE_POST_KEYS = ("post_id", "day", "content", "reply_to_agent_post_id", "source_group_id")


@dataclass
class Feed:
    """Every public post of a world, in the order written."""

    config: CeoConfig
    streams: RngStreams  # one stream per kind of post, so the observer's posts are exogenous
    writer: Any = field(default_factory=lambda: posttext.TEMPLATE_WRITER)
    posts: list[dict[str, Any]] = field(default_factory=list)
    next_macro_batch_day: int = 0

    def __post_init__(self) -> None:
        lo, hi = self.config.social.macro_batch_interval
        self.next_macro_batch_day = int(self.streams.get("feed/macro").integers(lo, hi + 1))

    def add(
        self,
        day: int,
        kind: str,
        content: str,
        group_id: str | None = None,
        reply_to_agent_post: int | None = None,
        **hidden: Any,
    ) -> dict[str, Any]:
        post = {
            "post_id": len(self.posts) + 1,
            "day": day,
            "content": content,
            "reply_to_agent_post_id": reply_to_agent_post,
            "source_group_id": group_id,
            "kind": kind,
            **hidden,
        }
        self.posts.append(post)
        return post

    # ------------------------------------------------------------------ posts by kind
    def customer_posts(self, day: int, records: list[dict[str, Any]]) -> None:
        """Text for sampled customer posts; ``records`` carry the author's true causes (``events``)."""
        for r in records:
            group = self.config.groups[self.config.group_ids.index(r["group_id"])]
            rng = self.streams.get("feed/customer")
            text = self.writer.customer_post(rng, group, r["sentiment"], r["events"], r["plan"], r["churned"])
            hidden = {k: v for k, v in r.items() if k not in ("day", "group_id")}
            self.add(day, "customer", text, r["group_id"], **hidden)

    def competitor_post(self, day: int, severity: str, noisy_boost: float) -> None:
        """One observer post about the open competitor event (reference-notes §4.12 competitor posts)."""
        rng = self.streams.get("feed/competitor")
        name = posttext.COMPETITORS[int(rng.integers(len(posttext.COMPETITORS)))]
        persona = posttext.PERSONAS[int(rng.integers(len(posttext.PERSONAS)))]
        text = self.writer.competitor_post(rng, severity, name, persona)
        self.add(day, "competitor", text, severity=severity, noisy_boost=noisy_boost, competitor=name)

    def macro_posts(self, day: int, published_today: list[dict[str, Any]], latest: dict[str, Any] | None) -> None:
        """A post per PMI reading published today, plus the observer's batch chatter (reference-notes §4.12)."""
        rng = self.streams.get("feed/macro")
        for reading in published_today:
            self.add(day, "macro", self.writer.macro_post(rng, reading), trend=reading["pmi_trend"])
        if day < self.next_macro_batch_day:
            return
        trend = latest["pmi_trend"] if latest else "neutral"
        lo, hi = self.config.social.macro_batch_posts
        for _ in range(int(rng.integers(lo, hi + 1))):
            self.add(day, "macro", self.writer.macro_chatter(rng, trend), trend=trend)
        lo, hi = self.config.social.macro_batch_interval
        self.next_macro_batch_day = day + int(rng.integers(lo, hi + 1))

    def viral_reply(self, day: int, group_index: int, score: float, agent_post: Any, author: int | None) -> int:
        """A customer's public reply to a viral agent post (|e| >= 0.6; reference-notes §4.13)."""
        group = self.config.groups[group_index]
        text = self.writer.viral_reply(self.streams.get("feed/replies"), group, score, agent_post.content)
        post = self.add(
            day,
            "reply",
            text,
            group.id,
            reply_to_agent_post=agent_post.post_id,
            customer=author,
            sentiment="positive" if score > 0 else "negative",
        )
        return int(post["post_id"])

    def visible(self, post: dict[str, Any]) -> dict[str, Any]:
        return {k: post[k] for k in VISIBLE_POST_KEYS}
