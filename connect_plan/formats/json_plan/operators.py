"""``{"op": ...}`` forms: the catalog row of the function an op word names gives its form
(binary ``left``/``right``, unary ``arg``, an ``args`` list), a few words have their own, and
``and``/``or`` chains are flattened (PLAN_FORMAT.md §3.2); Sparkless' shapes go to
``sparkless.py``. Registered as :data:`~.expressions.FORMS` ``.op``."""

from __future__ import annotations

import difflib
import json
from collections.abc import Callable, Mapping
from typing import Any

from ... import ir
from ...functions import CATALOG, FunctionSpec
from ...limits import MAX_STEPS
from .calls import call, udf_expr
from .core import MAP, Parser, check_keys, first
from .expressions import DESUGARS, EXPRESSION_FORMS, FORMS, literal_or_expr, parse_expr
from .spellings import EXPR_OP_FUNCTIONS, EXPR_OP_WORDS, KEY_ALIASES, OP_KEYS, SPARKLESS_OP_KEYS, SPARKLESS_OPS

__all__ = ["is_sparkless_op", "op_expr"]

_OPS = KEY_ALIASES["op"]
_LEFT, _RIGHT = _OPS["left"], _OPS["right"]
#: {"op": word} → the catalog row of the function it calls (the row's op_form is its form)
_OP_ROWS: dict[str, FunctionSpec] = {word: CATALOG[name] for word, name in EXPR_OP_FUNCTIONS.items()}


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


FORMS.op = op_expr
