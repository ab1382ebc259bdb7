"""Text of the public social feed: customer, competitor, macro and viral-reply posts.

The world decides *who* posts, with which sentiment and why (paper eq 26, §2.3; reference-notes §4.12);
this module turns those facts into short, varied, in-voice text. Everything here is pure:
each function takes a numpy ``Generator`` and the facts, and returns a string of at most
280 characters. No hidden quantity (satisfaction, willingness to pay, competitor boost)
ever enters the text: templates only see categorical facts (the author's group, the
sentiment, the list of true recent events, the severity label).

Composition, not lookup: a customer post is an optional opener, a core sentence chosen by
(main cause, sentiment), an optional second-cause clause, an optional group-voiced aside,
an optional closer (always a cancellation closer for churned authors) and an optional
hashtag, so a thousand posts are not a handful of strings.

``LlmPostWriter`` is an optional OpenAI-compatible writer for the same four kinds of text
(reference-notes §4.12: the engine asks an LLM first and falls back to templates). It always draws the
template first, so the world's random streams advance identically with and without an LLM.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from bizbench.envs.ceo.world.macro import trend_label as trend_of  # reference-notes §4.15 labels, defined once

MAX_CHARS = 280
SENTIMENTS = ("positive", "neutral", "negative")
EVENTS = (
    "outage",
    "overload",
    "issue",
    "quota",
    "price_increase",
    "price_cut",
    "promotion",
    "new_customer",
    "churned",
    "enterprise_churn",
)
# Salience order used to pick a post's main cause (a churned author still talks about why).
CAUSE_ORDER = (
    "enterprise_churn",
    "outage",
    "overload",
    "quota",
    "issue",
    "price_increase",
    "price_cut",
    "promotion",
    "new_customer",
    "churned",
)
COMPETITORS = ("RivalTech", "NexGen Solutions", "CloudPeak", "QuantumEdge", "ApexSaaS")
SEVERITIES = ("minor", "moderate", "major", "transformative")
PMI_TRENDS = ("strong_expansion", "expansion", "neutral", "contraction", "severe_contraction")


class GroupLike(Protocol):
    """Anything with a group's id, name and kind (``config.GroupParams`` fits)."""

    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...


# --------------------------------------------------------------------------------------
# Group voices
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Voice:
    """How members of one customer group talk, and the words that address them.

    ``roles`` read after "as" ("as a grad student"); ``work`` is what they use the product
    for, written with the group's pronoun ("my thesis notes" / "our claims workflows");
    ``audience`` are the words a post would use to speak to this group (read by the judge).
    """

    description: str
    tone: str
    roles: tuple[str, ...]
    work: tuple[str, ...]
    peers: tuple[str, ...]
    praise: tuple[str, ...]
    gripes: tuple[str, ...]
    audience: tuple[str, ...]
    tags: tuple[str, ...]
    plural: bool = False  # enterprise accounts speak as "we"


