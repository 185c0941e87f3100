"""Desugaring: the parse-stage rewrites a catalog row names with ``desugar`` (casts, ``when``,
``!=``, ``get`` ...), and the raw hooks that parse a call's arguments themselves (their
forms depend on the raw JSON: ``extract``'s argument order, ``array_sort``'s lambda).

Each function is registered under its ``desugar`` name into the tables of
:mod:`.expressions`; importing this module checks that every name the catalog uses has
exactly one function here. Rows that also name a ``builder`` (``get``, ``log``,
``call_function``, ``in``) are built in ``translator/expressions.py`` after this rewrite.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ... import ir
from ...functions import CATALOG, DESUGAR_FORMS, FunctionSpec, Param, parse_signature, rows
from ...types import parse_type
from .calls import argument, arguments, lambda_arg, with_otherwise
from .core import Parser
from .expressions import DESUGARS, RAW_HOOKS, Desugar, RawHook, parse_expr

__all__: list[str] = []


#: robin's durations → the interval function and the argument they fill
_INTERVALS: dict[str, tuple[str, int]] = {
    "days": ("make_dt_interval", 0),
    "hours": ("make_dt_interval", 1),
    "minutes": ("make_dt_interval", 2),
    "months": ("make_ym_interval", 1),
    "years": ("make_ym_interval", 0),
}


#: field names of Spark's extract / date_part (case-insensitive)
_DATE_FIELDS = frozenset(
    """
YEAR Y YEARS YR YRS YEAROFWEEK QUARTER QTR MONTH MON MONS MONTHS WEEK W WEEKS DAY D DAYS
DAYOFWEEK DOW DAYOFWEEK_ISO DOW_ISO DOY HOUR H HOURS HR HRS MINUTE M MIN MINS MINUTES SECOND S
SEC SECONDS SECS
""".split()
)


#: make_timestamp's two forms (PySpark's keyword arguments), by argument count; the time
#: zone slot exists where the catalog row has one
_TIMESTAMP_PARTS = "e years, e months, e days, e hours, e mins, e secs"
_MAKE_TIMESTAMP_FORMS: dict[int, tuple[Param, ...]] = {
    2: parse_signature("e date, e time"),
    3: parse_signature("e date, e time, S timezone"),
    6: parse_signature(_TIMESTAMP_PARTS),
    7: parse_signature(_TIMESTAMP_PARTS + ", S timezone"),
}


def _desugar(name: str) -> Callable[[Desugar], Desugar]:
    def register(fn: Desugar) -> Desugar:
        DESUGARS[name] = fn
        return fn

    return register


def _raw_hook(name: str) -> Callable[[RawHook], RawHook]:
    def register(fn: RawHook) -> RawHook:
        RAW_HOOKS[name] = fn
        return fn

    return register


# ---------------------------------------------------------------- rewrites of parsed arguments


@_desugar("cast")
def _cast(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    target = args[1]
    assert isinstance(target, ir.Lit) and target.type is not None
    mode = "try" if spec.name == "try_cast" else "cast"
    return ir.Cast(args[0], target.type, loc, mode)


@_desugar("when")
def _when(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    pairs = [(args[i], args[i + 1]) for i in range(0, len(args) - 1, 2)]
    otherwise = args[-1] if len(args) % 2 == 1 else None
    return ir.When(tuple(pairs), otherwise, loc)


@_desugar("not_equal")
def _not_equal(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """``a != b`` is ``not(a == b)``, as PySpark sends it (the only place ``!=`` is rewritten:
    both ``{"fn": "!="}`` and ``{"op": "ne"}`` arrive here)."""
    return ir.Call("not", (ir.Call("==", tuple(args), loc),), loc)


@_desugar("otherwise")
def _otherwise(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    return with_otherwise(p, args[0], args[1], loc)


def _string_lit(p: Parser, e: ir.Expr, what: str) -> str | None:
    if isinstance(e, ir.Lit) and isinstance(e.value, str) and e.value and e.type is None:
        return e.value
    p.err("literal_expected", e.loc, f"{what} must be a non-empty string literal")
    return None


@_desugar("udf")
def _udf(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    name = _string_lit(p, args[0], "the UDF name (first argument of call_udf)")
    return ir.UdfCall(name, tuple(args[1:]), loc) if name is not None else None


@_desugar("call_function")
def _call_function(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """The name must be a string literal; the translator's builder sends a CallFunction."""
    if _string_lit(p, args[0], "the function name (first argument of call_function)") is None:
        return None
    return ir.Call(spec.name, tuple(args), loc)


