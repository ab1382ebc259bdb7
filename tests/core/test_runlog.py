"""The run log's writer and reader (bizbench/core/runlog.py, docs/run-format.md): config.json,
the appended logs, ledger.csv, result.json, and the rule that a run writes into a new directory."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bizbench.core.ledger import LedgerRow
from bizbench.core.runlog import RunDir, log_lines, read_result, require_new, write_result

CONFIG: dict[str, Any] = {"env": "cfo", "preset": "default", "seed": 3, "agent": "me", "config": {"k": 1}}


def test_a_run_directory_is_made_with_its_parents_and_starts_with_config_json_and_an_empty_tamper_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BIZBENCH_SEED_SECRET", raising=False)
    run = RunDir(tmp_path / "runs" / "a" / "b", CONFIG)  # two folders that do not exist yet
    assert sorted(p.name for p in run.path.iterdir()) == ["config.json", "tamper.jsonl"]
    assert json.loads((run.path / "config.json").read_text()) == {
        "run_format": 2,
        "seed_secret_id": None,  # a public world
        **CONFIG,
    }
    assert (run.path / "tamper.jsonl").read_text() == ""  # an explicit "no attempts"


def test_a_run_directory_may_already_exist_empty(tmp_path: Path) -> None:
    (tmp_path / "run").mkdir()
    assert RunDir(tmp_path / "run", CONFIG).path == tmp_path / "run"


def test_config_json_names_the_held_out_secret_by_its_fingerprint_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BIZBENCH_SEED_SECRET", "hush")
    RunDir(tmp_path / "run", CONFIG)
    text = (tmp_path / "run" / "config.json").read_text()
    # the first 12 hex digits of sha256("bizbench-secret:hush") (core/rng.py)
    assert json.loads(text)["seed_secret_id"] == hashlib.sha256(b"bizbench-secret:hush").hexdigest()[:12]
    assert "hush" not in text


def test_a_config_without_what_every_run_names_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="seed"):
        RunDir(tmp_path / "run", {k: v for k, v in CONFIG.items() if k != "seed"})


def test_appended_lines_go_to_their_own_log_in_order_and_survive_a_close(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run", CONFIG)
    run.append_lines("metrics", ['{"n": 1}\n'])
    run.append_lines("actions", ['{"a": 1}\n'])
    run.append_lines("metrics", ['{"n": 2}\n', '{"n": 3}\n'])
    run.close()
    run.append_lines("metrics", ['{"n": 4}\n'])  # opened again: appended, not overwritten
    run.close()
    assert (run.path / "metrics.jsonl").read_text() == '{"n": 1}\n{"n": 2}\n{"n": 3}\n{"n": 4}\n'
    assert (run.path / "actions.jsonl").read_text() == '{"a": 1}\n'


def test_no_lines_make_no_log_file(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run", CONFIG)
    run.append_lines("metrics", [])
    run.append("statements", [])
    assert not (run.path / "metrics.jsonl").exists() and not (run.path / "statements.jsonl").exists()


def test_appended_rows_are_written_as_json_lines(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run", CONFIG)
    run.append("statements", [{"month": 1, "cash": 2.5}, {"month": 2, "cash": -1}])
    assert (run.path / "statements.jsonl").read_text() == '{"month": 1, "cash": 2.5}\n{"month": 2, "cash": -1}\n'


def test_log_lines_print_numpy_values_as_plain_numbers_and_anything_else_as_its_string() -> None:
    rows = [{"n": np.int64(3), "x": np.float64(0.5), "t": (1, 2)}, {"p": Path("a/b"), 4: None}]
    assert log_lines(rows) == ['{"n": 3, "x": 0.5, "t": [1, 2]}\n', '{"p": "a/b", "4": null}\n']


def test_the_ledger_has_the_default_header_and_amounts_in_dollars_to_the_cent(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run", CONFIG)
    rows = [LedgerRow(1, "revenue", 12_345, "sale, one", "sales"), LedgerRow(2, "cost", -5, "fee", "ops")]
    run.write_ledger(rows)
    # 12,345 cents = 123.45 dollars; -5 cents = -0.05; columns day, category, amount, group, note
    assert (run.path / "ledger.csv").read_bytes() == (
        b'day,category,amount,group,note\r\n1,revenue,123.45,sales,"sale, one"\r\n2,cost,-0.05,ops,fee\r\n'
    )


def test_an_env_names_its_own_ledger_columns_and_a_second_ledger_replaces_the_first(tmp_path: Path) -> None:
    run = RunDir(tmp_path / "run", CONFIG)
    run.write_ledger([LedgerRow(1, "a", 100, "n", "g")])
    run.write_ledger([LedgerRow(3, "b", 1, "m", "h")], ("month", "account", "usd", "flow", "memo"))
    assert (run.path / "ledger.csv").read_text().splitlines() == ["month,account,usd,flow,memo", "3,b,0.01,h,m"]


def test_result_json_is_written_where_it_is_read_back(tmp_path: Path) -> None:
    assert read_result(tmp_path) is None  # a run not finished
    write_result(tmp_path, {"score": 1.5, "ended_by": "completed"})
    assert json.loads((tmp_path / "result.json").read_text()) == {"score": 1.5, "ended_by": "completed"}
    assert read_result(tmp_path) == {"score": 1.5, "ended_by": "completed"}
    assert read_result(str(tmp_path)) == {"score": 1.5, "ended_by": "completed"}  # a path given as text


def test_a_new_missing_or_empty_directory_may_take_a_run(tmp_path: Path) -> None:
    require_new(None)  # no run directory: nothing is written
    require_new(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    require_new(tmp_path / "empty")
    (tmp_path / "file").write_text("x")  # not a directory: writing the run there fails on its own
    require_new(tmp_path / "file")


def test_a_directory_that_holds_a_run_is_refused_with_the_way_out(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")  # a run killed before bizbench resume moved it
    with pytest.raises(ValueError) as refused:
        require_new(tmp_path)
    assert str(refused.value) == (
        f"the run directory {tmp_path} already holds a run; choose another --out or remove it "
        "(`bizbench resume` finishes a killed run)"
    )


@pytest.mark.parametrize(
    ("names", "takes"),
    [
        (["attempts"], True),
        (["attempts", "config.json"], True),
        (["attempts", "config.json", "resume.jsonl"], True),  # all that a resumed directory holds
        (["attempts", "config.json", "resume.jsonl", "result.json"], False),  # one file more
        (["config.json", "resume.jsonl"], False),  # no attempts: not being resumed
        (["resume.jsonl"], False),
    ],
)
def test_only_a_run_being_resumed_may_be_written_into_again(tmp_path: Path, names: list[str], takes: bool) -> None:
    for name in names:
        (tmp_path / name).mkdir() if name == "attempts" else (tmp_path / name).write_text("{}")
    if takes:
        require_new(tmp_path)
    else:
        with pytest.raises(ValueError, match="already holds a run"):
            require_new(tmp_path)
