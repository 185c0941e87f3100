"""Expressions: ``{"col"}``, ``{"lit"}``, ``{"op": ...}`` forms, ``{"fn": ...}`` calls with
their arguments checked against the catalog row, lambdas and UDF calls (PLAN_FORMAT.md §3).

Two kinds of forms are parsed in later modules and registered here on import, so that the
recursion (an argument is an expression, a window holds a call) needs no import cycle:
``specials.py`` fills :data:`DESUGARS` and :data:`RAW_HOOKS` (keyed by a catalog row's
``desugar``), ``windows.py`` and ``sparkless.py`` fill :data:`EXPRESSION_FORMS` (``"window"``,
``"sparkless"``: Sparkless' shapes, see :func:`is_sparkless_op`). The package checks
both at import.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from typing import Any

from ... import ir
from ...functions import CATALOG, SORT_FUNCTIONS, FunctionSpec, Param, suggest
from ...limits import MAX_EXPR_DEPTH, MAX_STEPS
from ...types import TypeParseError, incomplete, parse_type
from .core import MAP, MISSING, Parser, check_keys, column_name, first, key, side
from .spellings import (
    CALL_KEYS,
    COLUMN_FORM_KEYS,
    EXPR_OP_FUNCTIONS,
    EXPR_OP_WORDS,
    KEY_ALIASES,
    LITERAL_FORM_KEYS,
    OP_KEYS,
    SPARKLESS_OP_KEYS,
    SPARKLESS_OPS,
    WINDOW_SPEC_KEYS,
)

__all__ = [
    "DESUGARS",
    "EXPRESSION_FORMS",
    "RAW_HOOKS",
    "Desugar",
    "RawHook",
    "argument",
    "arguments",
    "call",
    "column_ref",
    "expr_list",
    "group_item",
    "is_sparkless_op",
    "lambda_arg",
    "literal",
    "literal_or_expr",
    "parse_expr",
    "type_arg",
    "with_otherwise",
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

_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_OPS = KEY_ALIASES["op"]
_LEFT, _RIGHT = _OPS["left"], _OPS["right"]
#: {"op": word} → the catalog row of the function it calls (the row's op_form is its form)
_OP_ROWS: dict[str, FunctionSpec] = {word: CATALOG[name] for word, name in EXPR_OP_FUNCTIONS.items()}
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
                return op_expr(p, raw, loc, depth)
            name = raw.get("fn")
            if (
                type(name) is str
                and "udf" not in raw
                and "window" not in raw
                and "over" not in raw
                and "type" not in raw
            ):
                return call(p, raw, name, loc, depth, in_window=in_window)
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
        return op_expr(p, raw, loc, depth)
    if isinstance(raw.get("udf"), str):
        return udf_expr(p, raw, raw["udf"], loc, depth)
    fkey, name = first(raw, _FN)
    if fkey is not None:
        if raw.get("type") == "window" and "column" in raw and "args" not in raw and "fn" not in raw:
            return EXPRESSION_FORMS["sparkless"](p, raw, ("window", name), loc, depth)
        if "window" in raw or "over" in raw or raw.get("type") == "window":
            return EXPRESSION_FORMS["window"](p, raw, name, loc, depth)
        if not isinstance(name, str):
            p.err("fn_name", f"{loc}/{fkey}", "a function name must be a string", name)
            return None
        return call(p, raw, name, loc, depth, in_window=in_window)
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
    if p.lambda_scopes and side is None:
        var = p.lambda_var(name)
        if var is not None:
            return ir.LambdaVar(var, loc)
    return ir.Col(name, loc, side)


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


# ---------------------------------------------------------------- {"op": ...}


def is_sparkless_op(raw: Mapping[str, Any]) -> bool:
    """Whether an ``{"op": word}`` object is in one of Sparkless' shapes (``sparkless.py``
    reads them): ``"type": "op"``, a word only Sparkless writes, or a function applied to
    ``left`` (Sparkless' generic ColumnOperation)."""
    op = raw.get("op")
    if raw.get("type") == "op":
        return True
    if op in EXPR_OP_WORDS:
        return False
    return op in SPARKLESS_OPS or (op in CATALOG and "left" in raw and "args" not in raw)


def op_expr(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    """``{"op": word, ...}``: the catalog row of the function the word names gives the form
    (binary ``left``/``right``, unary ``arg``, an ``args`` list); a few words have their own.
    Sparkless' shapes are read by ``sparkless.py``."""
    op = raw["op"]
    if is_sparkless_op(raw):
        check_keys(p, raw, loc, SPARKLESS_OP_KEYS, "an op {!r}", op)
        return EXPRESSION_FORMS["sparkless"](p, raw, ("op", op), loc, depth)
    check_keys(p, raw, loc, OP_KEYS, "an op {!r}", op)
    if op in ("and", "or"):
        return _logical_chain(p, raw, loc, depth)
    spec = _OP_ROWS.get(op)
    form = spec.op_form if spec is not None else None
    if spec is not None and form == "args" and "args" in raw:
        return call(p, raw, spec.name, loc, depth, args_key="args", fn_key="op")
    if spec is not None and form == "binary":
        left, right = _operands(p, raw, loc, depth, op)
        if left is None or right is None:
            return None
        if spec.desugar is None:
            return ir.Call(spec.name, (left, right), loc)
        return _desugared(p, spec, [left, right], loc)
    if spec is not None and form == "unary":
        k, arg = first(raw, _OPS["arg"])
        if k is None:
            if isinstance(raw.get("args"), list) and len(raw["args"]) == 1:
                k, arg = "args/0", raw["args"][0]
            else:
                p.err("missing_key", f"{loc}/arg", f"op {op!r} needs 'arg'")
                return None
        a = parse_expr(p, arg, f"{loc}/{k}", depth + 1)
        if a is None:
            return None
        return ir.Call(spec.name, (a,), loc) if spec.desugar is None else _desugared(p, spec, [a], loc)
    own = _OWN_FORMS.get(op)
    if own is not None:
        return own(p, raw, loc, depth)
    if form == "args":
        p.err("missing_key", f"{loc}/args", f"op {op!r} needs an 'args' list")
        return None
    hint = ""
    if op in CATALOG:
        name = json.dumps(op, ensure_ascii=False)
        hint = f'; {name} is a function: write {{"fn": {name}, "args": [...]}}'
    else:
        near = difflib.get_close_matches(op, sorted(EXPR_OP_WORDS), n=1, cutoff=0.6)
        if near:
            hint = f"; did you mean {near[0]!r}?"
    p.err("unknown_expr_op", f"{loc}/op", f"unsupported expression op {op!r}{hint}", op)
    return None


def _desugared(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """An op form's call through its row's desugaring (``!=`` is ``not(==)``)."""
    assert spec.desugar is not None
    return DESUGARS[spec.desugar](p, spec, args, loc)


def _logical_chain(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    """``and``/``or`` with the left spine walked iteratively, flattened to one n-ary call."""
    op = raw["op"]
    operands: list[ir.Expr | None] = []
    pending: list[tuple[Any, str]] = []
    node, nloc = raw, loc
    spine = 0
    while True:
        if "args" in node and isinstance(node["args"], list) and "left" not in node:
            if len(node["args"]) < 2:
                p.err("arity", f"{nloc}/args", f"op {op!r} needs at least two operands")
                return None
            for i, a in reversed(list(enumerate(node["args"]))):
                pending.append((a, f"{nloc}/args/{i}"))
            break
        if "left" not in node or "right" not in node:
            p.err("missing_key", nloc, f"op {op!r} needs 'left' and 'right'")
            return None
        pending.append((node["right"], f"{nloc}/right"))
        left = node["left"]
        if isinstance(left, MAP) and left.get("op") == op and spine < MAX_STEPS:
            node, nloc = left, f"{nloc}/left"
            spine += 1
            continue
        pending.append((left, f"{nloc}/left"))
        break
    for item, iloc in reversed(pending):
        operands.append(parse_expr(p, item, iloc, depth + 1))
    if any(o is None for o in operands):
        return None
    flat: list[ir.Expr] = []
    for o in operands:
        assert o is not None
        if isinstance(o, ir.Call) and o.fn == op:
            flat.extend(o.args)
        else:
            flat.append(o)
    return ir.Call(op, tuple(flat), loc)


def _operand(p: Parser, raw: Mapping[str, Any], keys: tuple[str, ...], loc: str, depth: int, op: str) -> ir.Expr | None:
    k, val = first(raw, keys)
    if k is None:
        p.err("missing_key", f"{loc}/{keys[0]}", f"op {op!r} needs '{keys[0]}'")
        return None
    return parse_expr(p, val, f"{loc}/{k}", depth + 1)


def _operands(
    p: Parser, raw: Mapping[str, Any], loc: str, depth: int, op: str
) -> tuple[ir.Expr | None, ir.Expr | None]:
    if "left" not in raw and isinstance(raw.get("args"), list) and len(raw["args"]) == 2:
        return (
            parse_expr(p, raw["args"][0], f"{loc}/args/0", depth + 1),
            parse_expr(p, raw["args"][1], f"{loc}/args/1", depth + 1),
        )
    left = _operand(p, raw, _LEFT, loc, depth, op)
    right = _operand(p, raw, _RIGHT, loc, depth, op)
    return left, right


def _between_op(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    left = _operand(p, raw, _OPS["between_expr"], loc, depth, "between")
    lo = _operand(p, raw, _OPS["lower"], loc, depth, "between")
    hi = _operand(p, raw, _OPS["upper"], loc, depth, "between")
    if left is None or lo is None or hi is None:
        return None
    return ir.Call("between", (left, lo, hi), loc)


def _isin_op(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    left = _operand(p, raw, _OPS["isin_expr"], loc, depth, "isin")
    vkey, values = first(raw, _OPS["values"])
    if vkey is None:
        p.err("missing_key", f"{loc}/values", "isin needs 'values' (a list)")
        return None
    vloc = f"{loc}/{vkey}"
    if isinstance(values, MAP) and "lit" in values:
        values, vloc = values["lit"], f"{vloc}/lit"
    if not isinstance(values, (list, tuple)):
        values = [values]
        single = True
    else:
        single = False
    items: list[ir.Expr] = []
    for i, v in enumerate(values):
        e = literal_or_expr(p, v, vloc if single else f"{vloc}/{i}", depth)
        if e is None:
            return None
        items.append(e)
    if left is None:
        return None
    return ir.Call("in", (left, *items), loc)


def _get_item_op(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    left = _operand(p, raw, _LEFT, loc, depth, "getItem")
    rkey, rraw = first(raw, _OPS["item"])
    if rkey is None:
        p.err("missing_key", f"{loc}/right", "getItem needs 'right' (the index or key)")
        return None
    item_key = literal_or_expr(p, rraw, f"{loc}/{rkey}", depth)
    if left is None or item_key is None:
        return None
    return ir.ExtractValue(left, item_key, loc)


def _startswith_op(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    left = _operand(p, raw, _LEFT, loc, depth, "startswith")
    rkey, rraw = first(raw, _OPS["prefix"])
    if rkey is None:
        p.err("missing_key", f"{loc}/right", "startswith needs 'right' (the prefix)")
        return None
    prefix = literal_or_expr(p, rraw, f"{loc}/{rkey}", depth)
    if left is None or prefix is None:
        return None
    return ir.Call("startswith", (left, prefix), loc)


def _regexp_op(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    """``regexp_extract``/``regexp_replace`` with named operands (their ``args`` form is a call)."""
    op = raw["op"]
    left = _operand(p, raw, _OPS["regexp_expr"], loc, depth, op)
    pkey, pattern = first(raw, _OPS["pattern"])
    if pkey is None:
        p.err("missing_key", f"{loc}/pattern", f"{op} needs 'pattern'")
        return None
    pat = literal_or_expr(p, pattern, f"{loc}/{pkey}", depth)
    if op == "regexp_extract":
        gkey, group = first(raw, _OPS["group"])
        g = literal_or_expr(p, group if gkey else 0, f"{loc}/{gkey or 'group'}", depth)
        if left is None or pat is None or g is None:
            return None
        return ir.Call(op, (left, pat, g), loc)
    rkey, repl = first(raw, _OPS["replacement"])
    if rkey is None:
        p.err("missing_key", f"{loc}/replacement", "regexp_replace needs 'replacement'")
        return None
    r = literal_or_expr(p, repl, f"{loc}/{rkey}", depth)
    if left is None or pat is None or r is None:
        return None
    return ir.Call(op, (left, pat, r), loc)


def _udf_op(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    _, name = first(raw, _OPS["udf"])
    if not isinstance(name, str) or not name:
        p.err("missing_key", f"{loc}/udf", "a udf op needs a 'udf' (or 'name') string", name)
        return None
    return udf_expr(p, raw, name, loc, depth)


#: {"op": word} forms with their own operand keys (words: spellings.EXPR_OP_WORDS)
_OWN_FORMS: dict[str, Callable[[Parser, Mapping[str, Any], str, int], ir.Expr | None]] = {
    "between": _between_op,
    "isin": _isin_op,
    "getItem": _get_item_op,
    "startswith": _startswith_op,
    "regexp_extract": _regexp_op,
    "regexp_replace": _regexp_op,
    "udf": _udf_op,
}


# ---------------------------------------------------------------- {"fn": ...}


def call(
    p: Parser,
    raw: Mapping[str, Any],
    name: str,
    loc: str,
    depth: int,
    args_key: str = "args",
    fn_key: str = "fn",
    *,
    in_window: bool = False,
) -> ir.Expr | None:
    spec = CATALOG.get(name)
    if fn_key == "fn" and args_key == "args":
        allowed = CALL_KEYS | WINDOW_SPEC_KEYS if raw.get("type") == "window" else CALL_KEYS
        check_keys(p, raw, loc, allowed, "a call of {!r}", name)
    if spec is None:
        fkey = fn_key if fn_key in raw else "function"
        if name in SORT_FUNCTIONS:
            p.err(
                "sort_order",
                f"{loc}/{fkey}",
                f"{name!r} is a sort order: use it as an orderBy or window order_by item, not as a value",
                name,
            )
            return None
        near = suggest(name)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        p.err("unknown_function", f"{loc}/{fkey}", f"unknown function {name!r}{hint}", name)
        return None
    if spec.kind == "window" and not in_window:
        p.err(
            "window_required",
            loc,
            f'{name!r} is a window function: give it a \'window\' spec ({{"fn": {name!r}, "args": [...], "window": {{"partition_by": [...], "order_by": [...]}}}})',
        )
        return None
    raw_args = raw.get(args_key, MISSING)
    if raw_args is MISSING:
        if spec.min_args == 0:
            raw_args = []
        else:
            p.err("missing_key", f"{loc}/{args_key}", f"function {name!r} needs an 'args' list ({spec.arity_text()})")
            return None
    if not isinstance(raw_args, (list, tuple)):
        p.err("args_type", f"{loc}/{args_key}", f"'args' of {name!r} must be a list", raw_args)
        return None
    hook = RAW_HOOKS.get(spec.desugar) if spec.desugar is not None else None
    if hook is not None:
        return hook(p, spec, list(raw_args), f"{loc}/{args_key}", loc, depth)
    args_loc = f"{loc}/{args_key}"
    args = arguments(p, spec, [(a, f"{args_loc}/{i}") for i, a in enumerate(raw_args)], args_loc, depth)
    if args is None:
        return None
    desugar = DESUGARS.get(spec.desugar) if spec.desugar is not None else None
    out: ir.Expr | None
    if desugar is not None:
        out = desugar(p, spec, args, loc)
    else:
        distinct = spec.distinct or raw.get("distinct") is True or raw.get("isDistinct") is True
        out = ir.Call(spec.name, tuple(args), loc, distinct=distinct)
    if "otherwise" in raw and out is not None:
        value = parse_expr(p, raw["otherwise"], f"{loc}/otherwise", depth + 1)
        out = with_otherwise(p, out, value, f"{loc}/otherwise") if value is not None else None
    return out


def with_otherwise(p: Parser, expr: ir.Expr, value: ir.Expr, loc: str) -> ir.Expr | None:
    """``expr`` (a when) with ``value`` as its else branch."""
    if not isinstance(expr, ir.When):
        p.err(
            "otherwise_target",
            loc,
            "'otherwise' gives the else branch of a when: its first argument (or the object carrying the key) must be a when expression",
        )
        return None
    if expr.otherwise is not None:
        p.err("otherwise_twice", loc, "this when already has an else branch")
        return None
    return ir.When(expr.branches, value, expr.loc)


def arguments(
    p: Parser, spec: FunctionSpec, raw_args: list[tuple[Any, str]], loc: str, depth: int
) -> list[ir.Expr] | None:
    """Parse call arguments against the row's slots: arity, literal slots, lambdas,
    then the literals PySpark sends for omitted optional slots (``fill``), and a lone ``*``
    of a row that counts rows as ``1`` (``count(*)`` is ``count(1)``, as PySpark sends it)."""
    n = len(raw_args)
    if spec.expressions_only and n == len(spec.params):  # the usual row: each argument an expression
        parsed = [parse_expr(p, a, aloc, depth + 1) for a, aloc in raw_args]
        exprs = [e for e in parsed if e is not None]
        if len(exprs) != n:
            return None
        if spec.counts_rows and n == 1 and isinstance(exprs[0], ir.Star):
            return [ir.Lit(1, exprs[0].loc)]
        return exprs
    indices = spec.slot_indices(n)
    if indices is None:
        p.err("arity", loc, f"function {spec.name!r} takes {spec.arity_text()}, got {n}", [a for a, _ in raw_args])
        return None
    args: list[ir.Expr] = []
    ok = True
    for (a, aloc), j in zip(raw_args, indices):
        e = argument(p, a, spec.params[j], aloc, depth, spec)
        if e is None:
            ok = False
        else:
            args.append(e)
    if not ok:
        return None
    if spec.fill and not spec.cycle:
        args = _fill_defaults(spec, args, indices, loc)
    if spec.counts_rows and len(args) == 1 and isinstance(args[0], ir.Star):
        args = [ir.Lit(1, args[0].loc)]
    return args


def _fill_defaults(spec: FunctionSpec, args: list[ir.Expr], indices: list[int], loc: str) -> list[ir.Expr]:
    have = dict(zip(indices, args))
    out: list[ir.Expr] = []
    for j in range(len(spec.params)):
        if j in have:
            out.append(have[j])
        elif j in spec.fill:
            out.append(ir.Lit(spec.fill[j], loc))
        else:
            break
    return out if len(out) >= len(args) else args


def argument(p: Parser, raw: Any, param: Param, loc: str, depth: int, spec: FunctionSpec) -> ir.Expr | None:
    if param.code == "e":
        return parse_expr(p, raw, loc, depth + 1)
    if param.code == "X":
        return lambda_arg(p, raw, param, loc, depth, spec)
    if param.code == "T":
        t = type_arg(p, raw, loc)
        return ir.Lit(raw["lit"] if isinstance(raw, Mapping) else raw, loc, t) if t is not None else None
    if param.code == "M":
        return _options_arg(p, raw, loc, spec)
    # literal slot: bare values (and {"lit"}) are checked against the slot's kind;
    # other expression objects pass through for Spark to type-check
    value, vloc = raw, loc
    if isinstance(raw, MAP):
        if "lit" not in raw:
            if "lambda" in raw:
                p.err(
                    "lambda_not_allowed",
                    loc,
                    f"argument ({param.name or 'value'}) of {spec.name!r} is not a function slot",
                )
                return None
            return parse_expr(p, raw, loc, depth + 1)
        value, vloc = raw["lit"], f"{loc}/lit"
    if isinstance(value, (list, tuple)) and param.code in ("F", "I", "N", "S", "B", "L"):
        # a JSON array in a literal slot is an array literal (PySpark's lit([...]))
        items: list[ir.Expr] = []
        for i, v in enumerate(value):
            e = _slot_literal(p, v, param, f"{vloc}/{i}", spec, in_array=True)
            if e is None:
                return None
            items.append(e)
        return ir.Call("array", tuple(items), vloc)
    return _slot_literal(p, value, param, vloc, spec)


def _slot_literal(
    p: Parser, value: Any, param: Param, loc: str, spec: FunctionSpec, in_array: bool = False
) -> ir.Expr | None:
    if value is None:
        return ir.Lit(None, loc)
    problem = _check_literal(param.code, value)
    if problem:
        what = f" ({param.name})" if param.name else ""
        each = "each element of " if in_array else ""
        p.err("literal_expected", loc, f"{each}argument{what} of {spec.name!r} must be {problem}", value)
        return None
    return literal(p, value, loc)


def _check_literal(code: str, value: Any) -> str | None:
    """None if ``value`` fits a literal slot of kind ``code``, else what was expected."""
    if code in ("I", "N"):
        if isinstance(value, bool) or not isinstance(value, int):
            return "an integer"
        if code == "N" and value < 0:
            return "a non-negative integer"
        return None
    if code == "F":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "a number"
        return None
    if code == "S":
        return None if isinstance(value, str) else "a string"
    if code == "B":
        return None if isinstance(value, bool) else "true or false"
    if code == "L":
        return None if isinstance(value, (bool, int, float, str)) else "a literal value"
    return None


def _options_arg(p: Parser, raw: Any, loc: str, spec: FunctionSpec) -> ir.Expr | None:
    """An options map: a JSON object of scalars → ``map('k', 'v', ...)`` of strings, as
    PySpark sends ``options={...}`` (values are stringified)."""
    if not isinstance(raw, Mapping):
        p.err(
            "options_expected",
            loc,
            f"the options of {spec.name!r} must be a JSON object of option names to values",
            raw,
        )
        return None
    items: list[ir.Expr] = []
    for k, v in raw.items():
        if v is not None and not isinstance(v, (str, bool, int, float)):
            p.err("options_expected", f"{loc}/{k}", "an option value must be a string, number or boolean", v)
            return None
        text = "true" if v is True else "false" if v is False else str(v) if v is not None else None
        if text is None:
            p.err("options_expected", f"{loc}/{k}", "an option value must not be null")
            return None
        items += [ir.Lit(str(k), f"{loc}/{k}"), ir.Lit(text, f"{loc}/{k}")]
    return ir.Call("create_map", tuple(items), loc)


# ---------------------------------------------------------------- lambdas, UDFs


def lambda_arg(p: Parser, raw: Any, param: Param, loc: str, depth: int, spec: FunctionSpec) -> ir.Expr | None:
    """``{"lambda": {"params": ["x", "y"], "body": <expr>}}`` (also ``{"params", "body"}``
    directly). Inside the body ``{"col": "x"}``, ``{"var": "x"}`` and the bare string
    ``"x"`` name the parameter; other names are columns."""
    inner, iloc = raw, loc
    if isinstance(raw, Mapping) and "lambda" in raw:
        inner, iloc = raw["lambda"], f"{loc}/lambda"
    if not isinstance(inner, Mapping) or "body" not in inner:
        p.err(
            "lambda_expected",
            loc,
            f'argument ({param.name or "function"}) of {spec.name!r} must be a lambda: {{"lambda": {{"params": ["x"], "body": ...}}}}',
            raw,
        )
        return None
    pkey, params = key(inner, "lambda", "params")
    if pkey is None:
        p.err("lambda_expected", f"{iloc}/params", "a lambda needs 'params', a list of parameter names")
        return None
    ploc = f"{iloc}/{pkey}"
    if isinstance(params, str):
        params = [params]
    if not isinstance(params, (list, tuple)) or not params:
        p.err("lambda_params", ploc, "a lambda's 'params' must be a non-empty list of names", params)
        return None
    names: list[str] = []
    for i, name in enumerate(params):
        if not isinstance(name, str) or not _IDENT.match(name):
            p.err("lambda_params", f"{ploc}/{i}", "a lambda parameter must be a simple name (letters, digits, _)", name)
            return None
        if name.lower() in (n.lower() for n in names):
            p.err("lambda_params", f"{ploc}/{i}", f"lambda parameter {name!r} appears twice", name)
            return None
        names.append(name)
    if param.arities and len(names) not in param.arities:
        want = " or ".join(str(a) for a in param.arities)
        p.err(
            "lambda_arity",
            ploc,
            f"the lambda of {spec.name!r} ({param.name or 'function'}) takes {want} parameter{'s' if param.arities != (1,) else ''}, got {len(names)}",
            list(params),
        )
        return None
    p.lambda_scopes.append({n.lower(): n for n in names})
    try:
        body = parse_expr(p, inner["body"], f"{iloc}/body", depth + 1)
    finally:
        p.lambda_scopes.pop()
    if body is None:
        return None
    return ir.Lambda(tuple(names), body, iloc)


def udf_expr(p: Parser, raw: Mapping[str, Any], name: str, loc: str, depth: int) -> ir.Expr | None:
    raw_args = raw.get("args", [])
    args = expr_list(p, raw_args, f"{loc}/args", depth)
    if args is None:
        return None
    return ir.UdfCall(name, tuple(args), loc)
