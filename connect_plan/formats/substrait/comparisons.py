"""A comparison of a decimal column with a double literal, as the exact decimal comparison Spark
pushes into a scan.

ibis writes the literals of ``l_discount BETWEEN 0.05 AND 0.07`` (TPC-H q06) as ``fp64`` against a
``decimal(15, 2)`` column. Spark compares a decimal with a double as doubles: it casts the
*column*, ``cast(l_discount AS double) >= 0.05``, and a predicate on a cast column is not pushed
into the parquet scan (6 pushed filters instead of Spark SQL's 8 for its own text, where the
literal is a decimal). :func:`exact_decimal_comparison` sends ``l_discount >= 0.05BD`` instead,
where that is the same predicate row for row.

The claim and its proof. Let ``v`` be a value of a ``decimal(p, s)`` with ``p <= 15``, ``x`` a
finite double, ``RN`` rounding a real to the nearest double (ties to even), and ``op`` one of
``<, <=, >, >=, =``.

1. Spark's ``cast(v AS double)`` is ``RN(v)``: ``Decimal.toDouble`` is Java's
   ``BigDecimal.doubleValue``, which rounds correctly (for ``|unscaled| < 2**52``, true of every
   ``p <= 15``, it divides two exact doubles, and an IEEE division rounds correctly).
2. ``RN`` is monotone: ``a <= b`` implies ``RN(a) <= RN(b)``.
3. ``RN`` is one-to-one on the decimals of at most 15 significant digits (every such decimal
   survives a round trip through a double: DBL_DIG is 15). Both ``v`` and any value ``D`` of
   ``decimal(p, s)`` are such decimals.
4. Let ``D`` be ``x`` rounded to scale ``s``. If ``D`` fits ``decimal(p, s)`` and ``RN(D) == x``,
   then for every ``v``: ``RN(v) op x`` iff ``v op D``. By 2, ``v <= D`` gives
   ``RN(v) <= RN(D) = x`` and ``v >= D`` gives ``RN(v) >= x``; by 3, ``v != D`` gives
   ``RN(v) != x``. The six relations follow from these three.
5. NULL: a NULL ``v`` makes both sides NULL.

So the rewrite happens exactly when 4's condition holds (``0.05`` against scale 2: yes).
Elsewhere (``0.055`` against scale 2, a literal out of the column's range, NaN, infinities) the
comparison is sent as the producer wrote it: a double ``x`` no decimal of the column maps to
could be replaced by the next grid value in the direction of the operator, but that is exact only
while the column's values are exactly of the declared scale, and a double comparison costs only
the pushdown.

The column is sent as it is: where the table's column is of the declared type, nothing is cast
and Spark pushes the filter. The rewrite stays exact where a table's column is not of the type the
plan declares, as long as its values have at most 15 significant digits near ``x``: Spark compares a
double or float column with the decimal ``D`` as doubles, and ``RN(D) == x`` is the comparison
the plan wrote; an integer or a decimal of at most 15 digits is compared with ``D`` exactly, which is 4's
comparison (an integer of more than 15 digits is farther from ``x`` than any double that could
round to it). Only a wider decimal with digits past the 15th within half a double's step of ``x``
would compare differently; a plan that declares such a column ``decimal(p <= 15, s)`` misstates
its table.
"""

from __future__ import annotations

import decimal
import math
from collections.abc import Mapping

from ... import ir
from ...types import Primitive

__all__ = ["DOUBLE_DIGITS", "exact_decimal_comparison", "exact_decimal_literal"]

#: the widest decimal every value of which a double tells apart (DBL_DIG)
DOUBLE_DIGITS = 15

#: Substrait comparison → the positions of its operands that are compared with the first (the
#: first is compared with each; ``between``'s bounds are compared with its first argument)
_COMPARED = {"lt": (1,), "lte": (1,), "gt": (1,), "gte": (1,), "equal": (1,), "between": (1, 2)}

#: wide enough for any double's exact value rounded to a decimal scale
_EXACT = decimal.Context(prec=800)


def exact_decimal_literal(x: float, precision: int, scale: int) -> decimal.Decimal | None:
    """The value ``D`` of ``decimal(precision, scale)`` whose double is ``x``, if there is one
    and ``precision <= 15`` (see the module's proof): a comparison of such a column cast to
    double with ``x`` is the same comparison of the column with ``D``."""
    if precision > DOUBLE_DIGITS or not math.isfinite(x) or not 0 <= scale <= precision:
        return None
    exact = decimal.Decimal(x)  # the double's exact value
    grid = decimal.Decimal(1).scaleb(-scale)
    d = exact.quantize(grid, rounding=decimal.ROUND_HALF_EVEN, context=_EXACT)
    if abs(d) >= decimal.Decimal(1).scaleb(precision - scale):
        return None  # outside the column's range
    if float(d) != x:  # float(Decimal) rounds correctly
        return None
    return d


def exact_decimal_comparison(name: str, args: list[ir.Expr], decimals: Mapping[str, tuple[int, int]]) -> list[ir.Expr]:
    """``args`` of the comparison ``name`` with each double literal compared with a decimal
    column of precision <= 15 replaced by the decimal it equals, where that is the same
    comparison (see the module's proof); else ``args``."""
    positions = _COMPARED.get(name)
    if positions is None or len(args) != 1 + len(positions):
        return args
    out = list(args)
    if name != "between" and _decimal_of(args[1], decimals) and not _decimal_of(args[0], decimals):
        # the literal on the left: the same relation read the other way round
        swapped = _rewrite(args[1], [args[0]], decimals)
        return [swapped[1][0], swapped[0]] if swapped else args
    rewritten = _rewrite(args[0], [args[k] for k in positions], decimals)
    if rewritten is None:
        return args
    out[0] = rewritten[0]
    for k, new in zip(positions, rewritten[1]):
        out[k] = new
    return out


def _decimal_of(e: ir.Expr, decimals: Mapping[str, tuple[int, int]]) -> tuple[int, int] | None:
    return decimals.get(e.name) if isinstance(e, ir.Col) and e.side is None else None


def _rewrite(
    col: ir.Expr, others: list[ir.Expr], decimals: Mapping[str, tuple[int, int]]
) -> tuple[ir.Expr, list[ir.Expr]] | None:
    """(the column, the others with every exact double literal replaced), if every other operand that is a double literal converts (else None: a mix of
    decimal and double comparisons of one column is left as written)."""
    declared = _decimal_of(col, decimals)
    if declared is None:
        return None
    p, s = declared
    new: list[ir.Expr] = []
    for e in others:
        x = _double_literal(e)
        d = None if x is None else exact_decimal_literal(x, p, s)
        if d is None:
            return None
        new.append(ir.Lit(format(d, "f"), e.loc, Primitive("decimal", p, s)))
    return col, new


def _double_literal(e: ir.Expr) -> float | None:
    """The value of a double literal (not NULL), else None."""
    if isinstance(e, ir.Lit) and isinstance(e.type, Primitive) and e.type.name == "double":
        if isinstance(e.value, float):
            return e.value
    return None
