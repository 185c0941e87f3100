"""Substrait types as the result contract reads them: a small immutable tree (:class:`SType`)
read from ``Type`` and ``Literal`` messages, and the one table that maps each to the Spark type
Spark returns for it (:data:`SPARK_TYPES`, listed in docs/substrait.md, "The result contract").

Nullability is kept as the plan writes it (True nullable, False required, None unspecified);
the contract does not hold Spark to it (docs/substrait.md says why).
"""

from __future__ import annotations

from google.protobuf.message import Message

from ... import ir
from ...records import Value, frozen
from ...types import ArrayType, DataType, MapType, Primitive, StructType

__all__ = ["SPARK_TYPES", "UNDECLARED", "SType", "contract_column", "literal_type", "stype"]

#: Substrait type kind → the Spark type Spark returns for a column of it (parameterised kinds:
#: decimal keeps its precision and scale; list, map and struct map their parts). A kind that is
#: absent (time, precision_time, user-defined types, aliases, functions) has no Spark type: the
#: column's type is not checked (the converter refuses those kinds where it meets them).
SPARK_TYPES: dict[str, str] = {
    "bool": "boolean",
    "i8": "tinyint",
    "i16": "smallint",
    "i32": "int",
    "i64": "bigint",
    "fp32": "float",
    "fp64": "double",
    "string": "string",
    "varchar": "string",
    "fixed_char": "string",
    "uuid": "string",  # Spark has no UUID type: its uuid() is a string, and so are UUID literals here
    "binary": "binary",
    "fixed_binary": "binary",
    "date": "date",
    "timestamp": "timestamp_ntz",
    "precision_timestamp": "timestamp_ntz",
    "timestamp_tz": "timestamp",
    "precision_timestamp_tz": "timestamp",
    "interval_year": "interval year to month",
    "interval_day": "interval day to second",
    "interval_compound": "interval",
}

#: how a kind is written in Substrait's type syntax, where it differs from the proto field name
_SPELLED = {"bool": "boolean", "fixed_char": "fixedchar", "fixed_binary": "fixedbinary"}

#: the parameters each parameterised kind carries, in the order Substrait writes them
_PARAMETERS: dict[str, tuple[str, ...]] = {
    "decimal": ("precision", "scale"),
    "varchar": ("length",),
    "fixed_char": ("length",),
    "fixed_binary": ("length",),
    "precision_time": ("precision",),
    "precision_timestamp": ("precision",),
    "precision_timestamp_tz": ("precision",),
    "interval_day": ("precision",),
    "interval_compound": ("precision",),
}

#: Literal kind → the type kind of its value (where the names differ; parameterised and nested
#: kinds are handled in :func:`literal_type`)
_LITERAL_KINDS = {
    "boolean": "bool",
    "interval_year_to_month": "interval_year",
    "var_char": "varchar",
}

_NULLABILITY = {1: True, 2: False}  # NULLABILITY_NULLABLE, NULLABILITY_REQUIRED; else unspecified


@frozen
class SType(Value):
    """A Substrait type: its kind (the ``Type`` oneof's field name; ``""``: not declared), its
    nullability, its parameters (:data:`_PARAMETERS`) and its parts (a list's element, a map's
    key and value, a struct's fields)."""

    kind: str
    nullable: bool | None = None
    params: tuple[int, ...] = ()
    children: tuple[SType, ...] = ()

    @property
    def declared(self) -> bool:
        return bool(self.kind)

    def as_nullable(self) -> SType:
        if self.nullable or not self.kind:
            return self
        return SType(self.kind, True, self.params, self.children)

    def nullable_if(self, outer: bool | None) -> SType:
        """This type as a field of a value that is ``outer`` nullable (a null struct has null fields)."""
        return self.as_nullable() if outer else self

    def nested_names(self) -> int:
        """How many ``RelRoot.names`` this type's struct fields take, depth-first (structs inside
        lists and maps included: NamedStruct's rule)."""
        own = len(self.children) if self.kind == "struct" else 0
        return own + sum(c.nested_names() for c in self.children)

    def text(self) -> str:
        """The type in Substrait's type syntax (``decimal<15,2>?``)."""
        if not self.kind:
            return "not declared"
        name = _SPELLED.get(self.kind, self.kind)
        inner = [str(p) for p in self.params] + [c.text() for c in self.children]
        return name + (f"<{', '.join(inner)}>" if inner else "") + ("?" if self.nullable else "")


#: the type a plan does not declare
UNDECLARED = SType("")


