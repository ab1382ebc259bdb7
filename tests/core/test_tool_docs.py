"""docs/<env>-tools.md are generated from each env's registry (`make docs`); they must not drift."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("env", ["ceo", "yc", "cfo"])
def test_tool_docs_are_generated_from_the_registry(env: str) -> None:
    registry = importlib.import_module(f"bizbench.envs.{env}.tools").registry
    doc = (ROOT / "docs" / f"{env}-tools.md").read_text()
    assert doc == registry.markdown_docs(title=f"{env} tool reference"), "run: make docs"
