"""The command line without a server: check, explain, ops, readable errors, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from connect_plan.cli import format_table, main

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "fixtures" / "plans" / "join_inner_name_collision.json"
INVALID = ROOT / "fixtures" / "invalid" / "many_problems_at_once.json"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "PYTHONPATH": str(ROOT.parent),
        "CONNECT_PLAN_STATE_DIR": "/nonexistent/connect-plan-test",
    }
    return subprocess.run(
        [sys.executable, "-m", "connect_plan", *args], capture_output=True, text=True, input=stdin, env=env, timeout=120
    )


def test_check_ok(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(FIXTURE)]) == 0
    assert capsys.readouterr().out.strip() == "ok"


@pytest.mark.parametrize("example", sorted((ROOT.parent / "examples").glob("*.json")), ids=lambda p: p.name)
def test_check_accepts_every_example(example: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # orders_pipeline joins a parquet input and a table: their columns are the server's to
    # tell, which must not make an offline check fail
    assert main(["check", str(example)]) == 0, capsys.readouterr().err
    assert capsys.readouterr().out.strip() == "ok"


def test_check_invalid_prints_every_problem_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(INVALID)]) == 2
    err = capsys.readouterr().err
    assert "3 problems" in err and "/plan/0/op" in err and "/plan/2/payload/fn" in err
    assert "Traceback" not in err


def test_explain_without_server_prints_proto_text(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPARK_REMOTE", raising=False)
    assert main(["explain", str(FIXTURE)]) == 0
    out = capsys.readouterr().out
    assert 'using_columns: "dept"' in out and "<Arrow IPC: 5 rows;" in out and 'new_col_name: "name_right"' in out


def test_ops(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ops"]) == 0
    assert "unionByName" in capsys.readouterr().out.split()


def test_unreadable_file_and_bad_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(tmp_path / "missing.json")]) == 4
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    assert main(["check", str(bad)]) == 2
    assert "invalid JSON at line 1" in capsys.readouterr().err


@pytest.mark.parametrize("type_", ["map", "array<map>", "struct<a:map>"])
def test_check_reports_types_without_a_spark_type_readably(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], type_: str
) -> None:
    doc = tmp_path / "bare.json"
    doc.write_text(json.dumps({"input": {"schema": [{"name": "v", "type": type_}], "rows": [[None]]}, "plan": []}))
    assert main(["check", str(doc)]) == 2
    err = capsys.readouterr().err
    assert "/input/schema/0/type" in err and "incomplete_type" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "argv",
    [["bogus"], ["run"], ["run", "--format", "xml", "x.json"], ["run", "--max-rows", "-1", "x.json"], ["fixtures"]],
    ids=["unknown command", "missing file", "bad choice", "bad count", "missing directory"],
)
def test_usage_errors_exit_4_not_the_invalid_plan_code(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's own code for a usage error is 2, which here means 'invalid plan'."""
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 4
    err = capsys.readouterr().err
    assert "usage: connect-plan" in err and "error:" in err


def test_stdin_and_module_entry_point() -> None:
    doc = json.loads(FIXTURE.read_text())
    out = run("check", "-", stdin=json.dumps(doc))
    assert out.returncode == 0 and out.stdout.strip() == "ok"


def test_run_without_any_server_fails_readably() -> None:
    out = run("run", str(FIXTURE), "--remote", "sc://127.0.0.1:9")
    assert out.returncode == 3, out.stderr
    assert "Traceback" not in out.stderr and "127.0.0.1:9" in out.stderr


def test_format_table() -> None:
    table = pa.table(
        {"a": [1, None], "b": ["x", "yy"], "m": pa.array([[("k", 1)], None], pa.map_(pa.string(), pa.int64()))}
    )
    text = format_table(table)
    assert text.splitlines()[1] == "| a    | b  | m        |"
    assert "| null | yy | null     |" in text and '{"k": 1}' in text and text.endswith("(2 rows)")


def test_unfilled_placeholders_are_located_plan_errors(tmp_path: Path) -> None:
    from tests.support.processes import connect_plan, no_traceback

    doc = {
        "input": {"files": "${data}/x.parquet", "format": "parquet"},
        "plan": [{"op": "filter", "payload": {"op": "gt", "left": "a", "right": "${limit}"}}],
    }
    (tmp_path / "p.json").write_text(json.dumps(doc))
    for command in ("check", "run", "explain"):
        out = connect_plan(command, str(tmp_path / "p.json"))
        no_traceback(out)
        assert out.returncode == 2, out.stderr
        assert "/input/files: unfilled placeholder ${data}" in out.stderr and "[placeholder]" in out.stderr
        assert "/plan/0/payload/right: unfilled placeholder ${limit}" in out.stderr
    # ${tmp} and ${run} are filled; a placeholder in row data is data
    ok = {"input": {"schema": [{"name": "a", "type": "string"}], "rows": [["${x}"]]}, "plan": []}
    (tmp_path / "ok.json").write_text(json.dumps(ok))
    assert connect_plan("check", str(tmp_path / "ok.json")).returncode == 0
