import enum
import functools
import inspect
import logging
import math
from typing import Annotated, Any, List, Literal, NewType, Optional  # noqa: UP035 (List: a bare typing alias)

import annotated_types
import pytest
from pydantic import BaseModel, ConfigDict, Field, model_validator

from bizbench.core.registry import ToolError, ToolRegistry, ToolResult

reg = ToolRegistry()
UserId = NewType("UserId", int)


class Ctx:
    def __init__(self) -> None:
        self.prices: dict[str, float] = {"basic": 10.0, "pro": 50.0}
        self.calls = 0


@reg.tool(category="pricing")
def set_price(ctx: Ctx, tier: Literal["basic", "pro"], price: float, note: str = "") -> dict:
    """Set the monthly list price of a tier.

    Prices take effect at the next billing cycle.

    Args:
        tier: Which tier to reprice.
        price: New monthly price in dollars. Must be
            positive.
        note: Free-text reason, kept in the log.

    Returns:
        The new price table.
    """
    if price <= 0:
        raise ToolError(f"argument 'price': must be > 0, got {price}")
    ctx.prices[tier] = price
    ctx.calls += 1
    return dict(ctx.prices)


@reg.tool(name="get_prices", category="pricing", mutates=False)
def _get_prices(ctx: Ctx) -> dict:
    """Return the price table."""
    return dict(ctx.prices)


@reg.tool
def allocate(
    ctx: Ctx,
    weights: dict[str, dict[str, float]],
    headcount: int = 1,
    budget: Annotated[float, Field(ge=0)] = 0.0,
    regions: list[str] | None = None,
) -> int:
    """Allocate budget across channels.

    Args:
        weights (dict): Channel -> segment -> weight.
        headcount: Number of people.
    """
    ctx.calls += 1
    return headcount


@reg.tool
def explode(ctx: Ctx) -> None:
    """Always fails with a bug."""
    raise ZeroDivisionError("boom")


def test_names_and_spec():
    assert reg.names() == ["set_price", "get_prices", "allocate", "explode"]
    assert "set_price" in reg and len(reg) == 4
    s = reg.spec("set_price")
    assert s.category == "pricing" and s.mutates is True
    assert s.description == "Set the monthly list price of a tier."
    assert reg.spec("get_prices").mutates is False
    assert s.signature == "set_price(tier: Literal['basic', 'pro'], price: float, note: str = '')"
    with pytest.raises(KeyError):
        reg.spec("nope")


def test_schema_required_optional_and_descriptions():
    p = reg.spec("set_price").parameters
    assert p["type"] == "object"
    assert p["required"] == ["tier", "price"]
    assert p["additionalProperties"] is False
    props = p["properties"]
    assert props["tier"]["enum"] == ["basic", "pro"]
    assert props["price"]["type"] == "number"
    assert props["price"]["description"] == "New monthly price in dollars. Must be positive."
    assert props["note"]["default"] == ""
    assert props["note"]["description"] == "Free-text reason, kept in the log."
    assert "title" not in p and "title" not in props["price"]


def test_schema_nested_types():
    p = reg.spec("allocate").parameters
    assert p["required"] == ["weights"]
    w = p["properties"]["weights"]
    assert w["type"] == "object"
    assert w["additionalProperties"]["type"] == "object"
    assert w["additionalProperties"]["additionalProperties"]["type"] == "number"
    assert w["description"] == "Channel -> segment -> weight."
    assert p["properties"]["headcount"]["type"] == "integer"
    assert p["properties"]["budget"]["minimum"] == 0
    assert reg.spec("get_prices").parameters["properties"] == {}


def test_a_tool_as_a_dict_has_its_name_category_description_mutates_and_parameters():
    s = reg.spec("get_prices")
    assert s.to_dict() == {
        "name": "get_prices",
        "category": "pricing",
        "description": "Return the price table.",
        "mutates": False,
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    }


def test_a_signature_shows_the_limits_of_a_field_and_of_an_annotated_types_marker():
    assert reg.spec("allocate").signature == (
        "allocate(weights: dict[str, dict[str, float]], headcount: int = 1, budget: float (>= 0) = 0.0, "
        "regions: list[str] | None = None)"
    )
    local = ToolRegistry()

    @local.tool
    def hire(
        ctx: Ctx, count: Annotated[int, annotated_types.Gt(0)], share: Annotated[float, Field(le=0.5)] = 0.1
    ) -> int:
        """Hire people."""
        return count

    assert local.spec("hire").signature == "hire(count: int (> 0), share: float (<= 0.5) = 0.1)"