VOICES: dict[str, Voice] = {
    "S1": Voice(
        description="price-sensitive individuals: students, hobbyists and people on tight budgets",
        tone="casual, blunt, counts every dollar",
        roles=("a student", "a grad student", "someone on a tight budget", "a broke hobbyist"),
        work=("my assignments", "my study notes", "my side project", "my coursework"),
        peers=("other students", "anyone on a budget", "fellow broke students"),
        praise=("Great value on a student budget.", "Cheap enough that I don't feel guilty using it."),
        gripes=("Hard to justify on a student budget.", "Every dollar counts when you're a student."),
        audience=("student", "students", "budget", "affordable", "hobbyist", "hobbyists", "free tier", "cheap"),
        tags=("#studentlife", "#budget", "#gradschool"),
    ),
    "S2": Voice(
        description="quality-focused individual professionals who pay for polished, accurate output",
        tone="measured, detail-oriented, compares output quality",
        roles=("a consultant", "a professional who cares about output quality", "a perfectionist"),
        work=("my client reports", "my research briefs", "my daily writing", "my presentations"),
        peers=("other professionals", "anyone who cares about quality"),
        praise=("The output quality is genuinely excellent.", "Accurate, polished answers every time."),
        gripes=("Accuracy has slipped and I notice it.", "I pay for quality, not for 'good enough'."),
        audience=("professionals", "professional", "accuracy", "accurate", "polished", "precision", "craft"),
        tags=("#productivity", "#quality", "#worktools"),
    ),
    "S3": Voice(
        description="power users and developers who automate heavy workloads through the API",
        tone="technical, impatient, talks about latency, rate limits and APIs",
        roles=("a developer", "a power user", "an indie hacker", "someone who lives in the API"),
        work=("my automation scripts", "my API pipeline", "my coding workflow", "my batch jobs"),
        peers=("other devs", "fellow power users", "anyone building on the API"),
        praise=("The API is a joy to build on.", "Handles my heavy workloads without complaint."),
        gripes=("Power users deserve better than this.", "The API experience needs work."),
        audience=("developer", "developers", "devs", "dev", "power users", "power user", "api", "engineers", "sdk"),
        tags=("#devlife", "#buildinpublic", "#api"),
    ),
    "E1": Voice(
        description="cost-cutting enterprises whose procurement and finance teams chase savings",
        tone="formal, ROI-driven, procurement language",
        roles=("a cost-conscious enterprise", "a procurement team", "a finance-led organisation"),
        work=("our cost-reduction program", "our back-office automation", "our vendor consolidation"),
        peers=("other procurement teams", "finance leaders", "other cost-conscious buyers"),
        praise=("The ROI case writes itself.", "Our finance team is happy with the savings."),
        gripes=("The ROI case is getting harder to make.", "Procurement is asking hard questions."),
        audience=("procurement", "cost savings", "roi", "finance teams", "cfo", "total cost", "savings"),
        tags=("#procurement", "#costoptimization", "#enterprise"),
        plural=True,
    ),
    "E2": Voice(
        description="quality-first enterprises with demanding engineering, security and compliance teams",
        tone="formal, exacting, talks about SLAs, security and compliance",
        roles=("a quality-first enterprise", "an engineering organisation", "a security-conscious company"),
        work=("our production workloads", "our internal platform", "our customer-facing services"),
        peers=("other engineering leaders", "enterprise IT teams"),
        praise=("Meets our bar for quality and security.", "Our engineers trust the output."),
        gripes=("This does not meet our SLA expectations.", "Our security team is not impressed."),
        audience=("security", "compliance", "sla", "slas", "audit", "governance", "engineering leaders"),
        tags=("#enterprise", "#security", "#engineering"),
        plural=True,
    ),
    "E3": Voice(
        description="strategic partners integrating the product deeply into their own offerings",
        tone="relationship-minded, long-term, talks about roadmaps and integration",
        roles=("a strategic partner", "an integration partner", "a long-term partner"),
        work=("our joint integration", "our partner roadmap", "our embedded offering"),
        peers=("other partners", "companies considering a partnership"),
        praise=("A partner that actually listens.", "The integration keeps getting better."),
        gripes=("Partnership requires more communication than this.", "Our roadmap depends on reliability."),
        audience=("partners", "partner", "partnership", "integration", "integrations", "roadmap", "strategic"),
        tags=("#partnership", "#integration", "#enterprise"),
        plural=True,
    ),
    "D_S01": Voice(
        description="niche content creators who publish to their own small audiences",
        tone="enthusiastic, personal, creator slang",
        roles=("a small creator", "a niche creator", "a one-person channel"),
        work=("my video scripts", "my newsletter", "my content calendar", "my next upload"),
        peers=("other creators", "fellow small creators"),
        praise=("Saves me hours on every upload.", "My audience can tell the difference."),
        gripes=("Creators can't afford surprises like this.", "My audience notices when I'm late."),
        audience=("creators", "creator", "content", "channel", "newsletter", "audience", "uploads"),
        tags=("#creator", "#contentcreator", "#smallcreator"),
    ),
    "D_S02": Voice(
        description="academic researchers using the product for literature, analysis and writing",
        tone="careful, skeptical, cites evidence",
        roles=("a researcher", "a postdoc", "an academic"),
        work=("my literature review", "my paper draft", "my lab's analysis", "my grant proposal"),
        peers=("other researchers", "colleagues in academia"),
        praise=("Genuinely useful for literature reviews.", "Cuts my reading time considerably."),
        gripes=("Not reliable enough for research use.", "Reviewers would not accept this."),
        audience=("researchers", "research", "academics", "academic", "papers", "lab", "labs", "scholars"),
        tags=("#academia", "#research", "#phdlife"),
    ),
    "D_S03": Voice(
        description="non-profit workers stretching small budgets for a mission",
        tone="earnest, mission-driven, budget-aware",
        roles=("a non-profit worker", "someone at a small charity", "a nonprofit program lead"),
        work=("our grant reports", "my volunteer outreach", "our donor updates", "my program reports"),
        peers=("other nonprofits", "people in the charity sector"),
        praise=("Lets a tiny team punch above its weight.", "More time for the mission."),
        gripes=("Every dollar we spend is a donor's dollar.", "Hard to justify to our board."),
        audience=("nonprofit", "nonprofits", "non-profit", "charity", "charities", "mission", "grant", "volunteers"),
        tags=("#nonprofit", "#charity", "#impact"),
    ),
    "D_S04": Voice(
        description="small agency teams producing work for clients on deadlines",
        tone="busy, client-focused, pragmatic",
        roles=("a small agency owner", "an agency team lead", "a studio of four"),
        work=("our client deliverables", "my client pitches", "our campaign drafts"),
        peers=("other agencies", "small studios"),
        praise=("Our clients love the turnaround.", "Makes a small agency feel bigger."),
        gripes=("Clients don't care why we're late.", "Can't bill clients for waiting."),
        audience=("agency", "agencies", "clients", "client work", "small teams", "studios"),
        tags=("#agencylife", "#smallbusiness", "#clients"),
    ),
    "D_S05": Voice(
        description="indie game developers building games with tiny teams",
        tone="playful, technical, gamer humour",
        roles=("an indie game dev", "a solo game developer", "a tiny game studio"),
        work=("my game's dialogue", "my level scripts", "my next build", "my game jam entry"),
        peers=("other indie devs", "the gamedev crowd"),
        praise=("A real power-up for a solo dev.", "Ships my builds faster."),
        gripes=("Feels like a boss fight I didn't sign up for.", "Indie budgets don't forgive this."),
        audience=("game devs", "gamedev", "indie", "indies", "games", "game developers", "game"),
        tags=("#gamedev", "#indiedev", "#indiegame"),
    ),
    "D_S06": Voice(
        description="freelance writers juggling client drafts and deadlines",
        tone="witty, wordy, deadline-driven",
        roles=("a freelance writer", "a copywriter", "a freelancer on deadline"),
        work=("my client drafts", "my article pitches", "my editing pass", "this week's deadlines"),
        peers=("other freelancers", "fellow writers"),
        praise=("My first drafts have never been cleaner.", "A second pair of eyes that never sleeps."),
        gripes=("Deadlines don't move for excuses.", "Freelancers pay for every lost hour."),
        audience=("writers", "writer", "freelancers", "freelance", "freelancer", "drafts", "editors", "copywriters"),
        tags=("#amwriting", "#freelance", "#writerslife"),
    ),
    "D_S07": Voice(
        description="data analysts using the product for SQL, dashboards and reporting",
        tone="precise, numbers-minded, dry",
        roles=("a data analyst", "an analytics lead", "someone who writes SQL all day"),
        work=("my SQL queries", "my weekly dashboards", "my reporting pipeline", "my ad-hoc analysis"),
        peers=("other analysts", "data folks"),
        praise=("My queries are cleaner and faster to write.", "Dashboards in half the time."),
        gripes=("The data says this isn't working.", "Analysts need tools that just work."),
        audience=("analysts", "analyst", "data", "sql", "dashboards", "spreadsheets", "reporting", "analytics"),
        tags=("#dataanalytics", "#sql", "#datascience"),
    ),
    "D_S08": Voice(
        description="social media managers running campaigns for brands",
        tone="upbeat, fast, trend-aware",
        roles=("a social media manager", "a community manager", "someone running brand accounts"),
        work=("my campaign posts", "my content calendar", "our brand's captions", "my scheduled posts"),
        peers=("other social media managers", "marketers"),
        praise=("My content calendar basically fills itself.", "Captions that actually land."),
        gripes=("The feed waits for no one.", "Missed a posting window because of this."),
        audience=("social media managers", "marketers", "marketing", "campaigns", "content calendar", "brands"),
        tags=("#socialmedia", "#marketing", "#smm"),
    ),
    "D_S09": Voice(
        description="UX designers using the product for research synthesis, copy and prototypes",
        tone="thoughtful, user-centred, visual",
        roles=("a UX designer", "a product designer", "a design lead"),
        work=("my prototypes", "my user research synthesis", "my UX copy", "my design reviews"),
        peers=("other designers", "the design community"),
        praise=("Speeds up research synthesis a lot.", "UX copy drafts in seconds."),
        gripes=("The user experience here is ironic.", "Designers notice friction like this."),
        audience=("designers", "designer", "ux", "design", "prototypes", "wireframes", "user research"),
        tags=("#uxdesign", "#productdesign", "#design"),
    ),
    "D_S10": Voice(
        description="music producers using the product for lyrics, ideas and session notes",
        tone="creative, laid-back, studio talk",
        roles=("a music producer", "a bedroom producer", "a songwriter"),
        work=("my studio sessions", "my lyric drafts", "my next track", "my mix notes"),
        peers=("other producers", "fellow musicians"),
        praise=("Great for breaking writer's block in the studio.", "Lyric ideas on tap."),
        gripes=("Killed the vibe of the session.", "Creative flow doesn't survive this."),
        audience=("producers", "producer", "musicians", "music", "tracks", "beats", "songwriters", "studio"),
        tags=("#musicproducer", "#studiolife", "#songwriting"),
    ),
    "D_E01": Voice(
        description="government agencies with strict procurement, compliance and public accountability",
        tone="formal, cautious, accountability-focused",
        roles=("a public agency", "a government department", "a public-sector team"),
        work=("our citizen services", "our case processing", "our public records work"),
        peers=("other agencies", "public-sector IT teams"),
        praise=("Meets our accountability standards.", "Citizens get faster answers."),
        gripes=("Public services cannot tolerate this.", "We answer to taxpayers for this spend."),
        audience=("government", "agencies", "public sector", "public-sector", "citizens", "procurement", "compliance"),
        tags=("#govtech", "#publicsector", "#compliance"),
        plural=True,
    ),
    "D_E02": Voice(
        description="educational institutions rolling the product out to faculty and students",
        tone="institutional, student-welfare focused",
        roles=("a university", "a school district", "an educational institution"),
        work=("our faculty rollout", "our student services", "our course support"),
        peers=("other universities", "schools"),
        praise=("Faculty and students both find it useful.", "A real help for our teaching staff."),
        gripes=("Our students depend on this during term.", "Faculty are losing patience."),
        audience=("schools", "universities", "university", "campus", "educators", "faculty", "education", "teachers"),
        tags=("#edtech", "#highered", "#education"),
        plural=True,
    ),
    "D_E03": Voice(
        description="healthcare networks handling sensitive patient data under strict privacy rules",
        tone="careful, privacy-conscious, clinical",
        roles=("a healthcare network", "a hospital group", "a clinical operations team"),
        work=("our clinical documentation", "our patient intake", "our care coordination"),
        peers=("other healthcare providers", "hospital IT teams"),
        praise=("Clinicians get time back for patients.", "Privacy controls we can trust."),
        gripes=("Clinical teams cannot wait on a tool.", "Patient-facing work needs reliability."),
        audience=("healthcare", "clinicians", "hospitals", "hospital", "patients", "patient data", "hipaa", "privacy"),
        tags=("#healthtech", "#healthcare", "#privacy"),
        plural=True,
    ),
    "D_E04": Voice(
        description="regional banks with risk, regulatory and compliance obligations",
        tone="conservative, risk-focused, regulatory language",
        roles=("a regional bank", "a community bank", "a bank's risk team"),
        work=("our compliance reviews", "our customer onboarding", "our risk reporting"),
        peers=("other banks", "financial institutions"),
        praise=("Passed our risk review with ease.", "Our compliance team approves."),
        gripes=("Regulators expect better from our vendors.", "Risk flagged this vendor again."),
        audience=(
            "banks",
            "bank",
            "banking",
            "regulators",
            "regulatory",
            "risk",
            "compliance",
            "financial institutions",
        ),
        tags=("#banking", "#fintech", "#riskmanagement"),
        plural=True,
    ),
    "D_E05": Voice(
        description="insurance brokers processing policies and claims for clients",
        tone="practical, client-service minded",
        roles=("an insurance brokerage", "a claims team", "a broker network"),
        work=("our claims processing", "our policy comparisons", "our client renewals"),
        peers=("other brokers", "insurance teams"),
        praise=("Claims turnaround is noticeably faster.", "Our brokers save hours each week."),
        gripes=("Clients waiting on claims don't care why.", "Renewal season cannot absorb this."),
        audience=("insurance", "brokers", "brokerage", "claims", "policies", "underwriting", "policyholders"),
        tags=("#insurtech", "#insurance", "#claims"),
        plural=True,
    ),
    "D_E06": Voice(
        description="construction firms coordinating bids, job sites and project documents",
        tone="no-nonsense, schedule-driven",
        roles=("a construction firm", "a general contractor", "a project management office"),
        work=("our bid documents", "our site reports", "our project schedules"),
        peers=("other contractors", "construction teams"),
        praise=("Bids go out faster than ever.", "Our site managers actually use it."),
        gripes=("Job sites run on schedules, not excuses.", "Our crews can't wait on software."),
        audience=("construction", "contractors", "contractor", "job sites", "job site", "bids", "project managers"),
        tags=("#construction", "#contech", "#projectmanagement"),
        plural=True,
    ),
    "D_E07": Voice(
        description="telecom operators running large networks and customer operations",
        tone="operational, uptime-obsessed",
        roles=("a telecom operator", "a carrier's operations team", "a network operations center"),
        work=("our network operations", "our customer care desk", "our field service planning"),
        peers=("other carriers", "telecom operators"),
        praise=("Our operations desk runs smoother.", "Handles our scale without blinking."),
        gripes=("We measure our own uptime in nines; we expect the same.", "Operators have no patience for this."),
        audience=("telecom", "telecoms", "carriers", "carrier", "operators", "network operations", "noc"),
        tags=("#telecom", "#networkops", "#carriers"),
        plural=True,
    ),
    "D_E08": Voice(
        description="energy companies running field operations, grid planning and safety reporting",
        tone="safety-first, operational",
        roles=("an energy company", "a utility", "a grid operations team"),
        work=("our field crew reports", "our grid planning", "our safety documentation"),
        peers=("other utilities", "energy operators"),
        praise=("Safety reports in a fraction of the time.", "Field crews get answers faster."),
        gripes=("Field operations need tools that hold up.", "Safety work can't stall on software."),
        audience=("energy", "utilities", "utility", "grid", "field crews", "field operations", "oil and gas"),
        tags=("#energy", "#utilities", "#gridops"),
        plural=True,
    ),
    "D_E09": Voice(
        description="real estate groups managing listings, agents and property portfolios",
        tone="sales-driven, fast-moving",
        roles=("a real estate group", "a brokerage", "a property management firm"),
        work=("our listing descriptions", "our agent support", "our tenant communications"),
        peers=("other brokerages", "property managers"),
        praise=("Listings go live faster.", "Our agents love it."),
        gripes=("Listings don't wait.", "Our agents lose deals when tools stall."),
        audience=("real estate", "brokerages", "brokerage", "listings", "property managers", "agents", "realtors"),
        tags=("#realestate", "#proptech", "#listings"),
        plural=True,
    ),
    "D_E10": Voice(
        description="shipping lines coordinating freight, ports and fleet logistics",
        tone="logistics-minded, terse, time-critical",
        roles=("a shipping line", "a logistics operator", "a fleet operations team"),
        work=("our freight documentation", "our port scheduling", "our fleet logistics"),
        peers=("other carriers", "logistics teams"),
        praise=("Port paperwork moves faster now.", "Our logistics desk is more efficient."),
        gripes=("Ships don't wait for software.", "Delays ripple through the whole fleet."),
        audience=("shipping", "logistics", "freight", "ports", "port", "fleet", "maritime", "supply chain"),
        tags=("#logistics", "#shipping", "#supplychain"),
        plural=True,
    ),
}

