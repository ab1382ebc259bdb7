"""Social media through the seat: agent posts, the judge's view of each group's real 14 days,
viral replies, the public feed, and the optional LLM writer/judge (reference-notes §4.12-4.13; eq 26-27)."""

from __future__ import annotations

import pytest

from bizbench.envs.ceo.baselines import make_policy
from bizbench.envs.ceo.config import load_config
from bizbench.envs.ceo.env import CeoEnv
from bizbench.envs.ceo.world.feed import VISIBLE_POST_KEYS
from bizbench.envs.ceo.world.state import AgentPost
from bizbench.envs.ceo.world.world import World

APOLOGY = (
    "We're sorry about this week's outages. We've doubled server capacity and added monitoring "
    "so it won't happen again."
)


@pytest.fixture(scope="module")
def outage_week() -> CeoEnv:
    """Ten rule-based weeks, then a week on capacity tier 0: every day overloads and goes down."""
    env = CeoEnv.from_preset("default", seed=4, horizon_days=120)
    policy = make_policy("rule-based")
    for _ in range(10):
        policy.act(env)
        env.next_turn()
    env.call("set_capacity_tier", tier=0)
    env.next_turn()
    return env


def _scores(env: CeoEnv, text: str) -> dict[str, float]:
    post = AgentPost(post_id=10_000, day=env.day, content=text, reply_to=None)
    return {g: v.score for g, v in env.world.judge(text, env.world.judge_context(post)).items()}


def test_judge_context_holds_the_groups_true_experience(outage_week: CeoEnv) -> None:
    ctx = outage_week.world.judge_context(AgentPost(post_id=1, day=outage_week.day, content="x", reply_to=None))
    assert set(ctx.groups) == set(outage_week.known_group_ids())
    s1 = ctx.groups["S1"]
    assert s1.outage_days >= 5 and s1.overload_days >= 5 and s1.downtime_minutes > 0
    assert s1.active > 0 and "outage" in s1.recent_post_topics


def test_an_apology_for_a_real_outage_beats_noise(outage_week: CeoEnv) -> None:
    apology = _scores(outage_week, APOLOGY)
    friday = _scores(outage_week, "Happy Friday everyone!")
    spam = _scores(outage_week, "AI AI AI best best product product buy now now!!! #ai #saas #deal")
    for g in apology:
        assert apology[g] > 0.6 > friday[g] > spam[g]
    quiet = CeoEnv.from_preset("default", seed=4, horizon_days=30)  # no customers, no outage yet
    assert max(_scores(quiet, APOLOGY).values()) < min(apology.values())


def test_a_viral_post_is_judged_next_day_with_replies_and_a_notification(outage_week: CeoEnv) -> None:
    env = outage_week
    r = env.call("post_social_media", content=APOLOGY)
    assert r.ok, r.error
    again = env.call("post_social_media", content="And one more thing")
    assert not again.ok and "Already posted today" in again.error
    env.next_turn()
    post = env.world.state.agent_posts[-1]
    assert post.scores is not None and post.views is not None and post.reasoning
    assert post.comment_post_ids, "a viral post draws public customer replies"
    feed = env.world.social_posts
    assert all(feed[i - 1]["reply_to_agent_post_id"] == post.post_id for i in post.comment_post_ids)
    notes = env.call("get_notifications", type="social_media").data["notifications"]
    assert notes and f"#{post.post_id}" in notes[0]["message"]


def test_public_posts_show_only_visible_fields(outage_week: CeoEnv) -> None:
    posts = outage_week.call("get_social_posts", days=30, limit=200).data["posts"]
    assert posts
    allowed = {*VISIBLE_POST_KEYS, "customer_type", "replying_to_your_post"}
    for p in posts:
        assert set(p) <= allowed
        assert p["content"] and len(p["content"]) <= 280
    assert {p["customer_type"] for p in posts} >= {"individual", "observer"}


def test_post_validation() -> None:
    env = CeoEnv.from_preset("default", seed=1, horizon_days=30)
    assert not env.call("post_social_media", content="x" * 281).ok
    assert "empty" in env.call("post_social_media", content="   ").error
    bad = env.call("post_social_media", content="hi", reply_to_post_id=5)
    assert not bad.ok and "reply_to_post_id" in bad.error
    assert env.world.state.agent_posts == []


def test_llm_writer_and_judge_are_preset_options_that_the_env_injects(monkeypatch: pytest.MonkeyPatch) -> None:
    """The world builds no client (it stays pure): it refuses an LLM preset without them; CeoEnv injects them."""
    from bizbench.envs.ceo.env import CeoEnv

    monkeypatch.setenv("OPENAI_API_KEY", "test-key-not-used")  # the client is built, never called here
    config, _ = load_config("default")
    social = config.social.model_copy(update={"judge": "llm", "writer": "llm"})
    llm = config.model_copy(update={"social": social, "horizon_days": 7})
    with pytest.raises(ValueError, match="inject post_judge"):
        World(llm, 1)
    world = CeoEnv(llm, 1, database=False).world
    assert type(world.judge).__name__ == "LlmJudge"
    assert type(world.feed.writer).__name__ == "LlmPostWriter"
    default = World(config, 1)
    assert type(default.judge).__name__ == "RuleJudge"