def test_a_signature_names_every_kind_of_type_in_plain_words():
    local = ToolRegistry()

    @local.tool
    def plan(
        ctx: Ctx,
        tier: Literal["basic", "pro"],
        weights: dict[str, list[int]],
        budget: Annotated[float, Field(ge=0, le=100.5)] = 0.0,
        note: str | None = None,
        limit: Optional[int] = None,  # noqa: UP045 (typing.Union, not the | operator)
        payload: Any = None,
    ) -> None:
        """Plan."""

    assert local.spec("plan").signature == (
        "plan(tier: Literal['basic', 'pro'], weights: dict[str, list[int]], budget: float (>= 0, <= 100.5) = 0.0, "
        "note: str | None = None, limit: int | None = None, payload: Any = None)"
    )

    @local.tool
    def more(
        ctx: Ctx,
        ids: list[Optional[int]],  # noqa: UP045
        raw: List,  # noqa: UP006 (a bare typing alias: typing's repr, without "typing.")
        user: UserId,  # a NewType: its repr without the module
        label: Annotated[str, Field(description="a label")],  # metadata without a limit
    ) -> None:
        """More."""

    assert local.spec("more").signature == "more(ids: list[int | None], raw: List, user: UserId, label: str)"


def test_string_annotations_are_resolved_and_the_context_and_return_types_need_not_be():
    """Tools modules use ``from __future__ import annotations``; the context type is often
    imported only under TYPE_CHECKING, and so may be the return type."""
    local = ToolRegistry()

    @local.tool
    def grant(
        ctx: "NotImportedHere",  # type: ignore[name-defined]  # noqa: F821
        amount: "Annotated[float, Field(gt=0)]",
        tier: "Literal['a', 'b']" = "a",
    ) -> "NotImportedEither":  # type: ignore[name-defined]  # noqa: F821
        """Grant."""

    s = local.spec("grant")
    assert s.signature == "grant(amount: float (> 0), tier: Literal['a', 'b'] = 'a')"
    assert s.parameters["properties"]["amount"] == {"type": "number", "exclusiveMinimum": 0}
    assert s.parameters["properties"]["tier"]["enum"] == ["a", "b"]


def test_openai_and_anthropic_formats():
    oa = reg.openai_tools()
    assert oa[0]["type"] == "function"
    assert set(oa[0]["function"]) == {"name", "description", "parameters"}
    assert oa[0]["function"]["name"] == "set_price"
    an = reg.anthropic_tools()
    assert set(an[0]) == {"name", "description", "input_schema"}
    assert an[0]["input_schema"] == oa[0]["function"]["parameters"]
    assert [d["name"] for d in reg.json_schemas()] == reg.names()


def test_markdown_docs():
    md = reg.markdown_docs("Toy tools")
    assert md.startswith("# Toy tools")
    assert "### `set_price`" in md and "## pricing" in md
    assert "| `tier` | `Literal['basic', 'pro']` | yes |" in md
    assert "Prices take effect at the next billing cycle." in md
    assert "_Read-only._" in md


def test_call_ok():
    ctx = Ctx()
    r = reg.call(ctx, "set_price", {"tier": "pro", "price": 60})
    assert r == ToolResult(ok=True, data={"basic": 10.0, "pro": 60.0})
    assert r.to_dict() == {"ok": True, "data": {"basic": 10.0, "pro": 60.0}, "error": None}
    assert reg.call(ctx, "get_prices", None).data["pro"] == 60.0
    assert reg.call(ctx, "allocate", {"weights": {"ads": {"smb": 1}}, "headcount": 3}).data == 3


def test_unknown_tool():
    r = reg.call(Ctx(), "fly", {})
    assert not r.ok
    assert r.error == "Unknown tool: fly (available: set_price, get_prices, allocate, explode)"


@pytest.mark.parametrize(
    "args, fragment",
    [
        ({"tier": "pro", "price": "5"}, "argument 'price': expected a number, got '5'"),
        ({"tier": "pro", "price": math.nan}, "argument 'price': expected a finite number"),
        ({"tier": "pro", "price": math.inf}, "argument 'price': expected a finite number"),
        ({"tier": "pro", "price": True}, "argument 'price': expected a number, got True"),
        ({"tier": "gold", "price": 5}, "argument 'tier': expected one of 'basic' or 'pro'"),
        ({"tier": "pro"}, "argument 'price': required argument is missing"),
        ({"tier": "pro", "price": 5, "colour": "red"}, "unknown argument 'colour' (allowed: tier"),
        ({"tier": 3, "price": 5}, "argument 'tier'"),
    ],
)
def test_validation_errors_change_nothing(args, fragment):
    ctx = Ctx()
    r = reg.call(ctx, "set_price", args)
    assert not r.ok and r.data is None
    assert r.error.startswith("Invalid arguments for tool 'set_price': ")
    assert fragment in r.error
    assert ctx.calls == 0 and ctx.prices == {"basic": 10.0, "pro": 50.0}


