"""Single-input steps that keep, compute, rename, order or cut rows: filter, select,
withColumn, withColumnRenamed, drop, distinct, limit/offset/tail/fetch, orderBy (and
sort, sortWithinPartitions), sample, repartition/coalesce, hint, stop.

Aggregations are in :mod:`.aggregates`, two-input steps in :mod:`.binary`, outputs in
:mod:`.outputs`, ``read`` in :mod:`.documents`.
"""

from __future__ import annotations

import math
import re
from typing import Any

from ... import ir
from .core import MAP, MISSING, Parser, RawStep, alias, check_keys, column_name, first, no_side, split_args, step
from .expressions import group_item, literal_or_expr, parse_expr
from .sparkless import alias_item
from .spellings import KEY_ALIASES
from .windows import sort_keys

__all__: list[str] = []

_CONCAT = re.compile(r"^\s*(concat_ws|concat)\s*\((.*)\)\s*(?:\s[aA][sS]\s+(.+?))?\s*$", re.S)
_AS = re.compile(r"^(.+?)\s+[aA][sS]\s+(.+)$", re.S)
_SIMPLE_NAME = re.compile(r"^[^\s()]+$")
_ITEM = KEY_ALIASES["select_item"]
#: the keys of a select item {"expr", "name"/"alias"} and of a column item {"col", "alias"}
_EXPR_ITEM_KEYS: frozenset[str] = frozenset((*_ITEM["expr"], *_ITEM["output_name"]))
_COLUMN_ITEM_KEYS: frozenset[str] = frozenset((*_ITEM["column"], *_ITEM["alias"], *_ITEM["type"], *_ITEM["side"]))


@step("filter")
def parse_filter(p: Parser, s: RawStep) -> ir.Step | None:
    if s.payload is None:
        p.err("missing_key", s.ploc, 'filter needs a payload: the condition (an expression, or {"condition": ...})')
        return None
    windows = p.windows
    ckey, raw = s.key("condition") if isinstance(s.payload, MAP) else (None, MISSING)
    if ckey is not None:  # Sparkless: {"condition": <expr>}
        check_keys(p, s.payload, s.ploc, frozenset(KEY_ALIASES["filter"]["condition"]), "the payload of filter")
        cond = parse_expr(p, raw, f"{s.ploc}/{ckey}")
    else:
        cond = parse_expr(p, s.payload, s.ploc)
    if cond is None:
        return None
    if p.windows == windows:  # parsing the condition made no window: nothing to look for
        return ir.Filter(s.index, s.op, s.loc, cond)
    for node in ir.walk(cond):
        if isinstance(node, ir.Window):
            p.err(
                "window_in_filter",
                node.loc,
                "window functions are not allowed in a filter (Spark evaluates them after WHERE); compute them with withColumn first, then filter on that column",
            )
            return None
    return ir.Filter(s.index, s.op, s.loc, cond)


# ---------------------------------------------------------------- select


