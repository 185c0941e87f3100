"""What a Substrait plan declares its result to be: the column count, each column's Substrait
type and the place in the plan that declares it, read from the plan alone.

This walk is independent of the converter (:mod:`.convert`) on purpose: its value is that it
reads the plan's own declarations (read base schemas, every function's ``output_type``,
casts, literals, the relations' output rules, ``RelCommon.emit``, ``RelRoot.names``), not
connect_plan's translation of them. The result (:func:`result_contract`) is an
:class:`~connect_plan.ir.Contract` of Spark-side facts (:mod:`.declared_types` maps the
types); the client checks Spark's result against it before the first row reaches the caller
(:mod:`connect_plan.contract`). The seed: DataFusion's invariant "the physical schema is
invariant under planning", applied to a plan written by one engine and run by another.

Each relation's output follows the spec's "direct output order" (site/docs/relations):

- read: the base schema, after the projection mask (also virtual tables and files);
- filter, fetch, sort, exchange, top-N: the input's columns;
- project: the input's columns, then one per expression (DuckDB 1.1's plans mean only the
  expressions where a ProjectRel has no ``common``: :data:`.spellings.PRODUCER_QUIRKS`);
- aggregate: the grouping keys (:meth:`Derivation.grouping_keys`: one set's expressions; of
  several sets, each distinct expression once, nullable where a set lacks it), the measures,
  then an ``i32`` grouping-set index when there is more than one grouping set;
- join (also the physical joins and lateral joins): left + right (outer sides nullable);
  semi/anti: one side only; mark: one side + a nullable boolean;
- cross: left + right; set: the inputs' columns (the first declared type of each; nullable if
  any input's is); reference: the referenced subtree's output; window: input + one column per
  window function; expand: one column per field.

A type the plan does not declare (DataFusion 55 writes its aggregate calls without
``output_type``, and its simple CASE's operand clause without a ``then``; DuckDB writes its NULLs
with no type kind) is recorded as not declared: the column still counts, its type is not
checked. A NULL with no type inside a cast (DuckDB's ``CASE ... ELSE NULL``, ``NULLIF``) takes
its type from the enclosing cast, as a cast's value always does here: the converter sends it as
a NULL of the cast's type.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from google.protobuf.message import Message

from ... import ir
from ...errors import PlanError
from . import spellings as sp
from .declared_types import UNDECLARED, SType, contract_column, literal_type, stype

__all__ = ["Column", "Derivation", "declared_columns", "result_contract"]

#: JoinType name (any join message's enum, the ``JOIN_TYPE_`` prefix dropped) → which sides the
#: output keeps and which become nullable: (left kept, right kept, left nullable, right
#: nullable, mark column appended)
JOIN_OUTPUTS: dict[str, tuple[bool, bool, bool, bool, bool]] = {
    "INNER": (True, True, False, False, False),
    "OUTER": (True, True, True, True, False),
    "LEFT": (True, True, False, True, False),
    "RIGHT": (True, True, True, False, False),
    "LEFT_SEMI": (True, False, False, False, False),
    "SEMI": (True, False, False, False, False),
    "LEFT_ANTI": (True, False, False, False, False),
    "ANTI": (True, False, False, False, False),
    "RIGHT_SEMI": (False, True, False, False, False),
    "RIGHT_ANTI": (False, True, False, False, False),
    "LEFT_SINGLE": (True, True, False, True, False),
    "SINGLE": (True, True, False, True, False),
    "RIGHT_SINGLE": (True, True, True, False, False),
    "LEFT_MARK": (True, False, False, False, True),
    "RIGHT_MARK": (False, True, False, False, True),
}

#: relations whose output is their input's columns (the message's ``input``)
PASS_THROUGH = frozenset({"filter", "fetch", "sort", "exchange", "top_n"})

#: a boolean the plan does not type but whose type the spec fixes (predicates, mark columns)
BOOLEAN = SType("bool", True)
#: the grouping-set index column an aggregate with several grouping sets appends
SET_INDEX = SType("i32", False)


class Column:
    """One output column of a relation: its declared type (or :data:`UNDECLARED`) and the
    Substrait field path that declares it. A type written in the plan is read from its
    ``Type`` message when first asked: most columns of a read never are (a filter's or a
    join's keys), and reading them is most of a derivation's cost."""

    __slots__ = ("_message", "_nullable", "_type", "loc")

    def __init__(self, type: SType | None, loc: str, message: Message | None = None, nullable: bool = False) -> None:
        self._type = type
        self._message = message
        self._nullable = nullable
        self.loc = loc

    @classmethod
    def of(cls, message: Message, loc: str) -> Column:
        """The column whose type is ``message`` (a ``Type``), read when first asked."""
        return cls(None, loc, message)

    @property
    def type(self) -> SType:
        if self._type is None:
            t = stype(self._message) if self._message is not None else UNDECLARED
            self._type = t.as_nullable() if self._nullable else t
        return self._type

    def as_nullable(self) -> Column:
        """This column, nullable (an outer join's other side, a key missing from a grouping set)."""
        if self._type is not None:
            return Column(self._type.as_nullable(), self.loc)
        return Column(None, self.loc, self._message, True)

    def __repr__(self) -> str:
        return f"Column({self.type.text()}, {self.loc!r})"


class CannotDerive(Exception):
    """The plan's output cannot be derived at ``loc`` (a relation or reference the converter
    refuses as well; a converted plan never raises it)."""

    def __init__(self, loc: str, message: str) -> None:
        super().__init__(message)
        self.loc = loc
        self.message = message


def _json(msg: Message, name: str) -> str:
    return _json_name(msg.DESCRIPTOR, name)


@functools.cache
def _json_name(descriptor: Any, name: str) -> str:
    return str(descriptor.fields_by_name[name].json_name)


def _enum_name(msg: Message, name: str) -> str:
    """The name of enum field ``name``'s value (``JOIN_TYPE_LEFT``), or its number as text."""
    value = getattr(msg, name)
    found = msg.DESCRIPTOR.fields_by_name[name].enum_type.values_by_number.get(value)
    return found.name if found is not None else str(value)


class Derivation:
    """The walk: each relation → its output columns, each expression → its column."""

    def __init__(self, plan: Message, set_index: bool = True) -> None:
        self.plan = plan
        producer = plan.version.producer.lower() if plan.HasField("version") else ""
        self.quirks = sp.PRODUCER_QUIRKS.get(producer, frozenset())
        #: whether an aggregate of several grouping sets ends with the set index (the spec), or not
        #: (Isthmus before substrait-java 0.67: :func:`declared_columns`)
        self.set_index = set_index
        #: whether the plan has an aggregate of several grouping sets (in the spec's order)
        self.multi_set = False
        #: the columns of the enclosing relations' inputs, innermost last (outer references)
        self.outer: list[list[Column]] = []
        #: ReferenceRel targets derived so far (plan relation index → output)
        self.subtrees: dict[int, list[Column]] = {}
        self.building: set[int] = set()

    # ------------------------------------------------------------ relations

    def rel(self, msg: Message, loc: str) -> list[Column]:
        kind = msg.WhichOneof("rel_type")
        if kind is None:
            raise CannotDerive(loc, "a relation with no kind set")
        sub = getattr(msg, kind)
        sub_loc = f"{loc}/{_json(msg, kind)}"
        mapping: list[int] | None = None
        if "common" in sub.DESCRIPTOR.fields_by_name and sub.common.WhichOneof("emit_kind") == "emit":
            mapping = list(sub.common.emit.output_mapping)
        if kind in PASS_THROUGH:
            out = self.rel(sub.input, f"{sub_loc}/input")
        elif kind == "project":  # the expressions an emit drops need no type
            out = self.project(sub, sub_loc, set(mapping) if mapping is not None else None)
        else:
            builder = RELATIONS.get(kind)
            if builder is None:
                raise CannotDerive(sub_loc, f"the relation '{kind}' declares no output connect_plan can read")
            out = builder(self, sub, sub_loc)
        if mapping is not None:
            if any(not 0 <= m < len(out) for m in mapping):
                raise CannotDerive(f"{sub_loc}/common/emit/outputMapping", f"emit past the {len(out)} columns")
            out = [out[m] for m in mapping]
        return out

    def read(self, msg: Message, loc: str) -> list[Column]:
        schema = msg.base_schema
        types = schema.struct.types
        count = len(types) if len(types) or not len(schema.names) else len(schema.names)  # names alone: a count
        fields = list(range(count))
        if msg.HasField("projection") and msg.projection.HasField("select"):
            fields = [item.field for item in msg.projection.select.struct_items]
            if any(not 0 <= f < count for f in fields):
                raise CannotDerive(f"{loc}/projection", f"a projection past the {count} columns")
        if not len(types):
            return [Column(UNDECLARED, f"{loc}/baseSchema/names/{f}") for f in fields]
        return [Column.of(types[f], f"{loc}/baseSchema/struct/types/{f}") for f in fields]

    def project(self, msg: Message, loc: str, keep: set[int] | None = None) -> list[Column]:
        """The input's columns and one per expression (DuckDB's: the expressions only); the
        expressions not in ``keep`` (those an emit drops) are not derived."""
        cols = self.rel(msg.input, f"{loc}/input")
        only = "project_outputs_expressions_only" in self.quirks and not msg.HasField("common")
        first = 0 if only else len(cols)
        added = [
            self.expr(e, f"{loc}/expressions/{k}", cols)
            if keep is None or first + k in keep
            else Column(UNDECLARED, f"{loc}/expressions/{k}")
            for k, e in enumerate(msg.expressions)
        ]
        return added if only else cols + added

    def aggregate(self, msg: Message, loc: str) -> list[Column]:
        cols = self.rel(msg.input, f"{loc}/input")
        groupings = list(msg.groupings)
        keys = self.grouping_keys(msg, loc, cols)
        measures = [self.function(m.measure, f"{loc}/measures/{k}/measure", cols) for k, m in enumerate(msg.measures)]
        if len(groupings) <= 1:
            return keys + measures
        if "aggregate_grouping_id_before_measures" in self.quirks and msg.common.WhichOneof("emit_kind") != "emit":
            # DataFusion's order (spellings.PRODUCER_QUIRKS): its __grouping_id, whose type the plan
            # does not say (DataFusion's own is an unsigned integer), before the measures
            return [*keys, Column(UNDECLARED, f"{loc}/groupings"), *measures]
        self.multi_set = True
        return keys + measures + ([Column(SET_INDEX, f"{loc}/groupings")] if self.set_index else [])

    def grouping_keys(self, msg: Message, loc: str, cols: list[Column]) -> list[Column]:
        """An aggregate's key columns. Where the spec is ambiguous (a repeated expression), the
        reading of substrait-java, the reference implementation, is taken: one grouping set
        outputs its expressions in order, a repeated one twice (producers write each key once);
        several output each distinct expression once, in declaration order (the rel-level list;
        DataFusion lists an expression once per set that uses it, meaning one column) or by
        first appearance (the old per-grouping lists), nullable where a set lacks it (its rows
        have a null there)."""
        groupings = list(msg.groupings)
        shared = list(msg.grouping_expressions)
        new = bool(shared) or any(len(g.expression_references) for g in groupings)
        sets: list[list[tuple[Message, str]]] = []
        for g, grouping in enumerate(groupings):
            if new:
                refs = list(grouping.expression_references)
                if any(not 0 <= r < len(shared) for r in refs):
                    raise CannotDerive(f"{loc}/groupings/{g}", f"a reference past {len(shared)} grouping expressions")
                sets.append([(shared[r], f"{loc}/groupingExpressions/{r}") for r in refs])
            else:
                exprs = grouping.grouping_expressions
                sets.append([(e, f"{loc}/groupings/{g}/groupingExpressions/{k}") for k, e in enumerate(exprs)])
        if len(sets) == 1:
            return [self.expr(e, at, cols) for e, at in sets[0]]
        if new:
            order = [(e, f"{loc}/groupingExpressions/{i}") for i, e in enumerate(shared)]
        else:
            order = [pair for one in sets for pair in one]
        members = [{e.SerializeToString(deterministic=True) for e, _ in one} for one in sets]
        keys: list[Column] = []
        seen: set[bytes] = set()
        for e, at in order:
            blob = e.SerializeToString(deterministic=True)
            if blob in seen:
                continue
            seen.add(blob)
            column = self.expr(e, at, cols)
            keys.append(column if all(blob in one for one in members) else column.as_nullable())
        return keys

    def join(self, msg: Message, loc: str) -> list[Column]:
        left = self.rel(msg.left, f"{loc}/left")
        right = self.rel(msg.right, f"{loc}/right")
        name = _enum_name(msg, "type").removeprefix("JOIN_TYPE_")
        shape = JOIN_OUTPUTS.get(name)
        if shape is None:
            raise CannotDerive(f"{loc}/type", f"join type {name}: no output order is defined for it")
        keep_left, keep_right, null_left, null_right, mark = shape
        out = [c.as_nullable() for c in left] if null_left else list(left)
        out = out if keep_left else []
        if keep_right:
            out += [c.as_nullable() for c in right] if null_right else right
        if mark:
            out.append(Column(BOOLEAN, f"{loc}/type"))
        return out

    def cross(self, msg: Message, loc: str) -> list[Column]:
        return self.rel(msg.left, f"{loc}/left") + self.rel(msg.right, f"{loc}/right")

    def set(self, msg: Message, loc: str) -> list[Column]:
        inputs = [self.rel(r, f"{loc}/inputs/{k}") for k, r in enumerate(msg.inputs)]
        if not inputs:
            raise CannotDerive(f"{loc}/inputs", "a set operation with no inputs")
        counts = {len(cols) for cols in inputs}
        if len(counts) != 1:
            raise CannotDerive(f"{loc}/inputs", f"inputs of different column counts: {sorted(counts)}")
        out = []
        for column in zip(*inputs, strict=True):
            declared = next((c for c in column if c.type.declared), column[0])
            nullable = any(c.type.nullable for c in column)
            out.append(Column(declared.type.as_nullable() if nullable else declared.type, declared.loc))
        return out

    def reference(self, msg: Message, loc: str) -> list[Column]:
        k = msg.subtree_ordinal
        rels = self.plan.relations
        if not 0 <= k < len(rels) or rels[k].WhichOneof("rel_type") != "rel" or k in self.building:
            raise CannotDerive(f"{loc}/subtreeOrdinal", f"subtree {k} is not a relation of the plan to read")
        if k not in self.subtrees:
            self.building.add(k)
            try:
                self.subtrees[k] = self.rel(rels[k].rel, f"/relations/{k}/rel")
            finally:
                self.building.discard(k)
        return list(self.subtrees[k])

    def window(self, msg: Message, loc: str) -> list[Column]:
        cols = self.rel(msg.input, f"{loc}/input")
        return cols + [self.function(f, f"{loc}/windowFunctions/{k}", cols) for k, f in enumerate(msg.window_functions)]

    def expand(self, msg: Message, loc: str) -> list[Column]:
        cols = self.rel(msg.input, f"{loc}/input")
        out = []
        for k, f in enumerate(msg.fields):
            if f.WhichOneof("field_type") == "consistent_field":
                out.append(self.expr(f.consistent_field, f"{loc}/fields/{k}/consistentField", cols))
            elif len(f.switching_field.duplicates):
                out.append(
                    self.expr(f.switching_field.duplicates[0], f"{loc}/fields/{k}/switchingField/duplicates/0", cols)
                )
            else:
                raise CannotDerive(f"{loc}/fields/{k}", "an expand field with no expression")
        return out

    # ------------------------------------------------------------ expressions

    def expr(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        kind = msg.WhichOneof("rex_type")
        if kind is None:  # DataFusion's CASE ... THEN <its NULL>: a column, its type unsaid
            return Column(UNDECLARED, loc)
        builder = EXPRESSIONS.get(kind)
        sub_loc = f"{loc}/{_json(msg, kind)}"
        if builder is None:
            return Column(UNDECLARED, sub_loc)
        return builder(self, getattr(msg, kind), sub_loc, scope)

    def literal(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        return Column(literal_type(msg), loc)

    def function(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        """A scalar, aggregate or window call: its ``output_type``, the plan's own declaration."""
        if msg.HasField("output_type"):
            return Column.of(msg.output_type, f"{loc}/outputType")
        return Column(UNDECLARED, loc)

    def cast(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        """The cast's type, whatever its input (an untyped NULL's included)."""
        return Column.of(msg.type, f"{loc}/type")

    def branches(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        """An if/then or a switch: its first declared branch's type (the spec makes every branch
        the same type), nullable if a branch is or no else is given."""
        found = [self.expr(c.then, f"{loc}/ifs/{k}/then", scope) for k, c in enumerate(msg.ifs)]
        has_else = msg.HasField("else")
        if has_else:
            found.append(self.expr(getattr(msg, "else"), f"{loc}/else", scope))
        declared = next((b for b in found if b.type.declared), None)
        if declared is None:
            return Column(UNDECLARED, loc)
        nullable = not has_else or any(b.type.nullable for b in found)
        return declared.as_nullable() if nullable else declared

    def predicate(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        return Column(BOOLEAN, loc)  # IN lists: boolean by definition, no type written

    def subquery(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        kind = msg.WhichOneof("subquery_type")
        if kind != "scalar":  # IN, EXISTS/UNIQUE, ANY/ALL: boolean by definition
            return Column(BOOLEAN, f"{loc}/{_json(msg, kind)}" if kind else loc)
        self.outer.append(scope)
        try:
            cols = self.rel(msg.scalar.input, f"{loc}/scalar/input")
        finally:
            self.outer.pop()
        if len(cols) != 1:
            raise CannotDerive(f"{loc}/scalar", f"a scalar subquery of {len(cols)} columns")
        return cols[0].as_nullable()  # no row: null

    def nested(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        kind = msg.WhichOneof("nested_type")
        if kind is None:
            return Column(UNDECLARED, loc)
        sub = getattr(msg, kind)
        sloc = f"{loc}/{_json(msg, kind)}"
        nullable = True if msg.nullable else None
        if kind == "struct":
            fields = [self.expr(e, f"{sloc}/fields/{k}", scope).type for k, e in enumerate(sub.fields)]
            return Column(SType("struct", nullable, (), tuple(fields)), sloc)
        if kind == "list":
            values = [self.expr(e, f"{sloc}/values/{k}", scope).type for k, e in enumerate(sub.values)]
            element = next((v for v in values if v.declared), UNDECLARED)
            return Column(SType("list", nullable, (), (element,)), sloc)
        pairs = [
            (
                self.expr(kv.key, f"{sloc}/keyValues/{k}/key", scope).type,
                self.expr(kv.value, f"{sloc}/keyValues/{k}/value", scope).type,
            )
            for k, kv in enumerate(sub.key_values)
        ]
        key = next((p[0] for p in pairs if p[0].declared), UNDECLARED)
        value = next((p[1] for p in pairs if p[1].declared), UNDECLARED)
        return Column(SType("map", nullable, (), (key, value)), sloc)

    def parameter(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        return Column.of(msg.type, f"{loc}/type") if msg.HasField("type") else Column(UNDECLARED, loc)

    def selection(self, msg: Message, loc: str, scope: list[Column]) -> Column:
        """A field reference: a column of the input, of an enclosing relation's input
        (``outer_reference``, ``steps_out`` levels up) or a part of an expression's value, then
        its nested segments (struct field, list element, map value)."""
        root = msg.WhichOneof("root_type")
        if msg.WhichOneof("reference_type") != "direct_reference":
            return Column(UNDECLARED, loc)  # a masked reference (the converter refuses it)
        seg = msg.direct_reference
        if root == "expression":
            column = self.expr(msg.expression, f"{loc}/expression", scope)
            return _segments(seg, column, f"{loc}/directReference")
        if root == "outer_reference":
            steps = msg.outer_reference.steps_out or 1
            if steps > len(self.outer):
                raise CannotDerive(f"{loc}/outerReference", f"an outer reference {steps} levels out")
            scope = self.outer[-steps]
        if seg.WhichOneof("reference_type") != "struct_field":
            raise CannotDerive(f"{loc}/directReference", "a reference into a relation's row starts with a struct field")
        field = seg.struct_field
        index = int(field.field)
        if not 0 <= index < len(scope):
            raise CannotDerive(f"{loc}/directReference/structField/field", f"field {index} of {len(scope)} columns")
        if field.HasField("child"):
            return _segments(field.child, scope[index], f"{loc}/directReference/structField/child")
        return scope[index]


def _segments(seg: Message, column: Column, loc: str) -> Column:
    """Nested reference segments applied to ``column``'s type."""
    t = column.type
    while True:
        kind = seg.WhichOneof("reference_type")
        if kind is None:
            raise CannotDerive(loc, "a reference segment with no kind set")
        sub = getattr(seg, kind)
        loc = f"{loc}/{_json(seg, kind)}"
        if not t.declared:
            return Column(UNDECLARED, loc)
        if kind == "struct_field":
            if t.kind != "struct" or not 0 <= sub.field < len(t.children):
                raise CannotDerive(f"{loc}/field", f"field {sub.field} of a value of type {t.text()}")
            t = t.children[sub.field].nullable_if(t.nullable)
        elif kind == "list_element":
            t = t.children[0].as_nullable() if t.kind == "list" and t.children else UNDECLARED  # out of range: null
        else:  # map_key
            t = t.children[1].as_nullable() if t.kind == "map" and len(t.children) == 2 else UNDECLARED
        if not sub.HasField("child"):
            return Column(t, column.loc)
        seg, loc = sub.child, f"{loc}/child"


RELATIONS: dict[str, Callable[[Derivation, Any, str], list[Column]]] = {
    "read": Derivation.read,
    "aggregate": Derivation.aggregate,
    "join": Derivation.join,
    "hash_join": Derivation.join,
    "merge_join": Derivation.join,
    "nested_loop_join": Derivation.join,
    "lateral_join": Derivation.join,
    "cross": Derivation.cross,
    "set": Derivation.set,
    "reference": Derivation.reference,
    "window": Derivation.window,
    "expand": Derivation.expand,
}

EXPRESSIONS: dict[str, Callable[[Derivation, Any, str, list[Column]], Column]] = {
    "literal": Derivation.literal,
    "selection": Derivation.selection,
    "scalar_function": Derivation.function,
    "window_function": Derivation.function,
    "cast": Derivation.cast,
    "if_then": Derivation.branches,
    "switch_expression": Derivation.branches,
    "singular_or_list": Derivation.predicate,
    "multi_or_list": Derivation.predicate,
    "subquery": Derivation.subquery,
    "nested": Derivation.nested,
    "dynamic_parameter": Derivation.parameter,
}


def declared_columns(plan: Message) -> tuple[str, list[Column], list[str]] | None:
    """The root's location, its declared columns and ``RelRoot.names``; None when the plan
    returns no rows (a write, DDL or update at the root)."""
    roots = [(i, r) for i, r in enumerate(plan.relations) if r.WhichOneof("rel_type") == "root"]
    if len(roots) != 1:
        raise CannotDerive("/relations", f"{len(roots)} root relations")
    i, relation = roots[0]
    loc = f"/relations/{i}/root"
    root = relation.root
    if root.input.WhichOneof("rel_type") in ("write", "ddl", "update"):
        return None
    names = list(root.names)
    spec = Derivation(plan)
    columns: list[Column] | CannotDerive
    try:
        columns = spec.rel(root.input, f"{loc}/input")
    except CannotDerive as e:
        columns = e
    if (
        spec.multi_set
        and sp.set_index_maybe_omitted(plan)
        and not (isinstance(columns, list) and _fits(columns, names))
    ):
        # a producer that may leave out the set index (Isthmus before substrait-java 0.67): read
        # without it where only that reading fits the plan's references and names
        try:
            other = Derivation(plan, set_index=False).rel(root.input, f"{loc}/input")
        except CannotDerive:
            other = None
        if other is not None and _fits(other, names):
            return loc, other, names
    if isinstance(columns, CannotDerive):
        raise columns
    return loc, columns, names


def _fits(columns: list[Column], names: list[str]) -> bool:
    """Whether ``RelRoot.names`` names these columns and their nested struct fields (or is empty)."""
    return not names or len(names) == sum(1 + c.type.nested_names() for c in columns)


def result_contract(plan: Message) -> ir.Contract | None:
    """The :class:`~connect_plan.ir.Contract` of ``plan``'s result (None for a plan that
    returns no rows); a :class:`PlanError` where the plan's output cannot be derived."""
    try:
        found = declared_columns(plan)
    except CannotDerive as e:
        raise PlanError.single(
            "result_contract", e.loc, f"the plan's declared output cannot be derived here: {e.message}"
        ) from None
    if found is None:
        return None
    loc, columns, names = found
    named = _named(columns, names)
    return ir.Contract(
        loc,
        tuple(
            contract_column(c.type, name, field_names, c.loc, f"{loc}/names/{at}" if name is not None else loc)
            for c, (name, field_names, at) in zip(columns, named, strict=True)
        ),
    )


def _named(columns: list[Column], names: list[str]) -> list[tuple[str | None, list[str] | None, int]]:
    """Each column's ``RelRoot.names`` entry, the depth-first names of its nested struct fields
    and the index of its name; no names (None) when the names do not fit the columns."""
    if not names or not _fits(columns, names):
        return [(None, None, 0) for _ in columns]
    out: list[tuple[str | None, list[str] | None, int]] = []
    pos = 0
    for c in columns:
        n = c.type.nested_names()
        out.append((names[pos], names[pos + 1 : pos + 1 + n], pos))
        pos += 1 + n
    return out
