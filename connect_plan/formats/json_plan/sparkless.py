"""The expression shapes Sparkless' plan emitters write, on top of robin's forms.

Two emitters (read from their source, see ``docs/plan-format.md``):

``sparkless`` format
    ``sparkless.dataframe.logical_plan.to_logical_plan`` (3.31.0; 4.0.0's
    ``get_logical_plan(df, format="sparkless")``): ``{"type": "op", "op": word, "left": e,
    "right": e | null}`` with PySpark's operator symbols (``> & | !`` ...), unary ops written
    with ``"right": null``, sort orders (``desc_nulls_last``) as ops, ``isin`` with a list,
    ``between`` with ``{"type": "between_bounds", "lower", "upper"}``, ``cast`` with the type
    as a literal, any other ``ColumnOperation`` as ``{"op": <function name>, "left", "right"}``;
    4.0.0 adds ``{"type": "case_when", "conditions": [[c, v], ...], "default": e}``; a node it
    could not serialize is ``{"type": "opaque", "repr": ...}``.
``robin`` format
    4.0.0's ``to_robin_plan`` (``get_logical_plan(df, format="robin")``): robin's words
    (``gt``, ``add``, ``not`` ...) with ``"right": null`` for unary ops, ``{"op": "alias",
    "left": e, "right": {"lit": name}}``, ``{"op": "cast", ...}``, ``{"op": "when", "branches":
    [[c, v], ...], "default": e}`` and ``{"window": {"function", "column", "partition_by",
    "order_by", "alias"}}`` without a top-level ``fn``.

The words and what they call are data (:data:`~.spellings.SPARKLESS_OPS`); this module
reads their operands. Registered into :data:`~.expressions.EXPRESSION_FORMS` on import.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from ... import ir
from ...functions import CATALOG
from .calls import call
from .core import MAP, Parser
from .expressions import DESUGARS, EXPRESSION_FORMS, literal_or_expr, parse_expr, type_arg
from .spellings import SPARKLESS_OPS

__all__ = ["alias_item", "when_branches"]

_SORT_HINT = "sort orders (asc, desc, desc_nulls_last ...) are only read as orderBy or window order_by items"


def _operand(p: Parser, raw: Mapping[str, Any], k: str, loc: str, depth: int) -> ir.Expr | None:
    return parse_expr(p, raw.get(k), f"{loc}/{k}", depth + 1)


def sparkless_op(p: Parser, raw: Mapping[str, Any], op: Any, loc: str, depth: int) -> ir.Expr | None:
    """``{"op": word, "left": e, "right": e | null}`` in either emitter's spelling."""
    assert isinstance(op, str)
    entry = SPARKLESS_OPS.get(op)
    if entry is None:
        if op in CATALOG:
            return _generic(p, raw, op, loc, depth)
        p.err(
            "unknown_expr_op",
            f"{loc}/op",
            f"unsupported expression op {op!r} (a Sparkless-style op: neither an operator Sparkless writes nor a function name)",
            op,
        )
        return None
    fn, form = entry
    if "left" not in raw and form != "case":
        p.err("missing_key", f"{loc}/left", f"op {op!r} needs 'left'")
        return None
    right = raw.get("right")
    if form == "binary":
        if op == "-" and right is None and raw.get("type") == "op":
            # Sparkless writes -col as {"op": "-", "left": col, "right": null}
            a = _operand(p, raw, "left", loc, depth)
            return ir.Call("negative", (a,), loc) if a is not None else None
        left = _operand(p, raw, "left", loc, depth)
        r = _operand(p, raw, "right", loc, depth)  # null: PySpark's col == None, a null literal
        if left is None or r is None:
            return None
        spec = CATALOG[fn]
        if spec.desugar is not None:  # != is not(==)
            return DESUGARS[spec.desugar](p, spec, [left, r], loc)
        return ir.Call(spec.name, (left, r), loc)
    if form == "unary":
        if right is not None:
            p.err(
                "sparkless_operand",
                f"{loc}/right",
                f"op {op!r} takes one operand ('left'); 'right' must be null",
                right,
            )
            return None
        a = _operand(p, raw, "left", loc, depth)
        return ir.Call(fn, (a,), loc) if a is not None else None
    if form == "sort":
        p.err("sort_order", f"{loc}/op", f"{op!r} is a sort order: {_SORT_HINT}, not as a value", op)
        return None
    if form == "isin":
        return _isin(p, raw, loc, depth)
    if form == "between":
        return _between(p, raw, loc, depth)
    if form == "to_type":
        return _cast(p, raw, loc, depth)
    if form == "alias":
        p.err(
            "alias_position",
            f"{loc}/op",
            "an 'alias' op names a select item; it is only read as a select item (or a withColumn/aggregation expression, where its name is the step's)",
            op,
        )
        return None
    return when_branches(p, raw, loc, depth)


