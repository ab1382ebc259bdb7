"""Shell commands over a registry's argument schemas (core.cmdline); sessions are tested with yc."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import pytest
from pydantic import Field

from bizbench.core.cmdline import command_names, parse_command
from bizbench.core.registry import ToolError, ToolRegistry

registry = ToolRegistry()


@registry.tool(mutates=False)
def market_browse(
    ctx: Any,
    domain: Literal["training", "research"] | None = None,
    reward_min_cents: int | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 50,
) -> dict[str, Any]:
    """Browse.

    Args:
        domain: Domain filter.
        reward_min_cents: Minimum reward.
        limit: At most this many.
    """
    return {"domain": domain, "reward_min_cents": reward_min_cents, "limit": limit}


@registry.tool()
def task_assign(ctx: Any, task_id: str, employees: list[str], urgent: bool = False) -> dict[str, Any]:
    """Assign.

    Args:
        task_id: Task.
        employees: Employee ids.
        urgent: Flag.
    """
    ctx.counter += 1
    return {"task_id": task_id, "employees": employees, "urgent": urgent, "counter": ctx.counter}


@registry.tool()
def plan(ctx: Any, targets: dict[str, float], steps: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """Objects and lists of objects come as JSON.

    Args:
        targets: Name -> value.
        steps: Optional steps.
    """
    return {"targets": targets, "steps": steps}


@registry.tool(name="pass")
def pass_turn(ctx: Any) -> dict[str, Any]:
    """A keyword as a tool name (cfo's ``pass``)."""
    return {}


@registry.tool()
def task(ctx: Any, price: float = 1.0) -> dict[str, Any]:
    """A shorter name that shares a prefix.

    Args:
        price: A number.
    """
    return {"price": price}


SCHEMAS = registry.parameter_schemas()


def test_words_and_flags_become_a_tool_call() -> None:
    assert parse_command(SCHEMAS, ["market", "browse"]) == ("market_browse", {})
    assert parse_command(SCHEMAS, ["market", "browse", "--domain", "training", "--reward-min-cents", "5000"]) == (
        "market_browse",
        {"domain": "training", "reward_min_cents": 5000},
    )
    name, args = parse_command(SCHEMAS, ["task", "assign", "--task-id", "T-1", "--employees", "E1, E2", "--urgent"])
    assert (name, args) == ("task_assign", {"task_id": "T-1", "employees": ["E1", "E2"], "urgent": True})
    assert parse_command(SCHEMAS, ["task", "--price=2.5"]) == ("task", {"price": 2.5})  # longest match wins
    assert "market browse" in command_names(SCHEMAS)


def test_a_tool_name_may_be_one_word_with_underscores() -> None:
    """``fund_raising_request --type equity`` as cfo's agents type it: the flags are not eaten."""
    assert parse_command(SCHEMAS, ["market_browse", "--limit", "3"]) == ("market_browse", {"limit": 3})
    assert parse_command(SCHEMAS, ["task_assign", "--task-id", "T", "--employees", "E"]) == (
        "task_assign",
        {"task_id": "T", "employees": ["E"]},
    )
    assert parse_command(SCHEMAS, ["pass"]) == ("pass", {})


def test_objects_and_lists_of_objects_are_json() -> None:
    name, args = parse_command(SCHEMAS, ["plan", "--targets", '{"a": 1.5}', "--steps", '[{"x": 1}, {"y": [2]}]'])
    assert (name, args) == ("plan", {"targets": {"a": 1.5}, "steps": [{"x": 1}, {"y": [2]}]})
    assert parse_command(SCHEMAS, ["task", "assign", "--task-id", "T", "--employees", '["E1", "E2"]']) == (
        "task_assign",
        {"task_id": "T", "employees": ["E1", "E2"]},
    )
    for bad, needle in (("{a: 1}", "expects a JSON object"), ("[1, 2]", "expects a JSON object")):
        with pytest.raises(ToolError, match=needle):
            parse_command(SCHEMAS, ["plan", "--targets", bad])


@pytest.mark.parametrize(
    ("words", "needle"),
    [
        (["launch", "rocket"], "Unknown command"),
        ([], "Unknown command"),
        (["market", "browse", "--colour", "red"], "--colour"),
        (["market", "browse", "--limit", "many"], "integer"),
        (["market", "browse", "--limit"], "needs a value"),
        (["market", "browse", "training"], "Unexpected 'training'"),
    ],
)
def test_bad_commands_are_named(words: list[str], needle: str) -> None:
    with pytest.raises(ToolError, match=needle):
        parse_command(SCHEMAS, words)


@pytest.mark.parametrize("typed", ["-7", "0", "0042", "123456789012345678"])
def test_an_integer_is_ascii_digits_with_an_optional_minus(typed: str) -> None:
    assert parse_command(SCHEMAS, ["market", "browse", "--reward-min-cents", typed])[1] == {
        "reward_min_cents": int(typed)
    }


@pytest.mark.parametrize("typed", ["2.5", "-3", "2e7", "1.5E-3", ".5", "7."])
def test_a_number_is_ascii_digits_with_a_fraction_and_an_exponent(typed: str) -> None:
    assert parse_command(SCHEMAS, ["task", "--price", typed])[1] == {"price": float(typed)}


@pytest.mark.parametrize(
    ("flag", "typed"),
    [
        ("--reward-min-cents", "1_000"),  # int() and float() take these; JSON and --seed do not
        ("--reward-min-cents", "\u0663"),  # an Arabic-Indic three
        ("--reward-min-cents", " 3"),
        ("--reward-min-cents", "+3"),
        ("--reward-min-cents", "3.0"),
        ("--price", "1_000"),
        ("--price", "\u0661\u0662"),
        ("--price", "+1"),
        ("--price", "inf"),
        ("--price", "nan"),
        ("--price", "0x10"),
        ("--reward-min-cents", "1" * 5000),  # past Python's own int() limit of 4,300 digits
    ],
)
def test_a_number_in_another_script_or_with_underscores_is_refused_naming_the_flag(flag: str, typed: str) -> None:
    words = ["market", "browse", flag, typed] if flag == "--reward-min-cents" else ["task", flag, typed]
    with pytest.raises(ToolError, match=f"{flag} expects an? (integer|number) \\((up to 100 )?digits 0-9"):
        parse_command(SCHEMAS, words)


@pytest.mark.parametrize(
    "words", ["task assign --task-id a --employees x --task-id b", "market browse --limit 1 --limit=2"]
)
def test_a_flag_given_twice_is_an_error_naming_it(words: str) -> None:
    with pytest.raises(ToolError, match=r"--(task-id|limit) is given twice"):
        parse_command(SCHEMAS, words.split())


def test_help_comes_from_the_registry_and_lists_the_callers_commands() -> None:
    from bizbench.core.cmdline import command_help, wants_help

    assert wants_help(["help"]) and wants_help(["task", "assign", "--help"]) and not wants_help(["task", "assign"])
    listing = command_help(registry, ["help"], {"rules": "the rules"})
    assert [c["command"] for c in listing["commands"]] == [*command_names(SCHEMAS), "rules"]
    one = command_help(registry, ["task", "assign", "--task-id", "T", "--help"])
    assert [f["flag"] for f in one["flags"]] == ["--task-id", "--employees", "--urgent"]
    assert one["flags"][2]["default"] is False and one["read_only"] is False
    more = {"sim init --seed N": "start a session"}
    assert command_help(registry, ["help", "sim", "init"], more) == {
        "command": "sim init --seed N",
        "description": "start a session",
    }
    with pytest.raises(ToolError, match=r"Unknown command: fly\. Commands: market browse, task assign, .*, rules$"):
        command_help(registry, ["help", "fly"], {"rules": "the rules"})


@pytest.mark.parametrize(
    "words",
    [
        ["x" * 100_000],
        ["market", "browse", "--" + "c" * 100_000, "1"],
        ["market", "browse", "--limit", "9" * 50_000 + "z"],
        ["market", "browse", "y" * 100_000],
        ["task", "assign", "--task-id", "a", "--" + "d" * 100_000],
    ],
)
def test_an_error_quotes_an_over_long_word_bounded(words: list[str]) -> None:
    """A 100,000-character word must not come back whole into a model's context (core.jsonio.preview)."""
    from bizbench.core.cmdline import command_help

    with pytest.raises(ToolError) as caught:
        parse_command(SCHEMAS, words)
    assert len(str(caught.value)) < 1_000 and "chars)" in str(caught.value)
    if len(words) == 1:
        with pytest.raises(ToolError) as caught:
            command_help(registry, ["help", *words])
        assert len(str(caught.value)) < 1_000


def test_help_of_a_prefix_lists_every_tool_and_command_it_starts() -> None:
    from bizbench.core.cmdline import command_help

    more = {"sim init --seed N": "start a session", "sim result": "the result so far", "rules": "the rules"}
    market = command_help(registry, ["help", "market"], more)
    assert market["commands"] == [
        {"command": "market browse", "description": registry.spec("market_browse").description}
    ]
    assert command_help(registry, ["help", "task"], more)["command"] == "task"  # a tool of that name: its help
    sim = command_help(registry, ["help", "sim"], more)
    assert [c["command"] for c in sim["commands"]] == ["sim init --seed N", "sim result"]
    assert command_help(registry, ["sim", "result", "--help"], more) == {
        "command": "sim result",
        "description": "the result so far",
    }
    with pytest.raises(ToolError, match="Unknown command: mar"):  # whole words only
        command_help(registry, ["help", "mar"], more)


def test_command_help_details_leave_out_a_first_paragraph_spanning_lines() -> None:
    from bizbench.core.cmdline import command_help

    reg = ToolRegistry()

    @reg.tool()
    def long_tool(ctx: Any) -> dict[str, Any]:
        """Do a thing whose description is long enough
        to span two lines.

        The details, only these."""
        return {}

    out = command_help(reg, ["long", "tool", "--help"])
    assert out["details"] == "The details, only these." and "span two lines" in out["description"]
    short = ToolRegistry()

    @short.tool()
    def brief(ctx: Any) -> dict[str, Any]:
        """Only a description,
        on two lines."""
        return {}

    assert "details" not in command_help(short, ["brief", "--help"])