def test_int_argument_errors():
    ctx = Ctx()
    w = {"weights": {}}
    r = reg.call(ctx, "allocate", {**w, "headcount": "abc"})
    assert "argument 'headcount': expected an integer, got 'abc'" in r.error
    r = reg.call(ctx, "allocate", {**w, "headcount": True})
    assert "argument 'headcount': expected an integer, got True" in r.error
    r = reg.call(ctx, "allocate", {**w, "headcount": 2.5})
    assert "expected an integer, got 2.5" in r.error
    r = reg.call(ctx, "allocate", {"weights": {"ads": {"smb": "x"}}})
    assert "argument 'weights.ads.smb': expected a number, got 'x'" in r.error
    r = reg.call(ctx, "allocate", {**w, "budget": -1})
    assert "argument 'budget': expected a value >= 0.0, got -1" in r.error
    r = reg.call(ctx, "allocate", {**w, "regions": "eu"})
    assert "argument 'regions'" in r.error
    r = reg.call(ctx, "allocate", {**w, "headcount": "abc", "budget": "x"})
    assert "headcount" in r.error and "budget" in r.error
    r = reg.call(ctx, "allocate", ["not", "a", "dict"])  # type: ignore[arg-type]
    assert not r.ok and "must be an object" in r.error
    assert ctx.calls == 0


class Band(BaseModel):
    model_config = ConfigDict(extra="forbid")
    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> "Band":
        if self.low > self.high:
            raise ValueError(f"need low <= high, got low={self.low}, high={self.high}")
        return self


plain = ToolRegistry()


@plain.tool
def note(
    ctx: Ctx,
    text: Annotated[str, Field(max_length=10)],
    tags: Annotated[list[str], Field(max_length=2)] = [],  # noqa: B006 - a pydantic default, copied
    bands: dict[str, Band] | None = None,
    weights: dict[int, float] | None = None,
) -> int:
    """Keep a note.

    Args:
        text: The note.
        tags: Labels.
        bands: Named ranges.
        weights: Weight per id.
    """
    ctx.calls += 1
    return len(text)


@pytest.mark.parametrize(
    "args, message",
    [
        ({"text": "x" * 300}, "argument 'text': expected a text of at most 10 characters, got 300 characters"),
        ({"text": "x", "tags": ["a", "b", "c"]}, "argument 'tags': expected at most 2 items, got 3 items"),
        (
            {"text": "x", "bands": {"a": {"low": 2, "high": 1}}},
            "argument 'bands.a': need low <= high, got low=2.0, high=1.0",
        ),
        ({"text": "x", "bands": {"a": {"low": 2}}}, "argument 'bands.a.high': required field is missing"),
        ({"text": "x", "weights": {"k": 1.0}}, "argument 'weights': key 'k': expected an integer, got 'k'"),
        ({"text": 5}, "argument 'text': expected a string, got 5"),
    ],
)
def test_validation_messages_are_plain_words_not_pydantic_wording(args, message):
    ctx = Ctx()
    r = plain.call(ctx, "note", args)
    assert r.error == f"Invalid arguments for tool 'note': {message}"
    for pydantic_words in ("String should", "List should", "Value error", "Input should", "[key]", "Field required"):
        assert pydantic_words not in r.error
    assert ctx.calls == 0


def test_tool_error_path():
    ctx = Ctx()
    r = reg.call(ctx, "set_price", {"tier": "basic", "price": -1.0})
    assert r == ToolResult(ok=False, data=None, error="argument 'price': must be > 0, got -1.0")
    assert ctx.prices["basic"] == 10.0


def test_internal_error_is_contained_and_logged(caplog):
    with caplog.at_level(logging.ERROR, logger="bizbench.core.registry"):
        r = reg.call(Ctx(), "explode", {})
    assert r == ToolResult(ok=False, error="internal_error: ZeroDivisionError")
    assert "boom" not in r.error
    assert any("explode" in rec.getMessage() for rec in caplog.records)


def test_registration_errors():
    r = ToolRegistry()

    @r.tool
    def a(ctx, x: int) -> None:
        """A."""

    with pytest.raises(ValueError, match="already registered"):
        r.tool(a)
    with pytest.raises(TypeError, match="annotation"):

        @r.tool
        def b(ctx, x) -> None:  # noqa: ANN001
            """B."""

    with pytest.raises(TypeError, match="named parameter"):

        @r.tool
        def c(ctx, *args: int) -> None:
            """C."""

    with pytest.raises(TypeError, match="context"):

        @r.tool
        def d() -> None:
            """D."""