@_desugar("extract")
def _extract(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    return ir.ExtractValue(args[0], args[1], loc)


@_desugar("get")
def _get(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """An integer literal index: Spark's get (0-based, null out of range), which the
    translator's builder still turns into x[key] when x is statically a map; else x[key]."""
    k = args[1]
    if isinstance(k, ir.Lit) and isinstance(k.value, int) and not isinstance(k.value, bool):
        return ir.Call(spec.name, tuple(args), loc)
    return ir.ExtractValue(args[0], k, loc)


@_desugar("log")
def _log(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """Canonical order (value, base): robin's log(value, base), or PySpark's log(base, value)
    when only the first argument is a number literal (the translator's builder sends Spark's
    order, and ``ln`` for one argument)."""
    if len(args) == 2:
        first, second = args

        def number(e: ir.Expr) -> bool:
            return isinstance(e, ir.Lit) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool)

        if number(first) and not number(second):
            args = [second, first]
    return ir.Call(spec.name, tuple(args), loc)


@_desugar("interval")
def _interval(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """robin's durations days(n), hours(n) ... → make_dt_interval / make_ym_interval, with
    the other parts zero (as PySpark's make_dt_interval(days=n) sends them)."""
    target, position = _INTERVALS[spec.name]
    row = CATALOG[target]
    parts = [args[0] if i == position else ir.Lit(row.fill[i], loc) for i in range(len(row.params))]
    return ir.Call(target, tuple(parts), loc)


@_desugar("to_char")
def _to_char(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    if len(args) == 1:  # robin: no format = cast to string
        return ir.Cast(args[0], parse_type("string"), loc)
    return ir.Call(spec.name, tuple(args), loc)


@_desugar("to_number")
def _to_number(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    if len(args) == 1:  # robin: no format = cast to double
        return ir.Cast(args[0], parse_type("double"), loc, "try" if spec.name == "try_to_number" else "cast")
    return ir.Call(spec.name, tuple(args), loc)


@_desugar("array_sum")
def _array_sum(p: Parser, spec: FunctionSpec, args: list[ir.Expr], loc: str) -> ir.Expr | None:
    """aggregate(a, zero, (acc, x) -> acc + coalesce(x, 0)); zero has the element type."""
    arr = args[0]
    zero_lit = ir.Lit(0, loc)
    first = ir.Call("try_element_at", (arr, ir.Lit(1, loc)), loc)
    zero = ir.Call("coalesce", (ir.Call("*", (first, zero_lit), loc), zero_lit), loc)
    acc, x = ir.LambdaVar("acc", loc), ir.LambdaVar("x", loc)
    body = ir.Call("+", (acc, ir.Call("coalesce", (x, zero_lit), loc)), loc)
    return ir.Call("aggregate", (arr, zero, ir.Lambda(("acc", "x"), body, loc)), loc)


# ---------------------------------------------------------------- calls parsed from raw arguments


def _is_string_arg(raw: Any) -> bool:
    return isinstance(raw, str) or (isinstance(raw, Mapping) and isinstance(raw.get("lit"), str) and len(raw) == 1)


def _string_value(raw: Any) -> str:
    return raw if isinstance(raw, str) else str(raw["lit"])


@_raw_hook("date_part")
def _date_part(
    p: Parser, spec: FunctionSpec, raw_args: list[Any], args_loc: str, loc: str, depth: int
) -> ir.Expr | None:
    """robin's extract(source, field) or PySpark's extract(field, source): the field is the
    string literal (a bare string in the second position is the field, as in robin)."""
    if len(raw_args) != 2:
        p.err(
            "arity",
            args_loc,
            f"function {spec.name!r} takes exactly 2 arguments (source, field), got {len(raw_args)}",
            raw_args,
        )
        return None
    # the field is the string literal naming a field; prefer robin's order when unsure
    fields = [_is_string_arg(a) and _string_value(a).upper() in _DATE_FIELDS for a in raw_args]
    if fields[1] or (not fields[0] and _is_string_arg(raw_args[1])):
        field_i, source_i = 1, 0
    elif fields[0] or (isinstance(raw_args[0], Mapping) and _is_string_arg(raw_args[0])):
        field_i, source_i = 0, 1
    else:
        p.err(
            "literal_expected",
            args_loc,
            f"{spec.name}(source, field) needs the field ('year', 'month', ...) as a string literal",
            raw_args,
        )
        return None
    field = argument(p, raw_args[field_i], Param("S", "field"), f"{args_loc}/{field_i}", depth, spec)
    source = parse_expr(p, raw_args[source_i], f"{args_loc}/{source_i}", depth + 1)
    if field is None or source is None:
        return None
    return ir.Call(spec.name, (field, source), loc)


@_raw_hook("array_sort")
def _array_sort(
    p: Parser, spec: FunctionSpec, raw_args: list[Any], args_loc: str, loc: str, depth: int
) -> ir.Expr | None:
    """array_sort(a) / array_sort(a, asc) → sort_array (robin's null placement);
    array_sort(a, lambda) → Spark's array_sort with a comparator."""
    if len(raw_args) not in (1, 2):
        p.err("arity", args_loc, f"function 'array_sort' takes 1 or 2 arguments, got {len(raw_args)}", raw_args)
        return None
    arr = parse_expr(p, raw_args[0], f"{args_loc}/0", depth + 1)
    if len(raw_args) == 1:
        return ir.Call("sort_array", (arr, ir.Lit(True, loc)), loc) if arr is not None else None
    second = raw_args[1]
    if isinstance(second, Mapping) and ("lambda" in second or "body" in second):
        fn_arg = lambda_arg(p, second, spec.params[1], f"{args_loc}/1", depth, spec)
        if arr is None or fn_arg is None:
            return None
        return ir.Call("array_sort", (arr, fn_arg), loc)
    asc = argument(p, second, Param("B", "ascending"), f"{args_loc}/1", depth, spec)
    if arr is None or asc is None:
        return None
    return ir.Call("sort_array", (arr, asc), loc)


@_raw_hook("isin")
def _isin(p: Parser, spec: FunctionSpec, raw_args: list[Any], args_loc: str, loc: str, depth: int) -> ir.Expr | None:
    """isin(x, v1, v2, ...); a single list of values is spread, as PySpark's isin([...])."""
    pairs = [(a, f"{args_loc}/{i}") for i, a in enumerate(raw_args)]
    if len(raw_args) == 2:
        values, vloc = raw_args[1], f"{args_loc}/1"
        if isinstance(values, Mapping) and set(values) == {"lit"} and isinstance(values["lit"], (list, tuple)):
            values, vloc = values["lit"], f"{vloc}/lit"
        if isinstance(values, (list, tuple)):
            pairs = [pairs[0], *((v, f"{vloc}/{i}") for i, v in enumerate(values))]
    args = arguments(p, spec, pairs, args_loc, depth)
    return ir.Call(spec.name, tuple(args), loc) if args is not None else None


@_raw_hook("make_timestamp")
def _make_timestamp(
    p: Parser, spec: FunctionSpec, raw_args: list[Any], args_loc: str, loc: str, depth: int
) -> ir.Expr | None:
    """(years, months, days, hours, mins, secs[, timezone]) or (date, time[, timezone]): the
    time zone is the last argument of either form, a string literal slot."""
    zoned = spec.params[-1].code == "S"
    counts = (2, 3, 6, 7) if zoned else (2, 6)
    form = _MAKE_TIMESTAMP_FORMS.get(len(raw_args)) if len(raw_args) in counts else None
    if form is None:
        tz = "[, timezone]" if zoned else ""
        p.err(
            "arity",
            args_loc,
            f"function {spec.name!r} takes (years, months, days, hours, mins, secs{tz}) or (date, time{tz}): "
            f"{' or '.join(map(str, counts))} arguments, got {len(raw_args)}",
            raw_args,
        )
        return None
    args = [argument(p, a, param, f"{args_loc}/{i}", depth, spec) for i, (a, param) in enumerate(zip(raw_args, form))]
    if any(a is None for a in args):
        return None
    return ir.Call(spec.name, tuple(a for a in args if a is not None), loc)


# import-time check: every desugar name of the catalog has one function here, and no function is orphaned
if set(DESUGARS) & set(RAW_HOOKS) or set(DESUGARS) | set(RAW_HOOKS) != DESUGAR_FORMS:  # pragma: no cover
    raise RuntimeError(
        "catalog desugar names and parser functions differ: "
        f"{sorted(DESUGAR_FORMS ^ (set(DESUGARS) | set(RAW_HOOKS)))}, both kinds: {sorted(set(DESUGARS) & set(RAW_HOOKS))}"
    )
# an {"op": word} binary or unary form parses its operands first: its row may only desugar them
_raw_op_forms = [r.name for r in rows() if r.op_form in ("binary", "unary") and r.desugar in RAW_HOOKS]
if _raw_op_forms:  # pragma: no cover
    raise RuntimeError(f"binary/unary op-form rows with a raw hook: {_raw_op_forms}")