def _generic(p: Parser, raw: Mapping[str, Any], op: str, loc: str, depth: int) -> ir.Expr | None:
    """Any other Sparkless ColumnOperation: the function ``op`` of ``left`` and, unless
    null, ``right`` (a list: further arguments)."""
    right = raw.get("right")
    args: list[Any] = [raw.get("left")]
    if isinstance(right, (list, tuple)):
        args.extend(right)
    elif right is not None:
        args.append(right)
    spec = CATALOG[op]
    if spec.slot_indices(len(args)) is None:
        # not a call Sparkless could have written: say how a function is written
        name = json.dumps(op, ensure_ascii=False)
        p.err(
            "unknown_expr_op",
            f"{loc}/op",
            f'unsupported expression op {op!r}; {name} is a function: write {{"fn": {name}, "args": [...]}} '
            f'(read as Sparkless writes a call, {{"op": {name}, "left": ..., "right": ...}}, it takes {spec.arity_text()}, got {len(args)})',
            op,
        )
        return None
    return call(p, {"fn": op, "args": args}, op, loc, depth)


def _isin(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    left = _operand(p, raw, "left", loc, depth)
    values = raw.get("right")
    vloc = f"{loc}/right"
    if isinstance(values, MAP) and "lit" in values:
        values, vloc = values["lit"], f"{vloc}/lit"
    items: list[ir.Expr] = []
    seq = values if isinstance(values, (list, tuple)) else [values]
    for i, v in enumerate(seq):
        e = literal_or_expr(p, v, f"{vloc}/{i}" if seq is values else vloc, depth)
        if e is None:
            return None
        items.append(e)
    if left is None:
        return None
    return ir.Call("in", (left, *items), loc)


def _between(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    left = _operand(p, raw, "left", loc, depth)
    bounds = raw.get("right")
    if not isinstance(bounds, MAP) or "lower" not in bounds or "upper" not in bounds:
        p.err(
            "sparkless_operand",
            f"{loc}/right",
            'between needs "right": {"type": "between_bounds", "lower": ..., "upper": ...}',
            bounds,
        )
        return None
    lo = literal_or_expr(p, bounds["lower"], f"{loc}/right/lower", depth)
    hi = literal_or_expr(p, bounds["upper"], f"{loc}/right/upper", depth)
    if left is None or lo is None or hi is None:
        return None
    return ir.Call("between", (left, lo, hi), loc)


def _literal_text(raw: Any) -> tuple[Any, str]:
    """The value of ``{"type": "literal", "value": v}`` / ``{"lit": v}`` (else ``raw``) and the key path."""
    if isinstance(raw, MAP):
        if "lit" in raw:
            return raw["lit"], "/lit"
        if raw.get("type") in ("literal", "lit") and "value" in raw:
            return raw["value"], "/value"
    return raw, ""


def _cast(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    left = _operand(p, raw, "left", loc, depth)
    text, sub = _literal_text(raw.get("right"))
    t = type_arg(p, text, f"{loc}/right{sub}")
    if left is None or t is None:
        return None
    return ir.Cast(left, t, loc)


def alias_item(p: Parser, raw: Mapping[str, Any], loc: str) -> tuple[ir.Expr, str] | None:
    """``{"op": "alias", "left": e, "right": {"lit": name}}`` (robin format) as a select item."""
    name, sub = _literal_text(raw.get("right"))
    if not isinstance(name, str) or not name:
        p.err("alias", f"{loc}/right{sub}", "an alias op's 'right' must be the output name (a non-empty string)", name)
        return None
    expr = parse_expr(p, raw.get("left"), f"{loc}/left", 1)
    return (expr, name) if expr is not None else None


def when_branches(p: Parser, raw: Mapping[str, Any], loc: str, depth: int) -> ir.Expr | None:
    """``{"op": "when", "branches": [[c, v], ...], "default": e}`` (robin format) and
    ``{"type": "case_when", "conditions": [[c, v], ...], "default": e}`` (sparkless format)."""
    bkey = "branches" if "branches" in raw else "conditions"
    items = raw.get(bkey)
    bloc = f"{loc}/{bkey}"
    if not isinstance(items, (list, tuple)) or not items:
        p.err("missing_key", bloc, f"a when needs '{bkey}', a non-empty list of [condition, value] pairs", items)
        return None
    branches: list[tuple[ir.Expr, ir.Expr]] = []
    ok = True
    for i, pair in enumerate(items):
        if not isinstance(pair, (list, tuple)) or len(pair) != 2:
            p.err("when_branch", f"{bloc}/{i}", "a when branch is a [condition, value] pair", pair)
            ok = False
            continue
        c = parse_expr(p, pair[0], f"{bloc}/{i}/0", depth + 1)
        v = parse_expr(p, pair[1], f"{bloc}/{i}/1", depth + 1)
        if c is None or v is None:
            ok = False
        else:
            branches.append((c, v))
    otherwise: ir.Expr | None = None
    if raw.get("default") is not None:
        otherwise = parse_expr(p, raw["default"], f"{loc}/default", depth + 1)
        if otherwise is None:
            ok = False
    return ir.When(tuple(branches), otherwise, loc) if ok else None


def opaque(p: Parser, raw: Mapping[str, Any], name: Any, loc: str, depth: int) -> ir.Expr | None:
    """``{"type": "opaque", "repr": ...}`` (also ``{"type": "window", "opaque": true}``):
    the producer could not serialize the expression; nothing is guessed."""
    p.err(
        "opaque_expression",
        loc,
        f"the producer could not serialize this expression (it wrote only its repr: {raw.get('repr')!r}); "
        "write it in a form the producer can serialize, or write the plan's expression by hand "
        '({"fn": ..., "args": [...]})',
        raw.get("repr"),
    )
    return None


def window_object(p: Parser, raw: Mapping[str, Any], name: Any, loc: str, depth: int) -> ir.Expr | None:
    """A window node whose function is named by ``function`` and applied to ``column``:
    ``{"type": "window", "function", "column", "partition_by", "order_by", ...}`` (sparkless
    format) or ``{"window": {"function", "column", ...}}`` (robin format)."""
    inner, iloc = raw, loc
    if "window" in raw and isinstance(raw["window"], MAP):
        inner, iloc = raw["window"], f"{loc}/window"
    fn = inner.get("function")
    if not isinstance(fn, str) or not fn:
        p.err("fn_name", f"{iloc}/function", "a window node needs 'function', a function name", fn)
        return None
    column = inner.get("column")
    node: dict[str, Any] = {
        k: v for k, v in inner.items() if k not in ("function", "column", "alias", "type") and v is not None
    }
    node["fn"] = fn
    if column is not None:
        node["args"] = [column]
    node.setdefault("type", "window")
    return EXPRESSION_FORMS["window"](p, node, fn, iloc, depth)


def _case_when(p: Parser, raw: Mapping[str, Any], name: Any, loc: str, depth: int) -> ir.Expr | None:
    return when_branches(p, raw, loc, depth)


#: what ``expressions.parse_expr`` found → its reader here
_FORMS: dict[str, Callable[[Parser, Mapping[str, Any], Any, str, int], ir.Expr | None]] = {
    "op": sparkless_op,
    "opaque": opaque,
    "window": window_object,
    "case_when": _case_when,
}


def sparkless_form(p: Parser, raw: Mapping[str, Any], what: Any, loc: str, depth: int) -> ir.Expr | None:
    """The entry point :mod:`.expressions` calls: ``what`` names the shape it found."""
    form, name = what
    return _FORMS[form](p, raw, name, loc, depth)


EXPRESSION_FORMS["sparkless"] = sparkless_form
