"""Window expressions (``{"fn", "args", "window": {...}}`` and Sparkless' ``{"type": "window"}``),
their partitioning, order and frame, and the sort items an ``orderBy`` shares with them.

:func:`window_expr` is registered as the ``"window"`` form of :mod:`.expressions` on import.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ... import ir
from ...functions import CATALOG, SORT_FUNCTIONS
from .calls import call
from .core import MAP, Parser, check_keys, column_name, first, key, split_args
from .expressions import EXPRESSION_FORMS, parse_expr
from .spellings import COLUMN_FORM_KEYS, FRAME_KEYS, KEY_ALIASES, SORT_ITEM_KEYS, SPARKLESS_OPS, WINDOW_SPEC_KEYS

__all__ = ["sort_keys", "window_expr"]

_DIRECTION = re.compile(r"^(.*?)\s+(asc|desc)$", re.I | re.S)
_LIST_REPR = re.compile(r"^\[(.*)\]$", re.S)
#: a frame that failed to parse (None is "no frame")
_FAILED = object()
_SORT = KEY_ALIASES["sort_item"]
#: the lists beside sort items (an orderBy payload, a window spec)
_SORT_LISTS = KEY_ALIASES["sort_lists"]


def window_expr(p: Parser, raw: Mapping[str, Any], name: Any, loc: str, depth: int) -> ir.Expr | None:
    """``{"fn": f, "args": [...], "window": {...}}`` and the Sparkless
    ``{"type": "window", "function": f | <expr>, "window": {...}}``."""
    wkey, spec_raw = key(raw, "expr", "window")
    if wkey is None:
        # Sparkless may put the spec keys on the node itself
        spec_raw, wloc = {k: v for k, v in raw.items() if k in WINDOW_SPEC_KEYS}, loc
    else:
        wloc = f"{loc}/{wkey}"
    if not isinstance(spec_raw, Mapping):
        p.err(
            "window_spec",
            wloc,
            'a window spec must be an object {"partition_by": [...], "order_by": [...], "rows_between": [start, end]}',
            spec_raw,
        )
        return None
    fkey = "fn" if "fn" in raw else "function"
    func: ir.Expr | None
    fname: str | None = None
    if isinstance(name, str):
        fname = name
        spec = CATALOG.get(name)
        if spec is not None and spec.kind not in ("window", "aggregate"):
            p.err(
                "not_window_function",
                f"{loc}/{fkey}",
                f"{name!r} is not a window or aggregate function, so it cannot have a window",
                name,
            )
            return None
        func = call(p, raw, name, loc, depth, in_window=True)
    elif isinstance(name, Mapping):
        func = parse_expr(p, name, f"{loc}/{fkey}", depth + 1, in_window=True)
        if isinstance(func, ir.Call):
            fname = func.fn
    else:
        p.err("fn_name", f"{loc}/{fkey}", "a window function must be a function name or a function expression", name)
        return None
    spec_ir = _window_spec(p, spec_raw, wloc, depth)
    if func is None or spec_ir is None:
        return None
    partition, order, frame = spec_ir
    row = CATALOG.get(fname) if fname is not None else None
    if not order and row is not None and row.needs_order:
        # robin: a ranking function without order_by is ordered by the partition
        # columns; with neither, the order is a constant (ties everywhere)
        if partition:
            order = tuple(ir.SortKey(e, True, None, wloc) for e in partition)
        else:
            order = (ir.SortKey(ir.Lit(1, wloc), True, None, wloc),)
    p.windows += 1
    return ir.Window(func, partition, order, frame, loc)


EXPRESSION_FORMS["window"] = window_expr


def _window_spec(
    p: Parser, raw: Mapping[str, Any], loc: str, depth: int
) -> tuple[tuple[ir.Expr, ...], tuple[ir.SortKey, ...], ir.Frame | None] | None:
    unknown = [k for k in raw if k not in WINDOW_SPEC_KEYS]
    if unknown:
        p.err(
            "window_spec",
            f"{loc}/{unknown[0]}",
            f"unknown window spec key {unknown[0]!r} (expected partition_by, order_by, rows_between, range_between, frame)",
            unknown[0],
        )
        return None
    ok = True
    partition: list[ir.Expr] = []
    pkey, praw = key(raw, "window", "partition_by")
    if pkey is not None and praw is not None:
        items = [praw] if isinstance(praw, (str, Mapping)) else praw
        if not isinstance(items, (list, tuple)):
            p.err("window_spec", f"{loc}/{pkey}", "'partition_by' must be a list of columns or expressions", praw)
            return None
        for i, item in enumerate(items):
            iloc = f"{loc}/{pkey}/{i}" if items is praw else f"{loc}/{pkey}"
            e = _partition_item(p, item, iloc, depth)
            if e is None:
                ok = False
            else:
                partition.append(e)
    order: list[ir.SortKey] = []
    okey, oraw = key(raw, "window", "order_by")
    if okey is not None and oraw is not None:
        items = [oraw] if isinstance(oraw, (str, Mapping)) else oraw
        if not isinstance(items, (list, tuple)):
            p.err("window_spec", f"{loc}/{okey}", "'order_by' must be a list of columns or sort items", oraw)
            return None
        keys = sort_keys(p, items, raw, f"{loc}/{okey}", loc, single=items is not oraw)
        if keys is None:
            ok = False
        else:
            order = keys
    frame = _frame(p, raw, loc)
    if frame is _FAILED or not ok:
        return None
    return tuple(partition), tuple(order), frame  # type: ignore[return-value]


def _partition_item(p: Parser, item: Any, loc: str, depth: int) -> ir.Expr | None:
    if isinstance(item, Mapping) and not any(k in item for k in ("fn", "function", "op", "lit", "udf", "expr")):
        name = column_name(p, item, loc)
        return ir.Col(name, loc) if name is not None else None
    if isinstance(item, Mapping) and "expr" in item:
        return parse_expr(p, item["expr"], f"{loc}/expr", depth + 1)
    return parse_expr(p, item, loc, depth + 1)


def _frame(p: Parser, raw: Mapping[str, Any], loc: str) -> ir.Frame | object | None:
    found = [(k, kind) for k, kind in FRAME_KEYS if k in raw and raw[k] is not None]
    if "frame" in raw and raw["frame"] is not None:
        f = raw["frame"]
        floc = f"{loc}/frame"
        if not isinstance(f, Mapping):
            p.err("window_frame", floc, '\'frame\' must be {"type": "rows"|"range", "start": ..., "end": ...}', f)
            return _FAILED
        tkey, kind = key(f, "frame", "type")
        inner = [(k, fk) for k, fk in (("rows", "rows"), ("range", "range")) if k in f]
        if tkey is None and len(inner) == 1:
            return _bounds(p, f[inner[0][0]], inner[0][1], f"{floc}/{inner[0][0]}")
        if not isinstance(kind, str) or kind.lower() not in ("rows", "range", "row"):
            p.err("window_frame", f"{floc}/{tkey or 'type'}", "a frame's 'type' must be 'rows' or 'range'", kind)
            return _FAILED
        found.append(("frame", "range" if kind.lower() == "range" else "rows"))
    if not found:
        return None
    if len(found) > 1:
        p.err("window_frame", loc, f"a window has one frame; found {[k for k, _ in found]}")
        return _FAILED
    k, kind = found[0]
    return _bounds(p, raw[k], kind, f"{loc}/{k}")


def _bounds(p: Parser, raw: Any, kind: str, loc: str) -> ir.Frame | object:
    if isinstance(raw, (list, tuple)) and len(raw) == 2:
        (lo, lo_loc), (hi, hi_loc) = (raw[0], f"{loc}/0"), (raw[1], f"{loc}/1")
    elif isinstance(raw, Mapping):
        lk, lo = key(raw, "bounds", "start")
        hk, hi = key(raw, "bounds", "end")
        if lk is None or hk is None:
            p.err("window_frame", loc, "a frame needs 'start' and 'end'", raw)
            return _FAILED
        lo_loc, hi_loc = f"{loc}/{lk}", f"{loc}/{hk}"
    else:
        p.err("window_frame", loc, 'a frame is [start, end] or {"start": ..., "end": ...}', raw)
        return _FAILED
    lower = _boundary(p, lo, lo_loc, "start")
    upper = _boundary(p, hi, hi_loc, "end")
    if lower is _FAILED or upper is _FAILED:
        return _FAILED
    if isinstance(lower, int) and isinstance(upper, int) and lower > upper:
        p.err("window_frame", loc, f"the frame starts after it ends ({lower} > {upper})", raw)
        return _FAILED
    return ir.Frame(kind, lower, upper, loc)  # type: ignore[arg-type]


def _boundary(p: Parser, v: Any, loc: str, side: str) -> int | object | None:
    """A frame boundary: None = unbounded on that side, 0 = current row, else an offset
    (negative = preceding). Markers in any spelling; PySpark's huge sentinel values too."""
    if isinstance(v, Mapping) and "lit" in v:
        v = v["lit"]
    if v is None:
        return None
    if isinstance(v, str):
        word = re.sub(r"[\s_-]", "", v).lower()
        if word in ("currentrow", "current"):
            return 0
        if word == "unbounded" or word == f"unbounded{'preceding' if side == 'start' else 'following'}":
            return None
        if word in ("unboundedpreceding", "unboundedfollowing"):
            p.err("window_frame", loc, f"a frame cannot {side} at {v!r}", v)
            return _FAILED
        p.err(
            "window_frame",
            loc,
            "a frame boundary is an integer offset, 'currentRow', 'unboundedPreceding' or 'unboundedFollowing'",
            v,
        )
        return _FAILED
    if isinstance(v, bool) or not isinstance(v, int):
        p.err("window_frame", loc, "a frame boundary offset must be an integer", v)
        return _FAILED
    if v <= -(2**31) or v >= 2**31 - 1:
        # PySpark's Window.unboundedPreceding / unboundedFollowing are ±sys.maxsize-ish
        if (v < 0) != (side == "start"):
            p.err("window_frame", loc, f"a frame cannot {side} unbounded on that side", v)
            return _FAILED
        return None
    return v


