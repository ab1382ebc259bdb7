"""Persona text of customers for the agent-visible ``customers`` table (reference-notes §5.1).

The engine fills the persona columns from LLM persona templates (hidden tables
``customer_personas``, ``group_characteristics``, §5.2). bizbench writes them from fixed
word lists instead: each field is picked by a hash of (customer id, group id), so the text
is deterministic, varied, fits the group (industries and roles per group, individual or
enterprise vocabulary per kind) and carries no information about any hidden parameter:
nothing here reads willingness to pay, seats, quality floors or satisfaction.

Vectorised: the hash and every pick are numpy operations on index arrays; Python only
joins the final strings.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Protocol

import numpy as np

PERSONA_COLUMNS: tuple[str, ...] = (
    "persona_industry",
    "persona_role",
    "persona_experience",
    "persona_work_style",
    "persona_tech_savvy",
    "company_size_descriptor",
    "company_culture",
    "company_decision_style",
    "company_primary_concern",
    "persona_description",
    "email",
)


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


def _pick(h: np.ndarray, salt: int, options: np.ndarray, offset: np.ndarray, length: np.ndarray) -> np.ndarray:
    """options[offset + (mix(h, salt) mod length)], all per customer."""
    with np.errstate(over="ignore"):
        r = _mix(h + np.uint64(salt) * _GOLDEN)
    return options[offset + (r % length.astype(np.uint64)).astype(np.int64)]


def _table(rows: Sequence[Sequence[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Flatten per-row word lists into (options, offset per row, length per row)."""
    flat = [w for r in rows for w in r]
    lengths = np.array([len(r) for r in rows], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return np.array(flat, dtype=object), offsets, lengths


def persona_columns(
    customer_ids: np.ndarray, group_idx: np.ndarray, groups: Sequence[GroupLike]
) -> dict[str, list[str | None]]:
    """The persona columns (``PERSONA_COLUMNS``) of the given customers, one list per column."""
    ids = np.asarray(customer_ids, dtype=np.int64)
    g = np.asarray(group_idx, dtype=np.int64)
    flavours = [_GROUPS.get(grp.id, _FALLBACK["ENT" if grp.kind == "ENT" else "IND"]) for grp in groups]
    ent_by_group = np.array([grp.kind == "ENT" for grp in groups], dtype=bool)
    salts = np.array([zlib.crc32(grp.id.encode()) for grp in groups], dtype=np.uint64)
    with np.errstate(over="ignore"):
        h = _mix(ids.astype(np.uint64) ^ (salts[g] << np.uint64(32)))
    kind = ent_by_group[g].astype(np.int64)  # 0 individual, 1 enterprise

    out: dict[str, np.ndarray] = {}
    industries, ind_off, ind_len = _table([f[0] for f in flavours])
    out["persona_industry"] = _pick(h, 1, industries, ind_off[g], ind_len[g])
    roles, role_off, role_len = _table([f[1] for f in flavours])
    out["persona_role"] = _pick(h, 2, roles, role_off[g], role_len[g])
    for salt, (name, lists) in enumerate(_FIELDS.items(), start=3):
        options, off, length = _table(lists)
        out[name] = _pick(h, salt, options, off[kind], length[kind])

    first = _pick(h, 20, np.array(_FIRST, dtype=object), np.zeros(len(h), np.int64), np.full(len(h), len(_FIRST)))
    last = _pick(h, 21, np.array(_LAST, dtype=object), np.zeros(len(h), np.int64), np.full(len(h), len(_LAST)))
    stem = _pick(h, 22, np.array(_STEMS, dtype=object), np.zeros(len(h), np.int64), np.full(len(h), len(_STEMS)))
    domain = np.array([f[2] for f in flavours], dtype=object)[g]

    cols: dict[str, list[str | None]] = {k: v.tolist() for k, v in out.items()}
    cols["persona_description"] = [
        (
            f"{role[:1].upper()}{role[1:]} at a {size} {ind} organisation with a {cult} culture; {exp}, "
            f"{style}; buying decisions: {dec}; main concern: {conc}."
            if k
            else f"{role[:1].upper()}{role[1:]} in {ind} ({size}), {exp}, {style}, {tech} technical skills; "
            f"{dec}; main concern: {conc}."
        )
        for k, role, ind, size, cult, exp, style, tech, dec, conc in zip(
            kind.tolist(),
            cols["persona_role"],
            cols["persona_industry"],
            cols["company_size_descriptor"],
            cols["company_culture"],
            cols["persona_experience"],
            cols["persona_work_style"],
            cols["persona_tech_savvy"],
            cols["company_decision_style"],
            cols["company_primary_concern"],
            strict=True,
        )
    ]
    cols["email"] = [
        f"{f}.{la}@{s}-{d}.com" if k else None
        for k, f, la, s, d in zip(
            kind.tolist(), first.tolist(), last.tolist(), stem.tolist(), domain.tolist(), strict=True
        )
    ]
    return cols


def persona_rows(
    customer_ids: np.ndarray, group_idx: np.ndarray, groups: Sequence[GroupLike]
) -> list[tuple[str | None, ...]]:
    """Row tuples in ``PERSONA_COLUMNS`` order."""
    cols = persona_columns(customer_ids, group_idx, groups)
    return list(zip(*(cols[c] for c in PERSONA_COLUMNS), strict=True))
