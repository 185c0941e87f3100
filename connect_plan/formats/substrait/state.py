"""The converter's state, and the dispatch of relations and expressions by kind.

Substrait is positional (a field reference is an index into the input's columns), the IR is
by name. So every column a relation outputs gets a generated name unique in the whole plan
(``_s<n>``, :meth:`Converter.fresh`): joins never collide, correlated references name the outer
column unambiguously, and the root's ``Select`` gives the columns ``RelRoot.names``. Which
columns a relation outputs (and in what order) is tracked as the list of those names
(:class:`Rel`): a projection mask or an ``emit`` only reorders that list; a ``Select`` is written
only where Spark needs exactly the visible columns (set operations, subqueries, the root).

Every problem is recorded with its location (a JSON pointer in Substrait's JSON field names,
``/relations/0/root/input/project/expressions/3/scalarFunction``) and conversion goes on, so one
:class:`~connect_plan.errors.PlanError` lists them all (:meth:`Converter.err`).

The converters of relations and expressions are module functions registered here by kind
(:func:`relation`, :func:`expression`) by the modules after this one; :meth:`Converter.rel` and
:meth:`Converter.expr` dispatch through the tables, so a subquery's relation and a relation's
condition recurse into each other with no import cycle.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from google.protobuf.message import Message

from ... import ir
from ...errors import ErrorDetail
from ...records import Record, Value, frozen
from ...types import ArrayType, DataType, MapType, StructType

__all__ = [
    "EXPRESSIONS",
    "RELATIONS",
    "Converter",
    "ExpressionBuilder",
    "Rel",
    "RelationBuilder",
    "Shape",
    "enum_name",
    "enum_text",
    "expression",
    "json_name",
    "relation",
    "type_shape",
]

RelationBuilder = Callable[["Converter", Any, str], "Rel | None"]
ExpressionBuilder = Callable[["Converter", Any, str, list[str]], ir.Expr]

#: ``Rel.rel_type`` kind → its converter (registered by :mod:`.relations`)
RELATIONS: dict[str, RelationBuilder] = {}

#: ``Expression.rex_type`` kind → its converter (registered by :mod:`.literals`,
#: :mod:`.expressions` and :mod:`.functions`)
EXPRESSIONS: dict[str, ExpressionBuilder] = {}

#: why a relation kind does not run (keyed on its first 9 letters: every extension_* kind)
UNSUPPORTED_RELATIONS: dict[str, str] = {
    "extension": " (extension relations have no meaning outside their producer)",
    "write": " here: a write is the root's input (what the plan does), not a relation inside it",
    "ddl": " (DDL has no Spark Connect command but SQL text, which connect_plan never builds from a plan)",
}


def relation(*kinds: str) -> Callable[[RelationBuilder], RelationBuilder]:
    """Register a relation's converter for ``kinds`` (fields of ``Rel.rel_type``)."""

    def register(build: RelationBuilder) -> RelationBuilder:
        for kind in kinds:
            if kind in RELATIONS:  # pragma: no cover - a developer error caught on import
                raise RuntimeError(f"relation {kind!r} registered twice")
            RELATIONS[kind] = build
        return build

    return register


def expression(*kinds: str) -> Callable[[ExpressionBuilder], ExpressionBuilder]:
    """Register an expression's converter for ``kinds`` (fields of ``Expression.rex_type``)."""

    def register(build: ExpressionBuilder) -> ExpressionBuilder:
        for kind in kinds:
            if kind in EXPRESSIONS:  # pragma: no cover - a developer error caught on import
                raise RuntimeError(f"expression {kind!r} registered twice")
            EXPRESSIONS[kind] = build
        return build

    return register


def json_name(msg: Message, name: str) -> str:
    """A field's name in Substrait's JSON (the locations' spelling): ``named_table`` → ``namedTable``."""
    return str(msg.DESCRIPTOR.fields_by_name[name].json_name)


def enum_name(msg: Message, name: str) -> str:
    """The name of the value of the enum field ``name`` (``"JOIN_TYPE_LEFT_SEMI"``), from the
    message's own descriptor; ``""`` for a number the schema does not know. A number with
    several names (the spec <=0.52 aliases) gives the first, the current one."""
    value = msg.DESCRIPTOR.fields_by_name[name].enum_type.values_by_number.get(getattr(msg, name))
    return str(value.name) if value is not None else ""


def enum_text(msg: Message, name: str) -> str:
    """The enum value's name for a message, or its number when the schema has no name for it."""
    return enum_name(msg, name) or str(getattr(msg, name))


