"""Parsing and translation of the expression language without a server: literal slots,
arity, lambdas, conditionals, windows, UDF calls, and the errors (code + JSON location)
raised before any network call."""

from __future__ import annotations

from typing import Any

import pytest
from pyspark.sql.connect import proto as pb

from connect_plan import ir
from connect_plan.errors import PlanError
from connect_plan.formats.json_plan import parse_plan
from connect_plan.translator import translate_ir
from connect_plan.udf import make_inline_udf

SCHEMA = [("id", "bigint"), ("s", "string"), ("x", "double"), ("arr", "array<bigint>"), ("ts", "timestamp")]


def parse_expr(expr: Any) -> ir.Expr:
    plan = parse_plan([], SCHEMA, [{"op": "select", "payload": [{"name": "r", "expr": expr}]}])
    step = plan.steps[0]
    assert isinstance(step, ir.Select)
    return step.items[0].expr


def proto_of(expr: Any, udfs: Any = None, schema: Any = SCHEMA) -> pb.Expression:
    plan = parse_plan([], schema, [{"op": "select", "payload": [{"name": "r", "expr": expr}]}])
    rel = translate_ir(plan, udfs=udfs).plan.root
    return rel.project.expressions[0].alias.expr


def errors_of(expr: Any) -> list[tuple[str, str]]:
    with pytest.raises(PlanError) as info:
        parse_plan([], SCHEMA, [{"op": "select", "payload": [{"name": "r", "expr": expr}]}])
    return [(d.code, d.loc) for d in info.value.details]


E = "/plan/0/payload/0/expr"

# ------------------------------------------------------------------ slots


def test_bare_string_is_a_column_in_expression_slots_and_a_string_in_literal_slots() -> None:
    e = parse_expr({"fn": "concat_ws", "args": ["-", "s", "id"]})
    assert isinstance(e, ir.Call)
    assert e.args[0] == ir.Lit("-", f"{E}/args/0")
    assert e.args[1] == ir.Col("s", f"{E}/args/1")


def test_literal_slots_take_bare_values_lit_objects_and_expressions() -> None:
    for arg in (2, {"lit": 2}):
        e = parse_expr({"fn": "round", "args": ["x", arg]})
        assert isinstance(e, ir.Call) and isinstance(e.args[1], ir.Lit) and e.args[1].value == 2
    e = parse_expr({"fn": "round", "args": ["x", {"col": "id"}]})
    assert isinstance(e, ir.Call) and e.args[1] == ir.Col("id", f"{E}/args/1/col")


def test_array_literal_in_a_literal_slot() -> None:
    e = parse_expr({"fn": "percentile_approx", "args": ["x", [0.25, 0.75]]})
    assert isinstance(e, ir.Call) and isinstance(e.args[1], ir.Call) and e.args[1].fn == "array"
    assert [a.value for a in e.args[1].args if isinstance(a, ir.Lit)] == [0.25, 0.75]


def test_pyspark_fill_values_for_omitted_optional_arguments() -> None:
    e = parse_expr({"fn": "locate", "args": ["o", "s"]})
    assert isinstance(e, ir.Call) and [type(a).__name__ for a in e.args] == ["Lit", "Col", "Lit"]
    assert isinstance(e.args[2], ir.Lit) and e.args[2].value == 1
    # no fill past a missing argument that has no default
    e = parse_expr({"fn": "unix_timestamp", "args": []})
    assert isinstance(e, ir.Call) and e.args == ()


def test_options_map_slot() -> None:
    p = proto_of({"fn": "from_json", "args": ["s", "a INT", {"mode": "FAILFAST", "allowComments": True}]})
    options = p.unresolved_function.arguments[2].unresolved_function
    assert options.function_name == "map"
    assert [a.literal.string for a in options.arguments] == ["mode", "FAILFAST", "allowComments", "true"]


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ({"fn": "round", "args": ["x", "two"]}, [("literal_expected", f"{E}/args/1")]),
        ({"fn": "round", "args": ["x", 1.5]}, [("literal_expected", f"{E}/args/1")]),
        ({"fn": "regexp_extract", "args": ["s", "(a)", -1]}, [("literal_expected", f"{E}/args/2")]),
        ({"fn": "round", "args": ["x", 1, 2]}, [("arity", f"{E}/args")]),
        ({"fn": "named_struct", "args": ["a", "x", "b"]}, [("arity", f"{E}/args")]),
        ({"fn": "upper"}, [("missing_key", f"{E}/args")]),
        ({"fn": "uper", "args": ["s"]}, [("unknown_function", f"{E}/fn")]),
        ({"fn": "desc", "args": ["s"]}, [("sort_order", f"{E}/fn")]),
        ({"fn": "from_json", "args": ["s", "a INT", "mode=FAILFAST"]}, [("options_expected", f"{E}/args/2")]),
        ({"fn": "call_udf", "args": [{"col": "s"}, "id"]}, [("literal_expected", f"{E}/args/0/col")]),
        ({"fn": "cast", "args": ["x", "integr"]}, [("unknown_type", f"{E}/args/1")]),
        ({"fn": "extract", "args": ["ts", {"col": "id"}]}, [("literal_expected", f"{E}/args")]),
    ],
)
def test_argument_errors(expr: Any, expected: list[tuple[str, str]]) -> None:
    assert errors_of(expr) == expected


