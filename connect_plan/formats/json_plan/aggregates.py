"""Aggregation steps: groupBy / rollup / cube, agg, groupingSets, their aggregation entries
(``{"agg": "sum", "column": "v", "alias": "total"}``, filtered measures, grouped UDFs), and
:func:`pair_aggregations`, which joins a ``groupBy`` without ``aggs`` to the ``agg`` step
after it so that every parsed ``ir.GroupBy`` has its aggregations.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from ... import ir
from ...functions import CATALOG, NULL_SKIPPING_NAMES, Param, suggest
from .calls import arguments
from .core import MAP, MISSING, Parser, RawStep, alias, check_keys, first, step
from .expressions import expr_list, group_item, parse_expr, type_arg
from .spellings import AGG_ENTRY_KEYS, GROUP_KINDS, KEY_ALIASES

__all__ = ["pair_aggregations"]

_ENTRY = KEY_ALIASES["agg_entry"]


@step("groupBy", "rollup", "cube")
def parse_group(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc, op = s.payload, s.ploc, s.op
    if isinstance(payload, (list, tuple)):
        payload = {"group_by": payload}
    if not isinstance(payload, MAP):
        p.err("payload_type", ploc, f'{op} needs {{"group_by": [...], "aggs": [...]}}', payload)
        return None
    gkey, groups = s.key("group_by", payload)
    if gkey is None:
        p.err("missing_key", f"{ploc}/group_by", f"{op} needs a 'group_by' list (empty for a global aggregate)")
        return None
    if isinstance(groups, str):
        groups = [groups]
    if not isinstance(groups, (list, tuple)):
        p.err("payload_type", f"{ploc}/{gkey}", "'group_by' must be a list", groups)
        return None
    keys: list[ir.Expr] = []
    for i, g in enumerate(groups):
        e = group_item(p, g, f"{ploc}/{gkey}/{i}")
        if e is not None:
            keys.append(e)
    akey, aggs_raw = s.key("aggs", payload)
    aggs = None
    if akey is not None:
        aggs = _aggs(p, aggs_raw, f"{ploc}/{akey}")
        if aggs is None:
            return None
    else:
        p.unpaired_groups = True  # completed by the agg step after it (pair_aggregations)
    return ir.GroupBy(s.index, op, s.loc, GROUP_KINDS[op], tuple(keys), aggs)


@step("agg")
def parse_agg(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    if isinstance(payload, (list, tuple)):
        aggs = _aggs(p, payload, ploc)
    elif isinstance(payload, MAP):
        k, val = s.key("aggs")
        if k is None:
            p.err("missing_key", f"{ploc}/aggs", "agg needs an 'aggs' list")
            return None
        aggs = _aggs(p, val, f"{ploc}/{k}")
    else:
        p.err("payload_type", ploc, 'agg needs {"aggs": [...]}', payload)
        return None
    return ir.Agg(s.index, s.op, s.loc, aggs) if aggs is not None else None


@step("groupingSets")
def parse_grouping_sets(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    if not isinstance(payload, MAP):
        p.err("payload_type", ploc, 'groupingSets needs {"sets": [[...], ...], "aggs": [...]}', payload)
        return None
    skey, sets_raw = s.key("sets")
    if skey is None or not isinstance(sets_raw, (list, tuple)) or not sets_raw:
        p.err(
            "missing_key" if skey is None else "payload_type",
            f"{ploc}/{skey or 'sets'}",
            "groupingSets needs 'sets': a non-empty list of lists of grouping columns",
            sets_raw,
        )
        return None
    keys: list[ir.Expr] = []
    index_of: dict[str, int] = {}
    explicit = False
    gkey, groups = s.key("group_by")
    if gkey is not None:
        if not isinstance(groups, (list, tuple)):
            p.err("payload_type", f"{ploc}/{gkey}", "'group_by' must be a list", groups)
            return None
        explicit = True
        for i, g in enumerate(groups):
            e = group_item(p, g, f"{ploc}/{gkey}/{i}")
            if e is not None:
                index_of.setdefault(_group_key(g), len(keys))
                keys.append(e)
    sets: list[tuple[int, ...]] = []
    for i, members_raw in enumerate(sets_raw):
        sloc = f"{ploc}/{skey}/{i}"
        if isinstance(members_raw, str):
            members_raw = [members_raw]
        if not isinstance(members_raw, (list, tuple)):
            p.err(
                "payload_type",
                sloc,
                "each grouping set must be a list of grouping columns (empty for the grand total)",
                members_raw,
            )
            continue
        members: list[int] = []
        for j, g in enumerate(members_raw):
            gk = _group_key(g)
            if gk not in index_of:
                if explicit:
                    p.err("unknown_column", f"{sloc}/{j}", "a grouping set member must be one of 'group_by'", g)
                    continue
                e = group_item(p, g, f"{sloc}/{j}")
                if e is None:
                    continue
                index_of[gk] = len(keys)
                keys.append(e)
            members.append(index_of[gk])
        sets.append(tuple(members))
    akey, aggs_raw = s.key("aggs")
    if akey is None:
        p.err("missing_key", f"{ploc}/aggs", "groupingSets needs an 'aggs' list")
        return None
    aggs = _aggs(p, aggs_raw, f"{ploc}/{akey}")
    if aggs is None or p.has_errors_under(ploc):
        return None
    return ir.GroupBy(s.index, s.op, s.loc, "grouping_sets", tuple(keys), aggs, tuple(sets))


def _group_key(g: Any) -> str:
    """How grouping-set members are matched to grouping columns: by (case-insensitive)
    column name, else by the expression's JSON."""
    if isinstance(g, str):
        return "col:" + g.lower()
    if isinstance(g, Mapping) and not any(k in g for k in ("fn", "function", "op", "expr")):
        for k in ("col", "column", "name"):
            name = g.get(k)
            if isinstance(name, str):
                return "col:" + name.lower()
    try:
        return "expr:" + json.dumps(g, sort_keys=True, default=repr)
    except (TypeError, ValueError, RecursionError):
        return "expr:" + repr(g)