_GENERIC_IND = Voice(
    description="individual subscribers",
    tone="casual",
    roles=("a regular user", "an individual subscriber"),
    work=("my daily tasks", "my work", "my projects"),
    peers=("other users", "people like me"),
    praise=("Worth every cent.", "Does what I need."),
    gripes=("Expected more.", "Not what I signed up for."),
    audience=("individuals", "solo users", "everyday users"),
    tags=("#ai", "#productivity"),
)
_GENERIC_ENT = Voice(
    description="enterprise customers with procurement, security and compliance requirements",
    tone="formal, procurement language",
    roles=("an enterprise customer", "a mid-size company"),
    work=("our internal workflows", "our operations", "our team's daily work"),
    peers=("other enterprises", "enterprise buyers"),
    praise=("A solid vendor so far.", "Our teams rely on it."),
    gripes=("Vendors need to do better.", "Our teams expect more."),
    audience=("enterprises", "businesses"),
    tags=("#enterprise", "#saas"),
    plural=True,
)
# Words any enterprise reader takes as addressed to them.
ENTERPRISE_AUDIENCE = (
    "enterprise",
    "enterprises",
    "security",
    "compliance",
    "sla",
    "slas",
    "procurement",
    "admins",
    "it teams",
    "sso",
    "contracts",
    "business customers",
)


def voice_of(group: GroupLike) -> Voice:
    """The group's voice (``VOICES`` by id), else a generic one for its kind."""
    v = VOICES.get(group.id)
    if v is not None:
        return v
    return _GENERIC_ENT if group.kind == "ENT" else _GENERIC_IND


def describe_group(group: GroupLike) -> str:
    """One line describing a group for an LLM prompt (no hidden parameters)."""
    v = voice_of(group)
    kind = "enterprise accounts" if group.kind == "ENT" else "individual subscribers"
    return f"{group.name} ({kind}): {v.description}. Social tone: {v.tone}."


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------


def _pick(rng: np.random.Generator, options: Sequence[str]) -> str:
    return options[int(rng.integers(len(options)))]


def _maybe(rng: np.random.Generator, p: float, options: Sequence[str]) -> str:
    """One option with probability ``p``, else "" (two draws either way, for a stable stream)."""
    u = float(rng.random())
    choice = _pick(rng, options)
    return choice if u < p else ""


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:] if s else s


def _pronouns(plural: bool) -> dict[str, str]:
    if plural:
        forms = {"i": "we", "me": "us", "my": "our", "im": "we're", "ive": "we've", "ill": "we'll", "id": "we'd"}
    else:
        forms = {"i": "I", "me": "me", "my": "my", "im": "I'm", "ive": "I've", "ill": "I'll", "id": "I'd"}
    out = dict(forms)
    out.update({k.upper() if len(k) == 1 else _cap(k): _cap(v) for k, v in forms.items()})
    return out


def _fill(template: str, slots: Mapping[str, str]) -> str:
    return template.format_map(slots)


