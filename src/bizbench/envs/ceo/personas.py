"""Persona text of customers for the agent-visible ``customers`` table (reference-notes §5.1).

The engine fills the persona columns from LLM persona templates (hidden tables
``customer_personas``, ``group_characteristics``, §5.2). bizbench writes them from fixed
word lists instead: each field is picked by a hash of (customer id, group id), so the text
is deterministic, varied, fits the group (industries and roles per group, individual or
enterprise vocabulary per kind) and carries no information about any hidden parameter:
nothing here reads willingness to pay, seats, quality floors or satisfaction.

Vectorised: the hash and every pick are numpy operations on index arrays. The store keeps a
customer's nine picks as one integer (``persona_codes``, 4 bits a field) and the options as a
small table (``persona_vocabulary``); its ``customers`` view turns them back into text
(storage.sql), so the file holds no repeated words.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Protocol

import numpy as np

#: the persona columns of ``customers`` picked per customer from word lists (schema.sql); the table's
#: ``persona_description`` is a sentence made of them (the store's ``customers`` view writes it, storage.sql)
#: and its ``email`` is built for enterprise customers only (``persona_emails``)
PICKED: tuple[str, ...] = (
    "persona_industry",
    "persona_role",
    "persona_experience",
    "persona_work_style",
    "persona_tech_savvy",
    "company_size_descriptor",
    "company_culture",
    "company_decision_style",
    "company_primary_concern",
)
CODE_BITS = 4  # bits per picked field in a persona code: lists of up to 16 options
PERSONA_BITS = CODE_BITS * len(PICKED)  # bits of a whole persona code


class GroupLike(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def kind(self) -> str: ...


# group id -> (industries, roles, email domain word)
_GROUPS: dict[str, tuple[tuple[str, ...], tuple[str, ...], str]] = {
    "S1": (
        ("retail", "hospitality", "personal services", "e-commerce"),
        ("shop owner", "virtual assistant", "bookkeeper", "student"),
        "",
    ),
    "S2": (
        ("consulting", "legal services", "publishing", "architecture"),
        ("consultant", "paralegal", "editor", "analyst"),
        "",
    ),
    "S3": (
        ("software", "data science", "devops", "quantitative finance"),
        ("software engineer", "ML engineer", "automation specialist", "researcher"),
        "",
    ),
    "E1": (
        ("logistics", "manufacturing", "wholesale", "business process outsourcing"),
        ("procurement manager", "IT director", "operations VP", "finance controller"),
        "group",
    ),
    "E2": (
        ("pharmaceuticals", "aerospace", "professional services", "media"),
        ("CTO", "head of AI", "VP engineering", "chief product officer"),
        "labs",
    ),
    "E3": (
        ("technology", "consulting", "financial services", "automotive"),
        ("chief digital officer", "partnerships director", "CIO", "head of innovation"),
        "partners",
    ),
    "D_S01": (("online video", "podcasting", "newsletters"), ("content creator", "streamer", "writer"), ""),
    "D_S02": (("higher education", "research institutes"), ("PhD candidate", "postdoc", "lab researcher"), ""),
    "D_S03": (
        ("charities", "community organisations", "advocacy"),
        ("programme coordinator", "fundraiser", "volunteer manager"),
        "",
    ),
    "D_S04": (
        ("marketing agencies", "design studios", "PR"),
        ("agency founder", "account manager", "creative lead"),
        "",
    ),
    "D_S05": (("indie games", "mobile games"), ("game developer", "level designer", "technical artist"), ""),
    "D_S06": (("publishing", "copywriting", "journalism"), ("freelance writer", "copywriter", "ghostwriter"), ""),
    "D_S07": (
        ("analytics", "business intelligence", "market research"),
        ("data analyst", "BI developer", "research analyst"),
        "",
    ),
    "D_S08": (
        ("social media", "brand marketing", "influencer marketing"),
        ("social media manager", "community manager", "content strategist"),
        "",
    ),
    "D_S09": (
        ("product design", "UX research", "digital agencies"),
        ("UX designer", "UX researcher", "product designer"),
        "",
    ),
    "D_S10": (
        ("music production", "audio post-production", "sound design"),
        ("music producer", "sound engineer", "composer"),
        "",
    ),
    "D_E01": (
        ("public administration", "municipal services", "defence administration"),
        ("digital services director", "IT programme manager", "CIO"),
        "gov",
    ),
    "D_E02": (
        ("universities", "school districts", "online education"),
        ("provost for IT", "learning technology lead", "IT director"),
        "edu",
    ),
    "D_E03": (
        ("hospital networks", "clinics", "health insurance"),
        ("chief medical information officer", "IT director", "clinical systems lead"),
        "health",
    ),
    "D_E04": (
        ("regional banking", "credit unions"),
        ("head of digital banking", "CIO", "risk technology lead"),
        "bank",
    ),
    "D_E05": (
        ("insurance brokerage", "claims services"),
        ("operations director", "head of claims technology", "CIO"),
        "insure",
    ),
    "D_E06": (
        ("construction", "civil engineering", "building materials"),
        ("project controls director", "IT manager", "operations VP"),
        "build",
    ),
    "D_E07": (
        ("telecommunications", "network services"),
        ("VP customer care", "network automation lead", "CTO"),
        "telecom",
    ),
    "D_E08": (
        ("utilities", "oil and gas", "renewable energy"),
        ("digital transformation lead", "IT director", "operations VP"),
        "energy",
    ),
    "D_E09": (
        ("property management", "real estate investment", "brokerage"),
        ("head of operations", "IT director", "asset management lead"),
        "estates",
    ),
    "D_E10": (
        ("shipping", "port logistics", "freight forwarding"),
        ("fleet systems director", "CIO", "logistics technology lead"),
        "maritime",
    ),
}
_FALLBACK = {
    "IND": (("professional services", "creative work", "technology"), ("freelancer", "specialist", "consultant"), ""),
    "ENT": (("services", "industry", "technology"), ("IT director", "operations VP", "CIO"), "corp"),
}

# Lists by kind: (individual, enterprise).
_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "persona_experience": (
        (
            "early career",
            "3-5 years in the field",
            "6-10 years in the field",
            "over 10 years in the field",
            "recent career changer",
        ),
        (
            "5-10 years in the industry",
            "10-15 years in the industry",
            "15-20 years in the industry",
            "over 20 years in the industry",
        ),
    ),
    "persona_work_style": (
        (
            "works in deep-focus blocks",
            "juggles many small tasks",
            "works in deadline-driven bursts",
            "likes step-by-step routines",
            "experiments with new tools",
            "works mostly on mobile",
        ),
        (
            "runs structured programmes",
            "prefers pilots before rollout",
            "delegates evaluation to a team",
            "works through formal roadmaps",
            "moves fast on proven wins",
            "builds consensus across departments",
        ),
    ),
    "persona_tech_savvy": (("low", "moderate", "high", "expert"), ("moderate", "high", "expert")),
    "company_size_descriptor": (
        ("self-employed", "freelancer", "two-person business", "small team of 3-10"),
        ("mid-sized", "large", "nationwide", "multinational"),
    ),
    "company_culture": (
        ("independent", "scrappy", "craft-focused", "community-minded", "pragmatic"),
        ("traditional", "innovation-driven", "consensus-driven", "fast-moving", "process-heavy", "data-driven"),
    ),
    "company_decision_style": (
        (
            "decides alone and quickly",
            "compares several tools first",
            "follows peer recommendations",
            "tries before committing",
        ),
        (
            "committee approval",
            "procurement-led",
            "executive sponsor decides",
            "pilot then rollout",
            "tied to the budget cycle",
        ),
    ),
    "company_primary_concern": (
        ("ease of use", "output quality", "speed", "reliability", "privacy", "monthly cost"),
        ("compliance", "integration effort", "reliability", "vendor support", "data security", "total cost"),
    ),
}
_FIRST = (
    "alex",
    "maria",
    "james",
    "wei",
    "fatima",
    "lucas",
    "priya",
    "noah",
    "elena",
    "omar",
    "sofia",
    "kenji",
    "grace",
    "daniel",
    "amara",
    "ivan",
    "chloe",
    "mateo",
    "hana",
    "samuel",
)
_LAST = (
    "chen",
    "garcia",
    "smith",
    "patel",
    "nguyen",
    "kowalski",
    "okafor",
    "silva",
    "muller",
    "haddad",
    "kim",
    "johansson",
    "rossi",
    "tanaka",
    "dubois",
    "moreno",
    "novak",
    "brown",
    "ali",
    "costa",
)
_STEMS = (
    "northbridge",
    "bluepeak",
    "ironwood",
    "clearwater",
    "summit",
    "redfern",
    "oakline",
    "harborview",
    "silverline",
    "brightpath",
    "stonegate",
    "westfield",
    "keystone",
    "evergreen",
    "lakeshore",
    "pinecrest",
)

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64 finaliser on a uint64 array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))
        x = x * np.uint64(0xBF58476D1CE4E5B9)
        x = x ^ (x >> np.uint64(27))
        x = x * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _hash(customer_ids: np.ndarray, group_idx: np.ndarray, groups: Sequence[GroupLike]) -> np.ndarray:
    """A 64-bit hash of (customer id, group id) per customer."""
    salts = np.array([zlib.crc32(grp.id.encode()) for grp in groups], dtype=np.uint64)
    with np.errstate(over="ignore"):
        return _mix(np.asarray(customer_ids, dtype=np.int64).astype(np.uint64) ^ (salts[group_idx] << np.uint64(32)))


def _draw(h: np.ndarray, salt: int, length: np.ndarray | int) -> np.ndarray:
    """An index in [0, length) per customer, from its hash and a salt of its own per field."""
    with np.errstate(over="ignore"):
        r = _mix(h + np.uint64(salt) * _GOLDEN)
    return (r % np.asarray(length).astype(np.uint64)).astype(np.int64)


def _option_lists(grp: GroupLike) -> list[tuple[str, ...]]:
    """The options of each picked field (``PICKED`` order) for a customer of ``grp``: industries and roles
    of its group, the rest by kind (individual or enterprise)."""
    industries, roles, _ = _GROUPS.get(grp.id, _FALLBACK["ENT" if grp.kind == "ENT" else "IND"])
    kind = 1 if grp.kind == "ENT" else 0
    return [industries, roles, *(lists[kind] for lists in _FIELDS.values())]


def persona_codes(customer_ids: np.ndarray, group_idx: np.ndarray, groups: Sequence[GroupLike]) -> np.ndarray:
    """Each customer's persona picks packed in one integer: the index of field k (``PICKED`` order) in its
    option list at bits ``CODE_BITS * k`` and up. ``persona_vocabulary`` decodes them."""
    g = np.asarray(group_idx, dtype=np.int64)
    h = _hash(customer_ids, g, groups)
    lengths = np.array([[len(opts) for opts in _option_lists(grp)] for grp in groups], dtype=np.int64)
    if lengths.max(initial=0) > 1 << CODE_BITS:
        raise ValueError(f"a persona field has more than {1 << CODE_BITS} options: they do not fit its code")
    codes = np.zeros(len(h), dtype=np.int64)
    for k in range(len(PICKED)):
        codes |= _draw(h, k + 1, lengths[g, k]) << (CODE_BITS * k)
    return codes


def persona_vocabulary(groups: Sequence[GroupLike]) -> list[tuple[int, str, int, str]]:
    """(field number, group id, index, text) of every option a customer of each group may get."""
    return [
        (k, grp.id, i, text)
        for grp in groups
        for k, options in enumerate(_option_lists(grp))
        for i, text in enumerate(options)
    ]


def persona_emails(customer_ids: np.ndarray, group_idx: np.ndarray, groups: Sequence[GroupLike]) -> list[str | None]:
    """The contact address of each enterprise customer (None for individuals)."""
    g = np.asarray(group_idx, dtype=np.int64)
    h = _hash(customer_ids, g, groups)
    ent = np.array([grp.kind == "ENT" for grp in groups], dtype=bool)[g]
    domains = [_GROUPS.get(grp.id, _FALLBACK["ENT" if grp.kind == "ENT" else "IND"])[2] for grp in groups]
    first, last, stem = (_draw(h, salt, len(words)) for salt, words in ((20, _FIRST), (21, _LAST), (22, _STEMS)))
    return [
        f"{_FIRST[f]}.{_LAST[la]}@{_STEMS[s]}-{domains[gi]}.com" if e else None
        for e, f, la, s, gi in zip(ent.tolist(), first.tolist(), last.tolist(), stem.tolist(), g.tolist(), strict=True)
    ]