# ---------------------------------------------------------------- sort items


def sort_keys(
    p: Parser, items: Any, spec: Mapping[str, Any], items_loc: str, spec_loc: str, single: bool = False
) -> list[ir.SortKey] | None:
    """Sort items of an orderBy or a window's order_by: names (``"col DESC"``, list
    reprs), objects with direction / null keys, sort functions (``{"fn": "desc"}``),
    with ``ascending`` / ``nulls_first`` / ``nulls_last`` lists beside them in ``spec``."""
    n_errors = len(p.errors)
    # expand items into (expr, explicit ascending, explicit nulls_first, loc)
    entries: list[list[Any]] = []
    for i, item in enumerate(items):
        iloc = items_loc if single else f"{items_loc}/{i}"
        if isinstance(item, str):
            word = item.strip().lower()
            if word in ("asc", "desc") and entries:
                entries[-1][1] = word == "asc"  # a lone direction word modifies the previous column
                continue
            m = _LIST_REPR.match(item.strip())
            if m:
                for part in split_args(m.group(1)):
                    name = part.strip().strip("'\"")
                    if name:
                        entries.append([ir.Col(name, iloc), None, None, iloc])
                continue
            m = _DIRECTION.match(item)
            if m:
                entries.append([ir.Col(m.group(1).strip(), iloc), m.group(2).lower() == "asc", None, iloc])
            else:
                entries.append([ir.Col(item, iloc), None, None, iloc])
            continue
        if isinstance(item, MAP):
            got = _sort_key(p, item, iloc)
            if got is not None:
                entries.append(list(got))
            continue
        p.err("sort_item", iloc, "a sort item must be a column name ('col', 'col DESC') or an object", item)
    ascending = _bool_list(p, spec, _SORT_LISTS["ascending"], len(entries), spec_loc)
    nulls_first = _bool_list(p, spec, _SORT_LISTS["nulls_first"], len(entries), spec_loc)
    nulls_last = _bool_list(p, spec, _SORT_LISTS["nulls_last"], len(entries), spec_loc)
    keys: list[ir.SortKey] = []
    for i, (expr, asc, nf, iloc) in enumerate(entries):
        if asc is None:
            asc = ascending[i] if ascending and ascending[i] is not None else True
        if nf is None:
            a, b = (nulls_first[i] if nulls_first else None), (nulls_last[i] if nulls_last else None)
            if a is not None and b is not None and a == b:
                p.err("conflict", spec_loc, f"column {i}: nulls_first and nulls_last disagree")
            nf = a if a is not None else (not b if b is not None else None)
        keys.append(ir.SortKey(expr, asc, nf, iloc))
    if len(p.errors) > n_errors:
        return None
    return keys


