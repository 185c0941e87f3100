"""Type strings of the plan format ↔ Arrow types ↔ Spark Connect ``DataType`` protos.

The plan format names types with strings (``bigint``, ``decimal(10,2)``, ``array<int>``,
``struct<a:int,b:string>``, ``map<string,int>``). They are parsed once into a small
immutable tree (:class:`DataType`), from which both the Arrow type of inline data and
the Spark ``DataType`` proto of casts are derived, by table.

Semantics are Spark's (PLAN_FORMAT.md, Policy 2): ``int`` is 32-bit, ``float`` is 32-bit,
``decimal(p,s)`` is a real decimal, ``timestamp`` is Spark's session-time-zone timestamp
(instants; Arrow ``timestamp[us, tz=UTC]``) and ``timestamp_ntz`` the zone-less one.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

from .names import field_text
from .records import Value, frozen

if TYPE_CHECKING:
    from pyspark.sql.connect.proto import types_pb2

__all__ = [
    "ArrayType",
    "DataType",
    "MapType",
    "Primitive",
    "StructType",
    "TypeParseError",
    "incomplete",
    "parse_type",
    "spark_type_proto",
    "type_string",
]


@frozen
class Primitive(Value):
    """A leaf type: ``name`` is Spark's canonical simple name (``int``, ``decimal``...)."""

    name: str
    precision: int = 0
    scale: int = 0


@frozen
class ArrayType(Value):
    """``array<T>``; ``element`` is ``None`` for a bare ``array``/``list`` (inferred from data)."""

    element: DataType | None


@frozen
class MapType(Value):
    """``map<K,V>``; both ``None`` for a bare ``map`` (only meaningful in fixtures' expected
    schemas, where it matches any map: PLAN_FORMAT.md §6.3)."""

    key: DataType | None
    value: DataType | None


@frozen
class StructType(Value):
    """``struct<name: type, ...>``: its fields in order."""

    fields: tuple[tuple[str, DataType], ...]


DataType = Primitive | ArrayType | MapType | StructType


class TypeParseError(ValueError):
    """A type string could not be parsed; the message says what was expected."""


# Every accepted spelling of a primitive type, lower-cased, → Spark's canonical name.
# The union of PLAN_FORMAT.md §6.1 (schema strings), §6.2 (cast names) and Spark's DDL names.
PRIMITIVE_ALIASES: dict[str, str] = {
    "tinyint": "tinyint",
    "byte": "tinyint",
    "smallint": "smallint",
    "short": "smallint",
    "int": "int",
    "integer": "int",
    "bigint": "bigint",
    "long": "bigint",
    "float": "float",
    "real": "float",
    "double": "double",
    "double_precision": "double",
    "string": "string",
    "str": "string",
    "varchar": "string",
    "text": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "date": "date",
    "timestamp": "timestamp",
    "datetime": "timestamp",
    "timestamp_ltz": "timestamp",
    "timestamp_ntz": "timestamp_ntz",
    "binary": "binary",
    "decimal": "decimal",
    "dec": "decimal",
    "numeric": "decimal",
    "void": "void",
    "null": "void",
    "variant": "variant",
}

_TOKEN = re.compile(r"\s*(?:(`(?:[^`]|``)*`)|([A-Za-z_][A-Za-z0-9_]*)|(\d+)|([<>(),:]))")


def _tokens(text: str) -> list[str]:
    out: list[str] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise TypeParseError(f"unexpected character {text[pos:].strip()[:1]!r} at offset {pos}")
        out.append(m.group(0).strip())
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None:
            raise TypeParseError(f"unexpected end of type string{self._want(expected)}")
        if expected is not None and tok.lower() != expected:
            raise TypeParseError(f"expected {expected!r} but found {tok!r}")
        self.i += 1
        return tok

    @staticmethod
    def _want(expected: str | None) -> str:
        return f", expected {expected!r}" if expected else ""

    def number(self) -> int:
        tok = self.take()
        if not (tok.isascii() and tok.isdigit()):
            raise TypeParseError(f"expected a number but found {tok!r}")
        return int(tok)

    def parse(self, depth: int = 0) -> DataType:
        if depth > 32:
            raise TypeParseError("type is nested more than 32 levels deep")
        tok = self.take()
        word = tok.lower()
        if word in ("array", "list"):
            if self.peek() == "<":
                self.take("<")
                elem = self.parse(depth + 1)
                self.take(">")
                return ArrayType(elem)
            return ArrayType(None)
        if word == "map":
            if self.peek() == "<":
                self.take("<")
                key = self.parse(depth + 1)
                self.take(",")
                value = self.parse(depth + 1)
                self.take(">")
                return MapType(key, value)
            return MapType(None, None)
        if word == "struct":
            self.take("<")
            fields: list[tuple[str, DataType]] = []
            seen: set[str] = set()
            while self.peek() != ">":
                if fields:
                    self.take(",")
                name = self.take()
                if name.startswith("`"):
                    name = name[1:-1].replace("``", "`")
                elif not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*|\d+", name):
                    raise TypeParseError(f"expected a struct field name but found {name!r}")
                if self.peek() == ":":
                    self.take(":")
                if name.lower() in seen:
                    raise TypeParseError(f"duplicate struct field {name!r}")
                seen.add(name.lower())
                fields.append((name, self.parse(depth + 1)))
            self.take(">")
            return StructType(tuple(fields))
        if word in ("char", "varchar") and self.peek() == "(":
            self.take("(")
            self.number()
            self.take(")")
            return Primitive("string")
        canonical = PRIMITIVE_ALIASES.get(word)
        if canonical is None:
            raise TypeParseError(f"unknown type name {tok!r}")
        if canonical == "decimal":
            precision, scale = 10, 0
            if self.peek() == "(":
                self.take("(")
                precision = self.number()
                if self.peek() == ",":
                    self.take(",")
                    scale = self.number()
                self.take(")")
            if not 1 <= precision <= 38 or not 0 <= scale <= precision:
                raise TypeParseError(
                    f"decimal({precision},{scale}) is out of range: need 1 ≤ precision ≤ 38 and 0 ≤ scale ≤ precision"
                )
            return Primitive("decimal", precision, scale)
        return Primitive(canonical)


