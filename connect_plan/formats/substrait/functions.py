"""Substrait function calls → IR: scalar, aggregate and window functions, looked up in the one
function table (:data:`~.spellings.FUNCTIONS`, by kind and name), with a registered builder for
the few that need code (integer division, ``not_equal``, LIKE with an escape, ``extract``, date
arithmetic, DataFusion's nested-value functions...; the producers' own names in
:mod:`.producer_functions`). A name no row knows is a located error with the closest names of its
kind."""

from __future__ import annotations

import decimal
import difflib

from google.protobuf.message import Message

from ... import ir
from ...types import Primitive
from . import producer_functions  # noqa: F401 - registers the producers' builders
from . import spellings as sp
from .calls import (
    AGGREGATE_BUILDERS,
    BUILDERS,
    AggregateCall,
    ScalarCall,
    aggregate_builder,
    builder,
    like_call,
    literal_text,
    refuse,
)
from .comparisons import exact_decimal_comparison
from .expressions import sort_keys
from .in_lists import equalities_as_in
from .lambdas import null_function
from .spec_functions import decimal_negative  # (also registers the spec's math, string, list builders)
from .state import Converter, enum_name, expression

__all__ = ["aggregate_measure", "extension_functions"]


def extension_functions(plan: Message) -> dict[int, str]:
    """The plan's extension functions: anchor → compound name (``equal:any_any``). Types and
    type variations need no table: a user-defined type is refused where it is used."""
    out: dict[int, str] = {}
    for decl in plan.extensions:
        if decl.WhichOneof("mapping_type") == "extension_function":
            fn = decl.extension_function
            out[fn.function_anchor] = fn.name
    return out


