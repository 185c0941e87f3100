"""A function call as a builder gets it, and the registry of builders: the rows of the function
table (:data:`~.spellings.FUNCTIONS`) with no Spark function of their own are built by code
registered here by name and kind (:func:`builder`, :func:`aggregate_builder`), from
:mod:`.functions` (the spec's functions) and :mod:`.producer_functions` (producers' own names)."""

from __future__ import annotations

from collections.abc import Callable

from google.protobuf.message import Message

from ... import ir
from ...records import Value, frozen
from ...types import DataType, Primitive
from . import spellings as sp
from .state import Converter
from .types import PRIMITIVE_TYPES

__all__ = [
    "AGGREGATE_BUILDERS",
    "BUILDERS",
    "AggregateBuilder",
    "AggregateCall",
    "Builder",
    "ScalarCall",
    "aggregate_builder",
    "builder",
    "like_call",
    "like_pattern",
    "literal_text",
    "output_kind",
    "refuse",
]


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
    #: the honoured options: (name, value), lower-case name, upper-case value
    options: tuple[tuple[str, str], ...] = ()

    def option(self, name: str) -> str | None:
        """The value of option ``name`` the call asks for (honoured), or None."""
        return dict(self.options).get(name)

    @property
    def output(self) -> str | None:
        """The kind of the declared ``output_type`` (``i8``, ``fp64``, ``date``...), if any."""
        return output_kind(self.msg)

    @property
    def output_type(self) -> DataType | None:
        """The declared output type as Spark's (primitive kinds and decimals), if any."""
        kind = self.output
        if kind == "decimal":
            d = self.msg.output_type.decimal
            return Primitive("decimal", d.precision, d.scale)
        return Primitive(PRIMITIVE_TYPES[kind]) if kind in PRIMITIVE_TYPES else None


@frozen
class AggregateCall(Value):
    """An aggregate function call (an AggregateRel measure, or a window function's aggregate)
    as its builder gets it: ``make(fn, args)`` makes the call of the Spark aggregate ``fn``
    (over the same rows, DISTINCT, window and filter as this call)."""

    name: str
    sig: str
    #: the converted arguments (a measure's filter already applied to them)
    args: tuple[ir.Expr, ...]
    msg: Message
    loc: str
    make: Callable[[str, tuple[ir.Expr, ...]], ir.Expr]
    #: the enum arguments (``SAMPLE``...) and the honoured options, as a scalar call's
    enums: tuple[str, ...] = ()
    options: tuple[tuple[str, str], ...] = ()

    def option(self, name: str) -> str | None:
        return dict(self.options).get(name)

    @property
    def output(self) -> str | None:
        return output_kind(self.msg)


Builder = Callable[[Converter, ScalarCall], ir.Expr]
AggregateBuilder = Callable[[Converter, AggregateCall], ir.Expr]

#: scalar function name → its builder, for the scalar rows of :data:`~.spellings.FUNCTIONS`
#: with no Spark function
BUILDERS: dict[str, Builder] = {}

#: aggregate function name → its builder, for the aggregate rows with no Spark function
AGGREGATE_BUILDERS: dict[str, AggregateBuilder] = {}


def builder(*names: str) -> Callable[[Builder], Builder]:
    """Register the builder of the scalar functions ``names``."""

    def register(build: Builder) -> Builder:
        for name in names:
            if name in BUILDERS or ("scalar", name) not in sp.FUNCTIONS:  # pragma: no cover - a developer error
                raise RuntimeError(f"builder {name!r} registered twice, or without a row")
            BUILDERS[name] = build
        return build

    return register


def aggregate_builder(*names: str) -> Callable[[AggregateBuilder], AggregateBuilder]:
    """Register the builder of the aggregate functions ``names``."""

    def register(build: AggregateBuilder) -> AggregateBuilder:
        for name in names:
            if name in AGGREGATE_BUILDERS or ("aggregate", name) not in sp.FUNCTIONS:  # pragma: no cover
                raise RuntimeError(f"aggregate builder {name!r} registered twice, or without a row")
            AGGREGATE_BUILDERS[name] = build
        return build

    return register


def output_kind(msg: Message) -> str | None:
    """The kind of a call's declared ``output_type`` (None: not declared)."""
    if not msg.HasField("output_type"):
        return None
    kind: str | None = msg.output_type.WhichOneof("kind")
    return kind


def literal_text(arg: ir.Expr) -> str | None:
    """The text of a string literal argument (or of a cast of one to a string), else None."""
    if isinstance(arg, ir.Cast) and isinstance(arg.to, Primitive) and arg.to.name == "string":
        arg = arg.expr
    if isinstance(arg, ir.Lit) and isinstance(arg.value, str):
        return arg.value
    return None


def refuse(c: Converter, loc: str, message: str) -> ir.Expr:
    """A located ``substrait_function`` error (the call cannot run exactly on Spark), and the
    placeholder the converter goes on with."""
    c.err("substrait_function", loc, message)
    return ir.Lit(None, loc)


def like_pattern(pattern: str, escape: str | None) -> str:
    """A LIKE pattern whose escape character is ``escape`` (None: none, as SQL's LIKE without
    ESCAPE reads it) as Spark's ``like`` reads it with its own escape, ``\\``: the same strings
    match. An escape before any character makes it literal (DuckDB's and DataFusion's reading;
    Spark allows it only before ``%``, ``_`` and itself, so it is written that way).
    :class:`ValueError` for a pattern that ends with its escape (every engine refuses it)."""
    out: list[str] = []
    chars = iter(pattern)
    for ch in chars:
        if escape is not None and ch == escape:
            nxt = next(chars, None)
            if nxt is None:
                raise ValueError("the pattern ends with its escape character")
            out.append("\\" + nxt if nxt in "%_\\" else nxt)
        elif ch == "\\":
            out.append("\\\\")
        else:
            out.append(ch)
    return "".join(out)


def like_call(c: Converter, fn: str, value: ir.Expr, pattern: ir.Expr, escape: str | None, loc: str) -> ir.Expr:
    """Spark's ``like`` / ``ilike`` (``fn``) of ``value`` against ``pattern`` read with the escape
    character ``escape`` (None: no escape). A literal pattern is rewritten for Spark's escape
    (:func:`like_pattern`); any other pattern keeps its escape: with none, its backslashes are
    doubled by Spark's ``replace``; another character goes as Spark's escape argument."""
    text = literal_text(pattern)
    if text is not None:
        try:
            spark_pattern = like_pattern(text, escape)
        except ValueError as e:
            return refuse(c, loc, f"a LIKE pattern {text!r} with the escape {escape!r}: {e}")
        same = spark_pattern == text  # the pattern as written (a typed literal stays as it is)
        return ir.Call(fn, (value, pattern if same else ir.Lit(spark_pattern, pattern.loc)), loc)
    if escape is None:
        doubled = ir.Call("replace", (pattern, ir.Lit("\\", loc), ir.Lit("\\\\", loc)), loc)
        return ir.Call(fn, (value, doubled), loc)
    if escape == "\\":
        return ir.Call(fn, (value, pattern), loc)
    # Spark's 3-argument like/ilike (an escape character other than its default)
    return ir.UdfCall(fn, (value, pattern, ir.Lit(escape, loc)), loc)
