"""Translator behaviour that golden files show only implicitly: identifier quoting, run
merging, join renames, depth limits, determinism. Proto shape only — every behaviour
here is also exercised against the real server in tests/integration."""

from __future__ import annotations

from typing import Any

import pytest

import connect_plan
from connect_plan import PlanError

SCHEMA = [("id", "bigint"), ("a.b", "string"), ("s", "struct<x:int>"), ("tick`", "int")]


def translate(plan: list[Any], schema: Any = SCHEMA) -> Any:
    return connect_plan.translate([], schema, plan).root


def attr(rel: Any) -> list[str]:
    return [e.unresolved_attribute.unparsed_identifier for e in rel.project.expressions]


def test_identifiers_quote_literal_dotted_names_only() -> None:
    root = translate([{"op": "select", "payload": ["id", "a.b", "s.x", "tick`", "`a.b`"]}])
    assert attr(root) == ["id", "`a.b`", "s.x", "`tick```", "`a.b`"]


def test_case_insensitive_known_name_is_quoted() -> None:
    root = translate([{"op": "select", "payload": ["A.B"]}])
    assert attr(root) == ["`A.B`"]


def test_filters_merge_into_one_relation() -> None:
    root = translate([{"op": "filter", "payload": {"op": "gt", "left": "id", "right": i}} for i in range(5)])
    assert root.WhichOneof("rel_type") == "filter"
    assert root.filter.input.WhichOneof("rel_type") == "local_relation"


def test_nondeterministic_filters_do_not_merge() -> None:
    rand = {"op": "lt", "left": {"fn": "rand", "args": [1]}, "right": 0.5}
    root = translate([{"op": "filter", "payload": rand}, {"op": "filter", "payload": rand}])
    assert root.filter.input.WhichOneof("rel_type") == "filter"


def test_independent_with_columns_merge_dependent_ones_do_not() -> None:
    wc = lambda name, e: {"op": "withColumn", "payload": {"name": name, "expr": e}}  # noqa: E731
    root = translate([wc("x", {"col": "id"}), wc("y", {"lit": 1}), wc("z", {"col": "x"}), wc("w", {"col": "id"})])
    assert [a.name[0] for a in root.with_columns.aliases] == ["z", "w"]
    assert [a.name[0] for a in root.with_columns.input.with_columns.aliases] == ["x", "y"]


def test_a_thousand_with_columns_stay_shallow() -> None:
    plan = [{"op": "withColumn", "payload": {"name": f"c{i}", "expr": {"lit": i}}} for i in range(1000)]
    root = translate(plan)
    assert len(root.with_columns.aliases) == 1000


def test_deep_plans_are_rejected_before_sending() -> None:
    plan = [{"op": "limit", "payload": {"n": 10_000 - i}} for i in range(600)]
    with pytest.raises(PlanError) as info:
        translate(plan)
    assert info.value.codes == ("plan_too_deep",)


def test_join_renames_only_colliding_non_keys() -> None:
    plan = [
        {
            "op": "join",
            "payload": {"other_data": [], "other_schema": [("id", "bigint"), ("S", "int"), ("new", "int")], "on": "id"},
        }
    ]
    root = translate(plan)
    right = root.join.right
    assert [(r.col_name, r.new_col_name) for r in right.with_columns_renamed.renames] == [("S", "S_right")]
    assert list(root.join.using_columns) == ["id"]


def test_rename_suffix_avoids_existing_names() -> None:
    schema = [("k", "int"), ("v", "int"), ("v_right", "int")]
    plan = [{"op": "join", "payload": {"other_data": [], "other_schema": [("k", "int"), ("v", "int")], "on": "k"}}]
    root = translate(plan, schema)
    assert [(r.col_name, r.new_col_name) for r in root.join.right.with_columns_renamed.renames] == [("v", "v_right_1")]


def test_join_after_unnamed_expression_needs_the_server() -> None:
    plan = [
        {"op": "select", "payload": ["id", {"fn": "upper", "args": ["a.b"]}]},
        {"op": "join", "payload": {"other_data": [], "other_schema": [("id", "bigint")], "on": "id"}},
    ]
    with pytest.raises(PlanError) as info:
        translate(plan)
    assert info.value.codes == ("needs_schema",)


