"""Issue 14 items 8 and 9 without a server, through the real ``connect-plan`` entry point:
noise and wrong hints, table widths, JSON NaN, the public namespace, exit codes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pyarrow as pa
import pytest

import connect_plan
from connect_plan.output import format_table, json_rows
from tests.support.processes import connect_plan as cli
from tests.support.processes import no_traceback

SCHEMA = [{"name": "a", "type": "int"}]


def _plan(tmp_path: Path, steps: list[object], name: str = "p.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"input": {"schema": SCHEMA, "rows": [[5]]}, "plan": steps}))
    return str(path)


def test_the_op_list_is_printed_once(tmp_path: Path) -> None:
    out = cli("check", _plan(tmp_path, [{"op": "bogus"}, {"op": "order_by"}, {"op": "nope"}]))
    no_traceback(out)
    assert out.returncode == 2
    assert out.stderr.count("withColumnRenamed") == 1 and "invalid plan: 3 problems" in out.stderr
    assert "did you mean 'orderBy'?" in out.stderr and out.stderr.count("see the supported ops above") == 2


def test_percent_is_an_op_like_the_other_arithmetic(tmp_path: Path) -> None:
    steps = [{"op": "withColumn", "payload": {"name": "m", "expr": {"op": "%", "left": "a", "right": 3}}}]
    assert cli("check", _plan(tmp_path, steps)).returncode == 0
    steps = [{"op": "withColumn", "payload": {"name": "m", "expr": {"op": "upper", "left": "a", "right": 3}}}]
    out = cli("check", _plan(tmp_path, steps))
    assert out.returncode == 2 and '"upper" is a function: write {"fn": "upper", "args": [...]}' in out.stderr


def test_sail_hint_matches_the_readme() -> None:
    import importlib.util

    from connect_plan import sail

    if importlib.util.find_spec("pysail") is not None:
        pytest.skip("pysail is installed")
    with pytest.raises(connect_plan.LocalServerError) as info:
        sail.start()
    text = str(info.value)
    assert "connect-plan[sail]" not in text and "not on PyPI" in text and "pip install '.[sail]'" in text


def test_wide_characters_keep_the_borders_aligned() -> None:
    table = pa.table({"city": ["東京", "Paris", "😀x"], "n": [1, 22, 333]})
    lines = format_table(table).splitlines()
    from rich.cells import cell_len

    grid = lines[:-1]
    assert len({cell_len(line) for line in grid}) == 1, "\n".join(lines)
    assert "| 東京  | 1   |" in lines


def test_json_writes_nan_and_infinity_as_null() -> None:
    table = pa.table({"x": [math.nan, math.inf, 1.5, None]})
    assert [r["x"] for r in json_rows(table.to_batches())] == [None, None, 1.5, None]
    assert "NaN" in format_table(table) and "Infinity" in format_table(table)


def test_the_public_namespace_has_no_typing_helpers() -> None:
    names = dir(connect_plan)
    assert "Any" not in names and "TYPE_CHECKING" not in names and "annotations" not in names
    assert "execute_plan" in names and "PlanError" in names


def test_help_lists_every_exit_code() -> None:
    out = cli("--help")
    assert out.returncode == 0
    assert "130 interrupted" in out.stdout.replace("\n", " ")


ROOT = Path(__file__).resolve().parents[2]


def test_readme_and_docs_are_honest_and_self_contained() -> None:
    readme = (ROOT / "README.md").read_text()
    usage = (ROOT / "docs" / "usage.md").read_text()  # the command line in full (moved from the README)
    assert "130 interrupted" in readme.replace("\n", " ") and "130 interrupted" in usage.replace("\n", " ")
    assert "`--format parquet` needs `--output/-o PATH`" in usage
    walk = "tests/integration/test_new_user_walk.py"
    assert walk in (ROOT / "docs" / "testing.md").read_text() and (ROOT / walk).exists()
    for doc in ("docs/plan-format.md", "docs/functions.md", "README.md"):
        assert "PLAN_FORMAT" not in (ROOT / doc).read_text(), doc
    plan_format = (ROOT / "docs" / "plan-format.md").read_text()
    for anchor in ("## 11. Expressions", "## 12. Type strings", "## 13. Policies", "**File paths** are the server's"):
        assert anchor in plan_format


def test_an_unexpected_error_is_said_without_a_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from connect_plan import cli as cli_module

    def broken(*_: object) -> object:
        raise RuntimeError("something nobody expected")

    monkeypatch.setattr(cli_module.documents, "validated", broken)
    monkeypatch.delenv("CONNECT_PLAN_TRACEBACK", raising=False)
    assert cli_module.main(["check", _plan(tmp_path, [])]) == 4
    err = capsys.readouterr().err
    assert "internal error: RuntimeError: something nobody expected" in err and "Traceback" not in err