# ---------------------------------------------------------------- aggregation entries


def _aggs(p: Parser, raw: Any, loc: str) -> tuple[ir.AggItem, ...] | None:
    if not isinstance(raw, (list, tuple)):
        p.err("payload_type", loc, 'aggregations must be a list of {"agg", "column", "alias"} objects', raw)
        return None
    out = []
    for i, entry in enumerate(raw):
        item = _agg_entry(p, entry, f"{loc}/{i}")
        if item is not None and isinstance(entry, Mapping):
            fkey, cond_raw = first(entry, _ENTRY["filter"])
            if fkey is not None:
                item = _filtered(p, item, cond_raw, f"{loc}/{i}/{fkey}")
        if item is not None:
            out.append(item)
    return tuple(out) if len(out) == len(raw) else None


def _agg_entry(p: Parser, entry: Any, loc: str) -> ir.AggItem | None:
    if not isinstance(entry, MAP):
        p.err("agg_entry", loc, "each aggregation must be an object", entry)
        return None
    check_keys(p, entry, loc, AGG_ENTRY_KEYS, "an aggregation")
    name = alias(p, entry, loc, keys=_ENTRY["alias"])
    if entry.get("type") == "agg_str":
        return _agg_str(p, entry.get("expr"), f"{loc}/expr", name, loc)
    if "expr" in entry:
        entry_expr = parse_expr(p, entry["expr"], f"{loc}/expr")
        return ir.AggItem(entry_expr, name, loc) if entry_expr is not None else None
    fkey, func = first(entry, _ENTRY["agg"])
    if fkey is None or not isinstance(func, str):
        p.err("agg_entry", f"{loc}/{fkey or 'agg'}", "an aggregation needs 'agg' (a function name) or 'expr'", func)
        return None
    floc = f"{loc}/{fkey}"
    if func == "python_grouped_udf":
        return _grouped_udf_entry(p, entry, loc, name)
    spec = CATALOG.get(func)
    if spec is None or spec.kind != "aggregate":
        near = [n for n in suggest(func) if CATALOG[n].kind == "aggregate"]
        hint = f"; did you mean {near[0]!r}?" if near else ""
        what = "is not an aggregate function" if spec is not None else "is not a known aggregate function"
        p.err("unknown_aggregate", floc, f"{func!r} {what}{hint}", func)
        return None
    # arguments: the column(s), then any further 'args', all checked against the row
    raw_args: list[tuple[Any, str]] = []
    ckey, column = first(entry, _ENTRY["column"])
    if ckey is not None and column is not None:
        if isinstance(column, (list, tuple)) and ckey in ("columns", "cols"):
            raw_args += [(c, f"{loc}/{ckey}/{i}") for i, c in enumerate(column)]
        elif isinstance(column, (str, Mapping)):
            raw_args.append((column, f"{loc}/{ckey}"))
        else:
            p.err("column_name", f"{loc}/{ckey}", "'column' must be a column name or an expression", column)
            return None
    if "args" in entry:
        extra = entry["args"]
        if not isinstance(extra, (list, tuple)):
            p.err("args_type", f"{loc}/args", "'args' must be a list", extra)
            return None
        raw_args += [(a, f"{loc}/args/{i}") for i, a in enumerate(extra)]
    if not raw_args and spec.counts_rows and not spec.distinct:
        raw_args.append(("*", f"{loc}/column"))  # a count of rows: count(1), as Spark names it (not a distinct count)
    nkey, v = first(entry, _ENTRY["ignorenulls"])
    if nkey is not None:
        slot = next((i for i, prm in enumerate(spec.params) if prm.name in ("ignorenulls", "ignore_nulls")), None)
        if not isinstance(v, bool):
            p.err("bool_expected", f"{loc}/{nkey}", f"'{nkey}' must be true or false", v)
            return None
        if slot is None:
            if v:
                p.err(
                    "not_applicable",
                    f"{loc}/{nkey}",
                    f"'{nkey}' applies to first, last, first_value, last_value and any_value, not {func!r}",
                )
                return None
        elif len(raw_args) == slot:
            raw_args.append((v, f"{loc}/{nkey}"))
        else:
            p.err(
                "conflict", f"{loc}/{nkey}", f"'{nkey}' and the arguments of {func!r} both give the ignore-nulls flag"
            )
            return None
    if not raw_args and spec.min_args > 0:
        p.err("missing_key", f"{loc}/column", f"aggregate {func!r} needs a 'column' ({spec.arity_text()})")
        return None
    args = arguments(p, spec, raw_args, f"{loc}/args" if "args" in entry else f"{loc}/{ckey or 'column'}", 0)
    if args is None:
        return None
    distinct = spec.distinct or entry.get("distinct") is True
    expr: ir.Expr = ir.Call(spec.name, tuple(args), floc, distinct=distinct)
    ckey2, cast_to = first(entry, _ENTRY["cast"])
    if ckey2 is not None and cast_to is not None:
        t = type_arg(p, cast_to, f"{loc}/{ckey2}")
        if t is None:
            return None
        expr = ir.Cast(expr, t, f"{loc}/{ckey2}")
    return ir.AggItem(expr, name, loc)