@frozen
class Shape(Value):
    """What the converter knows of a nested value: a struct's Spark field names (each with
    its own shape, if known), or the shape of a list's elements / a map's values. Substrait's
    nested references and ``RelRoot.names`` are positional, Spark's struct fields named."""

    fields: tuple[tuple[str, Shape | None], ...] | None = None
    element: Shape | None = None


def type_shape(t: DataType | None) -> Shape | None:
    """The shape of a value of Spark type ``t`` (a struct type's fields are ``f0``, ``f1``...)."""
    if isinstance(t, StructType):
        return Shape(tuple((n, type_shape(ft)) for n, ft in t.fields))
    if isinstance(t, ArrayType):
        inner = type_shape(t.element)
        return Shape(element=inner) if inner is not None else None
    if isinstance(t, MapType):
        inner = type_shape(t.value)
        return Shape(element=inner) if inner is not None else None
    return None


@dataclass(eq=False, repr=False)
class Rel(Record):
    """A converted relation: its IR source and steps so far, and the names of the columns
    it outputs, in order (a name may appear twice: an ``emit`` may repeat a column)."""

    source: ir.Source
    steps: list[ir.Step]
    names: list[str]
    loc: str

    def plan(self) -> ir.Plan:
        return ir.Plan(self.source, tuple(self.steps), self.loc)


