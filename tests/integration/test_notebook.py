"""In a real Jupyter kernel (nbclient): a PlanDrawing displays as SVG (and Mermaid Markdown),
and the rich progress line renders as a notebook widget while a query runs, then clears."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("ipywidgets")

ROOT = Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.spark_only("Spark's ExecutionProgress responses (Sail sends none)")


def test_drawings_and_the_progress_line_render_in_a_notebook(spark_url: str) -> None:
    doc = json.loads((ROOT / "examples" / "sales_by_region.json").read_text())
    slow = {
        "input": {"range": {"start": 0, "end": 8_000_000, "step": 1, "numPartitions": 8}},
        "plan": [
            {"op": "withColumn", "payload": {"name": "k", "expr": {"fn": "pmod", "args": [{"col": "id"}, {"lit": 7}]}}},
            {"op": "groupBy", "payload": {"group_by": ["k"], "aggs": [{"agg": "count", "column": "id", "alias": "n"}]}},
        ],
    }
    conf = {"spark.connect.progress.reportInterval": "300ms"}
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(f"import connect_plan\nconnect_plan.draw({doc!r})"),
        nbformat.v4.new_code_cell(
            "from connect_plan.display import ProgressLine\n"
            f"with connect_plan.connect({spark_url!r}, conf={conf!r}) as c, ProgressLine(delay=0.2) as line:\n"
            f"    t = c.execute({slow!r}, on_progress=line)\n"
            "print(t.num_rows, line.shown, line.updates > 1)"
        ),
    ]
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3").execute()
    (drawn,) = nb.cells[0].outputs
    assert drawn["output_type"] == "execute_result"
    assert "<svg" in drawn["data"]["image/svg+xml"] and "2: groupBy" in drawn["data"]["image/svg+xml"]
    assert drawn["data"]["text/markdown"].startswith("```mermaid")
    outputs = nb.cells[1].outputs
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)  # the live line
    (printed,) = [o for o in outputs if o["output_type"] == "stream"]
    assert printed["text"].split() == ["7", "True", "True"]
