"""What a published benchmark report says about the code it measured (benchmarks/run.py)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from benchmarks.run import _code_changes, code_version


def test_a_report_names_the_code_changes_it_measured_and_not_the_reports(tmp_path: Path) -> None:
    """``--publish`` records the commit and whether the work tree had changes: a report of one
    engine written (not yet committed) before the other engine's run is not a change to the
    code measured; a changed source file is, and the summary names it."""

    def git(*args: str) -> None:
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=tmp_path, check=True)

    (tmp_path / "docs" / "benchmarks" / "spark").mkdir(parents=True)
    (tmp_path / "connect_plan").mkdir()
    report, source = tmp_path / "docs" / "benchmarks" / "spark" / "summary.md", tmp_path / "connect_plan" / "x.py"
    report.write_text("old\n")
    source.write_text("a = 1\n")
    git("init", "-q")
    git("add", ".")
    git("commit", "-qm", "start")
    clean = code_version(tmp_path)
    assert (clean["dirty"], clean["changed"]) == (False, [])
    assert len(clean["commit"]) == 40
    report.write_text("new\n")
    only_report = code_version(tmp_path)
    assert (only_report["dirty"], only_report["changed"]) == (False, ["docs/benchmarks/spark/summary.md"])
    source.write_text("a = 2\n")
    both = code_version(tmp_path)
    assert both["dirty"] is True
    assert both["changed"] == ["connect_plan/x.py", "docs/benchmarks/spark/summary.md"]
    assert _code_changes(both) == ["connect_plan/x.py"]
    assert code_version(tmp_path / "not-a-repo")["dirty"] is None
