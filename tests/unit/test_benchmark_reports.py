"""What a published benchmark report says about the code it measured (benchmarks/run.py)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

from benchmarks.run import _code_changes, code_version, summary_markdown


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


PUBLISHED = Path(__file__).resolve().parents[2] / "docs" / "benchmarks"


def test_each_published_summary_is_its_report_rendered_with_date_and_command() -> None:
    """Every figure of a published summary.md comes from its report.json, rendered by
    ``summary_markdown``, and the summary names when the run started and the command that made
    it (issue 35: each figure dated, with its command)."""
    reports = sorted(p for p in PUBLISHED.rglob("report.json") if (p.parent / "summary.md").exists())
    reports = [p for p in reports if "plan-quality" not in p.parts]  # benchmarks/plan_quality.py renders that one
    assert {p.parent.relative_to(PUBLISHED).as_posix() for p in reports} >= {"spark", "sail", "spark/peers"}
    for path in reports:
        report = json.loads(path.read_text())
        summary = (path.parent / "summary.md").read_text()
        assert summary == summary_markdown(report) + "\n", f"{path.parent}: regenerate summary.md from report.json"
        assert report["started"][:10] in summary.splitlines()[2], path
        assert f"Measured with `{shlex.join(report['command'])}`." in summary, path


#: tables of docs/performance.md that hold no figure of a run: what each scenario times, and the
#: round trips of a query, which tests/integration/test_round_trips.py counts in every suite run
UNDATED_TABLES = ("| scenario | what is timed |", "| path | round trips (RPCs) |")
#: how far above a table its date may be: the paragraph that introduces it
DATE_WITHIN = 12


def test_every_table_of_measurements_in_performance_md_is_dated() -> None:
    """Each table of docs/performance.md has a YYYY-MM-DD date in the lines just above it (issue
    35: every figure dated), so a table of a new run cannot land without saying when it ran.
    The command is in the same paragraph by convention; this checks the date only."""
    lines = (PUBLISHED.parent / "performance.md").read_text().splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("|") and not lines[i - 1].startswith("|")]
    assert len(starts) >= 10
    undated = [
        lines[i]
        for i in starts
        if not lines[i].startswith(UNDATED_TABLES)
        and not any(re.search(r"\b20\d\d-\d\d-\d\d\b", line) for line in lines[max(0, i - DATE_WITHIN) : i])
    ]
    assert undated == [], f"tables with no date in the {DATE_WITHIN} lines above them: {undated}"


def test_a_plan_quality_merge_replaces_a_few_results_or_a_suite_run_at_another_scale() -> None:
    """``--merge`` of a re-run of a few pairs replaces those pairs only; a suite run again at
    another scale factor replaces that suite's results and scale wholesale, so a report never
    mixes two scales' ratios of one suite."""
    from benchmarks.plan_quality import merge

    def result(suite: str, query: str, producer: str, ratio: float) -> dict[str, object]:
        return {"suite": suite, "query": query, "producer": producer, "ratio": ratio}

    def report(scales: dict[str, float], results: list[dict[str, object]], code: str) -> dict[str, object]:
        return {
            "scales": scales,
            "suite_seconds": {s: 60.0 for s in scales},
            "results": results,
            "started": "t",
            "seconds": 1.0,
            "code": code,
        }

    old = report(
        {"tpch": 1.0, "tpcds": 0.2},
        [
            result("tpch", "q01", "duckdb", 1.0),
            result("tpcds", "q01", "duckdb", 1.5),
            result("tpcds", "q02", "duckdb", 2),
        ],
        "a",
    )
    rerun = merge(old, report({"tpcds": 0.2}, [result("tpcds", "q02", "duckdb", 1.1)], "b"))
    assert [(r["suite"], r["query"], r["ratio"]) for r in rerun["results"]] == [
        ("tpch", "q01", 1.0),
        ("tpcds", "q01", 1.5),
        ("tpcds", "q02", 1.1),
    ]
    assert rerun["scales"] == {"tpch": 1.0, "tpcds": 0.2}
    assert rerun["reruns"] == [{"started": "t", "seconds": 1.0, "code": "b", "scales": {"tpcds": 0.2}, "cases": 1}]
    larger = report({"tpcds": 1.0}, [result("tpcds", "q01", "duckdb", 0.9)], "c")
    larger["suite_seconds"] = {"tpcds": 2400.0}
    rescaled = merge(old, larger)
    assert [(r["suite"], r["query"], r["ratio"]) for r in rescaled["results"]] == [
        ("tpch", "q01", 1.0),
        ("tpcds", "q01", 0.9),
    ]
    assert rescaled["scales"] == {"tpch": 1.0, "tpcds": 1.0}
    assert rescaled["suite_seconds"] == {"tpch": 60.0, "tpcds": 2400.0}


def test_each_published_plan_quality_summary_is_its_report_rendered() -> None:
    """The plan-quality reports (the one of record, the run with statistics, and the TPC-DS run
    after the conjunct order kept apart from the record: tail.md) are rendered by
    benchmarks/plan_quality.py, merged-in runs included: a summary edited by hand, or a report
    changed without its summary, fails here."""
    from benchmarks.plan_quality import PUBLISHED
    from benchmarks.plan_quality import summary_markdown as plan_quality_summary

    reports = sorted(PUBLISHED.rglob("report.json"))
    assert {p.parent.relative_to(PUBLISHED).as_posix() for p in reports} == {".", "analyzed", "conjuncts-tpcds"}
    for path in reports:
        report = json.loads(path.read_text())
        assert (path.parent / "summary.md").read_text() == plan_quality_summary(report), path.parent