def test_a_tool_registered_at_run_time_takes_its_spec_from_its_signature_and_docstring():
    local = ToolRegistry()

    @local.tool
    def top_up(ctx: Ctx, amount: float, memo: str = "none", tag: str = "") -> float:
        """Add cash.

        Args:
            (every amount in dollars)
            amount: Dollars to add.
                Note:
                rounded to cents (an indented "Note:" opens no section).
            memo: Why.
        """
        return amount

    @local.tool
    def ping(ctx: Ctx) -> None:
        return None

    s = local.spec("top_up")
    assert (s.category, s.mutates, s.description) == ("general", True, "Add cash.")  # the defaults
    assert local.spec("ping").description == ""  # no docstring, no description
    p = s.parameters
    assert p["required"] == ["amount"]
    amount_doc = 'Dollars to add. Note: rounded to cents (an indented "Note:" opens no section).'
    assert p["properties"]["amount"]["description"] == amount_doc
    assert p["properties"]["memo"] == {"type": "string", "default": "none", "description": "Why."}
    assert p["properties"]["tag"] == {"type": "string", "default": ""}  # no description: none in the schema
    assert [(d.name, d.annotation, d.type_str, d.required, d.default, d.description) for d in s.params] == [
        ("amount", float, "float", True, inspect.Parameter.empty, amount_doc),
        ("memo", str, "str", False, "none", "Why."),
        ("tag", str, "str", False, "", ""),
    ]
    assert s.signature == "top_up(amount: float, memo: str = 'none', tag: str = '')"
    ctx = Ctx()
    assert local.call(ctx, "top_up", {"amount": 2.5}).data == 2.5
    extra = local.call(ctx, "top_up", {"amount": 2.5, "colour": "red"})
    assert not extra.ok and "unknown argument 'colour'" in (extra.error or "")


def test_the_docstring_sections_that_describe_arguments_and_the_summary_paragraph():
    local = ToolRegistry()

    @local.tool
    def a(ctx: Ctx, tags: list[str], size: int = 1) -> None:
        """Tag things
        in bulk.

        Tags replace the old ones.

        Nothing is merged.

        Arguments:
            *tags: The new tags.

            size: How many at once.

        Returns:
            size: not an argument's description.
        """

    @local.tool
    def b(ctx: Ctx, size: int = 1) -> None:
        """Resize.

        Parameters:
            size: New size.
        """

    spec = local.spec("a")
    assert spec.description == "Tag things in bulk."  # the first paragraph, joined
    assert [(d.name, d.description) for d in spec.params] == [("tags", "The new tags."), ("size", "How many at once.")]
    assert [d.description for d in local.spec("b").params] == ["New size."]


def test_a_tool_with_a_bad_name_or_a_private_parameter_is_refused_at_registration():
    local = ToolRegistry()
    with pytest.raises(ValueError) as bad_name:
        local.tool(name="top-up")(lambda ctx: None)
    assert str(bad_name.value) == "tool name must be an identifier, got 'top-up'"
    with pytest.raises(TypeError) as private:

        @local.tool
        def top_up(ctx: Ctx, _secret: int = 0) -> None:
            """Top up."""

    assert str(private.value) == "tool top_up: parameter '_secret' must not start with '_'"
    assert local.names() == []


def test_decorator_returns_function_unchanged():
    ctx = Ctx()
    assert set_price(ctx, "basic", 12.0)["basic"] == 12.0


def test_an_error_echoes_a_huge_tool_or_argument_name_cut_to_a_bounded_length():
    unknown = reg.call(Ctx(), "f" * 1_000_000, {})
    assert not unknown.ok and len(unknown.error) < 500 and "(1,000,000 chars)" in unknown.error
    junk = reg.call(Ctx(), "set_price", {"tier": "pro", "price": 5.0, "k" * 100_000: 1})
    assert not junk.ok and len(junk.error) < 500 and "unknown argument 'kkk" in junk.error


def test_an_error_lists_at_most_twenty_problems_and_counts_the_rest() -> None:
    """Issue 16 review: 14,000 bad keys made a 3.2 MB error, in the answer and in actions.jsonl."""
    reg = ToolRegistry()

    @reg.tool(category="t")
    def set_many(ctx: object, values: dict[str, int]) -> None:
        """Set values.

        Args:
            values: name to value.
        """

    result = reg.call(None, "set_many", {"values": {f"k{i}": "x" for i in range(14_000)}})
    assert not result.ok and "and 13,980 more problems" in (result.error or "") and len(result.error or "") < 5_000


def test_an_unknown_tool_is_answered_as_an_error_and_logged_as_tamper():
    r = reg.call(Ctx(), "fly", {})
    assert (r.ok, r.tamper) == (False, "unknown_tool")
    with pytest.raises(ToolError) as e:
        reg.validate("fly", {})
    assert e.value.tamper == "unknown_tool"


def test_arguments_that_are_not_an_object_are_refused_naming_the_type_that_came():
    r = reg.call(Ctx(), "allocate", ["not", "a", "dict"])  # type: ignore[arg-type]
    assert (r.error, r.tamper) == (
        "Invalid arguments for tool 'allocate': arguments must be an object "
        "(mapping of argument name to value), got list",
        None,
    )


def test_no_arguments_are_the_empty_object_and_validate_returns_every_argument_with_its_default():
    assert reg.validate("get_prices", None) == {}
    assert reg.validate("set_price", {"tier": "pro", "price": 5.5}) == {"tier": "pro", "price": 5.5, "note": ""}
    kwargs = reg.validate("allocate", {"weights": {"ads": {"smb": 0.5}}, "budget": 2.0})
    assert kwargs == {"weights": {"ads": {"smb": 0.5}}, "headcount": 1, "budget": 2.0, "regions": None}