def stype(msg: Message) -> SType:
    """A ``Type`` message as an :class:`SType` (:data:`UNDECLARED` for a type with no kind)."""
    kind = msg.WhichOneof("kind")
    if kind is None:
        return UNDECLARED
    sub = getattr(msg, kind)
    nullable = _NULLABILITY.get(sub.nullability) if "nullability" in sub.DESCRIPTOR.fields_by_name else None
    params = tuple(int(getattr(sub, p)) for p in _PARAMETERS.get(kind, ()))
    if kind == "interval_day" and not sub.HasField("precision"):
        params = (6,)  # the old interval_day: microseconds
    children: tuple[SType, ...] = ()
    if kind == "list":
        children = (stype(sub.type),)
    elif kind == "map":
        children = (stype(sub.key), stype(sub.value))
    elif kind == "struct":
        children = tuple(stype(t) for t in sub.types)
    return SType(kind, nullable, params, children)


def literal_type(msg: Message) -> SType:
    """The type of a ``Literal``'s value (a typed null: its type; a null with no type, as DuckDB
    writes it: :data:`UNDECLARED`)."""
    kind = msg.WhichOneof("literal_type")
    if kind is None:
        return UNDECLARED
    nullable = bool(msg.nullable)
    value = getattr(msg, kind)
    if kind == "null":
        return stype(value).as_nullable()
    if kind in ("empty_list", "empty_map"):
        return SType(*_parts(stype_of(value, "list" if kind == "empty_list" else "map"), nullable))
    if kind == "list":
        element = literal_type(value.values[0]) if len(value.values) else UNDECLARED
        return SType("list", nullable, (), (element,))
    if kind == "map":
        pairs = value.key_values
        key, val = (
            (literal_type(pairs[0].key), literal_type(pairs[0].value)) if len(pairs) else (UNDECLARED, UNDECLARED)
        )
        return SType("map", nullable, (), (key, val))
    if kind == "struct":
        return SType("struct", nullable, (), tuple(literal_type(f) for f in value.fields))
    if kind == "decimal":
        return SType("decimal", nullable, (value.precision, value.scale))
    if kind in ("precision_timestamp", "precision_timestamp_tz", "precision_time"):
        return SType(kind, nullable, (value.precision,))
    if kind == "var_char":
        return SType("varchar", nullable, (value.length,))
    if kind in ("fixed_char", "fixed_binary"):
        return SType(kind, nullable, (len(value),))
    if kind == "interval_day_to_second":
        precision = value.precision if value.precision or value.subseconds else 6
        return SType("interval_day", nullable, (precision,))
    if kind == "interval_compound":
        seconds = value.interval_day_to_second
        return SType(
            "interval_compound", nullable, (seconds.precision if seconds.precision or seconds.subseconds else 6,)
        )
    return SType(_LITERAL_KINDS.get(kind, kind), nullable)


def stype_of(msg: Message, kind: str) -> SType:
    """A ``Type.List``/``Type.Map`` message (an empty literal's type) as an :class:`SType`."""
    if kind == "list":
        return SType("list", None, (), (stype(msg.type),))
    return SType("map", None, (), (stype(msg.key), stype(msg.value)))


def _parts(t: SType, nullable: bool) -> tuple[str, bool, tuple[int, ...], tuple[SType, ...]]:
    return t.kind, nullable, t.params, t.children


# ------------------------------------------------------------------ Spark types


def spark_type(t: SType, names: list[str] | None) -> DataType | None:
    """The Spark type Spark returns for a column of Substrait type ``t`` (None: not declared, or
    no Spark type); its struct fields named by ``names`` (``RelRoot.names``, depth-first,
    consumed), or ``""`` where the plan does not name them (``names`` None: not checked)."""
    if not t.declared:
        return None
    if t.kind == "decimal":
        return Primitive("decimal", t.params[0], t.params[1])
    name = SPARK_TYPES.get(t.kind)
    if name is not None:
        return Primitive(name)
    if t.kind == "list":
        element = spark_type(t.children[0], names)
        return ArrayType(element) if element is not None else None
    if t.kind == "map":
        key = spark_type(t.children[0], names)
        value = spark_type(t.children[1], names)
        return MapType(key, value) if key is not None and value is not None else None
    if t.kind == "struct":
        fields = []
        for i, child in enumerate(t.children):
            field_name = names.pop(0) if names else ("" if names is None else f"f{i}")
            inner = spark_type(child, names)
            if inner is None:
                return None
            fields.append((field_name, inner))
        return StructType(tuple(fields))
    return None


def contract_column(
    t: SType, name: str | None, field_names: list[str] | None, loc: str, name_loc: str
) -> ir.ContractColumn:
    """One column of the contract: the Spark-side facts of a declared column."""
    return ir.ContractColumn(
        name, spark_type(t, list(field_names) if field_names is not None else None), t.text(), loc, name_loc, t.nullable
    )
