"""The Substrait front-end without a server: reading every spec version's fields, refusing
unknown ones, detection by shape, located errors, translation purity."""

from __future__ import annotations

import json
from typing import Any

import pytest

import connect_plan
from connect_plan import ir
from connect_plan.errors import PlanError
from connect_plan.formats import load_plan
from connect_plan.formats.substrait import is_substrait, parse_substrait, parse_substrait_plan
from connect_plan.formats.substrait.proto import message_class

I64 = {"i64": {"nullability": "NULLABILITY_REQUIRED"}}
STR = {"string": {"nullability": "NULLABILITY_REQUIRED"}}


def field(i: int) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": i}}, "rootReference": {}}}


def read(table: str, names: list[str], types: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "read": {
            "baseSchema": {"names": names, "struct": {"types": types, "nullability": "NULLABILITY_REQUIRED"}},
            "namedTable": {"names": [table]},
        }
    }


def call(anchor: int, *args: dict[str, Any]) -> dict[str, Any]:
    return {"scalarFunction": {"functionReference": anchor, "arguments": [{"value": a} for a in args]}}


def old_style_plan() -> dict[str, Any]:
    """What DuckDB 1.1.3 / ibis-substrait / Isthmus 0.5 write: extension URIs, inline grouping
    expressions, FetchRel.count, the spec-0.52 JOIN_TYPE_SEMI name."""
    t = read("t", ["k", "v"], [I64, STR])
    u = read("u", ["k"], [I64])
    join = {"join": {"left": t, "right": u, "expression": call(1, field(0), field(2)), "type": "JOIN_TYPE_SEMI"}}
    agg = {
        "aggregate": {
            "input": join,
            "groupings": [{"groupingExpressions": [field(1)]}],
            "measures": [{"measure": {"functionReference": 2, "phase": "AGGREGATION_PHASE_INITIAL_TO_RESULT"}}],
        }
    }
    return {
        "extensionUris": [{"extensionUriAnchor": 1, "uri": "/functions_comparison.yaml"}],
        "extensions": [
            {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": 1, "name": "equal:any_any"}},
            {"extensionFunction": {"extensionUriReference": 1, "functionAnchor": 2, "name": "count:"}},
        ],
        "relations": [{"root": {"input": {"fetch": {"input": agg, "count": "5"}}, "names": ["v", "n"]}}],
    }


def test_old_fields_are_read_not_dropped() -> None:
    msg = parse_substrait(old_style_plan())
    # the fields substrait-protobuf >= 0.98 no longer has are all there
    assert msg.extension_uris[0].uri == "/functions_comparison.yaml"
    root = msg.relations[0].root.input
    assert root.fetch.count == 5
    assert len(root.fetch.input.aggregate.groupings[0].grouping_expressions) == 1
    assert root.fetch.input.aggregate.input.join.type == 5
    # binary round trip: same message, nothing unknown
    assert parse_substrait(msg.SerializeToString()) == msg


def test_old_style_plan_becomes_ir() -> None:
    plan = parse_substrait_plan(old_style_plan())
    ops = [type(s).__name__ for s in plan.steps]
    assert ops == ["Select", "Join", "GroupBy", "Fetch", "Select"]
    join = plan.steps[1]
    assert isinstance(join, ir.Join) and join.how == "left_semi"
    group = plan.steps[2]
    assert isinstance(group, ir.GroupBy) and len(group.keys) == 1
    fetch = plan.steps[3]
    assert isinstance(fetch, ir.Fetch) and fetch.count == 5
    root = plan.steps[-1]
    assert isinstance(root, ir.Select) and [i.alias for i in root.items] == ["v", "n"]


def test_an_unknown_binary_field_is_an_error_with_its_path() -> None:
    msg = parse_substrait(old_style_plan())
    blob = msg.SerializeToString()
    # field 999 (varint 1) on the Plan: in no spec version
    bad = blob + bytes([0xB8, 0x3E, 0x01])
    with pytest.raises(PlanError) as e:
        parse_substrait(bad)
    assert e.value.codes == ("substrait_unknown_field",)
    assert "999" in str(e.value)


def test_an_unknown_json_field_is_an_error() -> None:
    doc = old_style_plan()
    doc["relations"][0]["root"]["input"]["fetch"]["bogus"] = 1
    with pytest.raises(PlanError) as e:
        parse_substrait(doc)
    assert e.value.codes == ("substrait_invalid",)


def test_detection_by_shape() -> None:
    doc = old_style_plan()
    blob = parse_substrait(doc).SerializeToString()
    assert blob[:1] == b"\n"  # field 1 (extension_uris): a newline byte, still binary
    assert is_substrait(blob)
    assert is_substrait(doc)
    assert not is_substrait({"input": {}, "plan": []})
    assert not is_substrait(json.dumps(doc).encode())  # JSON text: the caller parses it first
    assert isinstance(load_plan(json.dumps(doc)), ir.Plan)
    assert isinstance(load_plan(blob), ir.Plan)


def test_translate_stays_pure_and_deterministic() -> None:
    blob = parse_substrait(old_style_plan()).SerializeToString()
    a = connect_plan.translate(None, None, blob)
    b = connect_plan.translate(None, None, blob)
    assert a == b
    assert a.root.HasField("project")


def test_tables_map_names_case_insensitively() -> None:
    doc = old_style_plan()
    plan = load_plan(doc, tables={"T": {"files": ["/data/t.parquet"], "format": "parquet"}})
    assert isinstance(plan.source, ir.FileSource) and plan.source.paths == ("/data/t.parquet",)


def test_tables_with_a_json_plan_is_an_error() -> None:
    with pytest.raises(PlanError) as e:
        load_plan({"input": {"table": "t"}, "plan": []}, tables={"t": "x"})
    assert e.value.codes == ("substrait_tables",)


def test_an_unknown_function_is_located_with_a_suggestion() -> None:
    doc = old_style_plan()
    doc["extensions"][0]["extensionFunction"]["name"] = "equals:any_any"
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(doc)
    assert e.value.codes == ("substrait_function",)
    assert e.value.locs == ("/relations/0/root/input/fetch/input/aggregate/input/join/expression/scalarFunction",)
    text = str(e.value)
    assert "equals:any_any" in text and "/functions_comparison.yaml" in text and "equal" in text


def test_all_problems_at_once() -> None:
    doc = old_style_plan()
    doc["extensions"][0]["extensionFunction"]["name"] = "nope"
    doc["relations"][0]["root"]["input"]["fetch"]["input"]["aggregate"]["groupings"][0]["groupingExpressions"] = [
        field(7)
    ]
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(doc)
    assert sorted(e.value.codes) == ["substrait_field_index", "substrait_function"]


def test_an_extension_relation_is_a_located_error() -> None:
    doc = {"relations": [{"root": {"input": {"extensionLeaf": {}}, "names": []}}]}
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(doc)
    assert e.value.locs == ("/relations/0/root/input/extensionLeaf",)
    assert e.value.codes == ("substrait_unsupported",)


def test_the_private_pool_coexists_with_pyspark() -> None:
    from google.protobuf import descriptor_pool
    from pyspark.sql.connect import proto as pb

    cls = message_class("substrait.Plan")
    assert cls.DESCRIPTOR.file.pool is not descriptor_pool.Default()
    pb.Plan()  # PySpark's protos still load from the default pool
    with pytest.raises(KeyError):
        descriptor_pool.Default().FindMessageTypeByName("substrait.Plan")


def test_cli_checks_a_binary_plan_with_tables(tmp_path: Any, capsys: Any) -> None:
    from connect_plan import cli

    path = tmp_path / "plan.pb"
    path.write_bytes(parse_substrait(old_style_plan()).SerializeToString())
    assert cli.main(["check", str(path), "--table", "t=/data/t.parquet", "--table", "u=db.u"]) == cli.EXIT_OK
    assert capsys.readouterr().out.strip() == "ok"
    assert cli._table_arg("T=/x/y.parquet") == ("T", {"files": ["/x/y.parquet"], "format": "parquet"})
    assert cli._table_arg("orders=db.orders") == ("orders", {"table": "db.orders"})


def test_cli_reports_a_located_substrait_error(tmp_path: Any, capsys: Any) -> None:
    from connect_plan import cli

    doc = old_style_plan()
    doc["extensions"][1]["extensionFunction"]["name"] = "cnt:"
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    assert cli.main(["check", str(path)]) == cli.EXIT_PLAN
    err = capsys.readouterr().err
    assert "/relations/0/root/input/fetch/input/aggregate/measures/0/measure" in err and "substrait_function" in err


def test_a_function_option_is_refused_not_ignored() -> None:
    doc = old_style_plan()
    join = doc["relations"][0]["root"]["input"]["fetch"]["input"]["aggregate"]["input"]["join"]
    join["expression"]["scalarFunction"]["options"] = [{"name": "overflow", "preference": ["SATURATE"]}]
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(doc)
    assert e.value.codes == ("substrait_unsupported",)
    assert e.value.locs[0].endswith("/join/expression/scalarFunction/options/0")


def test_a_policy_checks_the_tables_a_subquery_reads() -> None:
    from connect_plan.policy import Policy

    inner = read("u", ["k"], [I64])
    doc = {
        "relations": [
            {
                "root": {
                    "names": ["k", "v"],
                    "input": {
                        "filter": {
                            "input": read("t", ["k", "v"], [I64, STR]),
                            "condition": {
                                "subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_EXISTS", "tuples": inner}}
                            },
                        }
                    },
                }
            }
        ]
    }
    plan = load_plan(doc)
    assert any(isinstance(s, ir.Filter) and isinstance(s.condition, ir.Subquery) for s in plan.steps)
    policy = Policy.strict().replace(tables=("t",), require_limit=False)
    found = policy.violations(plan)
    assert [v.input for v in found] == ["u"], found