# ------------------------------------------------------------------ lambdas


def lam(params: Any, body: Any) -> dict[str, Any]:
    return {"lambda": {"params": params, "body": body}}


def test_lambda_parameters_shadow_columns_and_outer_columns_stay_columns() -> None:
    e = parse_expr({"fn": "transform", "args": ["arr", lam(["x"], {"op": "+", "left": "x", "right": "id"})]})
    assert isinstance(e, ir.Call) and isinstance(e.args[1], ir.Lambda)
    body = e.args[1].body
    assert isinstance(body, ir.Call)
    assert isinstance(body.args[0], ir.LambdaVar) and isinstance(body.args[1], ir.Col)


def test_lambda_proto_shape() -> None:
    p = proto_of({"fn": "filter", "args": ["arr", lam(["v"], {"op": "gt", "left": {"var": "v"}, "right": 1})]})
    fn = p.unresolved_function
    assert fn.function_name == "filter"
    lf = fn.arguments[1].lambda_function
    assert [a.name_parts[0] for a in lf.arguments] == ["v"]
    assert lf.function.unresolved_function.arguments[0].unresolved_named_lambda_variable.name_parts == ["v"]


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        (
            {"fn": "transform", "args": ["arr", lam(["a", "b", "c"], "a")]},
            [("lambda_arity", f"{E}/args/1/lambda/params")],
        ),
        (
            {"fn": "transform", "args": ["arr", lam(["a", "A"], "a")]},
            [("lambda_params", f"{E}/args/1/lambda/params/1")],
        ),
        ({"fn": "transform", "args": ["arr", lam(["a.b"], 1)]}, [("lambda_params", f"{E}/args/1/lambda/params/0")]),
        (
            {"fn": "transform", "args": ["arr", {"lambda": {"body": 1}}]},
            [("lambda_expected", f"{E}/args/1/lambda/params")],
        ),
        ({"fn": "transform", "args": ["arr", "x"]}, [("lambda_expected", f"{E}/args/1")]),
        (
            {"fn": "transform", "args": ["arr", lam(["x"], {"var": "y"})]},
            [("lambda_var", f"{E}/args/1/lambda/body/var")],
        ),
        ({"fn": "upper", "args": [lam(["x"], "x")]}, [("lambda_not_allowed", f"{E}/args/0")]),
        ({"var": "x"}, [("lambda_var", f"{E}/var")]),
    ],
)
def test_lambda_errors(expr: Any, expected: list[tuple[str, str]]) -> None:
    assert errors_of(expr) == expected


# ------------------------------------------------------------------ conditionals and mappings


def test_when_forms() -> None:
    two = parse_expr({"fn": "when", "args": ["b", 1]})
    assert isinstance(two, ir.When) and two.otherwise is None
    chain = parse_expr({"fn": "when", "args": ["b", 1, "c", 2, 3]})
    assert isinstance(chain, ir.When) and len(chain.branches) == 2 and chain.otherwise is not None
    keyed = parse_expr({"fn": "when", "args": ["b", 1], "otherwise": 0})
    nested = parse_expr({"fn": "otherwise", "args": [{"fn": "when", "args": ["b", 1]}, 0]})
    assert isinstance(keyed, ir.When) and isinstance(nested, ir.When)
    assert keyed.branches == nested.branches[:1] or keyed.otherwise == ir.Lit(0, f"{E}/otherwise")


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        ({"fn": "otherwise", "args": ["s", 0]}, [("otherwise_target", E)]),
        ({"fn": "when", "args": ["b", 1, 2], "otherwise": 0}, [("otherwise_twice", f"{E}/otherwise")]),
        ({"fn": "upper", "args": ["s"], "otherwise": 0}, [("otherwise_target", f"{E}/otherwise")]),
    ],
)
def test_otherwise_errors(expr: Any, expected: list[tuple[str, str]]) -> None:
    assert errors_of(expr) == expected