def _tidy(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    text = re.sub(r"\s+([,.!?])", r"\1", text)
    return text


_SENTENCE_START = re.compile(r"(^|[.!?]\s+)([a-z])")


def sentence_case(text: str) -> str:
    """Capitalise the first letter of every sentence (slots such as "the NovaMind app" may open one)."""
    return _SENTENCE_START.sub(lambda m: m.group(1) + m.group(2).upper(), text)


def fit(parts: Sequence[str], drop_order: Sequence[int], limit: int = MAX_CHARS) -> str:
    """Join non-empty parts; drop optional parts (by index, in ``drop_order``) until the text
    fits in ``limit`` characters, then cut at a word boundary as a last resort."""
    keep = [sentence_case(p) for p in parts]
    text = _tidy(" ".join(p for p in keep if p))
    for i in drop_order:
        if len(text) <= limit:
            break
        keep[i] = ""
        text = _tidy(" ".join(p for p in keep if p))
    return clip_text(text, limit)


def clip_text(text: str, limit: int = MAX_CHARS) -> str:
    """Cut ``text`` to ``limit`` characters at a word boundary, with an ellipsis if cut."""
    text = _tidy(text)
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    if " " in cut:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:-") + "…"


# --------------------------------------------------------------------------------------
# Customer posts (reference-notes §4.12)
# --------------------------------------------------------------------------------------

_PRODUCT = ("NovaMind", "NovaMind", "the NovaMind app", "@NovaMind", "this AI tool", "NovaMind's assistant")

# Core sentences by (main cause, sentiment). Slots: {product} {work} {Work} {role} {peers}
# {plan} {Plan} and pronouns {i} {I} {me} {my} {My} {im} {Im} {ive} {Ive} {ill} {Ill} {id}.
_CORES: dict[str, dict[str, tuple[str, ...]]] = {
    "outage": {
        "negative": (
            "{product} went down in the middle of {work}.",
            "Another outage. {product} was offline exactly when {i} needed it.",
            "{product} is down again, with {work} stuck halfway.",
            "Downtime again? {I} can't run {work} on a service that keeps going offline.",
            "Today's outage wiped out hours of {work}.",
            "Service outage, no warning, no ETA. Terrible timing for {work}.",
            "The whole service was unavailable today. {Work} sat on hold while {product} was down.",
            "{product} crashed and stayed offline for ages. {Work} paid the price.",
        ),
        "neutral": (
            "{product} was down for a while today. Hoping it's a one-off.",
            "Noticed an outage on {product} this morning. {Work} waited until it came back.",
            "Brief downtime on {product} today. Anyone else see it go offline?",
            "{product} went offline for a bit. Not the end of the world, but noted.",
            "The service was unavailable earlier. Back up now, it seems.",
            "Some downtime on {product} today; {work} had to pause.",
        ),
        "positive": (
            "{product} had a short outage today but came back quickly. Still {my} go-to for {work}.",
            "Even with today's downtime, {product} remains the best fit for {work}.",
            "Brief outage earlier, handled fast. Not worried.",
            "A small blip of downtime today, otherwise smooth sailing with {work}.",
            "{product} went down for a moment, then back to business. Still love it for {work}.",
        ),
    },
    "overload": {
        "negative": (
            "{product} is painfully slow today. Progress on {work} is crawling.",
            "Everything times out on {product} right now. Lag on every request.",
            "So much lag. {product} feels overloaded and everything in {work} stalls.",
            "Responses from {product} are sluggish again. Slow service is killing {work}.",
            "Peak hours turn {product} into a waiting game. Way too slow.",
            "Waited forever for {product} to respond. The slowness is unbearable for {work}.",
        ),
        "neutral": (
            "{product} feels a bit slow today. Busy servers maybe?",
            "Some lag on {product} this afternoon. {Work} still got done, just slower.",
            "Response times on {product} are noticeably slower than usual.",
            "Seeing slowdowns on {product} during busy hours.",
            "{product} is sluggish today. Hope it's temporary.",
        ),
        "positive": (
            "A little slow today, but {product} still nails {work}.",
            "Bit of lag during peak hours, but the output is worth the wait.",
            "{product} was slower than usual, yet still the best option for {work}.",
            "Even on a sluggish day {product} gets {work} done.",
        ),
    },
    "quota": {
        "negative": (
            "Hit the daily usage limit on {plan} before lunch. Progress on {work} just stops.",
            "Capped again. The quota on {plan} is way too tight for {work}.",
            "Another day, another 'limit reached' message from {product}.",
            "The usage cap on {plan} makes {product} useless for {work}.",
            "Ran out of quota halfway through {work}. The limits are too low.",
            "Throttled by the usage limit again. {Work} can't wait until tomorrow.",
        ),
        "neutral": (
            "Ran into the usage limit on {plan} today. Might need a bigger plan.",
            "Hit {my} daily quota on {product}. Planning {work} around the cap now.",
            "The limits on {plan} are tighter than {i} expected.",
            "Reached the usage cap again. Wondering if an upgrade is worth it.",
            "Quota ran out today on {plan}. Noted for next time.",
        ),
        "positive": (
            "Hit the daily limit, which says a lot about how much {i} use {product} for {work}.",
            "Maxed out {my} quota today. Love the tool, just wish the cap were higher.",
            "Used up {my} usage allowance on {plan}, happily. {product} is that useful for {work}.",
            "The usage limit is the only thing slowing {me} down. Great tool otherwise.",
        ),
    },
    "issue": {
        "negative": (
            "Opened a support ticket days ago and still no answer.",
            "Still waiting on support to fix {my} issue. Progress on {work} is blocked.",
            "A bug in {product} keeps breaking {work} and support has gone quiet.",
            "Support ticket open, problem unresolved, patience running out.",
            "Reported an issue with {product} and heard nothing back from support.",
            "{My} support ticket is gathering dust while the bug breaks {work}.",
        ),
        "neutral": (
            "Have an open ticket with {product} support. Waiting to hear back.",
            "Ran into a bug with {work}. Support says they're looking into it.",
            "Logged an issue with support today. Let's see how fast they respond.",
            "Small issue with {product}; support ticket filed.",
            "Waiting on support about a bug. Otherwise things are fine.",
        ),
        "positive": (
            "Hit a bug, filed a ticket, and support is on it. Appreciated.",
            "Support has been responsive on {my} issue so far.",
            "Had an issue with {work}, but the support team is working on it.",
            "Good support experience: quick reply on {my} ticket.",
        ),
    },
    "price_increase": {
        "negative": (
            "{product} raised the price of {plan} and gave nothing new for it.",
            "A price hike on {plan}? Hard to justify for {work}.",
            "Just saw the new, higher price for {plan}. Too expensive for {role}.",
            "The price went up again. {product} is pricing out people like {me}.",
            "Paying more for the same thing. This price increase stings.",
            "{Plan} got more expensive overnight. Not happy about the price.",
        ),
        "neutral": (
            "Noticed {product} raised the price of {plan}. Reconsidering whether it fits {my} budget.",
            "{Plan} costs more now. Wondering what changed.",
            "Price increase on {plan} this week. Still deciding if it's worth it.",
            "{product} bumped its prices. Curious whether quality follows.",
            "The higher price on {plan} has {me} re-checking {my} budget.",
        ),
        "positive": (
            "{product} raised prices on {plan}, but honestly it's still worth it for {work}.",
            "The price went up, and {ill} keep paying. That says something.",
            "Higher price on {plan}, same great results for {work}.",
            "Price increase noted. Still good value for {work}.",
        ),
    },
    "price_cut": {
        "negative": (
            "A cheaper price on {plan} is nice, but it doesn't fix the problems with {work}.",
            "A price cut won't make up for the quality. {product} still disappoints.",
            "Lower prices, same frustrations.",
            "{product} dropped the price. Still not worth it for {work}.",
        ),
        "neutral": (
            "{product} cut the price of {plan}. Might give it another look.",
            "Price drop on {plan} this week. Interesting move.",
            "Noticed {plan} is cheaper now.",
            "{product} lowered its prices. Curious what's behind it.",
        ),
        "positive": (
            "{product} lowered the price of {plan}! Easier to justify for {work}.",
            "Price cut on {plan}: great news for {peers}.",
            "Love the cheaper price on {plan}. More value for {work}.",
            "Prices dropped and the quality stayed. Win.",
            "The new lower price makes {product} a no-brainer for {work}.",
        ),
    },
    "promotion": {
        "negative": (
            "Got a discount offer from {product}, but a promo won't fix what's broken.",
            "A coupon is nice. A working product would be nicer.",
            "Discount or not, {product} isn't delivering for {work}.",
        ),
        "neutral": (
            "Got a discount on {plan}. We'll see if {i} stick around.",
            "{product} sent {me} a promo. Trying it for {work}.",
            "Promo applied to {plan} this month.",
            "A discount from {product} landed today. Fine by {me}.",
        ),
        "positive": (
            "Nice discount from {product} this month. Appreciated!",
            "The promo on {plan} made {my} week.",
            "Thanks for the discount, {product}. Perfect timing for {work}.",
            "A discount on {plan}, and it's already great value for {work}.",
        ),
    },
    "new_customer": {
        "negative": (
            "Just signed up for {product} and already disappointed.",
            "New here. First impressions of {product} for {work}: not good.",
            "Signed up this week. So far {product} isn't living up to the hype.",
        ),
        "neutral": (
            "Just signed up for {product}. Trying it out for {work}.",
            "Day one with {product}. Still learning the ropes.",
            "New subscriber here. Curious how {product} handles {work}.",
            "Started with {product} this week. Too early to judge.",
        ),
        "positive": (
            "Just joined {product} and {work} got easier overnight.",
            "New to {product}, and first impressions are great.",
            "Signed up this week. Wish {i} had found {product} sooner.",
            "First week with {product}: {work} never went smoother.",
        ),
    },
    "enterprise_churn": {
        "negative": (
            "Our negotiations with {product} went nowhere, so the contract has ended.",
            "After a failed negotiation, we're ending our {brand} contract.",
            "Couldn't reach terms with {product}. Our account is closed.",
            "{product} wouldn't meet us on contract terms. We've moved on.",
            "Contract talks with {product} fell through. Procurement is evaluating other vendors.",
            "No agreement on renewal terms, so our {brand} contract is over.",
        ),
        "neutral": (
            "Our contract with {product} has ended after talks stalled.",
            "Negotiations with {product} didn't land. Account closed for now.",
            "We and {product} couldn't agree on terms; the contract lapsed.",
        ),
        "positive": (
            "Contract talks with {product} ended without a deal. No hard feelings, the product was fine.",
            "We couldn't agree on terms with {product}, though the product itself served us well.",
        ),
    },
    "churned": {
        "negative": (
            "{product} just wasn't delivering enough for the price.",
            "The value wasn't there for {work}.",
            "Couldn't justify {product} for {work} any longer.",
            "{product} stopped being worth it for {role}.",
            "Too much money for too little help with {work}.",
        ),
        "neutral": (
            "{product} was fine, just not worth it for {work} anymore.",
            "Trying something else for {work}.",
        ),
        "positive": ("{product} was good to {me}, but {i} don't need it for {work} anymore.",),
    },
    "general": {
        "negative": (
            "{product} isn't cutting it for {work}.",
            "Meh. {product} is underwhelming for {work}.",
            "Not convinced {product} is worth it for {role}.",
            "Expected more from {product}.",
            "The results from {product} on {work} keep letting {me} down.",
        ),
        "neutral": (
            "Using {product} for {work}. It's okay.",
            "{product} is fine for {work}, nothing special.",
            "Still evaluating {product} for {work}.",
            "Mixed results with {product} on {work} so far.",
            "{product} does the job for {work}. Nothing more, nothing less.",
        ),
        "positive": (
            "{product} has become essential for {work}.",
            "Really happy with {product} for {work}.",
            "{product} keeps delivering for {work}.",
            "Big fan of {product}.",
            "As {role}, {i} can't imagine {work} without {product} now.",
        ),
    },
}

# A short clause naming a second true cause (negative and neutral authors mention it).
_SECOND: dict[str, tuple[str, ...]] = {
    "outage": ("Plus the outage earlier.", "And it went down again this week."),
    "overload": ("Also painfully slow lately.", "And everything lags."),
    "quota": ("And {i} keep hitting the usage cap.", "On top of the tight usage limits."),
    "issue": ("Support still hasn't answered {my} ticket.", "And {my} support issue is still open."),
    "price_increase": ("And the price just went up.", "All while the price went up."),
    "price_cut": ("At least the price dropped.",),
    "promotion": ("The discount helps a little.",),
}

_OPENERS = {
    "positive": ("Quick shoutout:", "Honest review:", "Credit where due:", "Small win today:", "Not sponsored:"),
    "neutral": ("PSA:", "Observation:", "Status check:", "FYI:", "Hm.", "Mixed feelings today."),
    "negative": ("Ugh.", "Seriously?", "Not impressed.", "Rant incoming:", "Frustrated.", "Come on."),
}
_ENT_OPENERS = {
    "positive": ("Vendor update:", "From our ops team:", "Quarterly review note:"),
    "neutral": ("Vendor note:", "From our IT desk:", "Internal update:"),
    "negative": ("Vendor escalation:", "From our ops team:", "Not acceptable."),
}
_CLOSERS = {
    "positive": (
        "Would recommend to {peers}.",
        "Keeping {my} subscription.",
        "Happy customer here.",
        "Keep it up.",
        "Nice work, team.",
    ),
    "neutral": (
        "Will see how next week goes.",
        "Jury's still out.",
        "Watching this closely.",
        "Anyone else?",
        "Let's see.",
    ),
    "negative": (
        "Looking at alternatives.",
        "Not sure how much longer {ill} stay.",
        "Do better.",
        "{peers}, you've been warned.",
        "Reconsidering {my} subscription.",
    ),
}
_CHURN_CLOSERS = (
    "Cancelled {my} subscription today.",
    "So {ive} cancelled.",
    "That's it, {im} out. Cancelled.",
    "Done with {product}. Cancelled.",
    "Cancelled and moving on.",
    "{Ive} left. Subscription cancelled.",
)
_ENT_CHURN_TAILS = (
    "We're already talking to other vendors.",
    "Procurement has moved on.",
    "A disappointing end to the relationship.",
    "Other vendors are lining up.",
)
_ENT_CHURN_CLOSERS = (
    "{Ive} ended {my} contract.",
    "{Ive} cancelled {my} account.",
    "Account closed.",
    "We're done here.",
)


def main_cause(events: Sequence[str], churned: bool = False) -> str:
    """The post's main cause: the most salient true event, "churned" for a cancellation
    with no other event, else "general"."""
    evs = set(events)
    if churned:
        evs.add("churned")
    for cause in CAUSE_ORDER:
        if cause in evs:
            return cause
    return "general"


def customer_post(
    rng: np.random.Generator,
    group: GroupLike,
    sentiment: str,
    events: Sequence[str],
    plan: str | None = None,
    churned: bool = False,
) -> str:
    """A customer's public post (reference-notes §4.12 template path; eq 26 chooses the author).

    ``events`` are the author's true recent experiences (``EVENTS`` vocabulary); the text is
    about the most salient one (``main_cause``) and may name a second one. A churned author
    says they left. With no event the post is about general value in the group's voice.
    """
    if sentiment not in SENTIMENTS:
        sentiment = "neutral"
    evs = [e for e in events if e in EVENTS]
    churned = churned or "churned" in evs or "enterprise_churn" in evs
    if churned:
        sentiment = "negative"
    cause = main_cause(evs, churned)
    voice = voice_of(group)
    plural = voice.plural
    slots = _pronouns(plural)
    work = _pick(rng, voice.work)
    plan_phrase = f"Plan {plan}" if plan else f"{slots['my']} plan"
    slots.update(
        product=_pick(rng, _PRODUCT),
        brand="NovaMind",
        work=work,
        Work=_cap(work),
        role=_pick(rng, voice.roles),
        peers=_pick(rng, voice.peers),
        plan=plan_phrase,
        Plan=_cap(plan_phrase),
    )
    openers = _ENT_OPENERS if group.kind == "ENT" else _OPENERS
    opener = _maybe(rng, 0.5, openers[sentiment] + _OPENERS[sentiment])
    core = _fill(_pick(rng, _CORES[cause][sentiment]), slots)
    seconds = [e for e in CAUSE_ORDER if e in evs and e != cause and e in _SECOND]
    second = ""
    if seconds and sentiment != "positive":
        second = _fill(_maybe(rng, 0.6, _SECOND[seconds[0]]), slots)
    aside_pool = voice.praise if sentiment == "positive" else voice.gripes
    if sentiment == "neutral":
        aside_pool = aside_pool + ("Curious what others think.", "Time will tell.")
    aside = _maybe(rng, 0.45, aside_pool)
    if cause == "enterprise_churn":
        closer = _maybe(rng, 0.5, _ENT_CHURN_TAILS)
    elif churned:
        pool = _ENT_CHURN_CLOSERS if plural else _CHURN_CLOSERS
        closer = _fill(_pick(rng, pool), slots)
    else:
        closer = _fill(_maybe(rng, 0.55, _CLOSERS[sentiment]), slots)
    tag = _maybe(rng, 0.25, voice.tags)
    # Drop order when too long: hashtag, aside, opener, second clause.
    return fit([opener, core, second, aside, closer, tag], drop_order=(5, 3, 0, 2))


# --------------------------------------------------------------------------------------
# Competitor posts (reference-notes §4.12: 5 names, 7 viewpoint personas, 5+ templates per severity)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Persona:
    """A viewpoint from which the feed reports a competitor's launch."""

    prefixes: tuple[str, ...]
    small_takes: tuple[str, ...]  # minor / moderate
    big_takes: tuple[str, ...]  # major / transformative


COMPETITOR_PERSONAS: dict[str, Persona] = {
    "industry_analyst": Persona(
        prefixes=("Market note:", "Analyst take:", "Sector watch:"),
        small_takes=("Incremental; no change to our market outlook.", "Keeps them in the pack, not ahead of it."),
        big_takes=("Expect pricing and roadmap pressure on the incumbents.", "This shifts the competitive map."),
    ),
    "tech_journalist": Persona(
        prefixes=("Reporting:", "Just in:", "From the newsroom:"),
        small_takes=("A modest story, but readers asked.", "We'll keep an eye on adoption."),
        big_takes=("Full story and hands-on coming soon.", "The headline of the week, easily."),
    ),
    "early_adopter": Persona(
        prefixes=("Hands-on:", "Just tried it:", "First impressions:"),
        small_takes=("Nice polish, nothing I'd switch for.", "Pleasant, but it's a point release."),
        big_takes=("Honestly blown away after an hour with it.", "Already moving some of my work over."),
    ),
    "skeptical_engineer": Persona(
        prefixes=("Engineer's take:", "Hmm.", "Reading the changelog:"),
        small_takes=("Mostly housekeeping, as far as I can tell.", "Fine, but let's not call it innovation."),
        big_takes=("I was skeptical; the benchmarks are hard to argue with.", "If it holds up in production, wow."),
    ),
    "vc_investor": Persona(
        prefixes=("Portfolio watch:", "Deal-flow note:", "Investor lens:"),
        small_takes=("Not a needle-mover for the category.", "Execution is steady, no breakout."),
        big_takes=("Every AI software company's board will ask about this.", "Category leaders should be nervous."),
    ),
    "startup_founder": Persona(
        prefixes=("Founder hat on:", "As a founder:", "Builder's view:"),
        small_takes=("Good reminder to keep shipping.", "Small steps still add up."),
        big_takes=("Time for every team in this space to rethink its roadmap.", "Raises the bar for all of us."),
    ),
    "enterprise_buyer": Persona(
        prefixes=("Procurement view:", "From the buyer's side:", "IT buyer here:"),
        small_takes=("Not enough to reopen vendor evaluations.", "Noted for the next renewal cycle."),
        big_takes=("We'll be asking our current vendors to respond.", "Expect this in every RFP next quarter."),
    ),
}
PERSONAS: tuple[str, ...] = tuple(COMPETITOR_PERSONAS)

_COMP_CORES: dict[str, tuple[str, ...]] = {
    "minor": (
        "{c} shipped a minor update: a few interface tweaks and bug fixes.",
        "{c} rolled out a small patch this week, mostly quality-of-life polish.",
        "Small release from {c} today: slightly faster exports and a cleaner settings page.",
        "{c} pushed a maintenance release. Minor improvements, no headline features.",
        "{c} quietly tweaked its model a little. Modest gains at best.",
        "A routine point release from {c}. Incremental, nothing dramatic.",
    ),
    "moderate": (
        "{c} released a solid update with noticeably better output and a couple of useful new features.",
        "{c} launched a meaningful upgrade this week: a real step up, though not a leap.",
        "Decent release from {c}: improved accuracy and a new integrations panel.",
        "{c} rolled out a notable feature update. Users report clearly better results.",
        "{c}'s new version is a respectable improvement, enough to make some teams take a look.",
    ),
    "major": (
        "Big launch from {c}: a major new model with a large jump in quality.",
        "{c} just announced a major overhaul of its platform, with significant gains across the board.",
        "{c}'s latest release is a serious leap forward. Customers will start comparing.",
        "Major news: {c} unveiled a new generation of its product, far stronger than before.",
        "{c} dropped a big upgrade today: substantially better quality and an ambitious roadmap.",
    ),
    "transformative": (
        "{c} just launched something game-changing that could reset expectations for the whole market.",
        "Industry-shaking launch from {c} today: a breakthrough model that makes current tools look dated.",
        "{c}'s new release is a generational leap. Everyone in this space will have to respond.",
        "Transformative announcement from {c}: a breakthrough redesign that redefines the category.",
        "Jaw-dropping launch by {c}. If the demos hold up, this changes the market overnight.",
    ),
}


def competitor_post(rng: np.random.Generator, severity: str, competitor: str, persona: str) -> str:
    """A neutral-sentiment post about a competitor's launch (reference-notes §4.12).

    The wording carries the severity label (minor update ... game-changing launch) but never
    the boost itself. ``persona`` is a key of ``COMPETITOR_PERSONAS``; others get no framing.
    """
    sev = severity if severity in _COMP_CORES else "moderate"
    core = _pick(rng, _COMP_CORES[sev]).format(c=competitor)
    p = COMPETITOR_PERSONAS.get(persona)
    if p is None:
        return clip_text(core)
    prefix = _maybe(rng, 0.7, p.prefixes)
    take = _pick(rng, p.small_takes if sev in ("minor", "moderate") else p.big_takes)
    return fit([prefix, core, take], drop_order=(2, 0))


# --------------------------------------------------------------------------------------
# Macro posts by the market observer (reference-notes §4.12 external posts, §4.15 labels)
# --------------------------------------------------------------------------------------

_TREND_WORDS = {
    "strong_expansion": "strong expansion",
    "expansion": "expansion",
    "neutral": "neutral territory",
    "contraction": "contraction",
    "severe_contraction": "severe contraction",
}
_PHASE_LINES = {
    "peak": ("Growth looks to be topping out.", "This may be the top of the cycle.", "Momentum is at its high point."),
    "declining": ("Momentum is fading versus the last reading.", "The direction of travel is down.", "Cooling off."),
    "trough": ("Conditions look to be bottoming out.", "This could be the floor.", "The worst may be behind us."),
    "recovering": ("Activity is picking back up.", "A recovery seems underway.", "Things are turning up."),
}
_PMI_LEADS = (
    "Latest PMI reading: {v} ({t}).",
    "PMI came in at {v}, which is {t}.",
    "New macro data: PMI {v}, {t}.",
    "The purchasing managers' index printed {v} ({t}).",
)
_TREND_IMPLICATIONS = {
    "strong_expansion": (
        "Budgets are loosening fast; software buyers are in a spending mood.",
        "Hiring and new projects everywhere. Good time to sell software.",
        "Boom conditions: expect bigger deals and faster sign-offs.",
    ),
    "expansion": (
        "Business activity is growing; software spend should follow.",
        "Healthy demand. Teams are adding tools and seats.",
        "Budgets look steady to rising.",
    ),
    "neutral": (
        "Neither boom nor bust. Buyers are cautious but not frozen.",
        "Flat conditions; deals close, just not quickly.",
        "A wait-and-see economy.",
    ),
    "contraction": (
        "Expect tighter budgets and longer approval cycles.",
        "Companies are trimming spend; discretionary tools are first on the list.",
        "Procurement is getting pickier.",
    ),
    "severe_contraction": (
        "Deep cuts ahead: hiring freezes and frozen software budgets.",
        "Survival mode for many buyers. Every subscription is under review.",
        "A rough stretch: expect cancellations and stalled deals.",
    ),
}


def macro_post(rng: np.random.Generator, reading: Mapping[str, Any]) -> str:
    """The observer's post on a published PMI reading (reference-notes §4.12, §4.15).

    ``reading`` has ``pmi_value``, ``pmi_trend`` and ``cycle_phase`` (all public once
    published); the published value is the only number in any post of this module.
    """
    value = float(reading.get("pmi_value", 50.0))
    trend = str(reading.get("pmi_trend") or trend_of(value))
    if trend not in _TREND_IMPLICATIONS:
        trend = trend_of(value)
    phase = str(reading.get("cycle_phase", ""))
    lead = _pick(rng, _PMI_LEADS).format(v=f"{value:.1f}", t=_TREND_WORDS[trend])
    phase_line = _pick(rng, _PHASE_LINES[phase]) if phase in _PHASE_LINES else ""
    implication = _pick(rng, _TREND_IMPLICATIONS[trend])
    tag = _maybe(rng, 0.3, ("#macro", "#economy", "#PMI"))
    return fit([lead, phase_line, implication, tag], drop_order=(3, 1))


_CHATTER: dict[str, tuple[str, ...]] = {
    "strong_expansion": (
        "every founder I talk to is hiring. Software budgets are wide open right now.",
        "CFOs are approving new tools without the usual fight. Enjoy it while it lasts.",
        "venture funding is flowing again and buyers are saying yes to pilots.",
        "record demand across the board; procurement queues are the only bottleneck.",
        "companies are expanding headcount and every new hire needs a seat of something.",
        "IT budgets got revised up mid-year at several firms I know.",
        "sales teams are closing faster than they can onboard.",
        "new offices, new teams, new software. It's a spending spree out there.",
        "nobody is asking 'do we need this tool?' right now, only 'how soon?'",
    ),
    "expansion": (
        "hiring is picking up and teams are adding tools again.",
        "more new projects are kicking off. Budgets are growing, carefully.",
        "business sentiment is solidly positive; renewals are easy conversations.",
        "orders are up and so is appetite for automation.",
        "more job postings this month. Growth mode is back for many companies.",
        "software spend is edging up as companies plan for growth.",
        "pilots are turning into rollouts at a healthy clip.",
        "buyers are asking about expansion seats, not discounts.",
        "a steady upswing: more demos booked, more deals signed.",
    ),
    "neutral": (
        "the economy feels flat. Buyers take meetings but sign slowly.",
        "budgets are holding steady; nobody is cutting, nobody is splurging.",
        "mixed signals everywhere: some firms hiring, others pausing.",
        "steady as she goes. Deals close, just on the buyer's timeline.",
        "a wait-and-see mood among the IT buyers I know.",
        "no boom, no bust. Renewals are fine, new spend is cautious.",
        "companies are keeping what works and postponing the rest.",
        "demand is sideways. Nobody wants to be first to move.",
        "a quiet market: fewer surprises, fewer big wins.",
    ),
    "contraction": (
        "I keep hearing about hiring freezes at mid-size firms.",
        "budget reviews everywhere. Discretionary software is first on the chopping block.",
        "procurement cycles are getting longer and approvals need more sign-offs.",
        "companies are consolidating vendors to save money.",
        "slower orders this quarter; teams are asked to do more with less.",
        "layoff rumours and frozen budgets. Tough time to be selling software.",
        "renewals now come with a request for a discount.",
        "finance teams are auditing every subscription line.",
        "pilots are getting cut before they turn into contracts.",
    ),
    "severe_contraction": (
        "layoffs across the industry. Every subscription is being questioned.",
        "budgets are frozen outright at many companies. Survival mode.",
        "deep downturn: firms are cancelling tools they used daily a month ago.",
        "nobody is signing new contracts right now; CFOs want cuts, not pilots.",
        "hiring freezes everywhere and emergency cost reviews in most boardrooms.",
        "this is the worst demand environment in years for software vendors.",
        "whole departments are being cut, and their software seats with them.",
        "the only question buyers ask now is what they can cancel.",
        "cash preservation mode across the board. Expect churn.",
    ),
}
_CHATTER_OPENERS = (
    "",
    "",
    "Talking to CFOs this week:",
    "Overheard at a conference:",
    "Signal from the field:",
    "Market pulse:",
    "From my inbox:",
    "Quick read on the economy:",
)
_CHATTER_TAILS = ("", "", "Anyone else seeing this?", "Thoughts?", "#economy", "#saas", "Brace yourselves.")


def macro_chatter(rng: np.random.Generator, trend: str) -> str:
    """One post of the observer's batch on the economy (reference-notes §4.12), consistent with ``trend``."""
    pool = _CHATTER.get(trend, _CHATTER["neutral"])
    opener = _pick(rng, _CHATTER_OPENERS)
    core = _pick(rng, pool)
    tail = _pick(rng, _CHATTER_TAILS)
    if tail == "Brace yourselves." and trend in ("strong_expansion", "expansion"):
        tail = "Good times."
    return fit([opener, core, tail], drop_order=(2, 0))


# --------------------------------------------------------------------------------------
# Viral replies (reference-notes §4.13: a customer of a group with |e| >= 0.6 replies)
# --------------------------------------------------------------------------------------

_REPLY_TOPICS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("outage", re.compile(r"outage|downtime|offline|went down|uptime|reliab|incident", re.I)),
    ("overload", re.compile(r"\bslow|latency|\blag|faster|speed|performance", re.I)),
    ("quota", re.compile(r"quota|limit|\bcaps?\b|allowance", re.I)),
    ("support", re.compile(r"support|ticket|\bissues?\b|\bbugs?\b", re.I)),
    ("price", re.compile(r"pric|discount|\bcost|cheaper|\$", re.I)),
    ("product", re.compile(r"launch|release|feature|update|shipped|model|quality", re.I)),
)
_REPLY_ACKS = {
    "positive": {
        "outage": (
            "Owning the outage and saying what changed goes a long way.",
            "That's how you handle downtime.",
            "Straight talk about the outage, plus a fix. More of this.",
            "After that downtime, this is exactly what {i} wanted to read.",
        ),
        "overload": (
            "If it's really faster now, {im} in.",
            "Finally addressing the slowness.",
            "Less lag would change everything for {me}.",
            "Good to see the slowdowns taken seriously.",
        ),
        "quota": (
            "Higher limits are exactly what {i} needed.",
            "Good to see the usage caps taken seriously.",
            "More room under the cap? Yes please.",
            "The usage limits were {my} biggest gripe. Thank you.",
        ),
        "support": (
            "Better support is what {i} wanted to hear.",
            "Glad the support queue gets attention.",
            "If tickets get answered faster, that's a big deal.",
            "Support was {my} one complaint. Nice to see it fixed.",
        ),
        "price": (
            "The pricing news makes a real difference for {peers}.",
            "Fair pricing, clearly explained.",
            "That price change is very welcome here.",
            "Easier to justify the subscription now.",
        ),
        "product": (
            "The update looks genuinely useful.",
            "That release is exactly {my} kind of thing.",
            "Shipping things people asked for. Love it.",
            "Can't wait to try this.",
        ),
        "none": (
            "This speaks to people like {me}.",
            "Refreshing tone from a software company.",
            "A company that actually talks to its users.",
            "Nice to see a vendor that gets it.",
        ),
    },
    "negative": {
        "outage": (
            "Words don't bring back the hours lost to downtime.",
            "Spin doesn't fix the outages.",
            "Still remember last week's outage. Not convinced.",
            "Keep the service up instead of posting about outages.",
        ),
        "overload": (
            "Still slow on {my} end.",
            "Talk is cheap; the lag is real.",
            "Everything still crawls for {me}.",
            "Faster? Not from where {im} sitting.",
        ),
        "quota": (
            "Still capped, still frustrated.",
            "Nothing here changes the limits {i} hit.",
            "The usage cap is still the problem.",
            "Lift the limits, then post.",
        ),
        "support": (
            "Answer the tickets first.",
            "Support still isn't answering.",
            "{My} ticket is still open, by the way.",
            "Fewer posts, more support replies please.",
        ),
        "price": (
            "Pricing spin won't fool {peers}.",
            "Nobody asked for this pricing pitch.",
            "The price talk misses the point.",
            "Still not worth the money.",
        ),
        "product": (
            "Fix the basics before the marketing.",
            "Another announcement, same problems.",
            "Shiny features, same old issues.",
            "Not what {peers} asked for.",
        ),
        "none": (
            "This says nothing to {peers}.",
            "Tone-deaf.",
            "Who is this post even for?",
            "Read the room.",
        ),
    },
}
_REPLY_OPENERS = {
    "positive": (
        "This is how it's done.",
        "Respect.",
        "Good to see this.",
        "Love this.",
        "Now we're talking.",
        "Big if true.",
        "Finally.",
    ),
    "negative": ("Not buying it.", "Yikes.", "Who approved this?", "Hard pass.", "Really?", "Oof.", "Sure, sure."),
}
_REPLY_CLOSERS = {
    "positive": (
        "Recommending {product} to {peers}.",
        "{Im} sticking with {product}.",
        "Might finally try {product}.",
        "Sharing this with {peers}.",
        "Keep it up.",
    ),
    "negative": (
        "Steering {peers} elsewhere.",
        "Unfollowing.",
        "{Id} think twice before signing up.",
        "Telling {peers} to wait and see.",
        "Do better.",
    ),
}