def test_arguments_nested_past_the_depth_limit_are_refused_before_validation_and_logged_as_oversized():
    # the arguments object is level 1, so 32 lists inside it nest 33 levels deep (MAX_ARGS_DEPTH = 32)
    deep: Any = []
    for _ in range(31):
        deep = [deep]
    ctx = Ctx()
    r = reg.call(ctx, "allocate", {"weights": {}, "regions": deep})
    assert (r.error, r.tamper) == (
        "Invalid arguments for tool 'allocate': the arguments nest deeper than 32 levels",
        "oversized_args",
    )
    # one level less is taken by the size check and refused by validation instead (not a tamper)
    shallower = reg.call(ctx, "allocate", {"weights": {}, "regions": deep[0]})
    assert not shallower.ok and shallower.tamper is None and "nest deeper" not in (shallower.error or "")
    assert ctx.calls == 0


def test_an_integer_beyond_64_bits_is_refused_naming_the_argument_or_its_key():
    ctx = Ctx()
    assert reg.call(ctx, "allocate", {"weights": {}, "headcount": 2**63 - 1}).data == 2**63 - 1  # at the limit
    past = reg.call(ctx, "allocate", {"weights": {}, "headcount": -(2**63)})  # one past it
    assert (past.error, past.tamper) == (
        "Invalid arguments for tool 'allocate': argument 'headcount': integers must lie within +/-9223372036854775807",
        None,
    )
    # an oversized key is named "<key>"; a long argument name is cut to MAX_ECHOED_NAME characters
    keys = reg.call(ctx, "allocate", {2**64: 1, "weights": {}, "h" * 200: [2**70]})  # type: ignore[dict-item]
    assert keys.error == (
        f"Invalid arguments for tool 'allocate': arguments <key>, '{'h' * 120}... (200 chars)': "
        "integers must lie within +/-9223372036854775807"
    )
    assert ctx.calls == 1


def test_several_problems_are_listed_in_order_separated_by_semicolons():
    r = reg.call(Ctx(), "allocate", {"weights": {}, "headcount": "abc", "budget": "x"})
    assert r.error == (
        "Invalid arguments for tool 'allocate': argument 'headcount': expected an integer, got 'abc'; "
        "argument 'budget': expected a number, got 'x'"
    )


def test_the_advice_for_a_misplaced_argument_is_added_only_when_the_agent_sent_it():
    local = ToolRegistry()

    @local.tool(misplaced={"price": "prices are set with set_price", "tier": "a tier is chosen at signup"})
    def resize(ctx: Ctx, size: int) -> int:
        """Resize."""
        return size

    r = local.call(Ctx(), "resize", {"size": 2, "price": 9})
    assert r.error == (
        "Invalid arguments for tool 'resize': unknown argument 'price' (allowed: size); prices are set with set_price"
    )
    plain_error = local.call(Ctx(), "resize", {"size": "2"})
    assert plain_error.error == "Invalid arguments for tool 'resize': argument 'size': expected an integer, got '2'"


def test_an_error_lists_exactly_twenty_problems_whole_and_counts_from_the_twenty_first():
    local = ToolRegistry()

    @local.tool
    def set_many(ctx: object, values: dict[str, int]) -> None:
        """Set values."""

    def problems(n: int) -> str:
        return local.call(None, "set_many", {"values": {f"k{i}": "x" for i in range(n)}}).error or ""

    twenty = problems(20)
    assert twenty.count("expected an integer") == 20 and "more problems" not in twenty
    assert twenty.endswith("argument 'values.k19': expected an integer, got 'x'")
    twenty_one = problems(21)
    assert twenty_one.count("expected an integer") == 20
    assert twenty_one.endswith("argument 'values.k19': expected an integer, got 'x'; and 1 more problems")


@pytest.mark.parametrize(
    "args, tamper",
    [
        ({"weights": {}, "budget": math.nan}, "non_finite"),
        ({"weights": {}, "budget": -0.01}, "negative_value"),  # one cent below the >= 0 bound
        ({"weights": {}, "budget": -1}, "negative_value"),  # an integer input
        ({"weights": {}, "headcount": "x"}, None),  # an honest type mistake
    ],
)
def test_a_non_finite_or_negative_amount_is_logged_as_tamper_and_an_honest_mistake_is_not(args, tamper):
    r = reg.call(Ctx(), "allocate", args)
    assert not r.ok and r.tamper == tamper


def test_only_a_negative_number_refused_by_a_lower_bound_is_logged_as_a_negative_value():
    local = ToolRegistry()

    @local.tool
    def pay(
        ctx: Ctx,
        amount: Annotated[float, Field(gt=0)] = 1.0,
        rate: Annotated[float, Field(gt=1)] = 2.0,
        memo: str = "",
    ) -> None:
        """Pay."""

    def tamper(args: dict[str, Any]) -> str | None:
        r = local.call(Ctx(), "pay", args)
        assert not r.ok
        return r.tamper

    assert tamper({"amount": -1}) == "negative_value"  # greater_than, below zero
    assert tamper({"amount": 0}) is None  # greater_than at exactly zero: refused, not negative
    assert tamper({"rate": 0.5}) is None  # below a bound of 1 but not below zero
    assert tamper({"memo": -5}) is None  # a negative number refused for its type, not by a bound