def test_validate_leaves_server_side_names_to_the_server() -> None:
    # a table's columns are known only to the server: validate passes, translate (no client)
    # cannot emit the renames and says so; real errors around the join are still reported
    doc = {
        "input": {"schema": [{"name": "id", "type": "bigint"}], "rows": [[1]]},
        "plan": [{"op": "join", "payload": {"other": {"table": "t"}, "on": ["id"]}}],
    }
    connect_plan.validate(None, None, doc)
    with pytest.raises(PlanError) as info:
        connect_plan.translate(None, None, doc)
    assert info.value.codes == ("needs_schema",)
    bad = {**doc, "plan": [*doc["plan"], {"op": "limit", "payload": -1}]}
    with pytest.raises(PlanError) as info:
        connect_plan.validate(None, None, bad)
    assert info.value.codes == ("bad_count",)


def test_plan_ids_are_unique_and_deterministic() -> None:
    plan = [
        {"op": "join", "payload": {"other_data": [[1]], "other_schema": [("id", "bigint")], "on": "id"}},
        {"op": "orderBy", "payload": {"columns": ["id"]}},
    ]
    first = translate(plan)
    assert first.SerializeToString(deterministic=True) == translate(plan).SerializeToString(deterministic=True)
    ids: list[int] = []
    stack = [first]
    while stack:
        rel = stack.pop()
        ids.append(rel.common.plan_id)
        kind = rel.WhichOneof("rel_type")
        inner = getattr(rel, kind)
        for f in ("input", "left", "right"):
            if inner.DESCRIPTOR.fields_by_name.get(f) and inner.HasField(f):
                stack.append(getattr(inner, f))
    assert sorted(ids) == list(range(len(ids)))


def test_literal_typing_matches_pyspark() -> None:
    root = translate(
        [{"op": "select", "payload": [{"lit": 1}, {"lit": 2**31}, {"lit": 2**70}, {"lit": 1.0}, {"lit": None}]}]
    )
    kinds = [e.literal.WhichOneof("literal_type") for e in root.project.expressions]
    assert kinds == ["integer", "long", "decimal", "double", "null"]


def _definition_chain(levels: int, uses: int) -> dict[str, Any]:
    """``with`` definitions where each one uses the one before ``uses`` times."""
    defs: dict[str, Any] = {"r0": {"input": {"schema": [{"name": "x", "type": "int"}], "rows": [[1]]}, "plan": []}}
    for i in range(1, levels + 1):
        more = [{"op": "union", "payload": {"other": {"ref": f"r{i - 1}"}}} for _ in range(uses - 1)]
        defs[f"r{i}"] = {"input": {"ref": f"r{i - 1}"}, "plan": [{"op": "limit", "payload": 5}, *more]}
    return {"with": defs, "input": {"ref": f"r{levels}"}, "plan": []}


def test_shared_sub_plans_that_double_at_every_level_are_bounded() -> None:
    # each use is copied into the proto: 20 doubling levels would be ~360 MB of relations
    with pytest.raises(PlanError) as info:
        connect_plan.translate(None, None, _definition_chain(20, 2))
    assert info.value.codes == ("plan_too_large",)
    assert "steps; connect_plan stops at 100,000" in str(info.value)
    small = connect_plan.translate(None, None, _definition_chain(8, 2))  # 2**8 uses of r0: fine
    assert str(small).count("local_relation") == 2**8


def test_long_reference_chains_are_too_deep_not_a_recursion_error() -> None:
    with pytest.raises(PlanError) as info:
        connect_plan.translate(None, None, _definition_chain(1500, 1))
    assert info.value.codes == ("too_deep",)
    assert info.value.details[0].loc.startswith("/with/r")
    connect_plan.translate(None, None, _definition_chain(40, 1))


# ---------------------------------------------------------------- static types (get, generators)

MAPS = [
    ("id", "bigint"),
    ("m", "map<int,string>"),
    ("arr", "array<int>"),
    ("st", "array<struct<a:int,b:string>>"),
    ("one", "array<struct<a:int>>"),
]


