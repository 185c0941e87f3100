"""The Substrait front-end without a server: reading every spec version's fields, refusing
unknown ones, detection by shape, located errors, translation purity."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

import connect_plan
from connect_plan import ir
from connect_plan.errors import PlanError
from connect_plan.formats import load_plan
from connect_plan.formats.substrait import is_substrait, parse_substrait, parse_substrait_plan

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


def test_the_private_pool_coexists_with_pyspark(tmp_path: Any) -> None:
    """In a fresh interpreter (another test may have imported the `substrait` package, whose
    classes do live in the default pool): connect_plan's Substrait classes come from a private
    pool, leave the default pool without them, and PySpark's protos still load from it."""
    script = tmp_path / "pools.py"
    script.write_text(
        "from google.protobuf import descriptor_pool\n"
        "from connect_plan.formats.substrait.proto import message_class\n"
        "from pyspark.sql.connect import proto as pb\n"
        "cls = message_class('substrait.Plan')\n"
        "assert cls.DESCRIPTOR.file.pool is not descriptor_pool.Default()\n"
        "pb.Plan()\n"
        "try:\n"
        "    descriptor_pool.Default().FindMessageTypeByName('substrait.Plan')\n"
        "except KeyError:\n"
        "    print('private')\n"
        "else:\n"
        "    print('in the default pool')\n"
    )
    # from a file, not `python -c` (pyspark-client's dependency check wants a SPARK_HOME then)
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "private"


def test_cli_checks_a_binary_plan_with_tables(tmp_path: Any, capsys: Any) -> None:
    from connect_plan import cli

    path = tmp_path / "plan.pb"
    path.write_bytes(parse_substrait(old_style_plan()).SerializeToString())
    assert cli.main(["check", str(path), "--table", "t=/data/t.parquet", "--table", "u=db.u"]) == cli.EXIT_OK
    assert capsys.readouterr().out.strip() == "ok"
    assert cli.args.table_arg("T=/x/y.parquet") == ("T", {"files": ["/x/y.parquet"], "format": "parquet"})
    assert cli.args.table_arg("orders=db.orders") == ("orders", {"table": "db.orders"})


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


# ------------------------------------------------------------------ constructs (issue 15, second round)


def _root(input_rel: dict[str, Any], names: list[str], *extra: dict[str, Any]) -> dict[str, Any]:
    doc = old_style_plan()
    doc["relations"] = [*extra, {"root": {"input": input_rel, "names": names}}]
    return doc


def _project(rel: dict[str, Any], *exprs: dict[str, Any]) -> dict[str, Any]:
    return {"project": {"input": rel, "expressions": list(exprs)}}


