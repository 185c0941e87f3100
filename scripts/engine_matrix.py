#!/usr/bin/env python
"""Generate docs/engines.md, the engine compatibility matrix, from actual test runs.

    SPARK_REMOTE=sc://127.0.0.1:15002 python -m pytest tests --junitxml=/tmp/matrix/spark.xml
    SPARK_REMOTE=sail python -m pytest tests --junitxml=/tmp/matrix/sail.xml   # thin venv
    python scripts/engine_matrix.py --spark /tmp/matrix/spark.xml --sail /tmp/matrix/sail.xml \\
        --spark-version "Apache Spark 4.3.0 (PySpark 4.3.0)" --sail-version "Sail 0.7.2 (pyspark-client 4.2.0)" \\
        --commit "$(git rev-parse --short HEAD)"

``--spark``/``--sail`` take JUnit XML files or directories of them (one file per test file
is fine: the runs may be split). The differences listed are tests/engines.py's, with the
outcome each had in the Sail run. The page says when the runs started (the JUnit XML's
``timestamp``), the commit measured (``--commit``) and these commands.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DOC = ROOT / "docs" / "engines.md"
#: the skip reason conftest gives ``spark_only`` tests on Sail
SPARK_ONLY_REASON = "needs Apache Spark"


@dataclass(frozen=True)
class Outcome:
    file: str  # tests/integration/test_client.py
    test: str  # test_x[param], the key tests/engines.py uses
    status: str  # passed | failed | xfailed | skipped
    message: str = ""


def _file_of(classname: str) -> str:
    """``tests.integration.test_client`` (or ``...test_client.TestClass``) → the path."""
    parts = classname.split(".")
    while parts and not parts[-1].startswith("test_"):
        parts.pop()  # a test class
    return "/".join(parts) + ".py" if parts else classname


def _xml_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        files.extend(sorted(p.glob("*.xml")) if p.is_dir() else [p])
    return files


def read_junit(paths: list[Path]) -> list[Outcome]:
    out: list[Outcome] = []
    for f in _xml_files(paths):
        for case in ET.parse(f).getroot().iter("testcase"):
            file, name = _file_of(case.get("classname", "")), case.get("name", "")
            if not file:  # a module skipped whole at collection: pytest names it in ``name``
                file = _file_of(name)
            status, message = "passed", ""
            for child in case:
                if child.tag in ("failure", "error"):
                    status, message = "failed", child.get("message", "")
                    break
                if child.tag == "skipped":
                    xfail = child.get("type") == "pytest.xfail"
                    status, message = ("xfailed" if xfail else "skipped"), child.get("message", "")
            out.append(Outcome(file, name, status, message))
    return out


def run_dates(paths: list[Path]) -> list[str]:
    """The days (YYYY-MM-DD) the JUnit XML's test suites started, as pytest stamps them."""
    days = {
        stamp[:10]
        for f in _xml_files(paths)
        for suite in ET.parse(f).getroot().iter("testsuite")
        if (stamp := suite.get("timestamp"))
    }
    return sorted(days)


def measured_line(spark_days: list[str], sail_days: list[str], commit: str = "") -> str:
    """When and how the counts below were measured (issue 35: every figure dated, with its command)."""

    def on(days: list[str]) -> str:
        return " and ".join(days) or "an undated run"

    return (
        f"Measured {on(spark_days)} (Spark) and {on(sail_days)} (Sail)"
        + (f" at commit `{commit}`" if commit else "")
        + ": `SPARK_REMOTE=sc://... python -m pytest tests --junitxml=...`, and `SPARK_REMOTE=sail` in the thin"
        " install for Sail, rendered by `python scripts/engine_matrix.py` (its docstring has the full commands)."
    )


def _families() -> dict[str, dict[str, str]]:
    from tests.engines import SAIL_DIFFERENCE_FAMILIES

    return SAIL_DIFFERENCE_FAMILIES


def _features_table() -> list[str]:
    from connect_plan.versions import FEATURES

    lines = [
        "| feature | proto field | Spark Connect server | on an older server | used for |",
        "|---|---|---|---|---|",
    ]
    for f in FEATURES.values():
        older = "not used" if f.optional else "refused"
        lines.append(f"| `{f.name}` | `{f.proto}` | {f.since[0]}.{f.since[1]}+ | {older} | {f.used_for} |")
    return lines


def _version_notes() -> list[str]:
    """What was run on which server release (kept by hand: these runs are not the matrix's)."""
    path = Path(__file__).resolve().parent.parent / "docs" / "server-versions.md"
    return [f"Older releases, what was run on them and their known problems: [{path.name}]({path.name}).", ""]


