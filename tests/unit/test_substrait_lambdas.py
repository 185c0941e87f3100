"""Substrait lambdas (Expression.Lambda, lambda parameter references) → IR lambdas, and the spec's
list functions that take them → Spark's higher-order functions; every malformed reference a
located PlanError, all at once, before any network call. On Spark:
tests/integration/test_substrait_conformance.py (the spec's cases, and PySpark's answer)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from connect_plan import ir
from connect_plan.errors import PlanError
from connect_plan.formats.substrait import parse_substrait_plan
from connect_plan.types import Primitive
from tests import substrait_lambda_plans as lp
from tests import substrait_testcases as st

EXPR = "/relations/0/root/input/project/expressions"


def _expr(plan: ir.Plan, k: int = 0) -> ir.Expr:
    return plan.steps[k].expr  # type: ignore[attr-defined, no-any-return]


def _errors(plan: dict[str, Any]) -> list[tuple[str, str, str]]:
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(plan)
    return [(d.code, d.loc, d.message) for d in e.value.details]


def test_transform_becomes_sparks_transform_with_a_lambda() -> None:
    out = _expr(parse_substrait_plan(lp.plan(lp.doubled())))
    assert isinstance(out, ir.Call) and out.fn == "transform"
    arr, f = out.args
    assert isinstance(arr, ir.Col)
    assert isinstance(f, ir.Lambda) and len(f.params) == 1
    assert isinstance(f.body, ir.Call) and f.body.fn == "*"
    assert f.body.args[0] == ir.LambdaVar(f.params[0], f.body.args[0].loc)  # type: ignore[attr-defined]


def test_any_match_is_kleene_or_without_sparks_exists() -> None:
    # not(forall(x -> not p(x))): NULL where no element matches and one is NULL, whatever the
    # server's spark.sql.legacy.followThreeValuedLogicInArrayExists says
    out = _expr(parse_substrait_plan(lp.plan(lp.any_above(2))))
    assert isinstance(out, ir.Call) and out.fn == "not"
    (inner,) = out.args
    assert isinstance(inner, ir.Call) and inner.fn == "forall"
    f = inner.args[1]
    assert isinstance(f, ir.Lambda) and isinstance(f.body, ir.Call) and f.body.fn == "not"
    assert "exists" not in repr(out)


def test_all_match_is_forall() -> None:
    out = _expr(parse_substrait_plan(lp.plan(lp.all_above(0))))
    assert isinstance(out, ir.Call) and out.fn == "forall"


def test_nested_lambdas_name_the_enclosing_parameter_steps_out_levels_up() -> None:
    out = _expr(parse_substrait_plan(lp.plan(lp.nested_three_deep())))
    assert isinstance(out, ir.Call) and out.fn == "transform"
    outer = out.args[1]
    assert isinstance(outer, ir.Lambda)
    (x,) = outer.params
    keep = outer.body
    assert isinstance(keep, ir.Call) and keep.fn == "filter"
    middle = keep.args[1]
    assert isinstance(middle, ir.Lambda)
    (y,) = middle.params
    match = middle.body  # not(forall(x, z -> not(z > y)))
    assert isinstance(match, ir.Call) and match.fn == "not"
    forall = match.args[0]
    assert isinstance(forall, ir.Call) and forall.fn == "forall"
    assert isinstance(forall.args[0], ir.LambdaVar) and forall.args[0].name == x  # steps_out 1
    inner = forall.args[1]
    assert isinstance(inner, ir.Lambda)
    (z,) = inner.params
    cmp = inner.body.args[0]  # type: ignore[attr-defined]
    assert [a.name for a in cmp.args] == [z, y]  # z: steps_out 0, y: steps_out 1
    assert len({x, y, z}) == 3


def test_a_lambda_reads_the_rows_columns() -> None:
    out = _expr(parse_substrait_plan(lp.plan(lp.above_k())))
    f = out.args[1]  # type: ignore[attr-defined]
    assert isinstance(f, ir.Lambda)
    assert isinstance(f.body.args[1], ir.Col)  # type: ignore[attr-defined]


def test_bad_parameter_references_are_located_all_at_once() -> None:
    outside = lp.call("gt:i32_i32", lp.param(), lp.i32(0), output="bool?")  # no lambda around it
    body = lp.call("gt:i32_i32", lp.param(0, 1), lp.param(3), output="bool?")  # one lambda: 1 out; 1 param: #3
    too_far = lp.call("all_match:list_func", lp.column(1), lp.lam(body, "i32?"), output="bool?")
    errors = _errors(lp.plan(outside, too_far))
    fn = "scalarFunction/arguments"
    assert errors == [
        (
            "substrait_field_index",
            f"{EXPR}/0/{fn}/0/value/selection/lambdaParameterReference",
            "a lambda parameter reference outside any lambda",
        ),
        (
            "substrait_field_index",
            f"{EXPR}/1/{fn}/1/value/lambda/body/{fn}/0/value/selection/lambdaParameterReference/stepsOut",
            "a lambda parameter reference 1 lambdas out, inside 1 lambda (0 is the innermost)",
        ),
        (
            "substrait_field_index",
            f"{EXPR}/1/{fn}/1/value/lambda/body/{fn}/1/value/selection/directReference/structField/field",
            "parameter 3 of a lambda of 1 parameter",
        ),
    ]


def test_a_lambda_outside_a_higher_order_function_is_refused() -> None:
    body = lp.call("gt:i32_i32", lp.param(), lp.i32(0), output="bool?")
    as_column = lp.lam(body, "i32")
    as_add_argument = lp.call("add:i32_i32", lp.column(0), lp.lam(body, "i32"), output="i32")
    as_list_argument = lp.call("transform:list_func", lp.lam(body, "i32"), lp.lam(body, "i32"), output="list<i32>")
    errors = _errors(lp.plan(as_column, as_add_argument, as_list_argument))
    locs = [loc for _, loc, _ in errors]
    assert locs == [
        f"{EXPR}/0/lambda",
        f"{EXPR}/1/scalarFunction/arguments/1/value/lambda",
        f"{EXPR}/2/scalarFunction/arguments/0/value/lambda",
    ]
    assert all("a lambda stands only as the function argument" in m for _, _, m in errors)


def test_a_two_parameter_lambda_and_a_non_lambda_are_refused_by_name() -> None:
    body = lp.call("gt:i32_i32", lp.param(0), lp.param(1), output="bool?")
    two = lp.call("filter:list_func", lp.column(1), lp.lam(body, "i32?", "i32"), output="list?<i32?>")
    column = lp.call("transform:list_func", lp.column(1), lp.column(0), output="list?<i32?>")
    errors = _errors(lp.plan(two, column))
    assert errors == [
        (
            "substrait_function",
            f"{EXPR}/0/scalarFunction/arguments/1/value/lambda/parameters",
            "filter takes a lambda of one parameter (the element), this one has 2",
        ),
        (
            "substrait_function",
            f"{EXPR}/1/scalarFunction/arguments/1",
            "transform's second argument must be a lambda (Expression.Lambda)",
        ),
    ]


def test_a_null_function() -> None:
    """The spec's ``null::func<i32 -> bool?>``: any_match and all_match give NULL (the spec's
    words); transform and filter, whose NULL function the spec leaves unsaid, are refused."""
    null_fn = {"literal": {"null": st.type_json("func?<i32? -> bool?>")}}
    out = parse_substrait_plan(lp.plan(lp.call("all_match:list_func", lp.column(1), null_fn, output="bool?")))
    assert _expr(out) == ir.Lit(None, f"{EXPR}/0/scalarFunction", Primitive("boolean"))
    errors = _errors(lp.plan(lp.call("filter:list_func", lp.column(1), null_fn, output="list?<i32?>")))
    assert errors == [
        (
            "substrait_function",
            f"{EXPR}/0/scalarFunction/arguments/1",
            "filter with a NULL function: the spec gives it no result",
        )
    ]
    # a NULL function anywhere else has no Spark type
    errors = _errors(lp.plan(null_fn))
    assert errors[0][1] == f"{EXPR}/0/literal/null/func"


def test_an_invoked_lambda_is_refused_by_its_kind() -> None:
    body = lp.call("multiply:i32_i32", lp.param(), lp.i32(2), output="i32")
    invoked = {"lambdaInvocation": {"lambda": lp.lam(body, "i32")["lambda"], "arguments": {"fields": [lp.i32(3)]}}}
    errors = _errors(lp.plan(invoked))
    assert errors == [
        (
            "substrait_unsupported",
            f"{EXPR}/0/lambdaInvocation",
            "the Substrait expression 'lambda_invocation' is not supported yet",
        )
    ]


def test_a_lambdas_declared_parameter_types_are_checked() -> None:
    plan = lp.plan(lp.doubled())
    bad = copy.deepcopy(plan)
    lam = bad["relations"][0]["root"]["input"]["project"]["expressions"][0]["scalarFunction"]["arguments"][1]
    lam["value"]["lambda"]["parameters"]["types"] = [{"userDefined": {"typeReference": 9}}]
    lam["value"]["lambda"]["parameters"]["nullability"] = "NULLABILITY_NULLABLE"
    locs = [loc for _, loc, _ in _errors(bad)]
    where = f"{EXPR}/0/scalarFunction/arguments/1/value/lambda/parameters"
    assert locs == [f"{where}/nullability", f"{where}/types/0/userDefined"]


def test_a_subquery_inside_a_lambda_is_refused() -> None:
    """Spark refuses it after the plan was sent (UNSUPPORTED_SUBQUERY_EXPRESSION_CATEGORY.
    HIGHER_ORDER_FUNCTION, measured): refused here, at the subquery."""
    one = {
        "read": {
            "baseSchema": {"names": ["v"], "struct": {"types": [st.type_json("i32")]}},
            "virtualTable": {"values": [{"fields": [{"i32": 3}]}]},
        }
    }
    body = lp.call("gt:i32_i32", lp.param(), {"subquery": {"scalar": {"input": one}}}, output="bool?")
    errors = _errors(lp.plan(lp.call("filter:list_func", lp.column(1), lp.lam(body, "i32?"), output="list?<i32?>")))
    where = f"{EXPR}/0/scalarFunction/arguments/1/value/lambda/body/scalarFunction/arguments/1/value/subquery"
    assert [(code, loc) for code, loc, _ in errors] == [("substrait_unsupported", where)]
    assert "HIGHER_ORDER_FUNCTION" in errors[0][2]


def test_a_predicate_declared_other_than_boolean_is_refused() -> None:
    body = lp.call("multiply:i32_i32", lp.param(), lp.i32(2), output="i32?")
    errors = _errors(lp.plan(lp.call("any_match:list_func", lp.column(1), lp.lam(body, "i32?"), output="bool?")))
    assert errors == [
        (
            "substrait_function",
            f"{EXPR}/0/scalarFunction/arguments/1/value/lambda/body/scalarFunction/outputType",
            "any_match's predicate must return a boolean, this one is declared i32",
        )
    ]
