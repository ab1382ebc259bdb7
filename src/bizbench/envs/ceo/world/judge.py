"""PLACEHOLDER written by the lead so the tree stays importable; helper B replaces this file
with the real judge (GroupExperience, JudgeContext, Verdict, PostJudge, RuleJudge, LlmJudge)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple, Protocol


@dataclass
class GroupExperience:
    group_id: str
    name: str
    kind: str
    outage_days: int = 0
    overload_days: int = 0
    downtime_minutes: int = 0
    price_change: dict[str, float] = field(default_factory=dict)
    quota_short_share: float = 0.0
    issue_share: float = 0.0
    churn_count: int = 0
    competitor_launch: bool = False
    active: int = 0
    recent_post_topics: list[str] = field(default_factory=list)


@dataclass
class JudgeContext:
    groups: dict[str, GroupExperience]
    recent_agent_posts: list[str] = field(default_factory=list)
    replied_post: str | None = None


class Verdict(NamedTuple):
    score: float
    reason: str


class PostJudge(Protocol):
    def __call__(self, content: str, context: JudgeContext) -> dict[str, Verdict]: ...


class RuleJudge:
    def __call__(self, content: str, context: JudgeContext) -> dict[str, Verdict]:
        return {g: Verdict(0.0, "placeholder") for g in context.groups}