@step("select")
def parse_select(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    items_raw = payload
    if isinstance(payload, MAP) and "columns" in payload:
        items_raw, ploc = payload["columns"], f"{ploc}/columns"
    elif isinstance(payload, str):
        items_raw = [payload]
    if not isinstance(items_raw, (list, tuple)):
        p.err("payload_type", ploc, 'select needs a list of columns or expressions (or {"columns": [...]})', payload)
        return None
    if not items_raw:
        p.err("empty", ploc, "select needs at least one column")
        return None
    items: list[ir.SelectItem] = []
    for i, item in enumerate(items_raw):
        parsed = _select_item(p, item, f"{ploc}/{i}")
        if parsed is not None:
            items.append(parsed)
    if len(items) != len(items_raw):
        return None
    return ir.Select(s.index, s.op, s.loc, tuple(items))


def _select_item(p: Parser, item: Any, loc: str) -> ir.SelectItem | None:
    if isinstance(item, str):
        return _select_string(p, item, loc)
    if not isinstance(item, MAP):
        if isinstance(item, (bool, int, float)) or item is None:
            lit = parse_expr(p, item, loc)
            return ir.SelectItem(lit, None, loc) if lit is not None else None
        p.err(
            "select_item",
            loc,
            'a select item must be a column name, {"name", "expr"}, a column object or an expression',
            item,
        )
        return None
    name = alias(p, item, loc, keys=_ITEM["alias"])
    if "expr" in item:
        check_keys(p, item, loc, _EXPR_ITEM_KEYS, "a select item")
        expr = parse_expr(p, item["expr"], f"{loc}/expr")
        out_name = alias(p, item, loc, keys=_ITEM["output_name"], multi=True)
        return ir.SelectItem(expr, out_name, loc) if expr is not None else None
    if item.get("op") == "alias" and "left" in item:  # Sparkless 4 robin format
        got = alias_item(p, item, loc)
        return ir.SelectItem(got[0], got[1], loc) if got is not None else None
    if any(k in item for k in ("fn", "function", "op", "lit", "udf")) or item.get("type") == "window":
        expr = parse_expr(p, item, loc)
        out_name = alias(p, item, loc, keys=_ITEM["expression_name"], multi=True)
        return ir.SelectItem(expr, out_name, loc) if expr is not None else None
    no_side(p, item, loc)
    k, col = first(item, _ITEM["column"])
    if k is None:
        p.err(
            "select_item",
            loc,
            "a select item object needs 'expr', 'col', 'column', 'name' or an expression key ('fn', 'op', 'lit')",
            item,
        )
        return None
    check_keys(p, item, loc, _COLUMN_ITEM_KEYS, "a select item")
    if not isinstance(col, str) or not col:
        p.err("column_name", f"{loc}/{k}", "a column name must be a non-empty string", col)
        return None
    if col == "*" or (col.endswith(".*") and len(col) > 2):
        if name is not None:
            p.err("select_item", loc, f"{col!r} selects several columns: it takes no alias", name)
            return None
        return ir.SelectItem(ir.Star(f"{loc}/{k}", col[:-2] or None), None, loc)
    return ir.SelectItem(ir.Col(col, f"{loc}/{k}"), name, loc)


def _select_string(p: Parser, text: str, loc: str) -> ir.SelectItem | None:
    """A select string: a column name, ``*``, ``name AS alias`` or ``concat(...)`` /
    ``concat_ws(...)`` of names and quoted strings (robin's forms; never general SQL)."""
    if not text:
        p.err("column_name", loc, "a column name must not be empty", text)
        return None
    if text == "*":
        return ir.SelectItem(ir.Star(loc), None, loc)
    if text.endswith(".*") and len(text) > 2:  # PySpark's select("s.*"): a struct's fields
        return ir.SelectItem(ir.Star(loc, text[:-2]), None, loc)
    if text.isidentifier():  # a plain name (the usual case): neither form below can match
        return ir.SelectItem(ir.Col(text, loc), None, loc)
    m = _CONCAT.match(text)
    if m:
        fn_name, inner, out_name = m.groups()
        args: list[ir.Expr] = []
        for part in split_args(inner):
            part = part.strip()
            if len(part) >= 2 and part[0] == part[-1] and part[0] in "'\"":
                args.append(ir.Lit(part[1:-1], loc))
            elif not part:
                args.append(ir.Lit("", loc))
            else:
                args.append(ir.Col(part, loc))
        if fn_name == "concat_ws" and not args:
            p.err("arity", loc, "concat_ws(...) needs a separator", text)
            return None
        call = ir.Call(fn_name, tuple(args), loc)
        return ir.SelectItem(call, out_name.strip() if out_name else text if not out_name else None, loc)
    m = _AS.match(text)
    if m and _SIMPLE_NAME.match(m.group(1).strip()) and _SIMPLE_NAME.match(m.group(2).strip()):
        return ir.SelectItem(ir.Col(m.group(1).strip(), loc), m.group(2).strip(), loc)
    return ir.SelectItem(ir.Col(text, loc), None, loc)


# ---------------------------------------------------------------- columns


@step("withColumn")
def parse_with_column(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    if not isinstance(payload, MAP):
        p.err("payload_type", ploc, 'withColumn needs {"name": ..., "expr": ...}', payload)
        return None
    k, name = s.key("name")
    if k is None or not isinstance(name, str) or not name:
        p.err(
            "missing_key" if k is None else "column_name",
            f"{ploc}/{k or 'name'}",
            "withColumn needs a non-empty string 'name' (or 'alias')",
            name,
        )
        name = None
    ekey, raw_expr = s.key("expr")
    if ekey is None:
        p.err("missing_key", f"{ploc}/expr", "withColumn needs an 'expr'")
        return None
    expr = parse_expr(p, raw_expr, f"{ploc}/{ekey}")
    if expr is None or name is None:
        return None
    return ir.WithColumn(s.index, s.op, s.loc, name, expr)


@step("withColumnRenamed")
def parse_rename(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    if not isinstance(payload, MAP):
        p.err("payload_type", ploc, 'withColumnRenamed needs {"old": ..., "new": ...}', payload)
        return None
    okey, old = s.key("old")
    nkey, new = s.key("new")
    ok = True
    for k, val, default in ((okey, old, "old"), (nkey, new, "new")):
        if k is None or not isinstance(val, str) or not val:
            p.err(
                "missing_key" if k is None else "column_name",
                f"{ploc}/{k or default}",
                f"withColumnRenamed needs a non-empty string '{default}'",
                val,
            )
            ok = False
    return ir.WithColumnRenamed(s.index, s.op, s.loc, old, new) if ok else None


@step("drop")
def parse_drop(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    items = payload
    if isinstance(payload, MAP):
        k, items = s.key("columns")
        if k is None:
            p.err("missing_key", f"{ploc}/columns", "drop needs a 'columns' list")
            return None
        ploc = f"{ploc}/{k}"
    elif isinstance(payload, str):
        items = [payload]
    if not isinstance(items, (list, tuple)):
        p.err("payload_type", ploc, 'drop needs {"columns": [names]}', payload)
        return None
    names = [column_name(p, it, f"{ploc}/{i}") for i, it in enumerate(items)]
    if any(n is None for n in names):
        return None
    return ir.Drop(s.index, s.op, s.loc, tuple(n for n in names if n is not None))


@step("distinct")
def parse_distinct(p: Parser, s: RawStep) -> ir.Step | None:
    return ir.Distinct(s.index, s.op, s.loc)


@step("stop")
def parse_stop(p: Parser, s: RawStep) -> ir.Step | None:
    return ir.Stop(s.index, s.op, s.loc)


# ---------------------------------------------------------------- counts


def _count_arg(p: Parser, s: RawStep, default: int | None) -> int | None:
    payload, ploc = s.payload, s.ploc
    n: Any = payload
    nloc = ploc
    if isinstance(payload, MAP):
        if "n" not in payload and default is not None:
            return default
        n, nloc = payload.get("n", MISSING), f"{ploc}/n"
    elif payload is None and default is not None:
        return default
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        p.err("bad_count", nloc, f"{s.op} needs 'n', a non-negative integer", n)
        return None
    if n > 2**31 - 1:
        p.err("bad_count", nloc, f"{s.op} 'n' must fit in 32 bits (Spark's limit)", n)
        return None
    return n


@step("limit")
def parse_limit(p: Parser, s: RawStep) -> ir.Step | None:
    n = _count_arg(p, s, None)
    return ir.Limit(s.index, s.op, s.loc, n) if n is not None else None


@step("offset")
def parse_offset(p: Parser, s: RawStep) -> ir.Step | None:
    n = _count_arg(p, s, 0)
    return ir.Offset(s.index, s.op, s.loc, n) if n is not None else None


@step("tail")
def parse_tail(p: Parser, s: RawStep) -> ir.Step | None:
    n = _count_arg(p, s, None)
    return ir.Tail(s.index, s.op, s.loc, n) if n is not None else None


@step("fetch")
def parse_fetch(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    if not isinstance(payload, MAP):
        p.err("payload_type", ploc, 'fetch needs {"offset"?: n, "count"?: n}', payload)
        return None
    got: dict[str, int | None] = {"offset": 0, "count": None}  # the payload's keys (KEY_ALIASES["fetch"])
    ok = True
    for target in got:
        k, v = s.key(target)
        if k is None or (v is None and target != "offset"):  # a null count is all the rest
            continue
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 2**31 - 1:
            p.err("bad_count", f"{ploc}/{k}", f"fetch {target!r} must be a non-negative 32-bit integer", v)
            ok = False
        else:
            got[target] = v
    offset = got["offset"]
    assert offset is not None
    return ir.Fetch(s.index, s.op, s.loc, offset, got["count"]) if ok else None


# ---------------------------------------------------------------- order


@step("orderBy", "sort", "sortWithinPartitions")
def parse_order_by(p: Parser, s: RawStep) -> ir.Step | None:
    """``orderBy``; ``sort`` is Substrait's name for it (and PySpark's DataFrame.sort);
    ``sortWithinPartitions`` sorts each partition on its own."""
    payload, ploc, op = s.payload, s.ploc, s.op
    if isinstance(payload, (list, tuple, str)):
        payload = {"columns": payload if not isinstance(payload, str) else [payload]}
    if not isinstance(payload, MAP):
        p.err("payload_type", ploc, f'{op} needs {{"columns": [...], "ascending"?: [...]}}', payload)
        return None
    ckey, cols = s.key("columns", payload)
    if ckey is None:
        p.err("missing_key", f"{ploc}/columns", f"{op} needs a 'columns' list")
        return None
    if isinstance(cols, str):
        cols = [cols]
    if not isinstance(cols, (list, tuple)) or not cols:
        p.err("payload_type", f"{ploc}/{ckey}", f"{op} 'columns' must be a non-empty list", cols)
        return None
    keys = sort_keys(p, cols, payload, f"{ploc}/{ckey}", ploc)
    if keys is None:
        return None
    if not keys:
        p.err("empty", f"{ploc}/{ckey}", f"{op} found no columns to sort by")
        return None
    return ir.OrderBy(s.index, op, s.loc, tuple(keys), is_global=op != "sortWithinPartitions")


# ---------------------------------------------------------------- sample, partitions, hints


def _finite_number(v: int | float) -> bool:
    """True for numbers a double holds finitely (10**400 or NaN are not)."""
    try:
        return math.isfinite(float(v))
    except OverflowError:
        return False


@step("sample")
def parse_sample(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    if isinstance(payload, (int, float)) and not isinstance(payload, bool):
        payload = {"fraction": payload}
    if not isinstance(payload, MAP):
        p.err("payload_type", ploc, 'sample needs {"fraction", "withReplacement"?, "seed"?}', payload)
        return None
    wkey, repl = s.key("withReplacement", payload)
    if repl is None or wkey is None:
        repl = False
    if not isinstance(repl, bool):
        p.err("bool_expected", f"{ploc}/{wkey}", "'withReplacement' must be true or false", repl)
        return None
    lower, upper = 0.0, None
    ukey: str | None
    if "fraction" in payload:
        upper = payload["fraction"]
        ukey = "fraction"
    else:
        ukey, upper = s.key("upper_bound", payload)
        _, lower = s.key("lower_bound", payload)
        lower = 0.0 if lower is MISSING or lower is None else lower
    if ukey is None:
        p.err("missing_key", f"{ploc}/fraction", "sample needs a 'fraction'")
        return None
    for v, k in ((lower, "lower_bound"), (upper, ukey)):
        if (
            isinstance(v, bool)
            or not isinstance(v, (int, float))
            or not _finite_number(v)
            or v < 0
            or (v > 1 and not repl)
        ):
            p.err("fraction", f"{ploc}/{k}", "a sampling fraction must be a number in [0, 1] (≥ 0 with replacement)", v)
            return None
    if lower > upper:
        p.err("fraction", f"{ploc}/lower_bound", "'lower_bound' must not exceed the upper bound", lower)
        return None
    seed = payload.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int) or not -(2**63) <= seed < 2**63):
        p.err("seed", f"{ploc}/seed", "'seed' must be a 64-bit integer", seed)
        return None
    return ir.Sample(s.index, s.op, s.loc, float(lower), float(upper), repl, seed)


@step("repartition", "coalesce")
def parse_repartition(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc, op = s.payload, s.ploc, s.op
    if isinstance(payload, int) and not isinstance(payload, bool):
        payload = {"n": payload}
    elif isinstance(payload, (list, tuple)):
        payload = {"columns": payload}
    if not isinstance(payload, MAP):
        p.err("payload_type", ploc, f'{op} needs {{"n"?: partitions, "columns"?: [...]}}', payload)
        return None
    nkey, n = s.key("n", payload)
    if nkey is None:
        n = None
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 2**31 - 1):
        p.err("bad_count", f"{ploc}/{nkey}", "the number of partitions must be a positive 32-bit integer", n)
        return None
    ckey, cols = s.key("columns", payload)
    keys: list[ir.Expr] = []
    if ckey is not None and cols is not None:
        if op == "coalesce":
            p.err(
                "not_applicable",
                f"{ploc}/{ckey}",
                "coalesce only reduces the number of partitions; use repartition to partition by columns",
            )
            return None
        if isinstance(cols, str):
            cols = [cols]
        if not isinstance(cols, (list, tuple)):
            p.err("payload_type", f"{ploc}/{ckey}", "'columns' must be a list", cols)
            return None
        for i, c in enumerate(cols):
            e = group_item(p, c, f"{ploc}/{ckey}/{i}")
            if e is None:
                return None
            keys.append(e)
    if n is None and not keys:
        p.err("missing_key", f"{ploc}/n", f"{op} needs 'n' (the number of partitions) or 'columns'")
        return None
    return ir.Repartition(s.index, op, s.loc, n, tuple(keys), op != "coalesce")


@step("hint")
def parse_hint(p: Parser, s: RawStep) -> ir.Step | None:
    payload, ploc = s.payload, s.ploc
    if isinstance(payload, str):
        payload = {"name": payload}
    if not isinstance(payload, MAP) or not isinstance(payload.get("name"), str) or not payload["name"]:
        p.err("payload_type", ploc, 'hint needs {"name": "broadcast" | ..., "parameters"?: [...]}', payload)
        return None
    params_raw = payload.get("parameters", payload.get("params", []))
    if not isinstance(params_raw, (list, tuple)):
        p.err("payload_type", f"{ploc}/parameters", "'parameters' must be a list", params_raw)
        return None
    params = [literal_or_expr(p, v, f"{ploc}/parameters/{i}", 0) for i, v in enumerate(params_raw)]
    if any(v is None for v in params):
        return None
    return ir.Hint(s.index, s.op, s.loc, payload["name"], tuple(v for v in params if v is not None))
