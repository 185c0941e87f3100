"""Spark's rules for naming the columns a step outputs, where they are certain.

Analysis (:mod:`.analyze`) tracks names with these: an unaliased aggregate or generator, a
struct field selected by path, a right-hand join column renamed because the left has it.
Each rule gives Spark's own name, or None where only Spark can tell (the column is then
tracked as unnamed); tests/integration/test_aggregates.py checks the predictions against a
server.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import ir
from ..functions import CATALOG
from .scope import Scope

__all__ = ["AGG_NAMES", "col_output_name", "default_agg_name", "generator_names", "is_generator", "unique_suffix"]

#: aggregates whose unaliased column Spark names ``<spark name>(<column>)`` (checked
#: against a server by tests/integration/test_aggregates.py); values: the name Spark uses
#: and a suffix inside the parentheses
AGG_NAMES: dict[str, tuple[str, str]] = {
    **{
        n: (n, "")
        for n in (
            "count",
            "approx_count_distinct",
            "sum",
            "avg",
            "try_avg",
            "try_sum",
            "min",
            "max",
            "first",
            "last",
            "first_value",
            "last_value",
            "any_value",
            "collect_list",
            "collect_set",
            "collect_union",
            "count_if",
            "bool_and",
            "bool_or",
            "every",
            "some",
            "product",
            "median",
            "mode",
            "stddev",
            "std",
            "stddev_samp",
            "stddev_pop",
            "variance",
            "var_samp",
            "var_pop",
            "kurtosis",
            "skewness",
            "bit_and",
            "bit_or",
            "bit_xor",
        )
    },
    "array_agg": ("collect_list", ""),
    "listagg": ("listagg", ", NULL"),
    "string_agg": ("string_agg", ", NULL"),
}


#: a catalog argument without a default (equal to no literal)
_NO_FILL = object()


def col_output_name(expr: ir.Expr, scope: Scope) -> str | None:
    """The name of a grouping key or selected column: a path into a struct (``s.x``, no
    column of that name) outputs its last part, a computed key is named by Spark (None)."""
    if isinstance(expr, ir.Col):
        if "." in expr.name and scope.has(expr.name) is False:
            return expr.name.rsplit(".", 1)[-1]
        return expr.name
    return None


def is_generator(expr: ir.Expr) -> bool:
    """A call of a generator (explode, inline, stack...): it outputs rows, maybe several columns."""
    return isinstance(expr, ir.Call) and CATALOG[expr.fn].kind == "generator"


def generator_names(expr: ir.Expr) -> list[str] | None:
    """Spark's output names of an unaliased generator when they do not depend on types."""
    assert isinstance(expr, ir.Call)
    if expr.fn == "json_tuple":
        return [f"c{i}" for i in range(len(expr.args) - 1)]
    if expr.fn == "stack" and expr.args:
        n = expr.args[0]
        if isinstance(n, ir.Lit) and isinstance(n.value, int) and not isinstance(n.value, bool) and n.value > 0:
            width = -(-(len(expr.args) - 1) // n.value)
            return [f"col{i}" for i in range(width)]
    return None


def default_agg_name(expr: ir.Expr) -> str | None:
    """Spark's name for an unaliased aggregate of one column (``sum(v)``, ``count(1)``,
    ``count(DISTINCT v)``) when it is certain, else None (Spark names it; tracking knows
    only that a column is there)."""
    if not isinstance(expr, ir.Call):
        return None
    spec = CATALOG[expr.fn]
    known = AGG_NAMES.get(spec.spark)
    if known is None:
        return None
    args = list(expr.args)
    # trailing arguments equal to what PySpark fills in by default do not show in the name
    while (
        len(args) > 1
        and isinstance(args[-1], ir.Lit)
        and spec.fill.get(len(args) - 1, _NO_FILL) == args[-1].value
        and type(args[-1].value) is type(spec.fill.get(len(args) - 1))
    ):
        args.pop()
    if len(args) != 1:
        return None
    a = args[0]
    name, suffix = known
    distinct = "DISTINCT " if expr.distinct else ""
    if isinstance(a, ir.Col) and "." not in a.name and "`" not in a.name:
        return f"{name}({distinct}{a.name}{suffix})"
    if isinstance(a, ir.Lit) and isinstance(a.value, int) and not isinstance(a.value, bool) and a.type is None:
        return f"{name}({distinct}{a.value}{suffix})"
    return None


def unique_suffix(name: str, taken: set[str], norm: Callable[[str], str]) -> str:
    """A right-hand join column's new name when the left side has ``name``: ``name_right``,
    else ``name_right_1``, ``name_right_2``... (the first not ``taken``)."""
    candidate = f"{name}_right"
    i = 1
    while norm(candidate) in taken:
        candidate = f"{name}_right_{i}"
        i += 1
    return candidate