def _get_kind(plan: list[Any]) -> str:
    """How the last select's first item reads: 'map' (x[key]) or 'array' (Spark's get)."""
    root = translate(plan, MAPS)
    expr = root.project.expressions[0].alias.expr
    if expr.WhichOneof("expr_type") == "unresolved_extract_value":
        return "map"
    assert expr.unresolved_function.function_name == "get"
    return "array"


def _get(arg: Any, key: Any = 1) -> dict[str, Any]:
    return {"op": "select", "payload": [{"name": "g", "expr": {"fn": "get", "args": [arg, key]}}]}


@pytest.mark.parametrize(
    "steps,arg,kind",
    [
        ([], "m", "map"),
        ([], "arr", "array"),
        ([], "M", "map"),  # names are case-insensitive
        ([{"op": "withColumnRenamed", "payload": {"old": "m", "new": "mm"}}], "mm", "map"),
        (
            [
                {"op": "filter", "payload": {"op": "gt", "left": "id", "right": 0}},
                {"op": "orderBy", "payload": {"columns": ["id"]}},
                {"op": "limit", "payload": {"n": 3}},
                {"op": "drop", "payload": {"columns": ["arr"]}},
            ],
            "m",
            "map",
        ),
        ([{"op": "select", "payload": ["id", "m", {"name": "m2", "expr": "m"}]}], "m2", "map"),
        (
            [{"op": "withColumn", "payload": {"name": "c", "expr": {"fn": "cast", "args": ["arr", "map<int,int>"]}}}],
            "c",
            "map",
        ),
        ([{"op": "withColumn", "payload": {"name": "m", "expr": "arr"}}], "m", "array"),  # replaced by an array
        (
            [{"op": "withColumn", "payload": {"name": "m", "expr": {"fn": "upper", "args": ["id"]}}}],
            "m",
            "array",
        ),  # unknown now
        ([], {"fn": "create_map", "args": [1, "id"]}, "map"),
        ([], {"fn": "map_from_arrays", "args": ["arr", "arr"]}, "map"),
        (
            [
                {
                    "op": "groupBy",
                    "payload": {"group_by": ["id"], "aggs": [{"agg": "first", "column": "m", "alias": "m"}]},
                }
            ],
            "m",
            "array",
        ),
    ],
)
def test_get_with_an_integer_key_is_a_map_lookup_when_the_map_is_known(steps: list[Any], arg: Any, kind: str) -> None:
    """Types are known for inline columns through steps that keep them; elsewhere Spark's get."""
    assert _get_kind([*steps, _get(arg)]) == kind


def test_get_with_a_string_key_is_always_a_map_lookup() -> None:
    assert _get_kind([_get("arr", {"lit": "k"})]) == "map"


@pytest.mark.parametrize(
    "fn,args,bad",
    [
        ("posexplode", ["arr"], True),
        ("posexplode_outer", ["m"], True),
        ("inline", ["st"], True),
        ("inline_outer", ["st"], True),
        ("inline", ["one"], False),
        ("explode", ["m"], True),
        ("explode", ["arr"], False),
        ("explode_outer", ["arr"], False),
        ("stack", [2, "id", "id", "id", "id"], True),
        ("stack", [2, "id", "id"], False),
        ("stack", [1, "id"], False),
        ("json_tuple", [{"lit": "{}"}, "a", "b"], True),
        ("json_tuple", [{"lit": "{}"}, "a"], False),
        ("inline", [{"fn": "array", "args": [{"fn": "named_struct", "args": ["x", 1, "y", 2]}]}], True),
        ("inline", [{"fn": "array", "args": [{"fn": "struct", "args": ["id"]}]}], False),
        ("explode", [{"fn": "create_map", "args": [1, 2]}], True),
    ],
)
def test_multi_column_generators_under_one_name_are_refused(fn: str, args: list[Any], bad: bool) -> None:
    for step in (
        {"op": "withColumn", "payload": {"name": "g", "expr": {"fn": fn, "args": args}}},
        {"op": "select", "payload": ["id", {"name": "g", "expr": {"fn": fn, "args": args}}]},
    ):
        if not bad:
            translate([step], MAPS)
            continue
        with pytest.raises(PlanError) as info:
            translate([step], MAPS)
        where = "/plan/0/payload/expr" if step["op"] == "withColumn" else "/plan/0/payload/1/expr"
        assert [(d.code, d.loc) for d in info.value.details] == [("generator_columns", where)]


