"""Registry of environments. Only metadata: env packages are imported lazily by callers."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ENVS", "EnvSpec", "get_env", "list_envs"]


@dataclass(frozen=True)
class EnvSpec:
    id: str
    title: str
    package: str
    description: str
    default_preset: str = "default"


ENVS: dict[str, EnvSpec] = {
    "ceo": EnvSpec(
        "ceo",
        "CEO-Bench (NovaMind SaaS)",
        "bizbench.envs.ceo",
        "Run a subscription AI-software company for 500 days",
    ),
    "yc": EnvSpec(
        "yc",
        "YC-Bench (AI services startup)",
        "bizbench.envs.yc",
        "Run an AI services startup taking contract tasks for one year",
    ),
    "cfo": EnvSpec(
        "cfo",
        "EnterpriseArena (consumer-lending CFO)",
        "bizbench.envs.cfo",
        "Be the CFO of a lending company for 132 months: budgeted tools, one action a month",
        default_preset="paper",
    ),
}


def get_env(env_id: str) -> EnvSpec:
    """The spec for ``env_id``; ``KeyError`` listing the registered ids otherwise."""
    try:
        return ENVS[env_id]
    except KeyError:
        raise KeyError(f"unknown env {env_id!r} (registered: {', '.join(sorted(ENVS)) or 'none'})") from None


def list_envs() -> list[EnvSpec]:
    return [ENVS[k] for k in sorted(ENVS)]
