"""Expressions: :func:`parse_expr` (PLAN_FORMAT.md §3.1's order of forms), ``{"col"}``,
``{"lit"}``, lambda variables, grouping items; the registries of the forms parsed elsewhere.

Every form but the plainest is parsed in a later module and registered here on import, so
that the recursion (an argument is an expression, a window holds a call) needs no import
cycle: ``operators.py`` sets :data:`FORMS` ``.op`` (``{"op": ...}`` forms), ``calls.py``
sets ``.call`` and ``.udf`` (``{"fn": ...}`` calls checked against the catalog row, UDF
calls); ``specials.py`` fills :data:`DESUGARS` and :data:`RAW_HOOKS` (keyed by a catalog
row's ``desugar``), ``windows.py`` and ``sparkless.py`` fill :data:`EXPRESSION_FORMS`
(``"window"``, ``"sparkless"``: Sparkless' shapes). The package checks all of them at import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ... import ir
from ...functions import FunctionSpec
from ...limits import MAX_EXPR_DEPTH
from ...names import attribute_parts
from ...types import TypeParseError, incomplete, parse_type
from .core import MAP, Parser, check_keys, column_name, first, side
from .spellings import (
    COLUMN_FORM_KEYS,
    KEY_ALIASES,
    LITERAL_FORM_KEYS,
)

__all__ = [
    "DESUGARS",
    "EXPRESSION_FORMS",
    "FORMS",
    "RAW_HOOKS",
    "Desugar",
    "Forms",
    "RawHook",
    "column_ref",
    "expr_list",
    "group_item",
    "literal",
    "literal_or_expr",
    "parse_expr",
    "type_arg",
]

#: a parse-stage rewrite of a call whose arguments are parsed: (parser, row, args, loc)
Desugar = Callable[[Parser, FunctionSpec, list[ir.Expr], str], "ir.Expr | None"]
#: a call parsed from its raw arguments: (parser, row, raw args, args loc, loc, depth)
RawHook = Callable[[Parser, FunctionSpec, list[Any], str, str, int], "ir.Expr | None"]

#: row.desugar → its rewrite (registered by specials.py)
DESUGARS: dict[str, Desugar] = {}
#: row.desugar → a parser of the raw arguments (registered by specials.py)
RAW_HOOKS: dict[str, RawHook] = {}
#: expression forms parsed elsewhere: "window" → (parser, raw, function name, loc, depth);
#: "sparkless" → (parser, raw, (the shape found, the op or function name), loc, depth)
EXPRESSION_FORMS: dict[str, Callable[[Parser, Mapping[str, Any], Any, str, int], ir.Expr | None]] = {}


class Forms:
    """The ``{"op": ...}``, ``{"fn": ...}`` and ``{"udf": ...}`` forms (registered by
    ``operators.py`` and ``calls.py``): ``op(p, raw, loc, depth)``, ``call(p, raw, name,
    loc, depth, args_key="args", fn_key="fn", *, in_window=False)``, ``udf(p, raw, name,
    loc, depth)``."""

    op: Callable[[Parser, Mapping[str, Any], str, int], ir.Expr | None]
    call: Callable[..., ir.Expr | None]
    udf: Callable[[Parser, Mapping[str, Any], str, str, int], ir.Expr | None]


#: the forms parsed by operators.py and calls.py (set there on import)
FORMS = Forms()

_FN = KEY_ALIASES["expr"]["fn"]
#: integer literals stay below 38 digits (decimal(38,0)); a name, as Python does not fold
#: ``10**38`` into a constant and would compute it for every literal
_LITERAL_INT_BOUND = 10**38


def type_arg(p: Parser, raw: Any, loc: str) -> Any:
    if isinstance(raw, MAP) and "lit" in raw:
        raw, loc = raw["lit"], f"{loc}/lit"
    if not isinstance(raw, str):
        p.err("type_expected", loc, "expected a type name string such as 'int' or 'decimal(10,2)'", raw)
        return None
    try:
        t = parse_type(raw)
    except TypeParseError as exc:
        p.err("unknown_type", loc, str(exc), raw)
        return None
    problem = incomplete(t)
    if problem is not None:
        p.err("incomplete_type", loc, problem, raw)
        return None
    return t


def expr_list(p: Parser, raw: Any, loc: str, depth: int = 0) -> list[ir.Expr] | None:
    if not isinstance(raw, (list, tuple)):
        p.err("args_type", loc, "'args' must be a list", raw)
        return None
    out = [parse_expr(p, a, f"{loc}/{i}", depth + 1) for i, a in enumerate(raw)]
    if any(e is None for e in out):
        return None
    return [e for e in out if e is not None]


def parse_expr(p: Parser, raw: Any, loc: str, depth: int = 0, *, in_window: bool = False) -> ir.Expr | None:
    """Parse one expression (PLAN_FORMAT.md §3.1 order); None after recording errors.
    ``in_window``: the expression is the function of a window (window functions allowed)."""
    if depth > MAX_EXPR_DEPTH:
        p.err("too_deep", loc, f"expression nested more than {MAX_EXPR_DEPTH} levels deep")
        return None
    if type(raw) is dict:
        # fast paths for the commonest shapes; same results as the general rules below
        if len(raw) == 1:
            if "lit" in raw:
                return literal(p, raw["lit"], f"{loc}/lit")
            name = raw.get("col")
            if type(name) is str:
                return column_ref(p, name, f"{loc}/col")
        elif "col" not in raw and "column" not in raw and "lit" not in raw:
            if type(raw.get("op")) is str:
                return FORMS.op(p, raw, loc, depth)
            name = raw.get("fn")
            if (
                type(name) is str
                and "udf" not in raw
                and "window" not in raw
                and "over" not in raw
                and "type" not in raw
            ):
                return FORMS.call(p, raw, name, loc, depth, in_window=in_window)
    if isinstance(raw, str):
        return column_ref(p, raw, loc)
    if raw is None or isinstance(raw, (bool, int, float)):
        return literal(p, raw, loc)
    if not isinstance(raw, MAP):
        what = (
            'arrays are not expressions (use {"fn": "array", "args": [...]})'
            if isinstance(raw, (list, tuple))
            else "expected an expression object"
        )
        p.err("expr_type", loc, what, raw)
        return None
    for k in ("col", "column"):
        if isinstance(raw.get(k), str):
            if len(raw) > 1 and any(m in raw for m in ("fn", "function", "op", "lit")):
                break
            if len(raw) > 1:
                check_keys(p, raw, loc, COLUMN_FORM_KEYS, "a column reference")
            return column_ref(p, raw[k], f"{loc}/{k}", side=side(p, raw, loc))
    if "lit" in raw:
        if len(raw) > 1:
            check_keys(p, raw, loc, LITERAL_FORM_KEYS, "a literal")
        return literal(
            p,
            raw["lit"],
            f"{loc}/lit",
            type_raw=raw.get("type") if "type" in raw and raw.get("type") not in ("literal", "lit") else None,
            type_loc=f"{loc}/type",
        )
    if isinstance(raw.get("op"), str):
        return FORMS.op(p, raw, loc, depth)
    if isinstance(raw.get("udf"), str):
        return FORMS.udf(p, raw, raw["udf"], loc, depth)
    fkey, name = first(raw, _FN)
    if fkey is not None:
        if raw.get("type") == "window" and "column" in raw and "args" not in raw and "fn" not in raw:
            return EXPRESSION_FORMS["sparkless"](p, raw, ("window", name), loc, depth)
        if "window" in raw or "over" in raw or raw.get("type") == "window":
            return EXPRESSION_FORMS["window"](p, raw, name, loc, depth)
        if not isinstance(name, str):
            p.err("fn_name", f"{loc}/{fkey}", "a function name must be a string", name)
            return None
        return FORMS.call(p, raw, name, loc, depth, in_window=in_window)
    if "var" in raw:
        return lambda_var_ref(p, raw["var"], f"{loc}/var")
    if "lambda" in raw:
        p.err(
            "lambda_not_allowed",
            loc,
            "a lambda is only allowed as the function argument of a higher-order function (transform, filter, aggregate, ...)",
        )
        return None
    t = raw.get("type")
    if t == "opaque" or raw.get("opaque") is True:
        return EXPRESSION_FORMS["sparkless"](p, raw, ("opaque", None), loc, depth)
    if t == "case_when":
        return EXPRESSION_FORMS["sparkless"](p, raw, ("case_when", None), loc, depth)
    if isinstance(raw.get("window"), MAP) and "function" in raw["window"]:
        return EXPRESSION_FORMS["sparkless"](p, raw, ("window", None), loc, depth)
    if t == "column" and isinstance(raw.get("name"), str):
        check_keys(p, raw, loc, COLUMN_FORM_KEYS, "a column reference")
        return column_ref(p, raw["name"], f"{loc}/name")
    if t in ("literal", "lit") and "value" in raw:
        check_keys(p, raw, loc, LITERAL_FORM_KEYS, "a literal")
        return literal(p, raw["value"], f"{loc}/value")
    if "col" in raw or "column" in raw:
        k = "col" if "col" in raw else "column"
        p.err("column_name", f"{loc}/{k}", "a column name must be a string", raw[k])
        return None
    p.err(
        "expr_form",
        loc,
        "an expression object needs one of 'col', 'lit', 'op', 'fn', 'udf' (or a window 'type')",
        raw,
    )
    return None


def column_ref(p: Parser, name: str, loc: str, side: str | None = None) -> ir.Expr | None:
    if not name:
        p.err("column_name", loc, "a column name must not be empty", name)
        return None
    if name == "*":
        return ir.Star(loc)
    if name.endswith(".*") and len(name) > 2 and side is None:
        return ir.Star(loc, name[:-2])  # PySpark's col("s.*"): a struct's fields, or a qualifier's columns
    if p.lambda_scopes and side is None:
        var = p.lambda_var(name)
        if var is not None:
            return ir.LambdaVar(var, loc)
        field_access = _lambda_field(p, name, loc)
        if field_access is not None:
            return field_access
    return ir.Col(name, loc, side)


def _lambda_field(p: Parser, name: str, loc: str) -> ir.Expr | None:
    """``e.x`` where ``e`` is a lambda parameter: field ``x`` of the parameter (PySpark's
    ``lambda e: e.x``, an extract-value of the lambda variable), never a column ``e.x``."""
    parts = attribute_parts(name)
    if parts is None or len(parts) < 2:
        return None
    var = p.lambda_var(parts[0])
    if var is None:
        return None
    out: ir.Expr = ir.LambdaVar(var, loc)
    for part in parts[1:]:
        out = ir.ExtractValue(out, ir.Lit(part, loc), loc)
    return out


def lambda_var_ref(p: Parser, name: Any, loc: str) -> ir.Expr | None:
    """``{"var": "x"}``: a lambda parameter, which must be in scope."""
    if not isinstance(name, str) or not name:
        p.err("lambda_var", loc, "'var' must name a lambda parameter", name)
        return None
    var = p.lambda_var(name)
    if var is None:
        where = (
            "no lambda is in scope here"
            if not p.lambda_scopes
            else f"parameters in scope: {sorted({v for sc in p.lambda_scopes for v in sc.values()})}"
        )
        p.err("lambda_var", loc, f"{name!r} is not a lambda parameter ({where})", name)
        return None
    return ir.LambdaVar(var, loc)


def literal(p: Parser, value: Any, loc: str, type_raw: Any = None, type_loc: str = "") -> ir.Expr | None:
    t = None
    if type_raw is not None:
        t = type_arg(p, type_raw, type_loc)
        if t is None:
            return None
    if value is None or isinstance(value, (bool, str)):
        return ir.Lit(value, loc, t)
    if isinstance(value, int):
        if not -_LITERAL_INT_BOUND < value < _LITERAL_INT_BOUND:
            p.err("literal_range", loc, "integer literal too large (more than 38 digits)", value)
            return None
        return ir.Lit(value, loc, t)
    if isinstance(value, float):
        return ir.Lit(value, loc, t)
    p.err(
        "literal_type",
        loc,
        "a literal must be null, a boolean, a number or a string (build arrays with the 'array' function)",
        value,
    )
    return None


def literal_or_expr(p: Parser, raw: Any, loc: str, depth: int) -> ir.Expr | None:
    """A literal slot: bare scalars (strings included) are literals; objects are expressions."""
    if raw is None or isinstance(raw, (bool, int, float, str)):
        return literal(p, raw, loc)
    return parse_expr(p, raw, loc, depth + 1)


def group_item(p: Parser, g: Any, gloc: str) -> ir.Expr | None:
    """A grouping or partitioning item: a column name, a column object or an expression."""
    if isinstance(g, str):
        return ir.Col(g, gloc)
    if isinstance(g, Mapping) and "expr" in g:
        return parse_expr(p, g["expr"], f"{gloc}/expr")
    if (
        isinstance(g, Mapping)
        and any(k in g for k in ("col", "column", "name"))
        and not any(k in g for k in ("fn", "function", "op"))
    ):
        name = column_name(p, g, gloc)
        return ir.Col(name, gloc) if name is not None else None
    if isinstance(g, Mapping):
        return parse_expr(p, g, gloc)
    p.err("group_item", gloc, "a grouping item must be a column name or an object", g)
    return None