_AGG_CALL = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*\(\s*(\*|[A-Za-z_][A-Za-z0-9_.]*|`(?:[^`]|``)+`)\s*\)\s*$")


def _agg_str(p: Parser, text: Any, tloc: str, name: str | None, loc: str) -> ir.AggItem | None:
    """Sparkless' ``{"type": "agg_str", "expr": "sum(age)"}`` (``agg({"age": "sum"})``, ``agg("sum(age)")``):
    one aggregate function of one column or ``*``, never general SQL."""
    m = _AGG_CALL.match(text) if isinstance(text, str) else None
    if m is None:
        p.err(
            "agg_str",
            tloc,
            "an agg_str aggregation is read as one aggregate call of a column or '*', such as 'sum(age)' or "
            'count(*); write anything else as {"agg": ..., "column": ...} or {"expr": ...}',
            text,
        )
        return None
    func, arg = m.groups()
    spec = CATALOG.get(func.lower())
    if spec is None or spec.kind != "aggregate":
        near = [n for n in suggest(func) if CATALOG[n].kind == "aggregate"]
        hint = f"; did you mean {near[0]!r}?" if near else ""
        p.err("unknown_aggregate", tloc, f"{func!r} in {text!r} is not a known aggregate function{hint}", text)
        return None
    if arg.startswith("`"):
        arg = arg[1:-1].replace("``", "`")
    args = arguments(p, spec, [(arg, tloc)], tloc, 0)
    if args is None:
        return None
    return ir.AggItem(ir.Call(spec.name, tuple(args), tloc, distinct=spec.distinct), name, loc)


def _grouped_udf_entry(p: Parser, entry: Mapping[str, Any], loc: str, name: str | None) -> ir.AggItem | None:
    udf = entry.get("udf")
    if not isinstance(udf, str) or not udf:
        p.err(
            "missing_key",
            f"{loc}/udf",
            "a python_grouped_udf aggregation needs a 'udf' name",
            udf if "udf" in entry else MISSING,
        )
        return None
    rkey, rtype = first(entry, _ENTRY["return_type"])
    declared = None
    if rkey is not None and rtype is not None:
        declared = type_arg(p, rtype, f"{loc}/{rkey}")
        if declared is None:
            return None
    args = expr_list(p, entry.get("args", []), f"{loc}/args")
    if args is None:
        return None
    return ir.AggItem(ir.UdfCall(udf, tuple(args), loc, aggregate=True, return_type=declared), name, loc)