#: a sort item's keys besides its order: an expression, or a column's name and side
_SORT_EXPR_ITEM_KEYS: frozenset[str] = SORT_ITEM_KEYS | frozenset(KEY_ALIASES["sort_item"]["expr"])
_SORT_COLUMN_ITEM_KEYS: frozenset[str] = SORT_ITEM_KEYS | COLUMN_FORM_KEYS


def _sort_key(p: Parser, item: Mapping[str, Any], loc: str) -> tuple[ir.Expr, bool | None, bool | None, str] | None:
    """An object sort item: a column or expression plus direction / null placement keys."""
    sort_op = item.get("op")
    if isinstance(sort_op, str) and SPARKLESS_OPS.get(sort_op, ("", ""))[1] == "sort":
        # Sparkless: {"type": "op", "op": "desc_nulls_last", "left": e, "right": null}
        if item.get("right") is not None:
            p.err(
                "sparkless_operand", f"{loc}/right", f"sort order {sort_op!r} takes one operand ('left')", item["right"]
            )
            return None
        key_expr = parse_expr(p, item.get("left"), f"{loc}/left")
        direction, nulls = SORT_FUNCTIONS[SPARKLESS_OPS[sort_op][0]]
        return (key_expr, direction, nulls, loc) if key_expr is not None else None
    sort_fn = item.get("fn", item.get("function"))
    if isinstance(sort_fn, str) and sort_fn in SORT_FUNCTIONS:
        args = item.get("args")
        if not isinstance(args, (list, tuple)) or len(args) != 1:
            p.err(
                "arity",
                f"{loc}/args",
                f"sort order {sort_fn!r} takes exactly one argument (the column or expression)",
                args,
            )
            return None
        key_expr = parse_expr(p, args[0], f"{loc}/args/0")
        direction, nulls = SORT_FUNCTIONS[sort_fn]
        return (key_expr, direction, nulls, loc) if key_expr is not None else None
    expr: ir.Expr | None
    if "expr" in item:
        check_keys(p, item, loc, _SORT_EXPR_ITEM_KEYS, "a sort item")
        expr = parse_expr(p, item["expr"], f"{loc}/expr")
    elif any(k in item for k in ("fn", "function", "op", "lit", "udf")):
        expr = parse_expr(p, {k: v for k, v in item.items() if k not in SORT_ITEM_KEYS}, loc)
    else:
        check_keys(p, item, loc, _SORT_COLUMN_ITEM_KEYS, "a sort item")
        name = column_name(p, item, loc)
        expr = ir.Col(name, loc) if name is not None else None
    asc: bool | None = None
    for k in _SORT["asc"]:
        if k in item:
            if not isinstance(item[k], bool):
                p.err("bool_expected", f"{loc}/{k}", f"'{k}' must be true or false", item[k])
            else:
                asc = item[k]
    for k in _SORT["desc"]:
        if k in item:
            if not isinstance(item[k], bool):
                p.err("bool_expected", f"{loc}/{k}", f"'{k}' must be true or false", item[k])
            else:
                if asc is not None and asc == item[k]:
                    p.err("conflict", f"{loc}/{k}", "the item is both ascending and descending")
                asc = not item[k]
    if isinstance(item.get("direction"), str):
        d = item["direction"].lower()
        if d in ("asc", "ascending", "desc", "descending"):
            asc = d.startswith("asc")
        else:
            p.err("sort_direction", f"{loc}/direction", "direction must be 'asc' or 'desc'", item["direction"])
    nf: bool | None = None
    nkey, v = first(item, _SORT["nulls_first"])
    if nkey is not None:
        if isinstance(v, bool):
            nf = v
        else:
            p.err("bool_expected", f"{loc}/nulls_first", "'nulls_first' must be true or false", v)
    nkey, v = first(item, _SORT["nulls_last"])
    if nkey is not None:
        if isinstance(v, bool):
            if nf is not None and nf == v:
                p.err("conflict", f"{loc}/nulls_last", "nulls_first and nulls_last disagree")
            nf = not v
        else:
            p.err("bool_expected", f"{loc}/nulls_last", "'nulls_last' must be true or false", v)
    if expr is None:
        return None
    return (expr, asc, nf, loc)


def _bool_list(
    p: Parser, payload: Mapping[str, Any], keys: tuple[str, ...], n: int, loc: str
) -> list[bool | None] | None:
    k, val = first(payload, keys)
    if k is None or val is None:
        return None
    if isinstance(val, bool):
        return [val] * n
    if not isinstance(val, (list, tuple)) or not all(isinstance(v, bool) or v is None for v in val):
        p.err("bool_list", f"{loc}/{k}", f"'{k}' must be true/false or a list of them", val)
        return None
    if len(val) > n:
        p.err("length_mismatch", f"{loc}/{k}", f"'{k}' has {len(val)} entries for {n} sort columns", val)
        return None
    return list(val) + [None] * (n - len(val))