def parse_type(text: str) -> DataType:
    """Parse a type string; raise :class:`TypeParseError` with a reason if it is invalid."""
    if not isinstance(text, str):
        raise TypeParseError(f"a type must be a string, not {type(text).__name__}")
    return _parse_type(text)


@functools.lru_cache(maxsize=1024)
def _parse_type(text: str) -> DataType:
    # cached: schemas repeat the same few type strings, and the results are immutable
    if not text.strip():
        raise TypeParseError("empty type string")
    if len(text) > 10_000:
        raise TypeParseError("type string longer than 10,000 characters")
    parser = _Parser(text)
    result = parser.parse()
    if parser.peek() is not None:
        raise TypeParseError(f"unexpected {parser.peek()!r} after a complete type")
    return result


def type_string(t: DataType | None) -> str:
    """Canonical Spark simple string of a type (``decimal(10,2)``, ``array<int>``...)."""
    if t is None:
        return "?"
    if isinstance(t, Primitive):
        if t.name == "decimal":
            return f"decimal({t.precision},{t.scale})"
        return t.name
    if isinstance(t, ArrayType):
        return "array" if t.element is None else f"array<{type_string(t.element)}>"
    if isinstance(t, MapType):
        if t.key is None:
            return "map"
        return f"map<{type_string(t.key)},{type_string(t.value)}>"
    inner = ",".join(f"{field_text(n)}:{type_string(ft)}" for n, ft in t.fields)
    return f"struct<{inner}>"


def incomplete(t: DataType, *, bare_array: bool = False) -> str | None:
    """Why ``t`` names no concrete Spark type (a bare ``map`` anywhere, a bare ``array``
    other than at the top when ``bare_array`` allows it), or None. Spark has no type for
    either; only inline rows infer a top-level bare ``array``'s element type (robin does)."""
    if type(t) is Primitive:  # the usual column
        return None
    stack: list[tuple[DataType, bool]] = [(t, bare_array)]
    while stack:
        node, top_array_ok = stack.pop()
        if isinstance(node, MapType):
            if node.key is None or node.value is None:
                return "a bare 'map' has no key and value types; write map<K,V> (e.g. map<string,string>)"
            stack += [(node.key, False), (node.value, False)]
        elif isinstance(node, ArrayType):
            if node.element is None:
                if not top_array_ok:
                    return "a bare 'array' has no element type here; write array<T> (only a top-level column of inline rows infers it from the data)"
            else:
                stack.append((node.element, False))
        elif isinstance(node, StructType):
            stack += [(ft, False) for _, ft in node.fields]
    return None


#: Spark's Arrow form of a variant: a struct of the binary value and metadata, the
def spark_type_proto(t: DataType) -> types_pb2.DataType:
    """The Spark Connect ``DataType`` proto for ``t`` (used by casts; never a SQL string)."""
    from .spark_proto import types_pb2 as tp

    out = tp.DataType()
    _fill_spark_type(t, out)
    return out


_SPARK_PRIMITIVE_FIELDS: dict[str, str] = {
    "tinyint": "byte",
    "smallint": "short",
    "int": "integer",
    "bigint": "long",
    "float": "float",
    "double": "double",
    "string": "string",
    "boolean": "boolean",
    "date": "date",
    "timestamp": "timestamp",
    "timestamp_ntz": "timestamp_ntz",
    "binary": "binary",
    "void": "null",
    "variant": "variant",
}


# Spark's interval types by their simple names (a cast's target or a typed null's type, as
# Substrait plans write them; the plan format's type strings do not name them): year-month
# (YEAR=0 to MONTH=1), day-time (DAY=0 to SECOND=3), calendar (months, days, microseconds)


def _fill_spark_type(t: DataType, out: types_pb2.DataType) -> None:
    if isinstance(t, Primitive):
        if t.name == "decimal":
            out.decimal.precision = t.precision
            out.decimal.scale = t.scale
            return
        if t.name == "interval year to month":
            out.year_month_interval.start_field, out.year_month_interval.end_field = 0, 1
            return
        if t.name == "interval day to second":
            out.day_time_interval.start_field, out.day_time_interval.end_field = 0, 3
            return
        if t.name == "interval":
            out.calendar_interval.SetInParent()
            return
        getattr(out, _SPARK_PRIMITIVE_FIELDS[t.name]).SetInParent()
        return
    if isinstance(t, ArrayType):
        if t.element is None:
            raise TypeParseError("bare 'array' has no element type; write array<T>")
        _fill_spark_type(t.element, out.array.element_type)
        out.array.contains_null = True
        return
    if isinstance(t, MapType):
        if t.key is None or t.value is None:
            raise TypeParseError("bare 'map' has no key and value types; write map<K,V>")
        _fill_spark_type(t.key, out.map.key_type)
        _fill_spark_type(t.value, out.map.value_type)
        out.map.value_contains_null = True
        return
    out.struct.SetInParent()
    for name, ft in t.fields:
        field = out.struct.fields.add()
        field.name = name
        field.nullable = True
        _fill_spark_type(ft, field.data_type)