def test_a_tool_error_keeps_its_tamper_kind_through_the_call():
    local = ToolRegistry()

    @local.tool
    def peek(ctx: Ctx, table: str) -> None:
        """Peek."""
        raise ToolError(f"no table {table}", tamper="hidden_table")

    assert local.call(Ctx(), "peek", {"table": "secrets"}) == ToolResult(
        ok=False, error="no table secrets", tamper="hidden_table"
    )


def test_an_internal_error_is_logged_naming_the_tool(caplog):
    with caplog.at_level(logging.ERROR, logger="bizbench.core.registry"):
        reg.call(Ctx(), "explode", {})
    assert [rec.getMessage() for rec in caplog.records] == ["internal error in tool explode"]


class Colour(enum.Enum):
    RED = "red"
    BLUE = "blue"


@pytest.mark.parametrize(
    "args, message",
    [
        ({"a": 1}, "argument 'a': expected a value > 1.0, got 1"),
        ({"b": 1.5}, "argument 'b': expected a value >= 2.0, got 1.5"),
        ({"c": 3}, "argument 'c': expected a value < 3.0, got 3"),
        ({"d": 4.5}, "argument 'd': expected a value <= 4.0, got 4.5"),
        ({"s": "a"}, "argument 's': expected a text of at least 2 characters, got 1 characters"),
        ({"s": "abcd"}, "argument 's': expected a text of at most 3 characters, got 4 characters"),
        ({"items": []}, "argument 'items': expected at least 1 items, got 0 items"),
        ({"items": [1, 2, 3]}, "argument 'items': expected at most 2 items, got 3 items"),
        ({"code": "ab"}, "argument 'code': expected a text matching the pattern ^[A-Z]{3}$, got 'ab'"),
        ({"step": 7}, "argument 'step': expected a multiple of 5, got 7"),
        ({"colour": "green"}, "argument 'colour': expected one of 'red' or 'blue', got 'green'"),
        # no plain words of its own: pydantic's sentence without "Input should be ", lower-cased
        ({"pair": [1, 2]}, "argument 'pair': expected a valid tuple, got [1, 2] (list)"),
    ],
)
def test_every_kind_of_limit_is_explained_in_plain_words_with_the_limit_and_what_came(args, message):
    local = ToolRegistry()

    @local.tool
    def shape(
        ctx: Ctx,
        a: Annotated[float, Field(gt=1)] = 2.0,
        b: Annotated[float, Field(ge=2)] = 2.0,
        c: Annotated[float, Field(lt=3)] = 0.0,
        d: Annotated[float, Field(le=4)] = 0.0,
        s: Annotated[str, Field(min_length=2, max_length=3)] = "ab",
        items: Annotated[list[int], Field(min_length=1, max_length=2)] = [1],  # noqa: B006 - copied by pydantic
        code: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "ABC",
        step: Annotated[int, Field(multiple_of=5)] = 5,
        colour: Annotated[Colour, Field(strict=False)] = Colour.RED,  # lax: a value, not an instance
        pair: tuple[int, int] = (1, 2),
    ) -> None:
        """Shape."""

    assert local.call(Ctx(), "shape", args).error == f"Invalid arguments for tool 'shape': {message}"


class AssertedBand(BaseModel):
    model_config = ConfigDict(extra="forbid")
    low: float
    high: float

    @model_validator(mode="after")
    def _ordered(self) -> "AssertedBand":
        if self.low > self.high:  # raised by hand: pytest rewrites a test module's assert statements
            raise AssertionError(f"low {self.low} above high {self.high}")
        return self


shapes = ToolRegistry()


@shapes.tool
def survey(
    ctx: Ctx,
    items: list[int] = [],  # noqa: B006 - copied by pydantic
    either: list[int] | list[str] | None = None,
    bands: dict[str, AssertedBand] | None = None,
    deep: dict[str, dict[str, dict[int, float]]] | None = None,
    n: int = 0,
) -> None:
    """Survey."""


@shapes.tool
def bare(ctx: Ctx) -> None:
    """Takes nothing."""


@pytest.mark.parametrize(
    "args, message",
    [
        ({"items": [1, "x"]}, "argument 'items[1]': expected an integer, got 'x'"),  # a list index in brackets
        # two union members refuse 5 with the same words: said once, without pydantic's member tags
        ({"either": 5}, "argument 'either': expected a list, got 5"),
        ({"bands": {"a": {"low": 2, "high": 1}}}, "argument 'bands.a': low 2.0 above high 1.0"),  # an assert's words
        ({"bands": {"a": {"low": 1, "high": 2, "mid": 3}}}, "argument 'bands.a.mid': unknown field"),
        ({"deep": {"a": {"b": {"k": 1.0}}}}, "argument 'deep.a.b': key 'k': expected an integer, got 'k'"),
        # what came is echoed whole up to 60 characters: 'x' * 58 in quotes is 60
        ({"n": "x" * 58}, f"argument 'n': expected an integer, got '{'x' * 58}'"),
        ({"n": "x" * 59}, f"argument 'n': expected an integer, got '{'x' * 56}..."),  # 61: cut to 57 and "..."
    ],
)
def test_where_an_error_is_and_what_came_are_said_as_the_agent_wrote_them(args, message):
    assert shapes.call(Ctx(), "survey", args).error == f"Invalid arguments for tool 'survey': {message}"