def _errors(doc: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(doc)
    return list(zip(e.value.codes, e.value.locs))


T = read("t", ["k", "v"], [I64, STR])
P = "/relations/0/root/input/project/expressions/0"


def test_composite_literals_become_constructor_calls() -> None:
    lits = [
        {"literal": {"list": {"values": [{"i32": 1}, {"i32": 2}]}}},
        {"literal": {"emptyList": {"type": I64}}},
        {"literal": {"map": {"keyValues": [{"key": {"string": "a"}, "value": {"i32": 1}}]}}},
        {"literal": {"struct": {"fields": [{"i32": 1}, {"string": "x"}]}}},
        {"literal": {"binary": "AQI="}},
        {"literal": {"uuid": "ABEiM0RVZneImaq7zN3u/w=="}},
        {"literal": {"intervalYearToMonth": {"years": 1, "months": 2}}},
        {"literal": {"intervalDayToSecond": {"days": 3, "seconds": 4, "subseconds": "5000", "precision": 6}}},
        {"literal": {"intervalCompound": {"intervalDayToSecond": {"days": 5}}}},
    ]
    plan = parse_substrait_plan(_root(_project(T, *lits), ["k", "v", *[f"c{i}" for i in range(9)]]))
    exprs = [s.expr for s in plan.steps if isinstance(s, ir.WithColumn)]
    assert [e.fn if isinstance(e, ir.Call) else type(e).__name__ for e in exprs] == [
        "array",
        "Cast",
        "map_from_arrays",
        "named_struct",
        "unhex",
        "Lit",
        "make_ym_interval",
        "make_dt_interval",
        "make_interval",
    ]
    assert exprs[5] == ir.Lit("00112233-4455-6677-8899-aabbccddeeff", exprs[5].loc, ir_type("string"))
    assert exprs[7].args[3].value == "4.005000"  # type: ignore[union-attr]


def ir_type(name: str) -> Any:
    from connect_plan.types import Primitive

    return Primitive(name)


def test_wrong_composite_literals_are_located() -> None:
    errs = _errors(
        _root(
            _project(
                T,
                {"literal": {"uuid": "AAE="}},
                {"literal": {"intervalDayToSecond": {"seconds": 1, "subseconds": "1", "precision": 9}}},
                {"literal": {"emptyMap": {"key": STR, "value": {"userDefined": {"typeReference": 1}}}}},
            ),
            ["k", "v", "a", "b", "c"],
        )
    )
    assert errs == [
        ("substrait_invalid", "/relations/0/root/input/project/expressions/0/literal/uuid"),
        (
            "substrait_unsupported",
            "/relations/0/root/input/project/expressions/1/literal/intervalDayToSecond/subseconds",
        ),
        ("substrait_type", "/relations/0/root/input/project/expressions/2/literal/emptyMap/value/userDefined"),
    ]


def _nested_ref(i: int, segment: dict[str, Any]) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": i, "child": segment}}, "rootReference": {}}}


def test_nested_references_follow_the_known_struct_names() -> None:
    st = read("t", ["k", "st", "a", "b"], [I64, {"struct": {"types": [I64, STR]}}])
    plan = parse_substrait_plan(
        _root(_project(st, _nested_ref(1, {"structField": {"field": 1}})), ["k", "st", "a", "b", "x"])
    )
    step = next(s for s in plan.steps if isinstance(s, ir.WithColumn))
    assert isinstance(step.expr, ir.ExtractValue) and step.expr.key.value == "b"  # type: ignore[attr-defined]


def test_wrong_nested_references_are_located() -> None:
    errs = _errors(
        _root(
            _project(
                T,
                _nested_ref(1, {"structField": {"field": 0}}),  # v is a string: no known fields
                _nested_ref(0, {"listElement": {"offset": 0, "child": {}}}),
                {"nested": {"list": {}}},
            ),
            ["k", "v", "a", "b", "c"],
        )
    )
    loc = "/relations/0/root/input/project/expressions"
    assert errs == [
        ("substrait_unsupported", f"{loc}/0/selection/directReference/structField/child/structField"),
        ("substrait_invalid", f"{loc}/1/selection/directReference/structField/child/listElement/child"),
        ("substrait_invalid", f"{loc}/2/nested/list/values"),
    ]


def test_root_names_for_unknown_nested_fields_are_an_error() -> None:
    errs = _errors(_root(T, ["k", "v", "extra"]))
    assert errs == [("substrait_invalid", "/relations/0/root/names")]


def test_a_reference_rel_is_one_shared_plan() -> None:
    shared = {"rel": T}
    ref = {"reference": {"subtreeOrdinal": 0}}
    cross = {"cross": {"left": ref, "right": ref}}
    plan = parse_substrait_plan(_root(cross, ["a", "b", "c", "d"], shared))
    right = next(s for s in plan.steps if isinstance(s, ir.CrossJoin)).right
    assert isinstance(plan.source, ir.SharedPlan) and right.source is plan.source


def test_wrong_reference_rels_are_located() -> None:
    assert _errors(_root({"reference": {"subtreeOrdinal": 5}}, ["k"], {"rel": T})) == [
        ("substrait_field_index", "/relations/1/root/input/reference/subtreeOrdinal")
    ]
    assert _errors(_root({"reference": {"subtreeOrdinal": 1}}, ["k"], {"rel": T})) == [
        ("substrait_field_index", "/relations/1/root/input/reference/subtreeOrdinal")
    ]
    cycle = {"rel": {"filter": {"input": {"reference": {"subtreeOrdinal": 0}}, "condition": field(0)}}}
    assert _errors(_root({"reference": {"subtreeOrdinal": 0}}, ["k"], cycle)) == [
        ("substrait_invalid", "/relations/0/rel/filter/input/reference/subtreeOrdinal")
    ]


def test_wrong_set_comparisons_are_located() -> None:
    sub = {"subquery": {"setComparison": {"reductionOp": "REDUCTION_OP_ANY", "left": field(0), "right": T}}}
    errs = _errors(_root(_project(T, sub), ["k", "v", "q"]))
    loc = f"{P}/subquery/setComparison"
    assert errs == [("substrait_invalid", f"{loc}/comparisonOp")]
    sub["subquery"]["setComparison"]["comparisonOp"] = "COMPARISON_OP_LT"
    assert _errors(_root(_project(T, sub), ["k", "v", "q"])) == [("substrait_invalid", f"{loc}/right")]


def test_single_joins_and_unique_are_rewritten() -> None:
    join = {"join": {"left": T, "right": T, "expression": call(1, field(0), field(2)), "type": "JOIN_TYPE_SINGLE"}}
    plan = parse_substrait_plan(_root(join, ["a", "b", "c", "d"]))
    assert any(isinstance(s, ir.Join) and s.how == "left" for s in plan.steps)
    unique = {"subquery": {"setPredicate": {"predicateOp": "PREDICATE_OP_UNIQUE", "tuples": T}}}
    plan = parse_substrait_plan(_root(_project(T, unique), ["k", "v", "u"]))
    expr = next(s for s in plan.steps if isinstance(s, ir.WithColumn)).expr
    assert isinstance(expr, ir.Call) and expr.fn == "not" and isinstance(expr.args[0], ir.Subquery)


def _write(op: str, **extra: Any) -> dict[str, Any]:
    w = {
        "namedTable": {"names": ["out"]},
        "tableSchema": {"names": ["key", "name"], "struct": {"types": [I64, STR]}},
        "op": op,
        "input": T,
        **extra,
    }
    return _root({"write": w}, [])


def test_a_write_rel_becomes_the_plans_output() -> None:
    plan = parse_substrait_plan(_write("WRITE_OP_CTAS", createMode="CREATE_MODE_REPLACE_IF_EXISTS"))
    assert plan.output is not None and isinstance(plan.output, ir.Write)
    assert (plan.output.table, plan.output.method, plan.output.mode) == ("out", "save_as_table", "overwrite")
    plan = parse_substrait_plan(
        _write("WRITE_OP_INSERT"), tables={"out": {"files": ["/tmp/x.parquet"], "format": "parquet"}}
    )
    assert isinstance(plan.output, ir.Write)
    assert (plan.output.path, plan.output.format, plan.output.mode) == ("/tmp/x.parquet", "parquet", "append")


def test_a_policy_checks_a_write_rel() -> None:
    from connect_plan.policy import Policy

    plan = load_plan(_write("WRITE_OP_CTAS"))
    found = Policy.strict().replace(tables=("t",), require_limit=False).violations(plan)
    assert found and all("out" in str(v) or "write" in str(v).lower() for v in found), found


def test_wrong_write_rels_are_located() -> None:
    errs = _errors(_write("WRITE_OP_DELETE", output="OUTPUT_MODE_MODIFIED_RECORDS"))
    assert errs == [
        ("substrait_unsupported", "/relations/0/root/input/write/op"),
        ("substrait_unsupported", "/relations/0/root/input/write/output"),
    ]


# ------------------------------------------------------------------ last items (issue 15, third round)


def _lit(v: Any) -> dict[str, Any]:
    return {"literal": {"i64": v} if isinstance(v, int) else {"string": v}}


def test_multi_or_list_is_an_or_of_anded_equalities() -> None:
    multi = {
        "multiOrList": {
            "value": [field(0), field(1)],
            "options": [{"fields": [_lit(1), _lit("x")]}, {"fields": [_lit(2), _lit("y")]}],
        }
    }
    plan = parse_substrait_plan(_root(_project(T, multi), ["k", "v", "m"]))
    (e,) = [s.expr for s in plan.steps if isinstance(s, ir.WithColumn)]
    assert isinstance(e, ir.Call) and e.fn == "or"
    assert [a.fn for a in e.args] == ["and", "and"]  # type: ignore[union-attr]
    assert [c.fn for c in e.args[0].args] == ["==", "=="]  # type: ignore[union-attr]
    empty = parse_substrait_plan(_root(_project(T, {"multiOrList": {"value": [field(0)]}}), ["k", "v", "m"]))
    (f,) = [s.expr for s in empty.steps if isinstance(s, ir.WithColumn)]
    assert isinstance(f, ir.Lit) and f.value is False


def test_wrong_multi_or_lists_are_located() -> None:
    short = {
        "multiOrList": {
            "value": [field(0), field(1)],
            "options": [{"fields": [_lit(1), _lit("x")]}, {"fields": [_lit(2)]}],
        }
    }
    bad_field = {"multiOrList": {"value": [field(0)], "options": [{"fields": [field(9)]}]}}
    no_value = {"multiOrList": {"options": [{"fields": [_lit(1)]}]}}
    errs = _errors(_root(_project(T, short, bad_field, no_value), ["k", "v", "a", "b", "c"]))
    assert errs == [
        ("substrait_invalid", f"{P}/multiOrList/options/1/fields"),
        (
            "substrait_field_index",
            "/relations/0/root/input/project/expressions/1/multiOrList/options/0/fields/0/selection/directReference/structField/field",
        ),
        ("substrait_invalid", "/relations/0/root/input/project/expressions/2/multiOrList/value"),
    ]


def test_time_literals_and_types_say_spark_has_no_time_type() -> None:
    doc = _root(
        _project(
            T,
            {"literal": {"time": "1000"}},
            {"literal": {"precisionTime": {"precision": 6, "value": "1000"}}},
            {"cast": {"input": field(1), "type": {"precisionTime": {"precision": 3}}}},
        ),
        ["k", "v", "a", "b", "c"],
    )
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(doc)
    assert list(zip(e.value.codes, e.value.locs)) == [
        ("substrait_unsupported", f"{P}/literal/time"),
        ("substrait_unsupported", "/relations/0/root/input/project/expressions/1/literal/precisionTime"),
        ("substrait_type", "/relations/0/root/input/project/expressions/2/cast/type/precisionTime"),
    ]
    assert all("UNSUPPORTED_TIME_TYPE" in d.message for d in e.value.details)


def _ddl(**fields: Any) -> dict[str, Any]:
    ddl = {
        "namedObject": {"names": ["made"]},
        "tableSchema": {"names": ["a", "b"], "struct": {"types": [I64, STR]}},
        "object": "DDL_OBJECT_TABLE",
        "op": "DDL_OP_CREATE",
        **fields,
    }
    return _root({"ddl": ddl}, [])


def test_ddl_create_table_is_a_write_of_no_rows() -> None:
    plan = parse_substrait_plan(_ddl())
    assert isinstance(plan.source, ir.InlineData) and plan.source.table.num_rows == 0
    assert plan.output is not None
    assert (plan.output.table, plan.output.method, plan.output.mode) == ("made", "save_as_table", "error")
    (select,) = plan.steps
    assert isinstance(select, ir.Select) and [i.alias for i in select.items] == ["a", "b"]


def test_wrong_ddls_are_located() -> None:
    d = "/relations/0/root/input/ddl"
    assert _errors(_ddl(op="DDL_OP_DROP")) == [("substrait_unsupported", f"{d}/op")]
    assert _errors(_ddl(object="DDL_OBJECT_VIEW", op="DDL_OP_CREATE_OR_REPLACE")) == [
        ("substrait_unsupported", f"{d}/object"),
        ("substrait_unsupported", f"{d}/op"),
    ]
    assert _errors(_ddl(tableDefaults={"fields": [{"i64": "1"}, {"string": "x"}]})) == [
        ("substrait_unsupported", f"{d}/tableDefaults")
    ]
    bad_type = {"names": ["a"], "struct": {"types": [{"userDefined": {"typeReference": 1}}]}}
    assert _errors(_ddl(tableSchema=bad_type)) == [("substrait_type", f"{d}/tableSchema/struct/types/0/userDefined")]
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(_ddl(), tables={"made": {"files": ["/tmp/x.parquet"], "format": "parquet"}})
    assert list(zip(e.value.codes, e.value.locs)) == [("substrait_tables", f"{d}/namedObject")]


def test_interval_types_are_spark_intervals() -> None:
    from connect_plan.types import Primitive, spark_type_proto

    casts = [
        {"cast": {"input": {"literal": {"null": {"intervalYear": {}}}}, "type": {"intervalYear": {}}}},
        {"cast": {"input": field(1), "type": {"intervalDay": {"precision": 6}}}},
        {"literal": {"null": {"intervalCompound": {"precision": 6}}}},
    ]
    plan = parse_substrait_plan(_root(_project(T, *casts), ["k", "v", "a", "b", "c"]))
    exprs = [s.expr for s in plan.steps if isinstance(s, ir.WithColumn)]
    assert [e.to if isinstance(e, ir.Cast) else e.type for e in exprs] == [  # type: ignore[union-attr]
        Primitive("interval year to month"),
        Primitive("interval day to second"),
        Primitive("interval"),
    ]
    assert spark_type_proto(Primitive("interval day to second")).day_time_interval.end_field == 3
    assert spark_type_proto(Primitive("interval year to month")).year_month_interval.end_field == 1
    assert spark_type_proto(Primitive("interval")).HasField("calendar_interval")
    nanos = {"cast": {"input": field(1), "type": {"intervalDay": {"precision": 9}}}}
    assert _errors(_root(_project(T, nanos), ["k", "v", "a"])) == [
        ("substrait_type", f"{P}/cast/type/intervalDay/precision")
    ]
    interval_column = {"names": ["a"], "struct": {"types": [{"intervalDay": {"precision": 6}}]}}
    assert _errors(_ddl(tableSchema=interval_column)) == [
        ("substrait_unsupported", "/relations/0/root/input/ddl/tableSchema")
    ]