def reply_topic(text: str) -> str:
    """The first topic of a short text a replying customer would pick up on."""
    for name, pat in _REPLY_TOPICS:
        if pat.search(text):
            return name
    return "none"


def viral_reply(rng: np.random.Generator, group: GroupLike, score: float, agent_post: str) -> str:
    """A customer of ``group`` replying to a viral agent post (reference-notes §4.13); positive when
    ``score`` > 0, else negative. Mentions the post's topic, never the score."""
    tone = "positive" if score > 0 else "negative"
    voice = voice_of(group)
    slots = _pronouns(voice.plural)
    slots.update(product="NovaMind", peers=_pick(rng, voice.peers))
    opener = _maybe(rng, 0.7, _REPLY_OPENERS[tone])
    ack = _fill(_pick(rng, _REPLY_ACKS[tone][reply_topic(agent_post)]), slots)
    aside = _maybe(rng, 0.35, voice.praise if tone == "positive" else voice.gripes)
    closer = _fill(_maybe(rng, 0.6, _REPLY_CLOSERS[tone]), slots)
    tag = _maybe(rng, 0.15, voice.tags)
    return fit([opener, ack, aside, closer, tag], drop_order=(4, 2, 3, 0))


# --------------------------------------------------------------------------------------
# Writers: templates (default) and an optional OpenAI-compatible LLM
# --------------------------------------------------------------------------------------