def test_an_unknown_argument_lists_every_allowed_one_or_says_none():
    assert shapes.call(Ctx(), "bare", {"x": 1}).error == (
        "Invalid arguments for tool 'bare': unknown argument 'x' (allowed: none)"
    )
    assert reg.call(Ctx(), "set_price", {"tier": "pro", "price": 5, "colour": "red"}).error == (
        "Invalid arguments for tool 'set_price': unknown argument 'colour' (allowed: tier, price, note)"
    )


def test_an_integer_beyond_64_bits_inside_an_object_as_a_value_or_a_key_is_refused():
    for weights in ({"ads": {"smb": 2**64}}, {"ads": {2**64: 1.0}}):
        r = reg.call(Ctx(), "allocate", {"weights": weights})
        assert r.error == (
            "Invalid arguments for tool 'allocate': argument 'weights': integers must lie within +/-9223372036854775807"
        )


def test_the_markdown_reference_is_one_section_per_tool_grouped_by_category_in_registration_order():
    local = ToolRegistry()

    @local.tool(category="cash", mutates=False)
    def balance(ctx: Ctx) -> float:
        """Show the balance.

        In dollars.
        """
        return 0.0

    @local.tool(category="pricing")
    def set_fee(ctx: Ctx, fee: float, note: str | None = None) -> None:
        """Set the fee.

        Args:
            fee: The fee | in dollars.
            note: Why.
        """

    @local.tool(category="cash")
    def pay(ctx: Ctx) -> None:
        return None

    assert (
        local.markdown_docs("Fees")
        == "\n".join(
            [
                "# Fees",
                "",
                "_Generated from the tool registry; do not edit by hand._",
                "",
                "## cash",
                "",
                "### `balance`",
                "",
                "```python",
                "balance()",
                "```",
                "",
                "Show the balance.\n\nIn dollars.",
                "",
                "_Read-only._",
                "",
                "### `pay`",
                "",
                "```python",
                "pay()",
                "```",
                "",
                "## pricing",
                "",
                "### `set_fee`",
                "",
                "```python",
                "set_fee(fee: float, note: str | None = None)",
                "```",
                "",
                "Set the fee.",
                "",
                "| argument | type | required | default | description |",
                "|---|---|---|---|---|",
                "| `fee` | `float` | yes |  | The fee \\| in dollars. |",
                "| `note` | `str \\| None` | no | `None` | Why. |",
            ]
        )
        + "\n"
    )
    assert local.markdown_docs().startswith("# Tool reference\n")


def test_membership_mutates_and_the_spec_list_answer_for_tools_only():
    assert "set_price" in reg and "nope" not in reg and 5 not in reg
    assert (reg.mutates("set_price"), reg.mutates("get_prices"), reg.mutates("nope"), reg.mutates(5)) == (
        True,
        False,
        False,
        False,
    )
    assert [s.name for s in reg.specs()] == ["set_price", "get_prices", "allocate", "explode"]
    with pytest.raises(KeyError) as missing:
        reg.spec("nope")
    assert missing.value.args == ("Unknown tool: nope (available: set_price, get_prices, allocate, explode)",)


def test_an_unknown_tool_in_an_empty_registry_says_none_are_available():
    assert ToolRegistry().call(Ctx(), "fly", {}).error == "Unknown tool: fly (available: none)"


def test_a_tool_whose_argument_types_cannot_be_resolved_is_registered_with_its_raw_annotations():
    class Local:  # local to this test: not in the tool module's globals, so get_type_hints fails
        pass

    local = ToolRegistry()

    @local.tool
    def keep(ctx: Ctx, count: int, thing: "Local | None" = None) -> None:
        """Keep."""

    assert [(p.name, p.annotation) for p in local.spec("keep").params] == [
        ("count", int),
        ("thing", "Local | None"),
    ]


def test_a_default_or_an_example_holding_a_title_key_is_kept_whole_in_the_schema():
    local = ToolRegistry()

    @local.tool
    def hire(
        ctx: Ctx,
        role: Annotated[dict[str, str], Field(examples=[{"title": "CFO"}])] = {"title": "CEO"},  # noqa: B006
        cap: Annotated[int, Field(le=1_000_000_000)] = 0,
        amount: Annotated[float, Field(le=1e9)] = 0.0,
    ) -> None:
        """Hire."""

    role = local.spec("hire").parameters["properties"]["role"]
    assert (role["default"], role["examples"]) == ({"title": "CEO"}, [{"title": "CFO"}])
    # an integer limit is written as the integer, a float one in the shortest form (:g)
    assert local.spec("hire").signature == (
        "hire(role: dict[str, str] = {'title': 'CEO'}, cap: int (<= 1000000000) = 0, amount: float (<= 1e+09) = 0.0)"
    )


