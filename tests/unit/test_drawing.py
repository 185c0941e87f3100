"""Plans drawn as pictures: every fixture plan in every format (svg and png drawn by
graphviz-pure, which pip installs: no system package), node labels, failed steps, titles by
the plan's format, and Spark's tree strings parsed into trees."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import connect_plan
from connect_plan import ir
from connect_plan.drawing import (
    FORMATS,
    PROGRAM_ENV,
    STEP_DETAILS,
    DrawingError,
    PlanDrawing,
    graphviz_program,
    parse_spark_plan,
    spark_trees,
)
from connect_plan.errors import PlanError
from connect_plan.fixtures import plan_document

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = sorted((ROOT / "tests" / "fixtures" / "plans").glob("*.json"))


def fixture(path: Path) -> tuple[dict[str, Any], bool]:
    doc = json.loads(path.read_text())
    invalid = "error" in doc.get("expected", {}) and doc["expected"]["error"].get("kind") == "plan"
    return plan_document(doc), invalid


def test_every_step_class_has_its_label() -> None:
    assert set(STEP_DETAILS) == set(ir.STEP_CLASSES)


@pytest.mark.parametrize("path", FIXTURES, ids=[p.stem for p in FIXTURES])
def test_every_fixture_plan_in_every_format(path: Path) -> None:
    doc, _ = fixture(path)
    try:
        drawing = connect_plan.draw(doc)
    except PlanError:
        # an invalid plan (its fixture expects the PlanError) has no picture
        expected = json.loads(path.read_text()).get("expected", {})
        assert "error" in expected, f"{path.name}: a valid fixture plan could not be drawn"
        return
    (tree,) = drawing.trees
    plan = connect_plan.formats.load_plan(doc)
    # one node per source and step (nested plans' too), and the output
    assert len(tree.nodes) >= 1 + len(plan.steps) + (plan.output is not None)
    # a tree flowing into one node: every other node feeds at least one (shared plans more)
    sources = {a for a, _ in tree.edges}
    sinks = [n.id for n in tree.nodes if n.id not in sources]
    assert len(sinks) == 1 and len(tree.edges) >= len(tree.nodes) - 1
    titles = [n.title for n in tree.nodes]
    for step in plan.steps:
        assert f"{step.index}: {step.op}" in titles
    dot = drawing.render("dot")
    assert isinstance(dot, str) and dot.startswith("digraph plan {") and dot.count("->") == len(tree.edges)
    mermaid = drawing.render("mermaid")
    assert isinstance(mermaid, str) and mermaid.startswith("flowchart TD") and mermaid.count("-->") == len(tree.edges)
    assert drawing._repr_markdown_().startswith("```mermaid\nflowchart TD")
    svg = drawing.render("svg")
    assert isinstance(svg, str)
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert sum(1 for e in root.iter() if e.get("class") == "node") == len(tree.nodes)
    png = drawing.render("png")
    assert isinstance(png, bytes) and png.startswith(b"\x89PNG\r\n\x1a\n")


def test_labels_columns_and_a_failed_step() -> None:
    doc = json.loads((ROOT / "examples" / "sales_by_region.json").read_text())
    drawing = connect_plan.draw(doc, failed_step=2)
    nodes = {n.title: n for n in drawing.trees[0].nodes}
    assert nodes["0: filter"].detail == "isnotnull(amount)"
    assert nodes["2: groupBy"].detail == "by region: sum(amount) AS revenue, count(1) AS orders"
    assert nodes["2: groupBy"].columns == ("region", "revenue", "orders") and nodes["2: groupBy"].failed
    assert nodes["3: orderBy"].detail == "revenue DESC" and not nodes["3: orderBy"].failed
    assert "FAILED" in drawing.dot() and 'color="#cc0000"' in drawing.dot()
    assert "class n4 failed" in drawing.mermaid()


def test_labels_are_escaped() -> None:
    doc = {
        "input": {"schema": [{"name": 'a"b', "type": "string"}], "rows": [["x"]]},
        "plan": [{"op": "filter", "payload": {"op": "eq", "left": {"col": 'a"b'}, "right": {"lit": "<&|>"}}}],
    }
    drawing = connect_plan.draw(doc)
    assert '\\"' in drawing.dot() and "a#quot;b" in drawing.mermaid() and "#lt;#amp;#124;#gt;" in drawing.mermaid()
    ET.fromstring(drawing.svg())  # still well-formed


EXPLAIN = """== Parsed Logical Plan ==
'Sort ['revenue DESC NULLS LAST], true
+- 'Aggregate ['region], ['region]

== Optimized Logical Plan ==
Sort [revenue#16059 DESC NULLS LAST], true
+- Aggregate [region#16058], [region#16058, sum(amount#16055) AS revenue#16059]
   +- Project [amount#16055, region#16058]
      +- Join LeftOuter, (store#16054 = store#16057)
         :- LocalRelation [store#16054, amount#16055]
         +- LocalRelation [store#16057, region#16058]

== Physical Plan ==
AdaptiveSparkPlan isFinalPlan=false
+- Sort [revenue#16059 DESC NULLS LAST], true, 0
   +- *(2) HashAggregate(keys=[region#16058], functions=[sum(amount#16055)])
      +- BroadcastHashJoin [store#16054], [store#16057], LeftOuter, BuildRight, false
         :- LocalTableScan [store#16054, amount#16055]
         +- BroadcastExchange HashedRelationBroadcastMode(List(input[0, string, true]),false)
            +- LocalTableScan [store#16057, region#16058]
"""


def test_spark_plans_become_trees() -> None:
    logical, physical = spark_trees(EXPLAIN)
    assert logical.title == "Spark: optimized logical plan"
    assert [n.title for n in logical.nodes] == [
        "Sort",
        "Aggregate",
        "Project",
        "Join",
        "LocalRelation",
        "LocalRelation",
    ]
    by_id = {n.id: n.title for n in logical.nodes}
    assert [(by_id[a], by_id[b]) for a, b in logical.edges] == [
        ("Aggregate", "Sort"),
        ("Project", "Aggregate"),
        ("Join", "Project"),
        ("LocalRelation", "Join"),
        ("LocalRelation", "Join"),
    ]
    assert logical.nodes[3].detail == "LeftOuter, (store = store)"  # attribute ids dropped
    assert [n.title for n in physical.nodes][:3] == ["AdaptiveSparkPlan", "Sort", "HashAggregate"]
    ids = {n.id: n.title for n in physical.nodes}
    assert (ids[physical.edges[-1][0]], ids[physical.edges[-1][1]]) == ("LocalTableScan", "BroadcastExchange")
    assert parse_spark_plan("", "empty").nodes == ()


def test_unknown_format_and_missing_graphviz(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    drawing = PlanDrawing(())
    with pytest.raises(DrawingError, match="unknown picture format"):
        drawing.render("jpeg")
    monkeypatch.setenv(PROGRAM_ENV, str(tmp_path / "no-such-program"))
    with pytest.raises(DrawingError, match=r"cannot run .*no-such-program"):
        drawing.render("svg")
    assert drawing._repr_svg_() is None  # a notebook then shows the Mermaid form
    assert set(FORMATS) == {"dot", "mermaid", "svg", "png"}


def test_graphviz_pure_draws_with_nothing_on_path(tmp_path: Path) -> None:
    """The program pip installed beside the package is found through its distribution, also
    when its ``bin`` directory is not on PATH (a venv's connect-plan run without activating
    it), and a machine with no system Graphviz (this one's test) draws both pictures."""
    program = graphviz_program()
    assert program is not None and Path(program).name.startswith("graphviz-pure"), program
    script = (
        "import json, connect_plan; d = connect_plan.draw(json.load(open('examples/people.json'))); "
        "print(len(d.svg()), d.png()[:4])"
    )
    env = {k: v for k, v in os.environ.items() if k != PROGRAM_ENV}
    env["PATH"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, check=False)
    assert out.returncode == 0 and out.stdout.split()[1:] == ["b'\\x89PNG'"], out


def test_a_drawing_is_titled_by_the_plans_format() -> None:
    substrait = ROOT / "tests" / "data" / "substrait" / "tpch" / "datafusion" / "q01.json"
    assert connect_plan.draw(substrait.read_text()).trees[0].title == "Substrait plan"
    example = json.loads((ROOT / "examples" / "people.json").read_text())
    assert connect_plan.draw(example).trees[0].title == "JSON plan"
    assert connect_plan.draw(json.dumps(example)).trees[0].title == "JSON plan"
    assert connect_plan.draw(example, title="mine").trees[0].title == "mine"
    assert connect_plan.draw(connect_plan.formats.load_plan(example)).trees[0].title == "plan"


def test_save_takes_the_format_from_the_suffix(tmp_path: Path) -> None:
    drawing = connect_plan.draw(json.loads((ROOT / "examples" / "people.json").read_text()))
    assert drawing.save(tmp_path / "p.mmd").read_text().startswith("flowchart TD")
    assert drawing.save(tmp_path / "p.dot").read_text().startswith("digraph")
    assert drawing.save(tmp_path / "p.png").read_bytes().startswith(b"\x89PNG")


def test_the_readmes_picture_is_what_the_command_draws() -> None:
    """docs/images/sales_by_region.svg was made by the command the README names; its texts
    (every label line, in order) are what the drawing says today."""
    readme = (ROOT / "README.md").read_text()
    command = "connect-plan explain examples/sales_by_region.json --format svg --output docs/images/sales_by_region.svg"
    assert command in readme and "](docs/images/sales_by_region.svg)" in readme
    svg = ET.fromstring((ROOT / "docs" / "images" / "sales_by_region.svg").read_text())
    texts = [e.text for e in svg.iter() if e.tag.endswith("text")]
    drawing = connect_plan.draw(json.loads((ROOT / "examples" / "sales_by_region.json").read_text()))
    expected = [drawing.trees[0].title] + [line for n in drawing.trees[0].nodes for line in drawing.lines(n)]
    assert sorted(texts) == sorted(expected)  # regenerate the picture with that command if this fails


# ------------------------------------------------------------------ subqueries (Substrait)


@pytest.fixture(scope="module")
def tpch(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Tiny TPC-H tables (DuckDB's dbgen) for a real producer to plan against."""
    pytest.importorskip("duckdb")
    pytest.importorskip("datafusion")
    from tests import substrait_producers as sp

    return sp.make_tpch(tmp_path_factory.mktemp("tpch"), scale=0.001)


def _datafusion_plan(tpch: Any, sql: str) -> bytes:
    from datafusion import SessionContext
    from datafusion.substrait import Serde

    ctx = SessionContext()
    for name, path in tpch.files.items():
        ctx.register_parquet(name, path)
    return bytes(Serde.serialize_to_plan(sql, ctx).encode())


def _subqueries(plan: ir.Plan) -> list[ir.Subquery]:
    """Every subquery of the plan and of the plans inside it."""
    from connect_plan.translator.relations import subqueries_in

    found: list[ir.Subquery] = []
    stack = [plan]
    while stack:
        p = stack.pop()
        for step in p.steps:
            for sub in subqueries_in(step):
                found.append(sub)
                stack.append(sub.plan)
        stack.extend(ir.right_plans(p.steps))
        if isinstance(p.source, ir.SharedPlan):
            stack.append(p.source.plan)
    return found


def _holders(plan: ir.Plan) -> list[ir.Step]:
    """The steps (of the plan and of the plans inside it) whose expressions hold a subquery."""
    from connect_plan.translator.relations import subqueries_in

    out: list[ir.Step] = []
    stack = [plan, *(s.plan for s in _subqueries(plan))]
    while stack:
        p = stack.pop()
        out.extend(step for step in p.steps if subqueries_in(step))
        stack.extend(ir.right_plans(p.steps))
    return out


@pytest.mark.parametrize(
    ("query", "kinds", "inner_table"),
    [
        # TPC-H q22: c_acctbal > (select avg(c_acctbal) ...), a scalar subquery DataFusion keeps
        (22, {"scalar"}, "customer"),
        # a correlated EXISTS under OR: DataFusion writes a mark join, which the front-end
        # reads back as EXISTS subqueries
        (
            "select o_orderkey from orders where exists (select 1 from lineitem where l_orderkey = o_orderkey) "
            "or o_totalprice > 100000",
            {"exists"},
            "lineitem",
        ),
    ],
    ids=["tpch_q22_scalar", "exists_under_or"],
)
def test_a_substrait_subquery_is_drawn_with_its_plan(tpch: Any, query: Any, kinds: set[str], inner_table: str) -> None:
    """A real producer's plan (DataFusion, made now): each subquery's plan is drawn and flows,
    through a node titled by its kind, into the step whose expression holds it; the
    expression reads EXISTS (subquery) / (scalar subquery), never the class name."""
    from connect_plan.drawing import draw_plan, expr_text
    from connect_plan.formats import load_plan

    sql = tpch.queries[query] if isinstance(query, int) else query
    plan = load_plan(_datafusion_plan(tpch, sql))
    subqueries = _subqueries(plan)
    assert {s.kind for s in subqueries} == kinds
    tree = draw_plan(plan)
    by_id = {n.id: n for n in tree.nodes}
    into: dict[str, list[str]] = {}
    for a, b in tree.edges:
        into.setdefault(b, []).append(a)

    def upstream(node_id: str) -> set[str]:
        seen, stack = set(), [node_id]
        while stack:
            for a in into.get(stack.pop(), []):
                if a not in seen:
                    seen.add(a)
                    stack.append(a)
        return seen

    labels = [n for n in tree.nodes if n.title.endswith(" subquery")]
    assert sorted(n.title for n in labels) == sorted(f"{s.kind} subquery" for s in subqueries)
    holders = {step.op for step in _holders(plan)}
    for label in labels:
        (target,) = [b for a, b in tree.edges if a == label.id]
        assert by_id[target].kind == "step" and by_id[target].title.split(": ")[-1] in holders
        assert "Subquery" not in by_id[target].detail
        sources = [by_id[i] for i in upstream(label.id) if by_id[i].kind == "source"]
        assert any(inner_table in n.detail for n in sources), [n.detail for n in sources]
    for step in _holders(plan):  # the step's whole text (a label is cut at MAX_LABEL)
        assert "subquery" in STEP_DETAILS[type(step)](step)
    for sub in subqueries:
        assert "Subquery" not in expr_text(sub) and "subquery" in expr_text(sub)