@dataclass(eq=False, repr=False)
class Converter(Record):
    """What converting one plan accumulates; see :func:`~.commands.convert_plan`."""

    plan_msg: Message
    tables: Mapping[str, ir.Source] = field(default_factory=dict)
    errors: list[ErrorDetail] = field(default_factory=list)
    #: the plan's extension functions: anchor → compound name (``equal:any_any``)
    functions: dict[int, str] = field(default_factory=dict)
    counter: int = 0
    step_counter: int = 0
    #: names of the enclosing relations' columns, innermost last (for outer references)
    outer: list[list[str]] = field(default_factory=list)
    #: the enclosing lambdas' parameters (their IR names), innermost last (for lambda
    #: parameter references, ``steps_out`` lambdas out: :mod:`.lambdas`)
    lambdas: list[tuple[str, ...]] = field(default_factory=list)
    #: the locations of the function arguments where a lambda may stand (a higher-order
    #: function's function arguments): a lambda anywhere else is refused
    lambda_slots: set[str] = field(default_factory=set)
    #: the producer deviations this plan's producer is known for (``spellings.PRODUCER_QUIRKS``)
    quirks: frozenset[str] = frozenset()
    #: the known nested layout of columns (by generated name): see :class:`Shape`
    shapes: dict[str, Shape] = field(default_factory=dict)
    #: the declared (precision, scale) of decimal columns read from a base schema (by generated
    #: name): see :mod:`.comparisons`
    decimals: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: the columns read from a base schema of a fixed-width, non-decimal type (by generated
    #: name): a filter tests them first (:mod:`.conjuncts`)
    fixed_width: set[str] = field(default_factory=set)
    #: ReferenceRel targets converted so far: plan relation index → shared plan and its
    #: columns (None: it failed, already reported)
    subtrees: dict[int, tuple[ir.SharedPlan, list[str]] | None] = field(default_factory=dict)
    #: the subtrees being converted (a reference to one of them is a cycle)
    building: set[int] = field(default_factory=set)
    #: whether an AggregateRel of several grouping sets outputs the spec's trailing set-index
    #: column ("output"), computes it but leaves it out of its output ("hidden": to compare the
    #: two readings of a plan, :func:`~.commands.convert_plan`), or has none ("none": Isthmus
    #: before substrait-java 0.67)
    set_index: Literal["output", "hidden", "none"] = "output"
    #: where the plan has an AggregateRel of several grouping sets (outside DataFusion's order)
    multi_set_aggregates: list[str] = field(default_factory=list)

    # ------------------------------------------------------------ bookkeeping

    def err(self, code: str, loc: str, message: str) -> None:
        self.errors.append(ErrorDetail(code, loc, message))

    def fresh(self) -> str:
        self.counter += 1
        return f"_s{self.counter}"

    def step_index(self) -> int:
        self.step_counter += 1
        return self.step_counter

    def mapped(self, name: str) -> ir.Source | None:
        """The source ``tables=`` gives a table name (case-insensitively), if any."""
        for key, src in self.tables.items():
            if key.lower() == name.lower():
                return src
        return None

    def materialize(self, rel: Rel, loc: str, op: str) -> Rel:
        """Exactly the visible columns, freshly named (for set operations and subqueries)."""
        fresh = [self.fresh() for _ in rel.names]
        items = tuple(ir.SelectItem(ir.Col(n, loc), f, loc) for n, f in zip(rel.names, fresh))
        rel.steps.append(ir.Select(self.step_index(), op, loc, items))
        for old, new in zip(rel.names, fresh):
            self.carry(old, new)
        rel.names = fresh
        return rel

    def carry(self, old: str, new: str) -> None:
        """What is known of column ``old`` (its nested shape, declared decimal type, fixed width)
        is known of ``new``, a copy of it under another name."""
        if old in self.shapes:
            self.shapes[new] = self.shapes[old]
        if old in self.decimals:
            self.decimals[new] = self.decimals[old]
        if old in self.fixed_width:
            self.fixed_width.add(new)

    def shape_of(self, expr: ir.Expr) -> Shape | None:
        """The nested layout of ``expr``'s value, where this converter can tell."""
        if isinstance(expr, ir.Col):
            return self.shapes.get(expr.name)
        if isinstance(expr, ir.Cast):
            return type_shape(expr.to)
        if isinstance(expr, ir.When):
            for _, v in expr.branches:
                found = self.shape_of(v)
                if found is not None:
                    return found
            return self.shape_of(expr.otherwise) if expr.otherwise is not None else None
        if isinstance(expr, ir.ExtractValue):
            outer = self.shape_of(expr.child)
            if outer is not None and outer.fields is not None and isinstance(expr.key, ir.Lit):
                return dict(outer.fields).get(expr.key.value)
            return outer.element if outer is not None else None
        if isinstance(expr, ir.Call):
            if expr.fn == "named_struct":
                pairs = zip(expr.args[0::2], expr.args[1::2])
                return Shape(tuple((str(n.value) if isinstance(n, ir.Lit) else "", self.shape_of(v)) for n, v in pairs))
            if expr.fn == "array" and expr.args:
                inner = self.shape_of(expr.args[0])
                return Shape(element=inner) if inner is not None else None
            if expr.fn == "map_from_arrays" and len(expr.args) == 2:
                values = self.shape_of(expr.args[1])
                return Shape(element=values.element) if values is not None and values.element else None
            if expr.fn in ("try_element_at", "element_at") and expr.args:
                outer = self.shape_of(expr.args[0])
                return outer.element if outer is not None else None
        return None

    # ------------------------------------------------------------ dispatch

    def rel(self, msg: Message, loc: str) -> Rel | None:
        """A relation converted by its kind's registered converter, then its ``emit`` applied
        (once, here, for every kind)."""
        kind = msg.WhichOneof("rel_type")
        if kind is None:
            self.err("substrait_invalid", loc, "a relation with no kind set")
            return None
        builder = RELATIONS.get(kind)
        sub = getattr(msg, kind)
        sub_loc = f"{loc}/{json_name(msg, kind)}"
        if builder is None:
            self.err(
                "substrait_unsupported",
                sub_loc,
                f"the Substrait relation '{kind}' is not supported" + UNSUPPORTED_RELATIONS.get(kind[:9], ""),
            )
            return None
        out = builder(self, sub, sub_loc)
        if out is None:
            return None
        has_common = "common" in sub.DESCRIPTOR.fields_by_name and sub.HasField("common")
        if has_common and sub.common.WhichOneof("emit_kind") == "emit":
            mapping = list(sub.common.emit.output_mapping)
            bad = [m for m in mapping if not 0 <= m < len(out.names)]
            if bad:
                self.err(
                    "substrait_field_index",
                    f"{sub_loc}/common/emit/outputMapping",
                    f"emit refers to column {bad[0]}, the relation has {len(out.names)}",
                )
                return None
            out.names = [out.names[m] for m in mapping]
        return out

    def expr(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        """An expression over the columns ``names`` (the input's, by position), converted by its
        kind's registered converter."""
        kind = msg.WhichOneof("rex_type")
        if kind is None:
            self.err("substrait_invalid", loc, "an expression with no kind set")
            return ir.Lit(None, loc)
        builder = EXPRESSIONS.get(kind)
        sub_loc = f"{loc}/{json_name(msg, kind)}"
        if builder is None:
            self.err("substrait_unsupported", sub_loc, f"the Substrait expression '{kind}' is not supported yet")
            return ir.Lit(None, sub_loc)
        return builder(self, getattr(msg, kind), sub_loc, names)
