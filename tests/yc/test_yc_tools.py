"""The command registry (paper Appendix A, Table 1): every command present with its flags, JSON answers,
bad calls answered with errors that name the argument and change nothing, and no hidden state in any
answer or error (docs/principles.md principles 1, 3, 8)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yc_helpers import adversary, inject, make_env, ok, scripted_year, set_rates, start

from bizbench.core.cmdline import parse_command
from bizbench.core.registry import ToolError
from bizbench.envs.yc.env import YcEnv
from bizbench.envs.yc.tools import registry

EXPECTED = {
    "company_status": [],
    "employee_list": [],
    "market_browse": ["domain", "reward_min_cents", "limit", "offset"],
    "task_list": ["status"],
    "task_inspect": ["task_id"],
    "client_list": [],
    "client_history": [],
    "finance_ledger": [],
    "task_accept": ["task_id"],
    "task_assign": ["task_id", "employees"],
    "task_dispatch": ["task_id"],
    "task_cancel": ["task_id", "reason"],
    "sim_resume": [],
    "scratchpad_read": [],
    "scratchpad_write": ["content"],
    "scratchpad_append": ["content"],
}
READ_ONLY = {"company_status", "employee_list", "market_browse", "task_list", "task_inspect", "client_list",
             "client_history", "finance_ledger", "scratchpad_read"}  # fmt: skip


def test_every_appendix_a_command_with_its_arguments() -> None:
    assert {s.name: [p.name for p in s.params] for s in registry.specs()} == EXPECTED
    assert {s.name for s in registry.specs() if not s.mutates} == READ_ONLY
    for spec in registry.specs():
        assert spec.description
        schema = spec.parameters
        assert schema["type"] == "object"
    assert "market_browse" in registry.markdown_docs()
    assert len(registry.openai_tools()) == len(EXPECTED)


@pytest.mark.parametrize(
    ("words", "name", "args"),
    [
        ("company status", "company_status", {}),
        ("market browse --domain training --reward-min-cents 500000 --limit 5 --offset 10", "market_browse",
         {"domain": "training", "reward_min_cents": 500000, "limit": 5, "offset": 10}),
        ("task list --status active", "task_list", {"status": "active"}),
        ("task assign --task-id Task-42 --employees Emp_1,Emp_4,Emp_7", "task_assign",
         {"task_id": "Task-42", "employees": ["Emp_1", "Emp_4", "Emp_7"]}),
        ("task cancel --task-id Task-42 --reason slow", "task_cancel", {"task_id": "Task-42", "reason": "slow"}),
        ("sim resume", "sim_resume", {}),
        ("scratchpad append --content hello", "scratchpad_append", {"content": "hello"}),
    ],
)  # fmt: skip
def test_cli_words_map_to_tools(words: str, name: str, args: dict[str, Any]) -> None:
    assert parse_command(registry.parameter_schemas(), words.split()) == (name, args)
    registry.validate(name, args)


def _world_with_everything() -> tuple[YcEnv, dict[str, str]]:
    """Accepted, active, succeeded and market tasks, a gated task and some ledger rows."""
    env = make_env(seed=11)
    w = env.world
    set_rates(w, "training", [5.0] * 8)
    ids = {
        "done": inject(w, work=45),
        "active": inject(w, work=5000),
        "accepted": inject(w, work=500),
        "market": inject(w, work=500),
        "gated": inject(w, work=500, required_prestige=4),
    }
    start(env, ids["done"], ["Emp_1"])
    while w.tasks[int(ids["done"].split("-")[1])].status != "succeeded":
        ok(env.call("sim_resume"))
    start(env, ids["active"], ["Emp_2", "Emp_3"])
    ok(env.call("task_accept", task_id=ids["accepted"]))
    ok(env.call("scratchpad_write", content="notes"))
    return env, ids


BAD_CALLS: list[tuple[str, dict[str, Any], str]] = [
    ("market_browse", {"domain": "marketing"}, "domain"),
    ("market_browse", {"limit": 0}, "limit"),
    ("market_browse", {"limit": 51}, "limit"),
    ("market_browse", {"limit": "5"}, "limit"),
    ("market_browse", {"offset": -1}, "offset"),
    ("market_browse", {"reward_min_cents": 1.5}, "reward_min_cents"),
    ("market_browse", {"reward_min_cents": float("nan")}, "reward_min_cents"),
    ("market_browse", {"page": 2}, "page"),
    ("task_list", {"status": "done"}, "status"),
    ("task_inspect", {}, "task_id"),
    ("task_inspect", {"task_id": "42"}, "task_id"),
    ("task_inspect", {"task_id": "Task-999999"}, "task_id"),
    ("task_inspect", {"task_id": ["Task-1"]}, "task_id"),
    ("task_accept", {"task_id": "Task-abc"}, "task_id"),
    ("task_accept", {"task_id": "@gated"}, "task_id"),
    ("task_accept", {"task_id": "@accepted"}, "task_id"),
    ("task_accept", {"task_id": "@done"}, "task_id"),
    ("task_assign", {"task_id": "@accepted", "employees": []}, "employees"),
    ("task_assign", {"task_id": "@accepted", "employees": ["Emp_99"]}, "employees"),
    ("task_assign", {"task_id": "@accepted", "employees": ["Emp_1", "Emp_1"]}, "employees"),
    ("task_assign", {"task_id": "@accepted", "employees": "Emp_1"}, "employees"),
    ("task_assign", {"task_id": "@market", "employees": ["Emp_1"]}, "task_id"),
    ("task_assign", {"task_id": "@done", "employees": ["Emp_1"]}, "task_id"),
    ("task_assign", {"task_id": "@accepted"}, "employees"),
    ("task_dispatch", {"task_id": "@accepted"}, "task_id"),  # no employees yet
    ("task_dispatch", {"task_id": "@active"}, "task_id"),
    ("task_dispatch", {"task_id": "@market"}, "task_id"),
    ("task_cancel", {"task_id": "@done", "reason": "x"}, "task_id"),
    ("task_cancel", {"task_id": "@market", "reason": "x"}, "task_id"),
    ("task_cancel", {"task_id": "@active"}, "reason"),
    ("scratchpad_write", {"content": "x" * 20_001}, "content"),
    ("scratchpad_append", {"content": "x" * 19_998}, "content"),
    ("scratchpad_write", {"content": 5}, "content"),
    ("sim_resume", {"days": 3}, "days"),
    ("company_status", {"verbose": True}, "verbose"),
]


@pytest.mark.parametrize(("name", "args", "names"), BAD_CALLS)
def test_bad_calls_name_the_argument_and_change_nothing(name: str, args: dict[str, Any], names: str) -> None:
    env, ids = _world_with_everything()
    args = {k: (ids[v[1:]] if isinstance(v, str) and v.startswith("@") else v) for k, v in args.items()}
    before = env.state_digest()
    r = env.call_tool(name, args)
    assert not r.ok
    assert names in r.error, r.error
    assert env.state_digest() == before
    json.dumps(r.to_dict())


EXACT_REFUSALS: list[tuple[str, dict[str, Any], str]] = [
    ("task_accept", {"task_id": "Task-abc"},
     "argument 'task_id': expected a task id of the form 'Task-<number>', got 'Task-abc'"),
    ("task_inspect", {"task_id": "Task-999999"},
     "argument 'task_id': no task 'Task-999999' in the market or among your tasks "
     "(see 'market browse' and 'task list')"),
    ("task_assign", {"task_id": "@market", "employees": ["Emp_1"]},
     "argument 'task_id': @market is not accepted yet; run 'task accept' first"),
    ("task_cancel", {"task_id": "@done", "reason": "x"},
     "argument 'task_id': @done is succeeded; only accepted or active tasks qualify"),
    ("task_assign", {"task_id": "@accepted", "employees": ["Emp_2", "Emp_99"]},
     "argument 'employees': unknown employee 'Emp_99' "
     "(allowed: Emp_1, Emp_2, Emp_3, Emp_4, Emp_5, Emp_6, Emp_7, Emp_8)"),
    ("task_assign", {"task_id": "@accepted", "employees": ["Emp_1", "Emp_3", "Emp_1"]},
     "argument 'employees': 'Emp_1' is listed twice"),
    ("task_dispatch", {"task_id": "@accepted"},
     "argument 'task_id': @accepted has no employees; run 'task assign' first"),
    ("task_dispatch", {"task_id": "@active"}, "argument 'task_id': @active is already active"),
    ("scratchpad_append", {"content": "x" * 19_998},
     "argument 'content': the scratchpad would hold 20,003 characters; the limit is 20,000 "
     "(write a shorter version instead of appending)"),  # "notes" (5) + 19,998
]  # fmt: skip


@pytest.mark.parametrize(("name", "args", "message"), EXACT_REFUSALS)
def test_each_kind_of_refused_action_gives_the_agent_its_exact_message(
    name: str, args: dict[str, Any], message: str
) -> None:
    env, ids = _world_with_everything()
    for key, tid in ids.items():
        message = message.replace(f"@{key}", tid)
    args = {k: (ids[v[1:]] if isinstance(v, str) and v.startswith("@") else v) for k, v in args.items()}
    refused = env.call_tool(name, args)
    assert not refused.ok and refused.error == message


def test_the_world_refuses_an_over_long_write_and_every_action_after_the_end_with_its_exact_message() -> None:
    """The world's own checks, behind the registry's: a plain write past the limit (no appending hint), an
    empty team and any action once the simulation is over (the env answers the same text before reaching
    the world)."""
    env = make_env(seed=2, scratchpad_max_chars=10)
    w = env.world
    with pytest.raises(ToolError) as refused:
        w.write_scratchpad("x" * 11)
    assert str(refused.value) == "argument 'content': the scratchpad would hold 11 characters; the limit is 10"
    assert w.write_scratchpad("y" * 10) == "y" * 10  # exactly at the limit is kept
    assert w.write_scratchpad("z") == "z" == w.scratchpad  # a write replaces the notes, it does not append
    tid = inject(w)
    w.accept(tid)
    with pytest.raises(ToolError) as refused:
        w.assign(tid, [])
    assert str(refused.value) == "argument 'employees': give at least one employee id (e.g. ['Emp_1', 'Emp_4'])"
    while not w.done:
        w.resume()
    for action in (lambda: w.accept(tid), lambda: w.assign(tid, ["Emp_1"]), lambda: w.dispatch(tid)):
        with pytest.raises(ToolError) as refused:
            action()
        assert str(refused.value) == "The simulation has ended; no further actions are accepted."


def test_errors_list_the_allowed_values() -> None:
    env, ids = _world_with_everything()
    assert "training" in env.call("market_browse", domain="marketing").error
    assert "Emp_8" in env.call("task_assign", task_id=ids["accepted"], employees=["Emp_99"]).error
    assert "succeeded" in env.call("task_list", status="done").error
    assert "Task-<number>" in env.call("task_accept", task_id="42").error
    assert "prestige 4" in env.call("task_accept", task_id=ids["gated"]).error
    unknown = env.call_tool("hire_employee", {})
    assert not unknown.ok and "company_status" in unknown.error and unknown.tamper == "unknown_tool"
    assert not env.call_tool("company_status", [1, 2]).ok


def test_answers_are_json_and_tasks_carry_ids_and_clients() -> None:
    env, ids = _world_with_everything()
    for name in READ_ONLY:
        args = {"task_id": ids["active"]} if name == "task_inspect" else {}
        data = ok(env.call(name, **args))
        assert json.loads(json.dumps(data)) == data
    browse = ok(env.call("market_browse"))
    assert browse["tasks"] and all("task_id" in t and "client_name" in t for t in browse["tasks"])
    listed = {t["task_id"]: t for t in ok(env.call("task_list"))["tasks"]}
    assert {ids["done"], ids["active"], ids["accepted"]} <= set(listed)
    assert listed[ids["done"]]["status"] == "succeeded"
    assert ok(env.call("scratchpad_read")) == {"content": "notes", "chars": 5}
    ok(env.call("scratchpad_append", content="\nmore"))
    assert ok(env.call("scratchpad_read"))["content"] == "notes\nmore"
    ledger = ok(env.call("finance_ledger"))
    assert ledger["transactions"][-1]["balance_cents"] == ledger["funds_cents"]


# ------------------------------------------------------------------------------------ hidden state
FORBIDDEN_KEYS = ("adversar", "creep", "true_work", "multiplier", "inflat", "hidden", "seed", "scope")


def _keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return {str(k) for k in obj} | {k for v in obj.values() for k in _keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in _keys(v)}
    return set()


def test_no_hidden_state_in_any_answer_or_error() -> None:
    env = make_env(seed=21)
    w = env.world
    texts: list[str] = []
    seen_tools: set[str] = set()
    call_tool = env.call_tool

    def recording(name: str, args: Any) -> Any:  # every answer of every call below is checked
        r = call_tool(name, args)
        seen_tools.add(name)
        texts.append(json.dumps(r.to_dict()))
        return r

    env.call_tool = recording  # type: ignore[method-assign]

    def observe() -> None:
        ids = [t["task_id"] for t in ok(env.call("task_list"))["tasks"]][-4:]
        ids += [t["task_id"] for t in ok(env.call("market_browse", limit=3))["tasks"]]
        for name in sorted(READ_ONLY - {"task_inspect"}):
            texts.append(json.dumps(env.call(name).to_dict()))
        for tid in ids:
            texts.append(json.dumps(env.call("task_inspect", task_id=tid).to_dict()))
        texts.append(json.dumps(env.status_summary()))
        # errors too: gated and unknown tasks, a bad accept of a live task
        for args in ({"task_id": "Task-1"}, {"task_id": "Task-0"}, {"task_id": ids[0] if ids else "Task-1"}):
            texts.append(json.dumps(env.call("task_accept", **args).to_dict()))

    # make sure adversarial tasks are accepted, dispatched, inflated, failed and cancelled along the way
    adv = [inject(w, work=300, client=adversary(w), creep=3.1737) for _ in range(3)]
    start(env, adv[0], ["Emp_1", "Emp_2"])
    start(env, adv[1], ["Emp_3"])
    ok(env.call("task_accept", task_id=adv[2]))
    for _ in range(6):
        observe()
        texts.append(json.dumps(env.call("sim_resume").to_dict()))
    texts.append(json.dumps(env.call("task_cancel", task_id=adv[1], reason="slow").to_dict()))
    scripted_year(env)
    observe()
    env.call("scratchpad_write", content="x")  # refused after the end; written during the year
    assert seen_tools == set(EXPECTED)
    blob = "\n".join(texts)
    keys = set().union(*(_keys(json.loads(t)) for t in texts))
    assert not [k for k in keys if any(f in k.lower() for f in FORBIDDEN_KEYS)]
    assert not any(f in blob.lower() for f in ("adversar", "creep", "inflat"))
    secrets = [repr(c.multiplier) for c in w.clients]
    secrets += [repr(t.creep) for t in w.tasks.values() if w.clients[t.client].adversarial]
    secrets += [repr(t.true_work) for t in w.tasks.values() if t.true_work != t.required]
    secrets = [s for s in secrets if len(s) >= 5]  # distinctive values only (3.0 is also a rate)
    assert len(secrets) > 10
    assert not [s for s in secrets if f" {s}," in blob or f" {s}}}" in blob or f" {s}]" in blob]
    assert any(w.clients[t.client].adversarial and t.status == "failed" for t in w.tasks.values())


# ------------------------------------------------------------------------------------ fuzz
_ids = st.one_of(
    st.sampled_from(["Task-1", "Task-2", "Task-150", "Task-201", "Task-0", "task-1", "", "Task-", "Task--1"]),
    st.integers(1, 260).map(lambda n: f"Task-{n}"),
    st.text(max_size=12),
)
_emps = st.lists(st.sampled_from([f"Emp_{i}" for i in range(0, 10)] + ["", "emp_1"]), max_size=10)
_calls = st.one_of(
    st.tuples(st.just("task_accept"), st.fixed_dictionaries({"task_id": _ids})),
    st.tuples(st.just("task_assign"), st.fixed_dictionaries({"task_id": _ids, "employees": _emps})),
    st.tuples(st.just("task_dispatch"), st.fixed_dictionaries({"task_id": _ids})),
    st.tuples(st.just("task_cancel"), st.fixed_dictionaries({"task_id": _ids, "reason": st.text(max_size=5)})),
    st.tuples(st.just("task_inspect"), st.fixed_dictionaries({"task_id": _ids})),
    st.tuples(st.just("sim_resume"), st.just({})),
    st.tuples(
        st.just("market_browse"),
        st.fixed_dictionaries(
            {},
            optional={
                "domain": st.sampled_from(["training", "research", "x"]),
                "limit": st.integers(-2, 60),
                "offset": st.integers(-2, 300),
                "reward_min_cents": st.one_of(st.integers(-5, 3_000_000), st.floats(allow_nan=True)),
            },
        ),
    ),
    st.tuples(st.sampled_from(sorted(EXPECTED)), st.dictionaries(st.text(max_size=8), st.integers(), max_size=2)),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_calls, min_size=1, max_size=40))
def test_no_command_sequence_crashes_or_breaks_the_books(calls: list[tuple[str, dict[str, Any]]]) -> None:
    env = make_env(seed=5)
    w = env.world
    for name, args in calls:
        before = w.now
        r = env.call_tool(name, args)
        assert r.ok or (r.error and not r.error.startswith("internal_error")), r.error
        json.dumps(r.to_dict())
        assert w.now >= before
        if name == "sim_resume" and r.ok:
            assert w.now > before
    assert w.funds_cents == 20_000_000 + sum(row.cents for row in w.ledger.rows)
    assert len(w.market.tasks) == 200
    assert all(t.status in ("accepted", "active") for t in w.open.values())


@pytest.mark.parametrize("limit", [20_000, 500])
def test_the_scratchpad_limit_the_tools_describe_is_the_one_they_enforce(limit: int) -> None:
    env = make_env(scratchpad_max_chars=limit)
    for name in ("scratchpad_write", "scratchpad_append", "scratchpad_read"):
        assert f"{limit:,} characters" in env.registry.spec(name).description
    for name in ("scratchpad_write", "scratchpad_append"):
        assert env.registry.spec(name).parameters["properties"]["content"]["maxLength"] == limit
    assert ok(env.call("scratchpad_write", content="x" * limit))["limit"] == limit
    refused = env.call("scratchpad_write", content="y" * (limit + 1))
    assert not refused.ok and f"a text of at most {limit} characters" in refused.error and "'content'" in refused.error
    refused = env.call("scratchpad_append", content="y")
    assert not refused.ok and f"the limit is {limit:,}" in refused.error
    assert env.world.scratchpad == "x" * limit


@pytest.mark.parametrize("share", [0.35, 0.5, 0.0])
def test_task_cancel_describes_the_fee_it_charges(share: float) -> None:
    env = make_env(deadlines__cancel_fee_share=share)
    description = env.registry.spec("task_cancel").description
    assert (f"{share * 100:g} % of its advertised reward is charged" in description) == (share > 0)
    assert ("no fee" in description) == (share == 0)
    tid = inject(env.world, reward_cents=1_000_000)
    ok(env.call("task_accept", task_id=tid))
    before = env.world.funds_cents
    ok(env.call("task_cancel", task_id=tid, reason="test"))
    assert before - env.world.funds_cents == round(1_000_000 * share)


def test_the_default_tool_docs_state_the_default_presets_figures() -> None:
    assert "Only the 4 largest such contributions" in registry.spec("employee_list").doc
    assert "35 %" in registry.spec("task_accept").doc and "35 %" in registry.spec("task_cancel").description
    assert "20,000 characters" in registry.spec("scratchpad_write").description
    assert "{" not in registry.markdown_docs()  # every figure filled in


def test_an_over_long_task_id_or_a_64_bit_overflow_is_an_error_naming_the_argument() -> None:
    env = make_env()
    before = env.state_digest()
    for name in ("task_inspect", "task_accept", "task_dispatch"):
        refused = env.call(name, task_id="Task-" + "9" * 5_000)
        assert (
            not refused.ok
            and "argument 'task_id': expected a text of at most 64 characters, got 5,005 characters"
            in (refused.error or "")
        )
        assert len(refused.error or "") < 300  # the id is previewed, not echoed
    for args in ({"limit": 2**63}, {"offset": -(2**70)}, {"reward_min_cents": 10**30}):
        refused = env.call("market_browse", **args)
        (arg,) = args
        assert not refused.ok and f"argument '{arg}': integers must lie within" in (refused.error or ""), refused.error
    name, args = parse_command(registry.parameter_schemas(), ["market", "browse", "--offset", "9" * 30])
    refused = env.call_tool(name, args)
    assert not refused.ok and "argument 'offset': integers must lie within" in (refused.error or "")
    assert env.state_digest() == before


def test_bizbench_tools_and_the_seat_describe_the_preset_asked_for(tmp_path: Any) -> None:
    """docs/yc.md: descriptions come from the preset served; all-contribute counts every contribution."""
    from typer.testing import CliRunner

    from bizbench.cli import app
    from bizbench.envs.yc.config import load_config
    from bizbench.envs.yc.sdk import SEAT

    rule = "largest such contributions"
    default = CliRunner().invoke(app, ["tools", "yc"])
    every = CliRunner().invoke(app, ["tools", "yc", "--preset", "all-contribute", "--format", "json"])
    assert default.exit_code == every.exit_code == 0
    assert rule in default.stdout and rule not in every.stdout and json.loads(every.stdout)
    bad = CliRunner().invoke(app, ["tools", "yc", "--preset", "no-such-preset"])
    assert bad.exit_code == 2 and "no-such-preset" in bad.output
    config = load_config("all-contribute")[0]
    SEAT.write_workspace(tmp_path, config)  # no registry given: the one of this config, never the default's
    assert rule not in (tmp_path / "docs" / "tools.md").read_text()
    assert rule not in (tmp_path / "docs" / "tools" / "employee_list.json").read_text()
    assert YcEnv.registry_for(config).spec("employee_list").doc == (
        make_env(preset="all-contribute").registry.spec("employee_list").doc
    )


def test_the_registry_is_built_once_per_config_and_bounds_only_the_declared_parameters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bizbench.envs.yc import tools
    from bizbench.envs.yc.config import load_config

    env = make_env(preset="all-contribute")
    assert env.registry is tools.registry_for(load_config("all-contribute")[0])
    built: list[Any] = []
    monkeypatch.setattr(tools, "figures", lambda config: built.append(config) or {})
    for _ in range(3):  # every tool call reads env.registry: nothing is derived again
        assert env.call("company_status").ok
    assert built == []
    limit = env.config.scratchpad_max_chars
    for name in ("scratchpad_write", "scratchpad_append"):
        schema = env.registry.spec(name).parameters["properties"]["content"]
        assert schema["maxLength"] == limit, schema
    reason = env.registry.spec("task_cancel").parameters["properties"]["reason"]
    assert f'"maxLength": {limit}' not in json.dumps(reason)  # only the declared parameters take the pad's bound