def test_generators_with_several_names_or_none_are_fine() -> None:
    translate(
        [{"op": "select", "payload": ["id", {"name": ["p", "v"], "expr": {"fn": "posexplode", "args": ["arr"]}}]}], MAPS
    )
    translate([{"op": "select", "payload": ["id", {"fn": "posexplode", "args": ["arr"]}]}], MAPS)
    # unknown types (a table's columns): left to the server
    connect_plan.translate(
        None,
        None,
        {
            "input": {"table": "t"},
            "plan": [{"op": "withColumn", "payload": {"name": "g", "expr": {"fn": "inline", "args": ["st"]}}}],
        },
    )


@pytest.mark.parametrize(
    "name,identifier",
    [
        ("plain", "plain"),
        ("sp ace", "sp ace"),
        ("a.b", "a.b"),
        ("`a.b`", "`a.b`"),
        ("a.`b`.c", "a.b.c"),
        ("x`y", "`x``y`"),
        ("`wrapped`", "wrapped"),
        ("```wrapped```", "```wrapped```"),
        ("`a``b`", "`a``b`"),
        ("s.`g.h`", "s.`g.h`"),
        ("a`.b", "`a```.b"),
        ("`unclosed", "```unclosed`"),
        ("a..b", "a.``.b"),
    ],
)
def test_names_of_unknown_columns_keep_pysparks_meaning_with_every_part_quoted(name: str, identifier: str) -> None:
    """Table columns are unknown: a name means what it means to PySpark (dots are paths,
    backticks quote); each part is re-quoted, and text Spark refuses is the literal name."""
    root = connect_plan.translate(
        None, None, {"input": {"table": "t"}, "plan": [{"op": "select", "payload": [{"col": name}]}]}
    ).root
    assert attr(root) == [identifier]


# ------------------------------------------------------------------ analysis: the resolver seam, checks collected


def _analysed(plan: list[Any], **kwargs: Any) -> Any:
    from connect_plan.formats import load_plan
    from connect_plan.translator import translate_ir

    return translate_ir(load_plan(plan, [], SCHEMA), **kwargs)


def test_the_resolver_is_asked_for_the_names_of_the_input_so_far() -> None:
    asked: list[Any] = []

    def resolver(rel: Any, local: Any) -> list[str]:
        asked.append(rel)
        return ["id", "S", "upper(a.b)"]

    plan = [
        {"op": "select", "payload": ["id", "s", {"fn": "upper", "args": ["a.b"]}]},
        {"op": "join", "payload": {"other_data": [], "other_schema": [("id", "bigint"), ("s", "int")], "on": "id"}},
    ]
    tr = _analysed(plan, resolver=resolver)
    # one question, about the select over the input (the right side's names are known)
    assert [r.WhichOneof("rel_type") for r in asked] == ["project"]
    assert asked[0].project.input.WhichOneof("rel_type") == "local_relation"
    renames = tr.plan.root.join.right.with_columns_renamed.renames
    assert [(r.col_name, r.new_col_name) for r in renames] == [("s", "s_right")]
    assert tr.columns == ("id", "S", "upper(a.b)", "s_right")


def test_a_shared_sub_plan_is_asked_about_once_for_every_use() -> None:
    asked: list[Any] = []

    def resolver(rel: Any, local: Any) -> list[str]:
        asked.append(rel)
        return ["store", "n"]

    doc = {
        "with": {"t": {"input": {"table": "stores"}, "plan": [{"op": "filter", "payload": {"col": "n"}}]}},
        "input": {"ref": "t"},
        "plan": [
            {"op": "join", "payload": {"other": {"ref": "t"}, "on": ["store"]}},
            {"op": "join", "payload": {"other": {"ref": "t"}, "on": ["store"]}},
        ],
    }
    from connect_plan.formats import load_plan
    from connect_plan.translator import translate_ir

    tr = translate_ir(load_plan(doc, None, None), resolver=resolver)
    assert len(asked) == 1 and asked[0].WhichOneof("rel_type") == "filter"
    assert tr.columns == ("store", "n", "n_right", "n_right_1")


