"""An OR's runs of equalities of one expression with string constants, sent as ``IN``
(connect_plan/formats/substrait/in_lists.py): which runs merge, what is left as written, and a
three-valued evaluation of both forms over every value (the module's proof, checked by brute
force). The recorded plans it changes are checked against Spark SQL's answers by the corpus
tests; tests/integration/test_substrait_in_lists.py runs the rewrite on Spark."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connect_plan import ir
from connect_plan.formats.substrait import parse_substrait_plan
from connect_plan.formats.substrait.in_lists import equalities_as_in
from connect_plan.types import Primitive

CORPUS = Path(__file__).resolve().parent.parent / "data" / "substrait"
STRING = Primitive("string")


def col(name: str, loc: str = "/c") -> ir.Col:
    return ir.Col(name, loc)


def lit(value: Any, loc: str = "/l", type: Any = None) -> ir.Lit:
    return ir.Lit(value, loc, type)


def eq(a: ir.Expr, b: ir.Expr) -> ir.Call:
    return ir.Call("==", (a, b), "/eq")


def call(fn: str, *args: ir.Expr) -> ir.Call:
    return ir.Call(fn, args, "/call")


def shown(e: ir.Expr) -> str:
    if isinstance(e, ir.Col):
        return e.name
    if isinstance(e, ir.Lit):
        return repr(e.value)
    if isinstance(e, ir.Cast):
        return f"cast({shown(e.expr)})"
    assert isinstance(e, ir.Call)
    return f"{e.fn}({', '.join(shown(a) for a in e.args)})"


def merged(*args: ir.Expr) -> list[str]:
    return [shown(e) for e in equalities_as_in(args, "/or")]


def test_a_run_becomes_one_in_and_the_rest_keeps_its_place() -> None:
    x = col("x")
    assert merged(eq(x, lit("a")), eq(x, lit("b"))) == ["in(x, 'a', 'b')"]
    p, q = call(">", col("y"), lit(1)), call("<", col("y"), lit(0))
    assert merged(p, eq(x, lit("a")), eq(lit("b"), x), q) == [">(y, 1)", "in(x, 'a', 'b')", "<(y, 0)"]


def test_nested_ors_are_one_list_and_ins_join_the_run() -> None:
    x = col("x")
    inner = call("or", eq(x, lit("b")), eq(x, lit("c")))
    assert merged(eq(x, lit("a")), inner) == ["in(x, 'a', 'b', 'c')"]
    assert merged(call("in", x, lit("a"), lit("b")), eq(x, lit("c"))) == ["in(x, 'a', 'b', 'c')"]
    # two runs of two expressions, each kept in its place
    y = col("y")
    assert merged(eq(x, lit("a")), eq(x, lit("b")), eq(y, lit("c")), eq(y, lit("d"))) == [
        "in(x, 'a', 'b')",
        "in(y, 'c', 'd')",
    ]


def test_one_expression_written_twice_is_the_same_wherever_it_was_written() -> None:
    sub1 = call("substring", col("z", "/1"), lit(1, "/2"), lit(5, "/3"))
    sub2 = call("substring", col("z", "/4"), lit(1, "/5"), lit(5, "/6"))
    k = ir.Cast(lit("85669", type=STRING), STRING, "/k")  # Isthmus' constants are cast literals
    assert merged(eq(sub1, k), eq(sub2, lit("86197"))) == ["in(substring(z, 1, 5), cast('85669'), '86197')"]


@pytest.mark.parametrize(
    "args",
    [
        # not next to each other
        (eq(col("x"), lit("a")), call(">", col("y"), lit(1)), eq(col("x"), lit("b"))),
        # one equality only
        (eq(col("x"), lit("a")), call(">", col("y"), lit(1))),
        # not string constants: numbers, NULL, a column, a cast to another type
        (eq(col("x"), lit(1)), eq(col("x"), lit(2))),
        (eq(col("x"), lit("a")), eq(col("x"), lit(None))),
        (eq(col("x"), col("y")), eq(col("x"), col("z"))),
        (eq(col("x"), ir.Cast(lit("a"), Primitive("varchar", 3), "/k")), eq(col("x"), lit("b"))),
        (eq(col("x"), lit("a", type=Primitive("date"))), eq(col("x"), lit("b"))),
        # two different expressions
        (eq(col("x"), lit("a")), eq(col("y"), lit("b"))),
        # a non-deterministic or uncovered expression
        (eq(call("rand"), lit("a")), eq(call("rand"), lit("b"))),
        (
            eq(ir.When(((col("b"), col("x")),), col("y"), "/w"), lit("a")),
            eq(ir.When(((col("b"), col("x")),), col("y"), "/w"), lit("b")),
        ),
    ],
)
def test_left_as_written(args: tuple[ir.Expr, ...]) -> None:
    assert equalities_as_in(args, "/or") == list(args)


def test_a_nested_or_with_nothing_to_merge_keeps_its_nesting() -> None:
    args = (call("or", eq(col("x"), lit("a")), eq(col("y"), lit("b"))), eq(col("z"), lit("c")))
    assert equalities_as_in(args, "/or") == list(args)


# -------------------------------------------------------------- both forms, evaluated

VALUES = [None, "a", "b", "c"]


def _eval(e: ir.Expr, row: dict[str, Any]) -> Any:
    """Three-valued evaluation of the few forms here (Spark's semantics for each)."""
    if isinstance(e, ir.Col):
        return row[e.name]
    if isinstance(e, ir.Lit):
        return e.value
    assert isinstance(e, ir.Call)
    if e.fn == "or":
        vals = [_eval(a, row) for a in e.args]
        return True if True in vals else (None if None in vals else False)
    if e.fn == "==":
        a, b = (_eval(x, row) for x in e.args)
        return None if a is None or b is None else a == b
    if e.fn == "in":
        v = _eval(e.args[0], row)
        opts = [_eval(o, row) for o in e.args[1:]]
        if v is None:
            return None
        return True if v in opts else (None if None in opts else False)
    raise AssertionError(e.fn)


_disjunct = st.one_of(
    st.builds(lambda c, k: eq(col(c), lit(k)), st.sampled_from("xy"), st.sampled_from("abc")),
    st.builds(lambda c, k: eq(lit(k), col(c)), st.sampled_from("xy"), st.sampled_from("abc")),
    st.builds(lambda c: col(c), st.sampled_from("pq")),  # an opaque boolean
    st.builds(
        lambda c, ks: call("in", col(c), *(lit(k) for k in ks)),
        st.sampled_from("xy"),
        st.lists(st.sampled_from("abc"), min_size=1, max_size=3),
    ),
)
_or = st.recursive(
    st.lists(_disjunct, min_size=2, max_size=6).map(lambda a: call("or", *a)),
    lambda inner: st.lists(st.one_of(_disjunct, inner), min_size=2, max_size=4).map(lambda a: call("or", *a)),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_or)
def test_the_rewritten_or_has_the_same_value_on_every_row(expr: ir.Call) -> None:
    args = equalities_as_in(expr.args, "/or")
    rewritten: ir.Expr = args[0] if len(args) == 1 else call("or", *args)
    for x, y, p, q in itertools.product(VALUES, VALUES, (True, False, None), (True, False, None)):
        row = {"x": x, "y": y, "p": p, "q": q}
        assert _eval(rewritten, row) == _eval(expr, row), (shown(expr), shown(rewritten), row)


# -------------------------------------------------------------- the recorded plans


def _calls(node: Any) -> list[ir.Call]:
    """Every call in an IR tree."""
    out: list[ir.Call] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(n)
            continue
        if isinstance(n, ir.Call):
            out.append(n)
        for f in getattr(n, "__dataclass_fields__", {}):
            v = getattr(n, f)
            if isinstance(v, (list, tuple)) or hasattr(v, "__dataclass_fields__"):
                stack.append(v)
    return out


def _constants(c: ir.Call) -> list[Any]:
    return [a.expr.value if isinstance(a, ir.Cast) else getattr(a, "value", None) for a in c.args[1:]]


def test_isthmus_tpcds_q15_sends_spark_sqls_two_ins() -> None:
    calls = _calls(parse_substrait_plan((CORPUS / "tpcds" / "isthmus" / "q15.json").read_text(), {}))
    ins = sorted(_constants(c) for c in calls if c.fn == "in")
    assert ins == [
        ["85669", "86197", "88274", "83405", "86475", "85392", "85460", "80348", "81792"],
        ["CA", "WA", "GA"],
    ]
    assert sum(c.fn == "substring" for c in calls) == 1  # once, where Isthmus wrote it nine times


def test_datafusion_tpcds_q53_sends_its_categories_as_ins() -> None:
    calls = _calls(parse_substrait_plan((CORPUS / "tpcds" / "datafusion" / "q53.json").read_text(), {}))
    ins = [_constants(c) for c in calls if c.fn == "in"]
    assert ["Books", "Children", "Electronics"] in ins and ["Women", "Music", "Men"] in ins
    assert not [c for c in calls if c.fn == "==" and "Books" in [*_constants(c), getattr(c.args[0], "value", None)]]