class Pick(BaseModel):
    model_config = ConfigDict(extra="forbid")
    n: int

    @model_validator(mode="after")
    def _non_negative(self) -> "Pick":
        if self.n < 0:
            raise ValueError()  # a validator's error without words
        return self


def test_a_validator_error_without_words_gives_an_empty_reason_never_pydantics_prefix():
    local = ToolRegistry()

    @local.tool
    def pick(ctx: Ctx, choice: Pick) -> None:
        """Pick."""

    assert (
        local.call(Ctx(), "pick", {"choice": {"n": -1}}).error
        == "Invalid arguments for tool 'pick': argument 'choice': "
    )


def test_an_unknown_argument_shaped_like_a_type_tag_is_named_as_sent():
    assert reg.call(Ctx(), "get_prices", {"x[1]": 1}).error == (
        "Invalid arguments for tool 'get_prices': unknown argument 'x[1]' (allowed: none)"
    )


def test_a_partial_without_annotations_of_its_own_is_registered_with_the_types_of_the_function_it_wraps():
    def transfer(ctx: Ctx, to: str, cents: Annotated[int, Field(ge=1)], currency: str = "usd") -> dict:
        """Send money to an account.

        Args:
            to: The account.
        """
        return {"to": to, "cents": cents, "currency": currency}

    in_euros = functools.partial(transfer, currency="eur")
    assert not hasattr(in_euros, "__annotations__")  # the types are only the wrapped function's
    local = ToolRegistry()
    local.tool(in_euros, name="transfer_eur")
    # the bound keyword becomes the argument's default; the limit comes from the wrapped annotation
    assert local.spec("transfer_eur").signature == "transfer_eur(to: str, cents: int (>= 1), currency: str = 'eur')"
    sent = local.call(Ctx(), "transfer_eur", {"to": "bo", "cents": 250})
    assert sent.data == {"to": "bo", "cents": 250, "currency": "eur"}
    assert local.call(Ctx(), "transfer_eur", {"to": "bo", "cents": 0}).error == (
        "Invalid arguments for tool 'transfer_eur': argument 'cents': expected a value >= 1, got 0"
    )
    assert local.call(Ctx(), "transfer_eur", {"to": 7, "cents": 1}).error == (
        "Invalid arguments for tool 'transfer_eur': argument 'to': expected a string, got 7"
    )


def test_a_tool_registered_from_a_partial_is_described_by_the_wrapped_functions_docstring_unless_it_has_its_own():
    def transfer(ctx: Ctx, to: str, currency: str = "usd") -> None:
        """Send money to an account.

        Args:
            to: The account.
        """

    local = ToolRegistry()
    local.tool(functools.partial(transfer, currency="eur"), name="transfer_eur")
    # not functools.partial's own docstring ("partial(func, *args, **keywords) - new function ...")
    assert local.spec("transfer_eur").description == "Send money to an account."
    assert [(p.name, p.description) for p in local.spec("transfer_eur").params][0] == ("to", "The account.")
    in_pounds = functools.partial(transfer, currency="gbp")
    in_pounds.__doc__ = "Send pounds."
    local.tool(in_pounds, name="transfer_gbp")
    assert local.spec("transfer_gbp").description == "Send pounds."


def test_a_documented_argument_loses_only_the_stars_of_its_docstring_name_never_a_leading_letter():
    local = ToolRegistry()

    @local.tool
    def mix(ctx: Ctx, X_share: float, XL: int = 0) -> None:
        """Mix two products.

        Args:
            X_share: Share of product X, from 0 to 1.
            *XL: Extra-large units.
        """

    assert [(d.name, d.description) for d in local.spec("mix").params] == [
        ("X_share", "Share of product X, from 0 to 1."),
        ("XL", "Extra-large units."),  # "*XL" documents XL: the star goes, the X stays
    ]
    assert local.spec("mix").parameters["properties"]["X_share"]["description"] == "Share of product X, from 0 to 1."


@pytest.mark.parametrize("error", [ValueError, RuntimeError])
def test_a_call_never_raises_and_names_a_value_whose_repr_raises_by_its_type(error: type[Exception]) -> None:
    class Unprintable:  # what an in-process agent may pass: an object that cannot print itself
        def __repr__(self) -> str:
            raise error("cannot print")

    refused = reg.call(Ctx(), "set_price", {"tier": "basic", "price": Unprintable()})
    assert (refused.ok, refused.error) == (
        False,
        "Invalid arguments for tool 'set_price': argument 'price': expected a number, got <Unprintable> (Unprintable)",
    )