def test_robin_and_pyspark_argument_orders_mean_the_same() -> None:
    robin = proto_of({"fn": "extract", "args": ["ts", "year"]})
    pyspark = proto_of({"fn": "extract", "args": [{"lit": "YEAR"}, "ts"]})
    assert robin.unresolved_function.arguments[1] == pyspark.unresolved_function.arguments[1]
    assert proto_of({"fn": "log", "args": ["x", 2]}) == proto_of({"fn": "log", "args": [2, "x"]})


def test_get_is_array_access_with_an_index_and_a_map_lookup_otherwise() -> None:
    assert proto_of({"fn": "get", "args": ["arr", 0]}).unresolved_function.function_name == "get"
    with_map = [*SCHEMA, ("m", "map<string,bigint>")]
    assert proto_of({"fn": "get", "args": ["m", {"lit": "k"}]}, schema=with_map).HasField("unresolved_extract_value")


def test_array_sort_forms() -> None:
    assert proto_of({"fn": "array_sort", "args": ["arr"]}).unresolved_function.function_name == "sort_array"
    assert (
        proto_of({"fn": "array_sort", "args": ["arr", {"lit": False}]}).unresolved_function.arguments[1].literal.boolean
        is False
    )
    cmp = proto_of({"fn": "array_sort", "args": ["arr", lam(["l", "r"], 0)]})
    assert cmp.unresolved_function.function_name == "array_sort"
    assert cmp.unresolved_function.arguments[1].HasField("lambda_function")


def test_count_star_is_count_one() -> None:
    p = proto_of({"fn": "count", "args": ["*"]})
    assert p.unresolved_function.arguments[0].literal.integer == 1


def test_update_fields_and_call_function_protos() -> None:
    p = proto_of({"fn": "drop_fields", "args": ["st", "a", "b"]}, schema=[*SCHEMA, ("st", "struct<a:int,b:int,c:int>")])
    assert p.update_fields.field_name == "b"
    assert p.update_fields.struct_expression.update_fields.field_name == "a"
    assert not p.update_fields.HasField("value_expression")
    p = proto_of({"fn": "call_function", "args": ["my_fn", "id"]})
    assert p.call_function.function_name == "my_fn" and len(p.call_function.arguments) == 1


# ------------------------------------------------------------------ windows


def test_window_frames_as_pyspark_sends_them() -> None:
    rows = proto_of(
        {"fn": "sum", "args": ["x"], "window": {"order_by": ["id"], "rows_between": [-1, "currentRow"]}}
    ).window
    assert rows.frame_spec.frame_type == pb.Expression.Window.WindowFrame.FRAME_TYPE_ROW
    assert rows.frame_spec.lower.value.literal.integer == -1 and rows.frame_spec.upper.current_row
    rng = proto_of({"fn": "sum", "args": ["x"], "window": {"order_by": ["id"], "rangeBetween": [None, 5]}}).window
    assert rng.frame_spec.frame_type == pb.Expression.Window.WindowFrame.FRAME_TYPE_RANGE
    assert rng.frame_spec.lower.unbounded and rng.frame_spec.upper.value.literal.long == 5


def test_ranking_default_order_is_the_partition_columns() -> None:
    w = parse_expr({"fn": "rank", "window": {"partition_by": ["s", "id"]}})
    assert isinstance(w, ir.Window)
    assert [k.expr for k in w.order_by] == list(w.partition_by)
    agg = parse_expr({"fn": "sum", "args": ["x"], "window": {"partition_by": ["s"]}})
    assert isinstance(agg, ir.Window) and agg.order_by == ()


# ------------------------------------------------------------------ UDFs


def test_registered_udfs_go_inline_others_to_the_server() -> None:
    udf = make_inline_udf("plus", lambda v: v + 1, "bigint")
    inline = proto_of({"udf": "plus", "args": ["id"]}, udfs={"plus": udf})
    f = inline.common_inline_user_defined_function
    assert f.function_name == "plus" and f.deterministic and f.python_udf.eval_type == 100
    assert f.python_udf.output_type.HasField("long") and f.python_udf.command
    other = proto_of({"op": "udf", "name": "server_fn", "args": ["id"]}, udfs={"plus": udf})
    assert other.call_function.function_name == "server_fn"


def test_select_alias_list_for_multi_column_generators() -> None:
    plan = parse_plan(
        [], SCHEMA, [{"op": "select", "payload": [{"name": ["p", "v"], "expr": {"fn": "posexplode", "args": ["arr"]}}]}]
    )
    proto = translate_ir(plan).plan.root.project.expressions[0]
    assert list(proto.alias.name) == ["p", "v"]
