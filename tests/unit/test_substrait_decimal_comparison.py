"""The proof in connect_plan/formats/substrait/comparisons.py checked by brute force: for a
decimal(p <= 15, s) value v and a double x, ``float(v) op x`` (Python's float of a Decimal rounds
correctly, as Spark's cast of a decimal to double does) equals ``v op D`` for the decimal ``D`` the
rewrite picks, and the rewrite picks one exactly when some value of the column is x's double."""

from __future__ import annotations

import decimal
import math
import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from connect_plan import ir
from connect_plan.formats.substrait.comparisons import exact_decimal_comparison, exact_decimal_literal
from connect_plan.types import Primitive

OPS = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)


def _grid(n: int, s: int) -> decimal.Decimal:
    return decimal.Decimal(n).scaleb(-s)


def _check(v: decimal.Decimal, x: float, p: int, s: int) -> None:
    d = exact_decimal_literal(x, p, s)
    if d is None:
        return
    assert float(d) == x and d == d.quantize(decimal.Decimal(1).scaleb(-s)) and abs(d) < 10 ** (p - s)
    for op in OPS:
        assert op(float(v), x) == op(v, d), (op, v, x, p, s, d)


@st.composite
def _case(draw: st.DrawFn) -> tuple[decimal.Decimal, float, int, int]:
    p = draw(st.integers(1, 15))
    s = draw(st.integers(0, p))
    top = 10**p - 1
    n = draw(st.integers(-top, top))
    v = _grid(n, s)
    near = draw(st.integers(-3, 3)) + n  # x near v, so the boundaries are hit
    base = float(_grid(max(-top, min(top, near)), s))
    x = draw(
        st.one_of(
            st.just(base),
            st.just(math.nextafter(base, math.inf)),
            st.just(math.nextafter(base, -math.inf)),
            st.just(float(_grid(near, s) + _grid(5, s + 1))),  # a midpoint between two values
            st.floats(allow_nan=False, allow_infinity=False),
            st.sampled_from([0.0, -0.0, 1e300, -1e300, 5e-324]),
        )
    )
    return v, x, p, s


@settings(max_examples=2000, deadline=None)
@given(_case())
def test_a_rewritten_comparison_is_the_double_comparison(case: tuple[decimal.Decimal, float, int, int]) -> None:
    _check(*case)


def test_every_small_decimal_type_exhaustively() -> None:
    # every value of every decimal(p <= 2, s) against every value's double and its neighbours
    for p in range(1, 3):
        for s in range(p + 1):
            values = [_grid(n, s) for n in range(-(10**p) + 1, 10**p)]
            doubles = [float(v) for v in values]
            xs = {
                *doubles,
                *(math.nextafter(x, math.inf) for x in doubles),
                *(math.nextafter(x, -math.inf) for x in doubles),
            }
            for x in xs:
                d = exact_decimal_literal(x, p, s)
                assert (d is not None) == any(float(v) == x for v in values), (x, p, s)
                for v in values:
                    _check(v, x, p, s)


def test_the_values_it_leaves_alone() -> None:
    assert exact_decimal_literal(0.05, 15, 2) == decimal.Decimal("0.05")
    assert exact_decimal_literal(0.055, 15, 2) is None  # between two values of scale 2
    assert exact_decimal_literal(0.05, 16, 2) is None  # wider than a double tells apart
    assert exact_decimal_literal(1e13, 15, 2) is None  # outside decimal(15, 2)
    assert exact_decimal_literal(float("nan"), 15, 2) is None
    assert exact_decimal_literal(float("inf"), 15, 2) is None
    assert exact_decimal_literal(-0.0, 15, 2) == 0


def test_the_comparison_keeps_its_sides() -> None:
    col, lit = ir.Col("_s1", "/c"), ir.Lit(0.05, "/x", Primitive("double"))
    decimals = {"_s1": (15, 2)}
    exact = ir.Lit("0.05", "/x", Primitive("decimal", 15, 2))
    assert exact_decimal_comparison("lt", [col, lit], decimals) == [col, exact]
    assert exact_decimal_comparison("lt", [lit, col], decimals) == [exact, col]
    hi = ir.Lit(0.07, "/y", Primitive("double"))
    assert exact_decimal_comparison("between", [col, lit, hi], decimals)[2] == ir.Lit(
        "0.07", "/y", Primitive("decimal", 15, 2)
    )
    # one bound that does not convert: the whole between is left as written
    odd = ir.Lit(0.055, "/y", Primitive("double"))
    assert exact_decimal_comparison("between", [col, lit, odd], decimals) == [col, lit, odd]
    # not a comparison, not a declared decimal, not a double literal: unchanged
    assert exact_decimal_comparison("add", [col, lit], decimals) == [col, lit]
    assert exact_decimal_comparison("lt", [ir.Col("_s2", "/c"), lit], decimals) == [ir.Col("_s2", "/c"), lit]
    assert exact_decimal_comparison("lt", [col, ir.Lit(5, "/x")], decimals) == [col, ir.Lit(5, "/x")]