def _filtered(p: Parser, item: ir.AggItem, cond_raw: Any, loc: str) -> ir.AggItem | None:
    """``{"agg": ..., "filter": <condition>}`` = SQL ``agg(x) FILTER (WHERE condition)``.

    Spark Connect's function call has no filter slot (and we never send SQL text), so
    the measure becomes ``agg(CASE WHEN condition THEN x END)``: identical for aggregates
    that skip nulls (the catalog's ``null_skipping`` rows), the only ones accepted here."""
    cond = parse_expr(p, cond_raw, loc)
    if cond is None:
        return None
    expr = item.expr
    cast: ir.Cast | None = None
    if isinstance(expr, ir.Cast):
        cast, expr = expr, expr.expr
    spec = CATALOG.get(expr.fn) if isinstance(expr, ir.Call) else None
    if not isinstance(expr, ir.Call) or spec is None or spec.kind != "aggregate":
        p.err("agg_filter", loc, "a filter applies to an aggregate function call")
        return None
    null_flag = spec.name in ("first", "last") and not (
        len(expr.args) > 1 and isinstance(expr.args[1], ir.Lit) and expr.args[1].value is True
    )
    if not spec.null_skipping and not (spec.name in ("first", "last") and not null_flag):
        what = f"{spec.name!r} without ignorenulls" if null_flag else repr(spec.name)
        p.err(
            "agg_filter",
            loc,
            f"a filter is supported for aggregates that skip nulls ({', '.join(NULL_SKIPPING_NAMES)}, first/last with ignorenulls); {what} does not",
        )
        return None
    slots: Sequence[Param | None] = spec.slots(len(expr.args)) or [None] * len(expr.args)
    args = tuple(
        ir.When(((cond, a),), None, a.loc) if slot is not None and slot.code == "e" else a
        for slot, a in zip(slots, expr.args)
    )
    new: ir.Expr = replace(expr, args=args)
    if cast is not None:
        new = replace(cast, expr=new)
    return replace(item, expr=new)


# ---------------------------------------------------------------- groupBy + agg


def pair_aggregations(p: Parser, plan: ir.Plan) -> ir.Plan:
    """Every ``groupBy`` without ``aggs`` with the ``agg`` step after it (``stop`` steps in
    between are transparent), as one ``ir.GroupBy``; an unpaired one is a
    ``groupby_without_aggs`` error. Plans are visited in the order the translator lowers
    them (a shared sub-plan once, at its first use), so the errors come in that order."""
    done: dict[int, ir.SharedPlan] = {}
    return _pair_plan(p, plan, done)


def _pair_plan(p: Parser, plan: ir.Plan, done: dict[int, ir.SharedPlan]) -> ir.Plan:
    source = plan.source
    if isinstance(source, ir.SharedPlan):
        shared = done.get(id(source))
        if shared is None:
            shared = replace(source, plan=_pair_plan(p, source.plan, done))
            done[id(source)] = shared
        source = shared
    steps: list[ir.Step] = []
    pending: int | None = None  # index into steps of a groupBy waiting for its agg
    for s in plan.steps:
        if isinstance(s, ir.Stop):
            steps.append(s)
            continue
        if pending is not None:
            group = steps[pending]
            assert isinstance(group, ir.GroupBy)
            if isinstance(s, ir.Agg):
                steps[pending] = replace(group, aggs=s.aggs, agg_index=s.index)
                pending = None
                continue
            p.err(
                "groupby_without_aggs",
                group.loc,
                f"{group.op} has no 'aggs' and is not followed by an 'agg' step (found {s.op!r})",
            )
            pending = None
        if isinstance(s, ir.GroupBy) and s.aggs is None:
            pending = len(steps)
        elif isinstance(s, (ir.Join, ir.SetOp, ir.CrossJoin)):
            s = replace(s, right=_pair_plan(p, s.right, done))
        steps.append(s)
    if pending is not None:
        group = steps[pending]
        p.err(
            "groupby_without_aggs",
            group.loc,
            f"{group.op} has no 'aggs' and is the last step; add 'aggs' or an 'agg' step",
        )
    return replace(plan, source=source, steps=tuple(steps))
