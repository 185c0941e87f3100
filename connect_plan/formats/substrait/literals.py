"""Substrait literals → IR literals, and → the Python values Arrow takes (a virtual table's cells).

A literal Spark Connect has no plain value for (lists, maps, structs, binary, intervals) is
written as the constructor call Spark folds to the same constant (``array``,
``map_from_arrays``, ``named_struct``, ``unhex``, ``make_*_interval``): :data:`COMPOSITE_LITERALS`.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from ... import ir
from ...types import ArrayType, DataType, MapType, Primitive
from .state import Converter, expression, json_name
from .types import NO_TIME, TIME_KINDS, spark_type

__all__ = [
    "COMPOSITE_LITERALS",
    "SIMPLE_LITERALS",
    "literal",
    "literal_value",
    "named_struct",
    "python_value",
    "untyped_null",
]

CompositeBuilder = Callable[[Converter, Any, str], ir.Expr]

#: literal kind → its converter, for the literals written as constructor calls (registered below)
COMPOSITE_LITERALS: dict[str, CompositeBuilder] = {}

#: literal kind → the Spark type of its plain value
SIMPLE_LITERALS: dict[str, str] = {
    "boolean": "boolean",
    "i8": "tinyint",
    "i16": "smallint",
    "i32": "int",
    "i64": "bigint",
    "fp32": "float",
    "fp64": "double",
    "string": "string",
    "fixed_char": "string",
}

_EPOCH = datetime.date(1970, 1, 1)
#: a decimal context wide enough for any Substrait decimal (38 digits) without rounding
_EXACT = decimal.Context(prec=80)
_EPOCH_TS = datetime.datetime(1970, 1, 1)  # naive on purpose (timestamp_ntz)


def _composite(*kinds: str) -> Callable[[CompositeBuilder], CompositeBuilder]:
    def register(build: CompositeBuilder) -> CompositeBuilder:
        for kind in kinds:
            COMPOSITE_LITERALS[kind] = build
        return build

    return register


@expression("literal")
def literal(c: Converter, msg: Message, loc: str, names: list[str]) -> ir.Expr:
    kind = msg.WhichOneof("literal_type")
    builder = COMPOSITE_LITERALS.get(kind or "")
    if builder is not None:
        return builder(c, getattr(msg, kind or ""), f"{loc}/{json_name(msg, kind or '')}")
    value, typ = literal_value(c, msg, loc)
    return ir.Lit(value, loc, typ)


def literal_value(c: Converter, msg: Message, loc: str) -> tuple[Any, DataType | None]:
    """A plain literal's value, as the IR writes it (dates, decimals and timestamps as text),
    and its Spark type."""
    kind = msg.WhichOneof("literal_type")
    if kind in SIMPLE_LITERALS:
        return getattr(msg, kind), Primitive(SIMPLE_LITERALS[kind])
    if kind == "var_char":
        return msg.var_char.value, Primitive("string")
    if kind == "date":
        return (_EPOCH + datetime.timedelta(days=msg.date)).isoformat(), Primitive("date")
    if kind == "decimal":
        d = msg.decimal
        unscaled = int.from_bytes(d.value, "little", signed=True)
        # exact at any width: the default context's 28 digits would round a 29- to 38-digit
        # value (scaleb rounds to the context's precision)
        value = decimal.Decimal(unscaled).scaleb(-d.scale, _EXACT)
        return str(value), Primitive("decimal", d.precision, d.scale)
    if kind in ("timestamp", "timestamp_tz"):
        ts = _EPOCH_TS + datetime.timedelta(microseconds=getattr(msg, kind))
        return ts.isoformat(sep=" "), Primitive("timestamp_ntz" if kind == "timestamp" else "timestamp")
    if kind in ("precision_timestamp", "precision_timestamp_tz"):
        p = getattr(msg, kind)
        micros = p.value * 10 ** (6 - p.precision) if p.precision <= 6 else p.value // 10 ** (p.precision - 6)
        ts = _EPOCH_TS + datetime.timedelta(microseconds=micros)
        return ts.isoformat(sep=" "), Primitive("timestamp_ntz" if kind == "precision_timestamp" else "timestamp")
    if kind == "null":
        if untyped_null(msg) and "untyped_null_literal" in c.quirks:
            # DuckDB's NULL outside a cast (x IN (1, NULL), a NULL column of a UNION branch, a
            # NULL DuckDB folded ii + NULL into): Spark's untyped NULL, which takes its type where
            # it is used, as the NULL of DuckDB's own type did (the value is NULL either way)
            return None, None
        return None, spark_type(c, msg.null, f"{loc}/null")
    c.err(
        "substrait_unsupported",
        f"{loc}/{json_name(msg, kind) if kind else 'literalType'}",
        f"literals of type '{kind}' are not supported yet" if kind not in TIME_KINDS else NO_TIME,
    )
    return None, None


def untyped_null(msg: Message) -> bool:
    """Whether ``msg`` (an Expression or a Literal) is a NULL literal whose type has no kind set."""
    if msg.DESCRIPTOR.name == "Expression":
        if msg.WhichOneof("rex_type") != "literal":
            return False
        msg = msg.literal
    return bool(msg.WhichOneof("literal_type") == "null" and msg.null.WhichOneof("kind") is None)


def python_value(c: Converter, msg: Message, loc: str) -> Any:
    """A literal as the Python value Arrow takes for its type (a virtual table's cell)."""
    kind = msg.WhichOneof("literal_type")
    sub_loc = f"{loc}/{json_name(msg, kind)}" if kind else loc
    if kind == "list":
        return [python_value(c, v, f"{sub_loc}/values/{k}") for k, v in enumerate(msg.list.values)]
    if kind == "map":
        return [
            (
                python_value(c, kv.key, f"{sub_loc}/keyValues/{k}/key"),
                python_value(c, kv.value, f"{sub_loc}/keyValues/{k}/value"),
            )
            for k, kv in enumerate(msg.map.key_values)
        ]
    if kind in ("empty_list", "empty_map"):
        return []
    if kind in ("binary", "fixed_binary"):
        return bytes(getattr(msg, kind))
    if kind == "uuid":
        lit = uuid_literal(c, msg.uuid, sub_loc)
        return lit.value if isinstance(lit, ir.Lit) else None
    if kind in COMPOSITE_LITERALS:  # structs, intervals
        c.err("substrait_unsupported", sub_loc, f"a virtual table cell of kind '{kind}' is not supported")
        return None
    value, typ = literal_value(c, msg, loc)
    if value is None or not isinstance(typ, Primitive):
        return value
    if typ.name == "date":
        return datetime.date.fromisoformat(value)
    if typ.name == "decimal":
        return decimal.Decimal(value)
    if typ.name.startswith("timestamp"):
        return datetime.datetime.fromisoformat(value)
    return value


def named_struct(values: list[ir.Expr], loc: str) -> ir.Expr:
    """A struct of ``values``: Substrait's structs are positional, Spark's fields are named,
    ``f0``, ``f1``... as a struct type's fields are (:func:`~.types.spark_type`);
    ``RelRoot.names`` renames them at the root."""
    args: list[ir.Expr] = []
    for k, v in enumerate(values):
        args += [ir.Lit(f"f{k}", loc), v]
    return ir.Call("named_struct", tuple(args), loc)


# ---------------------------------------------------------------- composite literals


@_composite("list")
def list_literal(c: Converter, msg: Message, loc: str) -> ir.Expr:
    values = tuple(literal(c, v, f"{loc}/values/{k}", []) for k, v in enumerate(msg.values))
    return ir.Call("array", values, loc)


@_composite("empty_list")
def empty_list_literal(c: Converter, msg: Message, loc: str) -> ir.Expr:
    element = spark_type(c, msg.type, f"{loc}/type")
    if element is None:
        return ir.Lit(None, loc)
    return ir.Cast(ir.Call("array", (), loc), ArrayType(element), loc)


@_composite("map")
def map_literal(c: Converter, msg: Message, loc: str) -> ir.Expr:
    keys = tuple(literal(c, kv.key, f"{loc}/keyValues/{k}/key", []) for k, kv in enumerate(msg.key_values))
    values = tuple(literal(c, kv.value, f"{loc}/keyValues/{k}/value", []) for k, kv in enumerate(msg.key_values))
    return ir.Call("map_from_arrays", (ir.Call("array", keys, loc), ir.Call("array", values, loc)), loc)


@_composite("empty_map")
def empty_map_literal(c: Converter, msg: Message, loc: str) -> ir.Expr:
    key = spark_type(c, msg.key, f"{loc}/key")
    value = spark_type(c, msg.value, f"{loc}/value")
    if key is None or value is None:
        return ir.Lit(None, loc)
    empty = ir.Call("map_from_arrays", (ir.Call("array", (), loc), ir.Call("array", (), loc)), loc)
    return ir.Cast(empty, MapType(key, value), loc)


@_composite("struct")
def struct_literal(c: Converter, msg: Message, loc: str) -> ir.Expr:
    return named_struct([literal(c, v, f"{loc}/fields/{k}", []) for k, v in enumerate(msg.fields)], loc)


@_composite("binary", "fixed_binary")
def binary_literal(c: Converter, msg: bytes, loc: str) -> ir.Expr:
    return ir.Call("unhex", (ir.Lit(bytes(msg).hex(), loc, Primitive("string")),), loc)


@_composite("uuid")
def uuid_literal(c: Converter, msg: bytes, loc: str) -> ir.Expr:
    import uuid

    if len(msg) != 16:
        c.err("substrait_invalid", loc, f"a UUID literal has 16 bytes, this one has {len(msg)}")
        return ir.Lit(None, loc)
    # Spark has no UUID type: its uuid() returns the canonical string, and so does this
    return ir.Lit(str(uuid.UUID(bytes=bytes(msg))), loc, Primitive("string"))


@_composite("interval_year_to_month")
def year_month(c: Converter, msg: Message, loc: str) -> ir.Expr:
    # Spark's year-month interval (YearMonthIntervalType): months, exactly Substrait's
    return ir.Call("make_ym_interval", (_int(msg.years, loc), _int(msg.months, loc)), loc)


@_composite("interval_day_to_second")
def day_second(c: Converter, msg: Message, loc: str) -> ir.Expr:
    # Spark's day-time interval (DayTimeIntervalType), microseconds in all
    secs = _seconds(c, msg, loc)
    if secs is None:
        return ir.Lit(None, loc)
    zero = _int(0, loc)
    return ir.Call("make_dt_interval", (_int(msg.days, loc), zero, zero, _secs(secs, loc)), loc)


@_composite("interval_compound")
def compound(c: Converter, msg: Message, loc: str) -> ir.Expr:
    # months, days and microseconds kept apart: Spark's calendar interval (make_interval),
    # which date + interval keeps a date (DataFusion writes every SQL interval this way)
    ym, ds = msg.interval_year_to_month, msg.interval_day_to_second
    secs = _seconds(c, ds, f"{loc}/intervalDayToSecond")
    if secs is None:
        return ir.Lit(None, loc)
    zero = _int(0, loc)
    args = (_int(ym.years, loc), _int(ym.months, loc), zero, _int(ds.days, loc), zero, zero, _secs(secs, loc))
    return ir.Call("make_interval", args, loc)


def _seconds(c: Converter, msg: Message, loc: str) -> decimal.Decimal | None:
    """A day-to-second interval's seconds and sub-seconds, as Spark's decimal seconds
    (microseconds: a finer sub-second is refused rather than rounded)."""
    # the new encoding (precision + subseconds) or the old microseconds field
    if msg.precision or msg.subseconds:
        p = msg.precision
        if not 0 <= p <= 9:
            c.err("substrait_invalid", f"{loc}/precision", f"an interval precision of {p} (0 to 9)")
            return None
        nanos = msg.subseconds * 10 ** (9 - p)
    else:
        nanos = msg.microseconds * 1000
    if nanos % 1000:
        c.err(
            "substrait_unsupported",
            f"{loc}/subseconds",
            "an interval with nanoseconds: Spark's intervals hold microseconds",
        )
        return None
    return decimal.Decimal(msg.seconds) + decimal.Decimal(nanos // 1000).scaleb(-6)


def _int(value: int, loc: str) -> ir.Expr:
    return ir.Lit(int(value), loc)  # an int32 literal (Substrait's interval fields are int32)


def _secs(value: decimal.Decimal, loc: str) -> ir.Expr:
    return ir.Lit(str(value), loc, Primitive("decimal", 18, 6))