class PostWriter(Protocol):
    """Writes the feed's text; ``TemplatePostWriter`` and ``LlmPostWriter`` implement it."""

    def customer_post(
        self,
        rng: np.random.Generator,
        group: GroupLike,
        sentiment: str,
        events: Sequence[str],
        plan: str | None = None,
        churned: bool = False,
    ) -> str: ...

    def competitor_post(self, rng: np.random.Generator, severity: str, competitor: str, persona: str) -> str: ...

    def macro_post(self, rng: np.random.Generator, reading: Mapping[str, Any]) -> str: ...

    def macro_chatter(self, rng: np.random.Generator, trend: str) -> str: ...

    def viral_reply(self, rng: np.random.Generator, group: GroupLike, score: float, agent_post: str) -> str: ...


class TemplatePostWriter:
    """The default, offline writer: the module's template functions."""

    def customer_post(
        self,
        rng: np.random.Generator,
        group: GroupLike,
        sentiment: str,
        events: Sequence[str],
        plan: str | None = None,
        churned: bool = False,
    ) -> str:
        return customer_post(rng, group, sentiment, events, plan, churned)

    def competitor_post(self, rng: np.random.Generator, severity: str, competitor: str, persona: str) -> str:
        return competitor_post(rng, severity, competitor, persona)

    def macro_post(self, rng: np.random.Generator, reading: Mapping[str, Any]) -> str:
        return macro_post(rng, reading)

    def macro_chatter(self, rng: np.random.Generator, trend: str) -> str:
        return macro_chatter(rng, trend)

    def viral_reply(self, rng: np.random.Generator, group: GroupLike, score: float, agent_post: str) -> str:
        return viral_reply(rng, group, score, agent_post)


