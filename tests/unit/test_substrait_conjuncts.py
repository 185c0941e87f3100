"""A filter's cheap conjuncts go first (connect_plan/formats/substrait/conjuncts.py): which
move, which stay, and the claim that makes the move safe, checked on every order of a mix."""

from __future__ import annotations

import itertools
from pathlib import Path

from connect_plan import ir
from connect_plan.formats.substrait import parse_substrait_plan
from connect_plan.formats.substrait.conjuncts import cheap_first
from connect_plan.formats.substrait.state import Converter
from connect_plan.types import Primitive

DATA = Path(__file__).resolve().parents[1] / "data" / "substrait"


def _show(e: ir.Expr) -> str:
    if isinstance(e, ir.Call):
        return f"{e.fn}(" + ", ".join(_show(a) for a in e.args) + ")"
    if isinstance(e, ir.Col):
        return e.name
    if isinstance(e, ir.Lit):
        return f"{e.value}:{e.type.name if isinstance(e.type, Primitive) else '?'}"
    return type(e).__name__


def _filters(path: Path) -> list[list[str]]:
    plan = parse_substrait_plan(path.read_text())
    out = []
    for step in plan.steps:
        if isinstance(step, ir.Filter):
            c = step.condition
            parts = c.args if isinstance(c, ir.Call) and c.fn == "and" else (c,)
            out.append([_show(p) for p in parts])
    return out


def test_duckdbs_q06_tests_the_date_range_before_the_decimals() -> None:
    # DuckDB writes l_quantity < 24, then l_discount's range, then l_shipdate's, each with its
    # IS NOT NULL (_s5 l_quantity, _s7 l_discount, _s11 l_shipdate)
    [conjuncts] = _filters(DATA / "tpch" / "duckdb" / "q06.json")
    assert conjuncts == [
        "isnotnull(_s5)",
        "isnotnull(_s7)",
        ">=(_s11, 1994-01-01:date)",
        "<(_s11, 1995-01-01:date)",
        "isnotnull(_s11)",
        "<(_s5, 24.00:decimal)",
        ">=(_s7, 0.05:decimal)",
        "<=(_s7, 0.07:decimal)",
    ]


def test_strings_decimals_and_casts_stay_behind_in_the_producers_order() -> None:
    # g = 'a' AND ii > 0 AND d1 > 1.0 AND dt > DATE '2024-01-01' AND b = true
    [conjuncts] = _filters(DATA / "features" / "isthmus" / "lit_in_where_mixed.json")
    assert conjuncts == [
        ">(_s6, 0:int)",
        ">(_s16, 2024-01-01:date)",
        "==(_s15, True:boolean)",
        "==(_s2, a:string)",
        ">(_s8, 1.0:decimal)",
    ]
    # ibis casts its date literal: a cast is not moved, nor is anything after it moved past it
    [conjuncts] = _filters(DATA / "features" / "ibis" / "lit_in_where_mixed.json")
    assert conjuncts == [
        "==(_s15, True:boolean)",
        ">(_s6, 0:tinyint)",
        ">(_s8, 1.00:decimal)",
        ">(_s16, Cast)",
        "==(_s2, a:string)",
    ]


def _mix() -> tuple[Converter, list[ir.Expr]]:
    c = Converter(None)
    c.fixed_width.update({"i", "dt", "b"})
    int_lit = ir.Lit(1, "", Primitive("int"))
    parts: list[ir.Expr] = [
        ir.Call("<", (ir.Col("i", ""), int_lit), "cheap"),
        ir.Call("isnotnull", (ir.Col("s", ""),), "cheap"),
        ir.Col("b", "cheap"),
        ir.Call("not", (ir.Call("==", (ir.Col("dt", ""), ir.Lit("2024-01-01", "", Primitive("date"))), ""),), "cheap"),
        ir.Call("==", (ir.Col("s", ""), ir.Lit("a", "", Primitive("string"))), "string"),
        ir.Call("<", (ir.Col("i", ""), ir.Lit("1", "", Primitive("decimal", 3, 0))), "decimal"),
        ir.Call("<", (ir.Col("u", ""), int_lit), "column of unknown type"),
        ir.Call(">", (ir.Call("-", (ir.Col("i", ""), int_lit), ""), int_lit), "call"),
    ]
    return c, parts


def test_every_order_of_a_mix_moves_exactly_the_cheap_ones_and_delays_no_other() -> None:
    c, parts = _mix()
    for order in itertools.permutations(parts):
        cond = ir.Call("and", tuple(order), "")
        out = cheap_first(c, cond)
        moved = list(out.args) if isinstance(out, ir.Call) and out is not cond else list(order)
        assert sorted(map(id, moved)) == sorted(map(id, order))  # the same conjuncts, each once
        assert [p for p in moved if p.loc == "cheap"] == [p for p in order if p.loc == "cheap"]
        assert [p for p in moved if p.loc != "cheap"] == [p for p in order if p.loc != "cheap"]
        assert all(p.loc == "cheap" for p in moved[:4])
        for p in moved:  # the claim: whatever preceded a conjunct that can raise still precedes it
            if p.loc != "cheap":
                before = set(map(id, order[: order.index(p)]))
                assert before <= set(map(id, moved[: moved.index(p)]))


def test_nested_ands_are_flattened_and_an_order_that_keeps_is_the_producers_own() -> None:
    c, parts = _mix()
    cheap, string = parts[0], parts[4]
    kept = ir.Call("and", (cheap, string), "")
    assert cheap_first(c, kept) is kept
    nested = ir.Call("and", (ir.Call("and", (string, parts[5]), ""), ir.Call("and", (parts[1], cheap), "")), "")
    assert cheap_first(c, nested) == ir.Call("and", (parts[1], cheap, string, parts[5]), "")
    assert cheap_first(c, string) is string
