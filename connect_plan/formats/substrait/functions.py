"""Substrait function calls → IR: scalar, aggregate and window functions, looked up in the one
function table (:data:`~.spellings.FUNCTIONS`, by kind and name), with a registered builder for
the few that need code (integer division, ``not_equal``, LIKE with an escape, ``extract``, date
arithmetic, DataFusion's nested-value functions...). A name no row knows is a located error
with the closest names of its kind."""

from __future__ import annotations

import decimal
import difflib
from collections.abc import Callable

from google.protobuf.message import Message

from ... import ir
from ...records import Value, frozen
from ...types import Primitive
from . import spellings as sp
from .expressions import sort_keys
from .state import Converter, enum_name, expression

__all__ = ["BUILDERS", "ScalarCall", "aggregate_function", "extension_functions"]


@frozen
class ScalarCall(Value):
    """A scalar function call as its builder gets it."""

    #: the Substrait name (lower case, no signature) and the signature (``i64_i64``; may be empty)
    name: str
    sig: str
    #: the converted value arguments, and the enum arguments (``YEAR``...)
    args: tuple[ir.Expr, ...]
    enums: tuple[str, ...]
    #: the ScalarFunction message (its ``output_type``...) and its location
    msg: Message
    loc: str


Builder = Callable[[Converter, ScalarCall], ir.Expr]

#: scalar function name → its builder, for the rows of :data:`~.spellings.FUNCTIONS` with no
#: Spark function (registered below with :func:`builder`)
BUILDERS: dict[str, Builder] = {}


def builder(*names: str) -> Callable[[Builder], Builder]:
    """Register the builder of the scalar functions ``names``."""

    def register(build: Builder) -> Builder:
        for name in names:
            if name in BUILDERS:  # pragma: no cover - a developer error caught on import
                raise RuntimeError(f"builder {name!r} registered twice")
            BUILDERS[name] = build
        return build

    return register


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
    args, enums = _arguments(c, msg, loc, names)
    row = sp.FUNCTIONS.get(("scalar", name))
    if row is None:
        return _unknown_function(c, "scalar", compound, msg.function_reference, loc)
    if row.spark is None:
        return BUILDERS[name](c, ScalarCall(name, sig, tuple(args), tuple(enums), msg, loc))
    return ir.Call(row.spark, tuple(args), loc)


def aggregate_function(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    """An AggregateRel measure's call (a whole aggregation: Spark runs no partial phase)."""
    compound = _declared(c, msg.function_reference, loc)
    if compound is None:
        return ir.Lit(None, loc)
    name, _ = sp.function_name(compound)
    args, _enums = _arguments(c, msg, loc, names)
    if enum_name(msg, "phase") not in sp.WHOLE_AGGREGATION_PHASES:
        c.err(
            "substrait_unsupported",
            f"{loc}/phase",
            "only whole aggregations (phase INITIAL_TO_RESULT) can run on Spark",
        )
    if len(msg.sorts):
        c.err("substrait_unsupported", f"{loc}/sorts", "ordered aggregate calls are not supported yet")
    row = sp.FUNCTIONS.get(("aggregate", name))
    if row is None or row.spark is None:
        return _unknown_function(c, "aggregate", compound, msg.function_reference, loc)
    if name == "count" and not args:
        args = [ir.Lit(1, loc)]  # count(*)
    return ir.Call(row.spark, tuple(args), loc, distinct=_distinct(msg))


@expression("window_function")
def window_function(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    compound = _declared(c, msg.function_reference, loc)
    if compound is None:
        return ir.Lit(None, loc)
    name, _ = sp.function_name(compound)
    args, _enums = _arguments(c, msg, loc, names)
    row = sp.FUNCTIONS.get(("window", name)) or sp.FUNCTIONS.get(("aggregate", name))
    if row is None or row.spark is None:
        return _unknown_function(c, "window", compound, msg.function_reference, loc)
    if name == "count" and not args:
        args = [ir.Lit(1, loc)]
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
    elif name in ("lag", "lead") and len(args) > 1:
        # the offset: Spark types it INT, and a BIGINT one (DataFusion's i64 literal) is cast by
        # its analyzer after the window's frame was derived from it, which it then refuses as a
        # frame of its own ("Cannot specify window frame for lag function")
        args[1] = _int_literal(args[1])
    call = ir.Call(row.spark, tuple(args), loc, distinct=_distinct(msg))
    return ir.Window(call, partitions, keys, frame, loc)


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
    for k, opt in enumerate(msg.options):
        # overflow, rounding, division-by-zero...: Spark's behaviour is its own (and depends on
        # ANSI mode), so an explicit option is refused rather than silently not honoured
        c.err(
            "substrait_unsupported",
            f"{loc}/options/{k}",
            f"function option {opt.name!r} (preference {list(opt.preference)}) cannot be honoured on Spark",
        )
    if len(msg.arguments):
        for k, a in enumerate(msg.arguments):
            kind = a.WhichOneof("arg_type")
            if kind == "value":
                args.append(c.expr(a.value, f"{loc}/arguments/{k}/value", names))
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
    args = call.args
    if len(args) == 3:
        escape = args[2]
        if isinstance(escape, ir.Lit) and escape.value is None:
            args = args[:2]  # DataFusion's 'no escape' (a typed null)
        else:
            return ir.UdfCall(call.name, args, call.loc)
    return ir.Call(call.name, args, call.loc)


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
    if call.msg.HasField("output_type") and call.msg.output_type.WhichOneof("kind") == "date":
        # a date plus an interval of whole days written as seconds (DataFusion's d + 5): the
        # result is a date, so the seconds are days; Spark refuses a date plus seconds
        args = tuple(_whole_days(a) for a in args)
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


_BUILT = {(kind, name) for (kind, name), row in sp.FUNCTIONS.items() if row.spark is None}
if _BUILT != {("scalar", name) for name in BUILDERS}:  # pragma: no cover - a developer error caught on import
    raise RuntimeError(
        f"function rows without a builder, or builders without a row: {sorted(_BUILT)}, {sorted(BUILDERS)}"
    )