def render(
    spark: list[Outcome],
    sail: list[Outcome],
    *,
    spark_version: str = "Apache Spark",
    sail_version: str = "Sail",
    notes: list[str] | None = None,
    families: dict[str, dict[str, str]] | None = None,
    measured: str = "",
) -> str:
    from connect_plan.versions import MINIMUM

    families = _families() if families is None else families
    known = {t for fam in families.values() for t in fam}
    by_file: dict[str, dict[str, Counter[str]]] = defaultdict(lambda: {"spark": Counter(), "sail": Counter()})
    for o in spark:
        by_file[o.file]["spark"][o.status] += 1
    sail_status: dict[str, str] = {}
    for o in sail:
        c = by_file[o.file]["sail"]
        if o.status == "skipped" and SPARK_ONLY_REASON in o.message:
            c["spark_only"] += 1
        else:
            c[o.status] += 1
        sail_status[f"{o.file.rsplit('/', 1)[-1]}::{o.test}"] = o.status
    spark_total = sum(by_file[f]["spark"].total() for f in by_file)
    sail_total = Counter[str]()
    for f in by_file:
        sail_total.update(by_file[f]["sail"])

    out = [
        "# Engines",
        "",
        "<!-- Generated by scripts/engine_matrix.py from the JUnit XML of an Apache Spark run and a",
        "     Sail run of the test suite: do not edit. -->",
        "",
        "connect_plan speaks the Spark Connect protocol; Apache Spark is the reference engine (its",
        "semantics are the plan format's). [Sail](https://github.com/lakehq/sail) (`pysail`, a Spark",
        "Connect server in Rust on DataFusion) runs the same plans with the differences listed below;",
        '`remote="sail"` (`--remote sail`, `SPARK_REMOTE=sail`) starts one in the client\'s process.',
        "",
        "## Supported servers",
        "",
        f"* **Apache Spark Connect {MINIMUM[0]}.{MINIMUM[1]} and later.** The client probes the server's version once",
        "  per session, before its first plan, and refuses an older server (`UnsupportedServerError`, naming",
        "  the features it lacks): a server ignores protocol fields it does not know, so a 3.5 server would",
        "  drop renames silently and fail SQL parameters and grouping sets without saying why. Optional",
        f"  features newer than the server are not used. This matrix: **{spark_version}**.",
        "* **Sail** with a PySpark client it accepts (pysail 0.7: PySpark up to 4.2, e.g. the thin",
        "  `pyspark-client` install, no JVM). This matrix: " + f"**{sail_version}**.",
        "",
        "Protocol features and the server version they need (`connect_plan/versions.py`; each `since`",
        "is checked against the protocol as released with PySpark 3.5, 4.0, 4.1 and 4.2, and every proto",
        "the translator builds for the fixtures against the oldest supported release, by",
        "`tests/unit/test_versions.py`):",
        "",
        *_features_table(),
        "",
        *_version_notes(),
        "## Test results by area",
        "",
        "Each row is a test file. *Spark*: tests passed / run against Apache Spark. *Sail*: passed;",
        "*known differences*: strict xfails from `tests/engines.py` (a Sail release that fixes one",
        "fails the run until the entry goes); *spark_only*: tests that need Apache Spark itself",
        "(its launcher, a standalone cluster, killing and restarting its server), skipped on Sail.",
        "",
        *([measured, ""] if measured else []),
        "| test file | Spark passed | Sail passed | Sail known differences | Sail skipped (spark_only) | Sail other skips | Sail failed |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in sorted(by_file):
        s, t = by_file[f]["spark"], by_file[f]["sail"]
        spark_cell = f"{s['passed']} / {s.total() - s['skipped']}" if s.total() else "not run"
        if s["skipped"]:
            spark_cell += f" ({s['skipped']} skipped)"
        if s["failed"]:
            spark_cell += f" — **{s['failed']} failed**"
        if not t.total():
            out.append(f"| `{f}` | {spark_cell} | not run | | | | |")
            continue
        failed = f"**{t['failed']}**" if t["failed"] else "0"
        out.append(
            f"| `{f}` | {spark_cell} | {t['passed']} | {t['xfailed']} | {t['spark_only']} | {t['skipped']} | {failed} |"
        )
    sp = Counter[str]()
    for f in by_file:
        sp.update(by_file[f]["spark"])
    out.append(
        f"| **total** | {sp['passed']} / {spark_total - sp['skipped']} | {sail_total['passed']} | {sail_total['xfailed']} | "
        f"{sail_total['spark_only']} | {sail_total['skipped']} | {sail_total['failed']} |"
    )
    out += ["", *(notes or [])]
    if notes:
        out.append("")
    out += [
        "## Sail differences",
        "",
        "By family; each entry is a test id (`file::test[param]` without the path) and what Sail",
        "does differently. connect_plan sends the same protos to both engines: none of these is",
        "worked around by the client (where a gap was connect_plan's, it was fixed instead: zero-row",
        "inputs carry their schema, analysis errors are located without error classes, results get",
        "Spark's Arrow types, writes run without row-count observations, inputs go inline without an",
        "artifact cache).",
        "",
    ]
    for family, entries in families.items():
        out.append(f"### {family}")
        out.append("")
        for test, reason in entries.items():
            status = sail_status.get(test)
            mark = "" if status in (None, "xfailed") else f" *(in this run: {status})*"
            out.append(f"* `{test}` — {reason}{mark}")
        out.append("")
    unknown = sorted({f"{o.file.rsplit('/', 1)[-1]}::{o.test}" for o in sail if o.status == "failed"} - known)
    if unknown:
        out += ["### Unexplained failures in this run", ""] + [f"* `{t}`" for t in unknown] + [""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spark", type=Path, nargs="+", required=True, help="JUnit XML of the Spark run (files or dirs)")
    ap.add_argument("--sail", type=Path, nargs="+", required=True, help="JUnit XML of the Sail run (files or dirs)")
    ap.add_argument("--spark-version", default="Apache Spark")
    ap.add_argument("--sail-version", default="Sail")
    ap.add_argument("--commit", default="", help="the commit the runs measured (e.g. git rev-parse --short HEAD)")
    ap.add_argument("--note", action="append", default=[], help="a paragraph to add under the table")
    ap.add_argument("-o", "--output", type=Path, default=DOC)
    args = ap.parse_args(argv)
    text = render(
        read_junit(args.spark),
        read_junit(args.sail),
        spark_version=args.spark_version,
        sail_version=args.sail_version,
        notes=args.note,
        measured=measured_line(run_dates(args.spark), run_dates(args.sail), args.commit),
    )
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
