"""PLACEHOLDER written by the lead so the tree stays importable; helper B replaces this file
with the real template generator (see the helper's task). Contract used by feed.py:
TEMPLATE_WRITER with customer_post/competitor_post/macro_post/macro_chatter/viral_reply,
COMPETITORS, PERSONAS."""

from __future__ import annotations

from types import SimpleNamespace

COMPETITORS = ("RivalTech", "NexGen Solutions", "CloudPeak", "QuantumEdge", "ApexSaaS")
PERSONAS = ("analyst",)
TEMPLATE_WRITER = SimpleNamespace(
    customer_post=lambda rng, group, sentiment, events, plan, churned: f"{sentiment} post ({', '.join(events)})",
    competitor_post=lambda rng, severity, competitor, persona: f"{competitor}: {severity} launch",
    macro_post=lambda rng, reading: f"PMI {reading['pmi_value']}",
    macro_chatter=lambda rng, trend: f"economy: {trend}",
    viral_reply=lambda rng, group, score, agent_post: "reply",
)