TEMPLATE_WRITER = TemplatePostWriter()

_EVENT_WORDS = {
    "outage": "the service had an outage (it was down)",
    "overload": "the service was slow and overloaded",
    "issue": "they have an open support issue that is not resolved",
    "quota": "they hit the daily usage quota of their plan",
    "price_increase": "the list price of their plan went up",
    "price_cut": "the list price of their plan went down",
    "promotion": "they received a discount promotion",
    "new_customer": "they signed up recently",
    "churned": "they cancelled their subscription today",
    "enterprise_churn": "their enterprise contract ended after a failed negotiation",
}

_SYSTEM = (
    "You write one short social media post for a simulated public feed about NovaMind, an AI software "
    "subscription company. Reply with the post text only: no quotes, no preamble, at most 280 characters."
)


def _llm_text(client: Any, model: str, prompt: str, temperature: float, max_tokens: int) -> str:
    resp = client.chat.completions.create(
        model=model,
        messages=[{"role": "system", "content": _SYSTEM}, {"role": "user", "content": prompt}],
        temperature=temperature,
        max_tokens=max_tokens,
    )
    text = resp.choices[0].message.content
    if not isinstance(text, str):
        return ""
    text = _tidy(text).strip().strip('"').strip("“”").strip()
    return clip_text(text) if text else ""