@expression("scalar_function")
def scalar_function(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    compound = _declared(c, msg.function_reference, loc)
    if compound is None:
        return ir.Lit(None, loc)
    name, sig = sp.function_name(compound)
    slots = {f"{loc}/arguments/{k}/value" for k in sp.LAMBDA_ARGUMENTS.get(name, ())}
    c.lambda_slots |= slots
    args, enums = _arguments(c, msg, loc, names)
    c.lambda_slots -= slots
    row = sp.FUNCTIONS.get(("scalar", name))
    if row is None:
        return _unknown_function(c, "scalar", compound, msg.function_reference, loc)
    options = _options(c, "scalar", name, msg, loc)
    if name not in sp.TAKES_ENUMS:
        _no_enums(c, name, enums, loc)
    if row.spark is None:
        return BUILDERS[name](c, ScalarCall(name, sig, tuple(args), tuple(enums), msg, loc, options))
    if c.decimals:
        args = exact_decimal_comparison(name, args, c.decimals)
    if row.spark == "or":
        args = equalities_as_in(args, loc)
        if len(args) == 1:
            return args[0]
    return ir.Call(row.spark, tuple(args), loc)


def aggregate_measure(c: Converter, measure: Message, loc: str, names: list[str]) -> ir.Expr:
    """An AggregateRel measure (at ``loc``): its call over the rows its ``filter`` keeps (a whole
    aggregation: Spark runs no partial phase)."""
    cond = c.expr(measure.filter, f"{loc}/filter", names) if measure.HasField("filter") else None
    return aggregate_function(c, measure.measure, f"{loc}/measure", names, cond)


def aggregate_function(c: Converter, msg: Message, loc: str, names: list[str], cond: ir.Expr | None = None) -> ir.Expr:
    """An aggregate call; ``cond``: FILTER (WHERE cond), the call sees only the rows where it is
    true (its arguments are null elsewhere: every aggregate here skips nulls, and count(*)
    counts the rows where ``cond`` holds)."""
    compound = _declared(c, msg.function_reference, loc)
    if compound is None:
        return ir.Lit(None, loc)
    name, sig = sp.function_name(compound)
    args, enums = _arguments(c, msg, loc, names)
    if enum_name(msg, "phase") not in sp.WHOLE_AGGREGATION_PHASES:
        c.err(
            "substrait_unsupported",
            f"{loc}/phase",
            "only whole aggregations (phase INITIAL_TO_RESULT) can run on Spark",
        )
    if len(msg.sorts):
        c.err("substrait_unsupported", f"{loc}/sorts", "ordered aggregate calls are not supported yet")
    row = sp.FUNCTIONS.get(("aggregate", name))
    if row is None:
        return _unknown_function(c, "aggregate", compound, msg.function_reference, loc)
    options = _options(c, "aggregate", name, msg, loc)
    if name == "count" and not args:
        args = [ir.Lit(1, loc)]  # count(*)
    if cond is not None:
        args = [ir.When(((cond, a),), None, loc) for a in args]
    distinct = _distinct(msg)

    def make(fn: str, call_args: tuple[ir.Expr, ...]) -> ir.Expr:
        return ir.Call(fn, call_args, loc, distinct=distinct)

    if name not in sp.TAKES_ENUMS:
        _no_enums(c, name, enums, loc)
    if row.spark is None:
        return AGGREGATE_BUILDERS[name](c, AggregateCall(name, sig, tuple(args), msg, loc, make, tuple(enums), options))
    return make(row.spark, tuple(args))


@expression("window_function")
def window_function(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    compound = _declared(c, msg.function_reference, loc)
    if compound is None:
        return ir.Lit(None, loc)
    name, sig = sp.function_name(compound)
    args, enums = _arguments(c, msg, loc, names)
    row = sp.FUNCTIONS.get(("window", name)) or sp.FUNCTIONS.get(("aggregate", name))
    if row is None or (row.spark is None and row.kind != "aggregate"):
        return _unknown_function(c, "window", compound, msg.function_reference, loc)
    options = _options(c, row.kind, name, msg, loc)
    if name == "count" and not args:
        args = [ir.Lit(1, loc)]
    if name == "ntile" and row.kind == "window":
        args = [_ntile_buckets(c, a, f"{loc}/arguments/{k}/value") for k, a in enumerate(args)]
    if name in ("lag", "lead") and len(args) > 1:
        # the offset: Spark types it INT, and a BIGINT one (DataFusion's i64 literal) is cast by
        # its analyzer after the window's frame was derived from it, which it then refuses as a
        # frame of its own ("Cannot specify window frame for lag function")
        args[1] = _int_literal(args[1])
    partitions = tuple(c.expr(e, f"{loc}/partitions/{k}", names) for k, e in enumerate(msg.partitions))
    keys = sort_keys(c, msg.sorts, loc, names)
    frame = None
    if not row.fixed_frame:
        lower = _bound(msg, "lower_bound")
        upper = _bound(msg, "upper_bound")
        # RANGE and unspecified are RANGE (the SQL default)
        kind = "rows" if enum_name(msg, "bounds_type") == "BOUNDS_TYPE_ROWS" else "range"
        if kind == "range" and not keys:
            # no order: every row of the partition is a peer of every other, so a RANGE frame from
            # and to the current row (or unbounded) is the whole partition, Spark's frame of an
            # unordered window (Isthmus' aggregate over PARTITION BY alone); an offset needs an order
            if any(b not in (None, 0) for b in (lower, upper)):
                c.err("substrait_invalid", loc, "a RANGE frame with an offset bound needs sorts (the window has none)")
        elif keys or lower is not None or upper is not None:
            frame = ir.Frame(kind, lower, upper, loc)
    distinct = _distinct(msg)

    def make(fn: str, call_args: tuple[ir.Expr, ...]) -> ir.Expr:
        return ir.Window(ir.Call(fn, call_args, loc, distinct=distinct), partitions, keys, frame, loc)

    if name not in sp.TAKES_ENUMS:
        _no_enums(c, name, enums, loc)
    if row.spark is None:
        return AGGREGATE_BUILDERS[name](c, AggregateCall(name, sig, tuple(args), msg, loc, make, tuple(enums), options))
    return make(row.spark, tuple(args))


def _ntile_buckets(c: Converter, arg: ir.Expr, loc: str) -> ir.Expr:
    """ntile's bucket count as Spark's ntile takes it: an INT literal. DataFusion writes an i64
    literal: the same number as an int when it fits; any other argument is refused (every
    engine wants a constant there)."""
    if isinstance(arg, ir.Lit) and isinstance(arg.value, int) and not isinstance(arg.value, bool):
        if 0 < arg.value <= 2**31 - 1:
            return ir.Lit(arg.value, arg.loc)  # PySpark's typing: an INT
        c.err("substrait_function", loc, f"ntile of {arg.value} buckets: Spark's ntile takes a positive INT")
        return arg
    c.err(
        "substrait_function",
        loc,
        "ntile's bucket count must be an integer literal (Spark's ntile takes an INT constant)",
    )
    return arg


def _int_literal(e: ir.Expr) -> ir.Expr:
    """An integer literal of a wider type, as an INT literal where its value fits one."""
    if isinstance(e, ir.Lit) and isinstance(e.value, int) and not isinstance(e.value, bool):
        if isinstance(e.type, Primitive) and e.type.name in ("bigint", "smallint", "tinyint"):
            if -(2**31) <= e.value < 2**31:
                return ir.Lit(e.value, e.loc, Primitive("int"))
    return e


def _distinct(msg: Message) -> bool:
    return enum_name(msg, "invocation") == "AGGREGATION_INVOCATION_DISTINCT"


def _bound(msg: Message, name: str) -> int | None:
    """A frame bound: None unbounded, 0 current row, -n n preceding, +n n following. An
    unset bound is unbounded (lower) or current row after an ORDER BY... as the spec's
    defaults: unbounded preceding / unbounded following."""
    if not msg.HasField(name):
        return None
    b = getattr(msg, name)
    kind = b.WhichOneof("kind")
    if kind == "current_row":
        return 0
    if kind == "preceding":
        return -int(b.preceding.offset)
    if kind == "following":
        return int(b.following.offset)
    return None


def _declared(c: Converter, anchor: int, loc: str) -> str | None:
    """The compound name the plan declares for a function anchor, or a located error."""
    name = c.functions.get(anchor)
    if name is None:
        c.err(
            "substrait_function",
            f"{loc}/functionReference",
            f"function anchor {anchor} is declared nowhere in the plan's extensions",
        )
    return name


def _arguments(c: Converter, msg: Message, loc: str, names: list[str]) -> tuple[list[ir.Expr], list[str]]:
    """A call's value arguments and enum arguments (the current ``arguments`` or the spec <0.20
    ``args``); an option or a type argument is a located error."""
    args: list[ir.Expr] = []
    enums: list[str] = []
    if len(msg.arguments):
        for k, a in enumerate(msg.arguments):
            kind = a.WhichOneof("arg_type")
            if kind == "value":
                aloc = f"{loc}/arguments/{k}/value"
                if aloc in c.lambda_slots and null_function(a.value):
                    # a higher-order function's null function (its builder decides): an untyped NULL
                    args.append(ir.Lit(None, f"{aloc}/literal"))
                    continue
                args.append(c.expr(a.value, aloc, names))
            elif kind == "enum":
                enums.append(a.enum)
            else:
                c.err(
                    "substrait_unsupported",
                    f"{loc}/arguments/{k}",
                    f"a function argument of kind '{kind}' is not supported",
                )
    else:  # the old (spec <0.20) plain expression list
        for k, e in enumerate(msg.args):
            if e.WhichOneof("rex_type") == "enum":
                enums.append(e.enum.specified)
            else:
                args.append(c.expr(e, f"{loc}/args/{k}", names))
    return args, enums


def _options(c: Converter, kind: sp.FunctionKind, name: str, msg: Message, loc: str) -> tuple[tuple[str, str], ...]:
    """The call's options as honoured: (option, the first value of its preference Spark honours
    exactly for this function, :data:`~.spellings.FUNCTION_OPTIONS`). An option with no value
    honoured is a located error naming it (overflow, rounding...: Spark's behaviour is its own
    and, for some, depends on ANSI mode: never silently not honoured)."""
    out: list[tuple[str, str]] = []
    for k, opt in enumerate(msg.options):
        honoured = sp.FUNCTION_OPTIONS.get((kind, name, opt.name.lower()), frozenset())
        chosen = next((v for v in opt.preference if v.upper() in honoured), None)
        if chosen is None:
            known = f" (honoured: {', '.join(sorted(honoured))})" if honoured else ""
            c.err(
                "substrait_unsupported",
                f"{loc}/options/{k}",
                f"{name}'s function option {opt.name!r} (preference {list(opt.preference)}) cannot be honoured "
                f"on Spark{known}",
            )
            continue
        out.append((opt.name.lower(), chosen.upper()))
    return tuple(out)


def _no_enums(c: Converter, name: str, enums: list[str], loc: str) -> None:
    """An enum argument of a function that takes none here: refused, never dropped."""
    if enums:
        c.err(
            "substrait_function",
            f"{loc}/arguments",
            f"{name}'s enum argument {', '.join(map(repr, enums))} is not supported (its Spark function takes none)",
        )


def _unknown_function(c: Converter, kind: sp.FunctionKind, compound: str, anchor: int, loc: str) -> ir.Expr:
    """The error of a function no row of ``kind`` names, with the closest names of that kind
    (a window call may name an aggregate too)."""
    kinds = ("window", "aggregate") if kind == "window" else (kind,)
    known = sorted({name for k, name in sp.FUNCTIONS if k in kinds})
    close = difflib.get_close_matches(sp.function_name(compound)[0], known, n=3)
    c.err(
        "substrait_function",
        loc,
        f"unknown {kind} function {compound!r} (anchor {anchor}{_uri_text(c, anchor)})"
        + (f"; did you mean {', '.join(close)}?" if close else ""),
    )
    return ir.Lit(None, loc)


def _uri_text(c: Converter, anchor: int) -> str:
    """``, <the URI or URN of the extension that declares the anchor>`` for an error message."""
    for decl in c.plan_msg.extensions:
        if (
            decl.WhichOneof("mapping_type") == "extension_function"
            and decl.extension_function.function_anchor == anchor
        ):
            f = decl.extension_function
            urn = getattr(f, "extension_urn_reference", 0)
            uri = getattr(f, "extension_uri_reference", 0)
            for u in c.plan_msg.extension_uris:
                if u.extension_uri_anchor == uri and u.uri:
                    return f", {u.uri}"
            for n in c.plan_msg.extension_urns:
                if n.extension_urn_anchor == urn and n.urn:
                    return f", {n.urn}"
    return ", no extension URI"


# ---------------------------------------------------------------- builders


def _is_integer_division(call: ScalarCall) -> bool:
    if call.msg.HasField("output_type"):
        return call.msg.output_type.WhichOneof("kind") in sp.INTEGER_TYPES
    return bool(call.sig) and call.sig.split("_")[0] in sp.INTEGER_TYPES


@builder("divide")
def build_divide(c: Converter, call: ScalarCall) -> ir.Expr:
    if _is_integer_division(call):
        # Substrait's integer division truncates toward zero, as Spark's `div` does
        return ir.UdfCall("div", call.args, call.loc)
    return ir.Call("/", call.args, call.loc)


@builder("not_equal")
def build_not_equal(c: Converter, call: ScalarCall) -> ir.Expr:
    return ir.Call("not", (ir.Call("==", call.args, call.loc),), call.loc)


@builder("is_distinct_from")
def build_distinct_from(c: Converter, call: ScalarCall) -> ir.Expr:
    return ir.Call("not", (ir.Call("<=>", call.args, call.loc),), call.loc)


@builder("like", "ilike")
def build_like(c: Converter, call: ScalarCall) -> ir.Expr:
    # SQL's LIKE without ESCAPE has no escape character (DuckDB, Calcite); DataFusion's has the
    # backslash (its 3-argument form with a null escape says "no ESCAPE clause")
    default = "\\" if "like_backslash_escape" in c.quirks else None
    args = call.args
    if len(args) == 2:
        return like_call(c, call.name, args[0], args[1], default, call.loc)
    if len(args) != 3:
        return refuse(c, call.loc, f"{call.name} takes a value, a pattern and an escape, not {len(args)} arguments")
    escape = args[2]
    if isinstance(escape, ir.Lit) and escape.value is None:
        return like_call(c, call.name, args[0], args[1], default, call.loc)
    text = literal_text(escape)
    if text is None or len(text) != 1:
        return refuse(c, f"{call.loc}/arguments/2", f"{call.name}'s escape must be one literal character")
    return like_call(c, call.name, args[0], args[1], text, call.loc)


@builder("is_true", "is_false", "is_not_true", "is_not_false")
def build_is_true(c: Converter, call: ScalarCall) -> ir.Expr:
    # x IS [NOT] TRUE/FALSE: never null (IS TRUE of a null is false): Spark's null-safe <=>
    if len(call.args) != 1:
        return refuse(c, call.loc, f"{call.name} takes one argument, not {len(call.args)}")
    value = call.name.endswith("_true")
    test = ir.Call("<=>", (call.args[0], ir.Lit(value, call.loc)), call.loc)
    return ir.Call("not", (test,), call.loc) if "_not_" in call.name else test


@builder("sign")
def build_sign(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's signum is a double. The spec's sign keeps its input's type: an integer output is
    # signum cast to it (exact: -1, 0, 1), NaN's sign 0 as DuckDB (which declares every sign i8)
    # gives it; a float output is signum (NaN's sign NaN)
    if len(call.args) != 1:
        return refuse(c, call.loc, f"sign takes one argument, not {len(call.args)}")
    x, loc = call.args[0], call.loc
    signum = ir.Call("signum", (x,), loc)
    out = call.output_type if call.output else _signature_type(call.sig)
    if isinstance(out, Primitive) and out.name in ("tinyint", "smallint", "int", "bigint"):
        zero = ir.Lit(0, loc, out)
        return ir.When(((ir.Call("isnan", (x,), loc), zero),), ir.Cast(signum, out, loc), loc)
    if isinstance(out, Primitive) and out.name == "float":
        return ir.Cast(signum, out, loc)
    return signum


def _signature_type(sig: str) -> Primitive | None:
    """The type of a one-argument signature (``sign:i32``), where it is a plain kind."""
    first = sig.split("_")[0]
    t = sp.INTEGER_TYPES.get(first)
    if isinstance(t, Primitive):
        return t
    return Primitive("float") if first == "fp32" else Primitive("double") if first == "fp64" else None


@builder("substring")
def build_substring(c: Converter, call: ScalarCall) -> ir.Expr:
    return ir.Call("substring", call.args, call.loc)


@builder("extract", "date_part")
def build_extract(c: Converter, call: ScalarCall) -> ir.Expr:
    args = call.args
    component: str | None = call.enums[0] if call.enums else None
    if component is None and args and isinstance(args[0], ir.Lit) and isinstance(args[0].value, str):
        component, args = args[0].value, args[1:]  # DataFusion's date_part('YEAR', x)
    fn = sp.EXTRACT_FIELDS.get((component or "").upper())
    if fn is None or len(args) != 1:
        c.err(
            "substrait_function",
            call.loc,
            f"extract of {component!r} is not supported (known: {', '.join(sp.EXTRACT_FIELDS)})",
        )
        return ir.Lit(None, call.loc)
    if fn in ("dayofyear", "weekofyear"):
        return ir.UdfCall(fn, args, call.loc)
    return ir.Call(fn, args, call.loc)


@builder("round")
def build_round(c: Converter, call: ScalarCall) -> ir.Expr:
    return ir.Call("round", call.args, call.loc)


@builder("xor")
def build_xor(c: Converter, call: ScalarCall) -> ir.Expr:
    return ir.Call("not", (ir.Call("==", call.args, call.loc),), call.loc)


def _whole_days(arg: ir.Expr) -> ir.Expr:
    """A calendar-interval literal whose seconds are whole days, with them as days instead."""
    if not (isinstance(arg, ir.Call) and arg.fn == "make_interval" and len(arg.args) == 7):
        return arg
    days, secs = arg.args[3], arg.args[6]
    if not (isinstance(days, ir.Lit) and isinstance(secs, ir.Lit) and isinstance(days.value, int)):
        return arg
    seconds = decimal.Decimal(str(secs.value))
    if not seconds or seconds % 86400:
        return arg
    args = list(arg.args)
    args[3] = ir.Lit(days.value + int(seconds // 86400), days.loc)
    args[6] = ir.Lit("0", secs.loc, secs.type)
    return ir.Call("make_interval", tuple(args), arg.loc)


@builder("add", "subtract")
def build_add(c: Converter, call: ScalarCall) -> ir.Expr:
    fn = "+" if call.name == "add" else "-"
    args = call.args
    if call.option("rounding") is not None and call.output not in ("fp32", "fp64"):
        # IEEE arithmetic rounds ties to even; Spark's decimals round half up
        return refuse(c, call.loc, f"{call.name}'s rounding option TIE_TO_EVEN runs on floating point only")
    if fn == "-" and len(args) == 1:
        # DuckDB 1.1 writes -x as subtract(x): Spark's negative (its overflow behaviour is
        # subtract's: -(-128) of an i8 fails in both)
        if call.output == "decimal":
            return decimal_negative(c, call, args[0])  # Spark's negative rounds a decimal to 34 digits
        return ir.Call("negative", args, call.loc)
    if call.msg.HasField("output_type") and call.msg.output_type.WhichOneof("kind") == "date":
        # a date plus an interval of whole days written as seconds (DataFusion's d + 5): the
        # result is a date, so the seconds are days; Spark refuses a date plus seconds
        args = tuple(_whole_days(a) for a in args)
    elif call.output in ("precision_timestamp", "timestamp") and call.sig.split("_")[0] == "date" and len(args) == 2:
        # a date plus a day-time interval declared a timestamp without zone: Spark's date +
        # interval is a timestamp in the session's zone; the date as a local timestamp keeps it local
        args = (ir.Cast(args[0], Primitive("timestamp_ntz"), call.loc), args[1])
    return ir.Call(fn, args, call.loc)


@builder("get_field")
def build_get_field(c: Converter, call: ScalarCall) -> ir.Expr:
    # DataFusion's struct field access (st['a']) and map lookup: by name / key
    args, loc = call.args, call.loc
    if len(args) != 2 or not isinstance(args[1], ir.Lit) or args[1].value is None:
        c.err("substrait_function", loc, "get_field takes a value and a literal field name or key")
        return ir.Lit(None, loc)
    shape = c.shape_of(args[0])
    if shape is not None and shape.fields is not None and isinstance(args[1].value, str):
        return ir.ExtractValue(args[0], ir.Lit(args[1].value, loc), loc)
    return ir.Call("try_element_at", (args[0], args[1]), loc)


@builder("array_element")
def build_array_element(c: Converter, call: ScalarCall) -> ir.Expr:
    # DataFusion's l[i]: 1-based, null out of range (try_element_at; Spark's index is an int)
    args, loc = call.args, call.loc
    if len(args) != 2:
        c.err("substrait_function", loc, f"array_element takes a list and an index, not {len(args)} arguments")
        return ir.Lit(None, loc)
    return ir.Call("try_element_at", (args[0], ir.Cast(args[1], Primitive("int"), loc)), loc)


@builder("map")
def build_make_map(c: Converter, call: ScalarCall) -> ir.Expr:
    # DataFusion's map(keys, values) over two arrays
    args, loc = call.args, call.loc
    if len(args) != 2:
        c.err(
            "substrait_function", loc, f"map takes an array of keys and an array of values, not {len(args)} arguments"
        )
        return ir.Lit(None, loc)
    return ir.Call("map_from_arrays", args, loc)


@builder("named_struct")
def build_named_struct(c: Converter, call: ScalarCall) -> ir.Expr:
    args = tuple(ir.Lit(a.value, a.loc) if isinstance(a, ir.Lit) else a for a in call.args)
    return ir.Call("named_struct", args, call.loc)


@aggregate_builder("avg")
def build_avg(c: Converter, call: AggregateCall) -> ir.Expr:
    # the spec's avg of integers "truncates partial values" and returns the integer type
    # (Calcite's AVG, which Isthmus writes as avg:i32 -> i32): the sum divided by the count,
    # truncated toward zero (Spark's div, exact on any bigint sum; null over no rows, since the
    # sum is null there). Any other avg is Spark's avg, and an avg of another kind declared an
    # integer (avg:fp64 -> i64) is refused by the result contract, not computed some third way.
    if call.output in sp.INTEGER_TYPES and call.sig.split("_")[0] in sp.INTEGER_TYPES:
        total = call.make("sum", call.args)
        count = call.make("count", call.args)
        return ir.UdfCall("div", (total, count), call.loc)
    return call.make("avg", call.args)


@aggregate_builder("sum0")
def build_sum0(c: Converter, call: AggregateCall) -> ir.Expr:
    # the spec's sum0: the sum of no values (no rows, or only nulls) is 0, where Spark's sum is null
    return ir.Call("coalesce", (call.make("sum", call.args), ir.Lit(0, call.loc)), call.loc)


_BUILT = {(kind, name) for (kind, name), row in sp.FUNCTIONS.items() if row.spark is None}
_REGISTERED = {("scalar", name) for name in BUILDERS} | {("aggregate", name) for name in AGGREGATE_BUILDERS}
if _BUILT != _REGISTERED:  # pragma: no cover - a developer error caught on import
    raise RuntimeError(f"function rows without a builder, or builders without a row: {sorted(_BUILT ^ _REGISTERED)}")