def test_struct_field_names_are_checked_with_every_other_problem() -> None:
    with_field = {"fn": "with_field", "args": ["s", {"col": "id"}, 1]}
    plan = [
        {"op": "withColumn", "payload": {"name": "t", "expr": with_field}},
        {"op": "drop", "payload": {"columns": ["nope"]}},
    ]
    with pytest.raises(PlanError) as info:
        translate(plan)
    assert info.value.codes == ("literal_expected", "unknown_column")
    assert info.value.locs[0] == "/plan/0/payload/expr/args/1/col"


def test_udf_calls_are_checked_with_every_other_problem() -> None:
    from pyspark.sql.connect import proto as pb

    from connect_plan.translator.expressions import InlineUdf

    scalar = InlineUdf("plus_one", pb.PythonUDF(), deterministic=True, aggregate=False)
    agg = {"agg": "python_grouped_udf", "udf": "plus_one", "args": ["id"], "alias": "p"}
    plan = [
        {"op": "groupBy", "payload": {"group_by": ["id"], "aggs": [agg]}},
        {"op": "drop", "payload": {"columns": ["nope"]}},
    ]
    with pytest.raises(PlanError) as info:
        _analysed(plan, udfs={"plus_one": scalar})
    assert info.value.codes == ("udf_kind", "unknown_column")
    # registered UDFs travel inline (in the expression context, not in global state)
    tr = _analysed([{"op": "select", "payload": [{"udf": "PLUS_ONE", "args": ["id"]}]}], udfs={"plus_one": scalar})
    assert tr.plan.root.project.expressions[0].common_inline_user_defined_function.function_name == "plus_one"
    unregistered = _analysed([{"op": "select", "payload": [{"udf": "plus_one", "args": ["id"]}]}])
    assert unregistered.plan.root.project.expressions[0].call_function.function_name == "plus_one"


def test_every_join_kind_has_a_spark_join_type() -> None:
    from connect_plan import ir

    for how in ir.JOIN_KINDS:
        plan = [
            {"op": "join", "payload": {"other_data": [], "other_schema": [("id", "bigint")], "on": "id", "how": how}}
        ]
        assert translate(plan).join.join_type != 0, how


@pytest.mark.parametrize(
    ("doc", "files"),
    [
        ({"input": {"rows": [[1]], "schema": [["a", "int"]]}, "plan": [{"op": "limit", "payload": {"n": 1}}]}, False),
        ({"input": {"table": "t"}, "plan": []}, False),
        ({"input": {"sql": "SELECT 1 AS a"}, "plan": []}, False),
        ({"input": {"files": "data/x.parquet", "format": "parquet"}, "plan": []}, True),
        (
            {
                "input": {"rows": [[1]], "schema": [["a", "int"]]},
                "plan": [
                    {
                        "op": "join",
                        "payload": {"other": {"input": {"files": "y.csv", "format": "csv"}, "plan": []}, "on": ["a"]},
                    }
                ],
            },
            True,
        ),
        (
            {
                "input": {"rows": [[1]], "schema": [["a", "int"]]},
                "plan": [{"op": "write", "payload": {"path": "out", "format": "parquet"}}],
            },
            True,
        ),
    ],
    ids=["rows", "table", "sql", "files", "joined-files", "write"],
)
def test_a_translation_says_whether_the_plan_names_files(doc: dict[str, Any], files: bool) -> None:
    """The executor makes relative paths absolute for the local server only when the plan
    names files (client/paths.py walks the protos otherwise for nothing)."""
    from connect_plan.formats import load_plan
    from connect_plan.translator import translate_ir

    # a join input's names are asked of the server: here a resolver answers for it
    tr = translate_ir(load_plan(doc), resolver=lambda relation, local=(): ["a"])
    assert tr.files is files
    has_paths = (
        bool(tr.plan.root.read.data_source.paths) or "write_operation" in str(tr.plan) or "data_source" in str(tr.plan)
    )
    assert has_paths is files