class LlmPostWriter:
    """Feed text from an OpenAI-compatible chat client (reference-notes §4.12 LLM path), off by default.

    ``client`` is anything with ``.chat.completions.create(model=, messages=, temperature=,
    max_tokens=)``. Every method first draws the template text (so the caller's random stream
    advances exactly as with ``TemplatePostWriter``), then asks the model, and returns the
    template on any exception or empty reply. Prompts carry only categorical facts.
    """

    def __init__(self, client: Any, model: str, temperature: float = 0.9, max_tokens: int = 200) -> None:
        self.client = client
        self.model = model
        self.temperature = temperature
        self.max_tokens = max_tokens
        self.failures = 0

    def _ask(self, prompt: str, fallback: str) -> str:
        try:
            text = _llm_text(self.client, self.model, prompt, self.temperature, self.max_tokens)
        except Exception:  # noqa: BLE001 - any client failure falls back to the template
            text = ""
        if not text:
            self.failures += 1
            return fallback
        return text

    def customer_post(
        self,
        rng: np.random.Generator,
        group: GroupLike,
        sentiment: str,
        events: Sequence[str],
        plan: str | None = None,
        churned: bool = False,
    ) -> str:
        fallback = customer_post(rng, group, sentiment, events, plan, churned)
        facts = [_EVENT_WORDS[e] for e in events if e in _EVENT_WORDS]
        if churned and "churned" not in events:
            facts.append(_EVENT_WORDS["churned"])
        prompt = (
            f"Author: a customer from the group {describe_group(group)}\n"
            f"Sentiment of the post: {'negative' if churned else sentiment}.\n"
            f"Plan: {('Plan ' + plan) if plan else 'not stated'}.\n"
            f"What truly happened to them recently: {'; '.join(facts) if facts else 'nothing unusual'}.\n"
            "Write the post in their voice about that experience (or about general value if nothing "
            "happened). If they cancelled, say so. Do not invent numbers or customer ids."
        )
        return self._ask(prompt, fallback)

    def competitor_post(self, rng: np.random.Generator, severity: str, competitor: str, persona: str) -> str:
        fallback = competitor_post(rng, severity, competitor, persona)
        prompt = (
            f"Write as a {persona.replace('_', ' ')} commenting on a product launch by the competitor "
            f"{competitor}. The launch is {severity} in size (minor < moderate < major < transformative); "
            "make the size clear from the wording. Neutral tone, no numbers."
        )
        return self._ask(prompt, fallback)

    def macro_post(self, rng: np.random.Generator, reading: Mapping[str, Any]) -> str:
        fallback = macro_post(rng, reading)
        value = float(reading.get("pmi_value", 50.0))
        prompt = (
            f"Write as a market observer about the newly published PMI reading of {value:.1f} "
            f"(trend: {reading.get('pmi_trend', trend_of(value))}, cycle phase: {reading.get('cycle_phase', '')}) "
            "and what it means for software budgets. Mention the value."
        )
        return self._ask(prompt, fallback)

    def macro_chatter(self, rng: np.random.Generator, trend: str) -> str:
        fallback = macro_chatter(rng, trend)
        prompt = (
            f"Write as a market observer sharing economic chatter (budgets, hiring, funding, procurement) "
            f"consistent with an economy in {trend.replace('_', ' ')}. No numbers."
        )
        return self._ask(prompt, fallback)

    def viral_reply(self, rng: np.random.Generator, group: GroupLike, score: float, agent_post: str) -> str:
        fallback = viral_reply(rng, group, score, agent_post)
        prompt = (
            f"Author: a customer from the group {describe_group(group)}\n"
            f"They are replying to this post by NovaMind: {agent_post[:MAX_CHARS]!r}\n"
            f"Their reaction is {'positive' if score > 0 else 'negative'}. Write their reply."
        )
        return self._ask(prompt, fallback)
