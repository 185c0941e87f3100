"""Two-input steps: join, union / unionByName, crossJoin and the set operations, with their
right side (inline ``other_data``/``other_schema``, a nested plan, a table or a source).

The right side's keys may sit in the payload or beside it on the step (Sparkless style):
:func:`_binary_payload` merges both and remembers where each key was written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ... import ir
from ...errors import short_repr
from .core import MAP, MISSING, Parser, RawStep, column_name, first, step
from .documents import finish, parse_steps, source
from .expressions import parse_expr
from .inline import inline
from .spellings import JOIN_TYPES, KEY_ALIASES, OTHER_KEYS, RIGHT_PLAN_KEYS, SET_OPS, SINGLE_JOIN

__all__: list[str] = []

_RIGHT = KEY_ALIASES["right_side"]
_SINGLE_JOIN_MESSAGE = (
    "Spark has no single join (Substrait 'single': at most one right match per left row, "
    "null when none); write a 'left' join, after making the right side unique on the join "
    "keys (distinct, or groupBy on the keys) when more than one match is possible"
)


def _binary_payload(p: Parser, s: RawStep) -> tuple[dict[str, Any], dict[str, str]] | None:
    """The payload with op-level keys merged in, and where each key came from."""
    merged: dict[str, Any] = {}
    where: dict[str, str] = {}
    if s.payload is not None and not isinstance(s.payload, MAP):
        p.err("payload_type", s.ploc, f"{s.op} needs an object payload", s.payload)
        return None
    for k in OTHER_KEYS:
        if k in s.raw:
            merged[k], where[k] = s.raw[k], f"{s.loc}/{k}"
    for k, v in (s.payload or {}).items():
        merged[k], where[k] = v, f"{s.ploc}/{k}"
    return merged, where


def _right_side(p: Parser, merged: Mapping[str, Any], where: Mapping[str, str], loc: str, op: str) -> ir.Plan | None:
    nested = _nested_right(p, merged, where, loc, op)
    if nested is not MISSING:
        return nested
    dkey, rows = first(merged, _RIGHT["other_data"])
    skey, schema = first(merged, _RIGHT["other_schema"])
    if dkey is None:
        p.err("missing_key", f"{loc}/payload/other_data", f"{op} needs 'other_data' (the right side's rows)")
    if skey is None:
        p.err("missing_key", f"{loc}/payload/other_schema", f"{op} needs 'other_schema' (the right side's schema)")
    if dkey is None or skey is None:
        return None
    src = inline(p, rows, schema, where[dkey], where[skey])
    if src is None:
        return None
    return ir.Plan(src, (), where[dkey])


def _nested_right(
    p: Parser, merged: Mapping[str, Any], where: Mapping[str, str], loc: str, op: str
) -> ir.Plan | Any | None:
    """The right side of a binary op given as a nested plan, a table or a source;
    ``MISSING`` when the payload uses the inline ``other_data``/``other_schema`` form."""
    present = [k for k in RIGHT_PLAN_KEYS if k in merged]
    if not present:
        return MISSING
    has_data = any(k in merged for k in _RIGHT["other_data"])
    if len(present) > 1:
        p.err("conflicting_input", where[present[1]], f"{op} takes one right side; got {present}")
        return None
    k = present[0]
    val, vloc = merged[k], where[k]
    if k in _RIGHT["other_plan"] and isinstance(val, (list, tuple, str)):
        # Sparkless style: other_data/other_schema are the right input, other_plan its steps
        if not has_data:
            p.err(
                "missing_key",
                f"{loc}/payload/other_data",
                f"{op}: a step list in {k!r} applies to 'other_data'/'other_schema', which are missing",
            )
            return None
        dkey, rows = first(merged, _RIGHT["other_data"])
        skey, schema = first(merged, _RIGHT["other_schema"])
        if skey is None:
            p.err("missing_key", f"{loc}/payload/other_schema", f"{op} needs 'other_schema' (the right side's schema)")
            return None
        assert dkey is not None
        p.nesting += 1
        try:
            src = inline(p, rows, schema, where[dkey], where[skey], other_keys=bool(val))
            steps = parse_steps(p, val, vloc)
        finally:
            p.nesting -= 1
        if src is None:
            return None
        return finish(p, src, steps, vloc)
    if has_data:
        p.err("conflicting_input", vloc, f"{op} takes one right side: either 'other_data'/'other_schema' or {k!r}")
        return None
    if k in _RIGHT["other_table"]:
        if not isinstance(val, str) or not val.strip():
            p.err("table_name", vloc, f"{k!r} must be a table or view name", val)
            return None
        return ir.Plan(ir.TableSource(val, (), vloc), (), vloc)
    if isinstance(val, str):  # "other": "db.table"
        if not val.strip():
            p.err("table_name", vloc, "a table name must not be empty", val)
            return None
        return ir.Plan(ir.TableSource(val, (), vloc), (), vloc)
    other = source(p, val, vloc)
    if other is None:
        return None
    return ir.Plan(other, (), vloc)


def _hint_flag(p: Parser, merged: Mapping[str, Any], where: Mapping[str, str]) -> str | None:
    val = merged.get("broadcast")
    if val is None or val is False:
        return None
    if val is True:
        return "broadcast"
    p.err("bool_expected", where.get("broadcast", ""), "'broadcast' must be true or false", val)
    return None


# ---------------------------------------------------------------- join


@step("join")
def parse_join(p: Parser, s: RawStep) -> ir.Step | None:
    got = _binary_payload(p, s)
    if got is None:
        return None
    merged, where = got
    loc, op = s.loc, s.op
    right = _right_side(p, merged, where, loc, op)
    how_raw = merged.get("how", "inner")
    word = how_raw.lower().replace(" ", "") if isinstance(how_raw, str) else None
    how = JOIN_TYPES.get(word) if word is not None else None
    if how is None and word is not None and word in SINGLE_JOIN:
        p.err("unsupported_join_type", where.get("how", f"{loc}/payload/how"), _SINGLE_JOIN_MESSAGE, how_raw)
    elif how is None:
        p.err(
            "join_type",
            where.get("how", f"{loc}/payload/how"),
            f"unknown join type {short_repr(how_raw)} (expected one of {', '.join(sorted(JOIN_TYPES))})",
            how_raw,
        )
    keys: list[str] = []
    conds: list[ir.Expr] = []
    if "on" not in merged or merged["on"] is None:
        if how != "cross":
            p.err(
                "missing_key",
                f"{loc}/payload/on",
                "join needs 'on' (key names or a condition); use crossJoin for a Cartesian product",
            )
    else:
        _join_on(p, merged["on"], where["on"], keys, conds)
    if right is None or how is None or (len(p.errors) and p.has_errors_under(loc)):
        return None
    cond: ir.Expr | None = None
    if conds:
        cond = conds[0] if len(conds) == 1 else ir.Call("and", tuple(conds), where["on"])
    return ir.Join(s.index, op, loc, right, how, tuple(keys), cond, right_hint=_hint_flag(p, merged, where))


def _join_on(p: Parser, on: Any, loc: str, keys: list[str], conds: list[ir.Expr]) -> None:
    """'on': key names (USING columns), conditions, or a mix; a same-name equality is a key."""
    if isinstance(on, str):
        if "(" in on or "=" in on:
            p.err(
                "join_on",
                loc,
                "'on' strings are column names; write a condition as an expression object (SQL text is never parsed)",
                on,
            )
            return
        keys.append(on)
        return
    items = on if isinstance(on, (list, tuple)) else [on]
    if isinstance(on, (list, tuple)) and not on:
        p.err("empty", loc, "join needs at least one key column in 'on'")
        return
    for i, item in enumerate(items):
        iloc = f"{loc}/{i}" if isinstance(on, (list, tuple)) else loc
        if isinstance(item, str):
            keys.append(item)
            continue
        if isinstance(item, MAP):
            same = _same_name_equality(item)
            if same is not None:
                keys.append(same)
                continue
            if set(item) <= {"col", "column", "type", "name"} and any(k in item for k in ("col", "column")):
                name = column_name(p, item, iloc, keys=KEY_ALIASES["join_on"]["col"])
                if name is not None:
                    keys.append(name)
                continue
            p.join_condition += 1
            try:
                e = parse_expr(p, _normalise_eq(item), iloc)
            finally:
                p.join_condition -= 1
            if e is not None:
                conds.append(e)
            continue
        p.err("join_on", iloc, "join 'on' items must be column names or condition objects", item)


def _same_name_equality(item: Mapping[str, Any]) -> str | None:
    """``{"op": "eq"|"==", "left": {"col": x}, "right": {"col": x}}`` → x (a key join)."""
    op = item.get("op", item.get("operator"))
    if op not in ("eq", "=="):
        return None
    left, right = item.get("left"), item.get("right")

    def name(v: Any) -> str | None:
        if isinstance(v, MAP) and "side" not in v:
            n = v.get("col", v.get("column"))
            return n if isinstance(n, str) else None
        return None

    ln, rn = name(left), name(right)
    if ln is not None and rn is not None and ln.lower() == rn.lower():
        return ln
    return None


def _normalise_eq(item: Mapping[str, Any]) -> Mapping[str, Any]:
    """Join conditions may spell equality ``"=="`` and use ``operator``; normalise to ``op``."""
    if "operator" in item and "op" not in item:
        item = {**{k: v for k, v in item.items() if k != "operator"}, "op": item["operator"]}
    return item


# ---------------------------------------------------------------- union, crossJoin, set operations


@step("union", "unionByName")
def parse_union(p: Parser, s: RawStep) -> ir.Step | None:
    got = _binary_payload(p, s)
    if got is None:
        return None
    merged, where = got
    right = _right_side(p, merged, where, s.loc, s.op)
    if right is None:
        return None
    by_name = s.op == "unionByName"
    allow = merged.get("allowMissingColumns", True) if by_name else True
    if not isinstance(allow, bool):  # "false" is not false (bool("false") is True)
        p.err("bool_expected", where["allowMissingColumns"], "'allowMissingColumns' must be true or false", allow)
    distinct = merged.get("distinct", False)
    if not isinstance(distinct, bool):
        p.err("bool_expected", where["distinct"], "'distinct' must be true or false", distinct)
    if not isinstance(allow, bool) or not isinstance(distinct, bool):
        return None
    return ir.SetOp(s.index, s.op, s.loc, right, "union", by_name, by_name and allow, distinct)


@step("crossJoin", "cross_join")
def parse_cross_join(p: Parser, s: RawStep) -> ir.Step | None:
    got = _binary_payload(p, s)
    if got is None:
        return None
    merged, where = got
    right = _right_side(p, merged, where, s.loc, s.op)
    return ir.CrossJoin(s.index, s.op, s.loc, right) if right is not None else None


@step(*SET_OPS)
def parse_set_op(p: Parser, s: RawStep) -> ir.Step | None:
    got = _binary_payload(p, s)
    if got is None:
        return None
    merged, where = got
    op = s.op
    right = _right_side(p, merged, where, s.loc, op)
    kind, distinct = SET_OPS[op]
    if "distinct" in merged and merged["distinct"] is not distinct:
        if kind.endswith("_primary"):
            other_op = "except" if kind == "minus_primary" else "intersect"
            p.err(
                "conflict",
                where["distinct"],
                f"{op!r} keeps the primary input's duplicates; use {other_op!r} for distinct rows",
                merged["distinct"],
            )
        else:
            p.err(
                "conflict",
                where["distinct"],
                f"{op!r} is always {'DISTINCT' if distinct else 'ALL'}; use the op of the other kind",
                merged["distinct"],
            )
        return None
    if right is None:
        return None
    return ir.SetOp(s.index, op, s.loc, right, kind, False, False, distinct)