def test_a_column_a_subquery_reads_is_not_defined_in_the_same_relation() -> None:
    """Correlation: a withColumn whose subquery names the column the withColumn before it
    defines must not merge with it (Spark resolves outer names in the relation's input)."""
    from connect_plan.translator import translate_ir

    inner = ir.Plan(
        ir.TableSource("u", (), "/u"),
        (ir.Filter(3, "filter", "/u/f", ir.Call("==", (ir.Col("y", "/u/y"), ir.Col("a", "/u/a")), "/u/eq")),),
        "/u",
    )
    plan = ir.Plan(
        ir.TableSource("t", (), "/t"),
        (
            ir.WithColumn(1, "project", "/1", "a", ir.Col("x", "/1/x")),
            ir.WithColumn(2, "project", "/2", "b", ir.Subquery("exists", inner, (), "/2/e")),
        ),
        "/p",
    )
    root = translate_ir(plan).plan.root
    assert root.HasField("with_relations")
    outer = root.with_relations.root.with_columns
    assert [a.name[0] for a in outer.aliases] == ["b"]
    assert [a.name[0] for a in outer.input.with_columns.aliases] == ["a"]
    sub = outer.aliases[0].expr.subquery_expression
    assert sub.plan_id == root.with_relations.references[0].common.plan_id
