"""The Substrait corpus' oracle asks Spark SQL the question the plan answers: an ORDER BY item that
leaves NULL placement to the engine gets the plan's placement (tests/substrait_corpus
.with_plan_null_order, used by the corpus test and benchmarks/plan_quality)."""

from __future__ import annotations

import json
from typing import Any

from google.protobuf.json_format import ParseDict

from connect_plan.formats.substrait.proto import message_class
from tests import substrait_corpus as sc


def _plan(*directions: str, over: str = "fetch") -> dict[str, Any]:
    """A root of ``over`` (a fetch or a filter) over a sort of ``directions`` over a read."""
    read = {
        "read": {"baseSchema": {"names": ["a"], "struct": {"types": [{"i64": {}}]}}, "namedTable": {"names": ["t"]}}
    }
    field = {"selection": {"directReference": {"structField": {}}, "rootReference": {}}}
    sort = {"sort": {"input": read, "sorts": [{"expr": field, "direction": d} for d in directions]}}
    top = {"fetch": {"input": sort, "count": "100"}} if over == "fetch" else {"filter": {"input": sort}}
    return {"relations": [{"root": {"input": {"project": {"input": top}}, "names": ["a"]}}]}


ASC_LAST, ASC_FIRST = "SORT_DIRECTION_ASC_NULLS_LAST", "SORT_DIRECTION_ASC_NULLS_FIRST"
DESC_LAST, DESC_FIRST = "SORT_DIRECTION_DESC_NULLS_LAST", "SORT_DIRECTION_DESC_NULLS_FIRST"


def test_an_item_left_to_the_engine_gets_the_plans_placement_and_nothing_else_changes() -> None:
    """TPC-DS q33's shape: DataFusion's ascending default is NULLS LAST, Spark's NULLS FIRST."""
    sql = "SELECT m, sum(x) s FROM (SELECT * FROM t ORDER BY x) q GROUP BY m\nORDER BY s\nLIMIT 100;"
    out = sc.with_plan_null_order(sql, json.dumps(_plan(ASC_LAST)))
    assert out == "SELECT m, sum(x) s FROM (SELECT * FROM t ORDER BY x) q GROUP BY m\nORDER BY s NULLS LAST\nLIMIT 100;"
    # the same from the parsed object and from binary protobuf (DuckDB's plans made at run time)
    assert sc.with_plan_null_order(sql, _plan(ASC_LAST)) == out
    binary = ParseDict(_plan(ASC_LAST), message_class("substrait.Plan")()).SerializeToString()
    assert sc.with_plan_null_order(sql, binary) == out


def test_spark_defaults_and_explicit_placements_are_kept() -> None:
    """Descending NULLS FIRST is appended; Spark's own defaults are not written; an explicit
    placement stays as the text says even where the plan disagrees (a plan that loses it must
    still fail); a comma or ``desc`` inside parentheses or quotes is not an item's."""
    sql = "SELECT 1 FROM t ORDER BY f(a, 'x desc') DESC, b, c DESC, \"d,e\" NULLS FIRST, g ASC LIMIT 5"
    plan = _plan(DESC_FIRST, ASC_FIRST, DESC_LAST, ASC_LAST, ASC_LAST)
    assert sc.with_plan_null_order(sql, plan) == (
        "SELECT 1 FROM t ORDER BY f(a, 'x desc') DESC NULLS FIRST, b, c DESC, \"d,e\" NULLS FIRST, g ASC NULLS LAST LIMIT 5"
    )


def test_no_edit_when_the_plans_sort_cannot_be_matched_to_the_text() -> None:
    """Another count of items, another direction, no ORDER BY at the top, or no sort at the
    plan's result: the text is returned as it is (the comparison is as strict as before)."""
    sql = "SELECT a FROM t ORDER BY a, b LIMIT 3"
    assert sc.with_plan_null_order(sql, _plan(ASC_LAST)) == sql
    assert sc.with_plan_null_order(sql, _plan(DESC_LAST, ASC_LAST)) == sql
    inner = "SELECT * FROM (SELECT a FROM t ORDER BY a LIMIT 3) q"
    assert sc.with_plan_null_order(inner, _plan(ASC_LAST)) == inner
    assert sc.with_plan_null_order("SELECT a FROM t ORDER BY a", _plan(ASC_LAST, over="filter")) == (
        "SELECT a FROM t ORDER BY a"
    )
    assert sc.result_order(_plan(ASC_LAST, over="filter")) is None
    assert sc.result_order(_plan("SORT_DIRECTION_CLUSTERED")) is None


def test_the_recorded_tpcds_q33_plans_get_nulls_last() -> None:
    """The recorded plans whose answers differed at sf 0.2 (DataFusion and Isthmus, q33)."""
    suite = sc.read_suite("tpcds")
    for producer in ("datafusion", "isthmus"):
        out = sc.with_plan_null_order(suite.sql(producer, "q33"), suite.plans[producer]["q33"])
        assert "ORDER BY total_sales NULLS LAST\nLIMIT 100" in out, producer
