"""A superset ``substrait.Plan`` message → IR.

Substrait is positional (a field reference is an index into the input's columns), the IR is
by name. So every column a relation outputs gets a generated name unique in the whole plan
(``_s<n>``): joins never collide, correlated references name the outer column unambiguously,
and the root's ``Select`` gives the columns ``RelRoot.names``. Which columns a relation
outputs (and in what order) is tracked here, as the list of those names: a projection mask
or an ``emit`` only reorders that list; a ``Select`` is written only where Spark needs exactly
the visible columns (set operations, subqueries, the root).

Every problem is recorded with its location (a JSON pointer in Substrait's JSON field names,
``/relations/0/root/input/project/expressions/3/scalarFunction``) and conversion goes on, so one
:class:`~connect_plan.errors.PlanError` lists them all.
"""

from __future__ import annotations

import datetime
import decimal
import difflib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from google.protobuf.message import Message

from ... import ir
from ...errors import ErrorDetail, PlanError
from ...types import ArrayType, DataType, MapType, Primitive, StructType
from . import spellings as sp

__all__ = ["Converter", "convert_plan"]

_EPOCH = datetime.date(1970, 1, 1)
_EPOCH_TS = datetime.datetime(1970, 1, 1)  # naive on purpose (timestamp_ntz)

#: Substrait type kind → Spark primitive (parameterised kinds are handled in ``spark_type``)
PRIMITIVE_TYPES: dict[str, str] = {
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
    "binary": "binary",
    "fixed_binary": "binary",
    "date": "date",
    "timestamp": "timestamp_ntz",
    "precision_timestamp": "timestamp_ntz",
    "timestamp_tz": "timestamp",
    "precision_timestamp_tz": "timestamp",
}


def _json(msg: Message, name: str) -> str:
    return str(msg.DESCRIPTOR.fields_by_name[name].json_name)


@dataclass
class Rel:
    """A converted relation: its IR source and steps so far, and the names of the columns
    it outputs, in order (a name may appear twice: an ``emit`` may repeat a column)."""

    source: ir.Source
    steps: list[ir.Step]
    names: list[str]
    loc: str

    def plan(self) -> ir.Plan:
        return ir.Plan(self.source, tuple(self.steps), self.loc)


@dataclass
class Converter:
    plan_msg: Message
    tables: Mapping[str, ir.Source] = field(default_factory=dict)
    errors: list[ErrorDetail] = field(default_factory=list)
    functions: dict[int, str] = field(default_factory=dict)
    counter: int = 0
    step_counter: int = 0
    #: names of the enclosing relations' columns, innermost last (for outer references)
    outer: list[list[str]] = field(default_factory=list)
    #: the producer deviations this plan's producer is known for (``sp.PRODUCER_QUIRKS``)
    quirks: frozenset[str] = frozenset()

    # ------------------------------------------------------------ bookkeeping

    def err(self, code: str, loc: str, message: str) -> None:
        self.errors.append(ErrorDetail(code, loc, message))

    def fresh(self) -> str:
        self.counter += 1
        return f"_s{self.counter}"

    def step_index(self) -> int:
        self.step_counter += 1
        return self.step_counter

    def materialize(self, rel: Rel, loc: str, op: str) -> Rel:
        """Exactly the visible columns, freshly named (for set operations and subqueries)."""
        fresh = [self.fresh() for _ in rel.names]
        items = tuple(ir.SelectItem(ir.Col(n, loc), f, loc) for n, f in zip(rel.names, fresh))
        rel.steps.append(ir.Select(self.step_index(), op, loc, items))
        rel.names = fresh
        return rel

    # ------------------------------------------------------------ plan

    def convert(self) -> ir.Plan | None:
        plan = self.plan_msg
        self.quirks = (
            sp.PRODUCER_QUIRKS.get(plan.version.producer.lower(), frozenset())
            if plan.HasField("version")
            else frozenset()
        )
        self._extensions(plan)
        roots = [(i, r) for i, r in enumerate(plan.relations) if r.WhichOneof("rel_type") == "root"]
        if len(roots) != 1:
            self.err(
                "substrait_invalid",
                "/relations",
                f"a Substrait plan to run needs exactly one 'root' relation, this one has {len(roots)}",
            )
            return None
        i, pr = roots[0]
        loc = f"/relations/{i}/root"
        root = pr.root
        rel = self.rel(root.input, f"{loc}/input")
        if rel is None:
            return None
        names = list(root.names)
        if names and len(names) != len(rel.names):
            # nested struct field names come after their column's name (depth-first); only
            # top-level names are used here, the rest must be consistent
            self.err(
                "substrait_unsupported",
                f"{loc}/names",
                f"RelRoot.names has {len(names)} names for {len(rel.names)} output columns "
                "(nested struct field names are not supported yet)",
            )
            return None
        if not names:
            names = [f"col{k}" for k in range(len(rel.names))]
        items = tuple(
            ir.SelectItem(ir.Col(n, loc), alias, f"{loc}/names/{k}")
            for k, (n, alias) in enumerate(zip(rel.names, names))
        )
        rel.steps.append(ir.Select(self.step_index(), "root", loc, items))
        return ir.Plan(rel.source, tuple(rel.steps), loc)

    def _extensions(self, plan: Message) -> None:
        # types and type variations need no table: a user-defined type is refused where it is used
        for decl in plan.extensions:
            if decl.WhichOneof("mapping_type") == "extension_function":
                fn = decl.extension_function
                self.functions[fn.function_anchor] = fn.name

    # ------------------------------------------------------------ relations

    def rel(self, msg: Message, loc: str) -> Rel | None:
        kind = msg.WhichOneof("rel_type")
        if kind is None:
            self.err("substrait_invalid", loc, "a relation with no kind set")
            return None
        builder = RELATIONS.get(kind)
        sub = getattr(msg, kind)
        sub_loc = f"{loc}/{_json(msg, kind)}"
        if builder is None:
            self.err(
                "substrait_unsupported",
                sub_loc,
                f"the Substrait relation '{kind}' is not supported"
                + (
                    " (extension relations have no meaning outside their producer)"
                    if kind.startswith("extension")
                    else ""
                ),
            )
            return None
        out = builder(self, sub, sub_loc)
        if out is None:
            return None
        if sub.HasField("common") and sub.common.WhichOneof("emit_kind") == "emit":
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

    def read(self, msg: Message, loc: str) -> Rel | None:
        base = list(_top_names(msg.base_schema))
        kind = msg.WhichOneof("read_type")
        source: ir.Source | None
        if kind == "named_table":
            name = ".".join(msg.named_table.names)
            source = self._mapped(name) or ir.TableSource(name, (), f"{loc}/namedTable")
        elif kind == "local_files":
            source = self._local_files(msg.local_files, f"{loc}/localFiles")
        elif kind == "virtual_table":
            return self._virtual_table(msg, f"{loc}/virtualTable", base)
        else:
            self.err(
                "substrait_unsupported",
                f"{loc}/{_json(msg, kind) if kind else 'readType'}",
                f"read of kind '{kind}' is not supported yet",
            )
            return None
        if source is None:
            return None
        if not base:
            self.err(
                "substrait_invalid", f"{loc}/baseSchema", "a read needs its base_schema (the names of its columns)"
            )
            return None
        fresh = [self.fresh() for _ in base]
        items = tuple(
            ir.SelectItem(ir.Col(b, loc), f, f"{loc}/baseSchema/names/{k}") for k, (b, f) in enumerate(zip(base, fresh))
        )
        rel = Rel(source, [ir.Select(self.step_index(), "read", loc, items)], fresh, loc)
        if msg.HasField("filter"):
            # the filter uses base-schema indices and must be applied (DuckDB puts filters only here)
            cond = self.expr(msg.filter, f"{loc}/filter", fresh)
            rel.steps.append(ir.Filter(self.step_index(), "read.filter", f"{loc}/filter", cond))
        if msg.HasField("projection"):
            mask = msg.projection
            if mask.HasField("select"):
                out = []
                for k, item in enumerate(mask.select.struct_items):
                    if item.HasField("child"):
                        self.err(
                            "substrait_unsupported",
                            f"{loc}/projection/select/structItems/{k}/child",
                            "nested projection masks are not supported yet",
                        )
                    if not 0 <= item.field < len(fresh):
                        self.err(
                            "substrait_field_index",
                            f"{loc}/projection/select/structItems/{k}/field",
                            f"field {item.field} of a base schema of {len(fresh)} columns",
                        )
                        return None
                    out.append(fresh[item.field])
                rel.names = out
        return rel

    def _virtual_table(self, msg: Message, loc: str, base: list[str]) -> Rel | None:
        """Rows of literals (the old ``values`` structs or the newer ``expressions`` of literal
        fields) → inline Arrow data typed by the base schema."""
        import pyarrow as pa

        from ...types import arrow_type

        types = [
            self.spark_type(t, f"{loc}/../baseSchema/struct/types/{i}")
            for i, t in enumerate(msg.base_schema.struct.types)
        ]
        if any(t is None for t in types) or len(types) != len(base):
            if len(types) != len(base):
                self.err("substrait_unsupported", loc, "a virtual table with struct columns is not supported yet")
            return None
        vt = msg.virtual_table
        rows: list[list[Any]] = []
        if len(vt.expressions):
            for r, row in enumerate(vt.expressions):
                values: list[Any] = []
                for c, e in enumerate(row.fields):
                    if e.WhichOneof("rex_type") != "literal":
                        self.err(
                            "substrait_unsupported",
                            f"{loc}/expressions/{r}/fields/{c}",
                            "virtual table values must be literals",
                        )
                        values.append(None)
                    else:
                        values.append(self.python_value(e.literal, f"{loc}/expressions/{r}/fields/{c}/literal"))
                rows.append(values)
        else:
            for r, row in enumerate(vt.values):
                rows.append(
                    [self.python_value(lit, f"{loc}/values/{r}/fields/{c}") for c, lit in enumerate(row.fields)]
                )
        for r, row in enumerate(rows):
            if len(row) != len(base):
                self.err(
                    "substrait_invalid", f"{loc}/expressions/{r}", f"a row of {len(row)} values for {len(base)} columns"
                )
                return None
        fresh = [self.fresh() for _ in base]
        try:
            arrays = [pa.array([row[i] for row in rows], type=arrow_type(t)) for i, t in enumerate(types)]
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as e:
            self.err("substrait_invalid", loc, f"a virtual table value does not fit its column's type: {e}")
            return None
        if not base:  # rows of no columns (DataFusion's SELECT without FROM): one hidden column
            arrays, names = [pa.nulls(len(rows), pa.bool_())], [self.fresh()]
        else:
            names = fresh
        table = pa.Table.from_arrays(arrays, names=names)
        return Rel(ir.InlineData(table, loc), [], fresh, loc)

    def python_value(self, msg: Message, loc: str) -> Any:
        """A literal as the Python value Arrow takes for its type."""
        value, typ = self.literal_value(msg, loc)
        if value is None or not isinstance(typ, Primitive):
            return value
        if typ.name == "date":
            return datetime.date.fromisoformat(value)
        if typ.name == "decimal":
            return decimal.Decimal(value)
        if typ.name.startswith("timestamp"):
            return datetime.datetime.fromisoformat(value)
        return value

    def _mapped(self, name: str) -> ir.Source | None:
        for key, src in self.tables.items():
            if key.lower() == name.lower():
                return src
        return None

    def _local_files(self, msg: Message, loc: str) -> ir.Source | None:
        paths: list[str] = []
        formats: set[str] = set()
        for k, item in enumerate(msg.items):
            path_kind = item.WhichOneof("path_type")
            if path_kind is None:
                self.err("substrait_invalid", f"{loc}/items/{k}", "a file item without a path")
                continue
            uri = getattr(item, path_kind)
            paths.append(uri[len("file://") :] if uri.startswith("file://") else uri)
            fmt = item.WhichOneof("file_format")
            if fmt is None or fmt == "extension":
                self.err("substrait_unsupported", f"{loc}/items/{k}", f"file format {fmt!r} is not supported")
                continue
            formats.add({"dwrf": "orc", "arrow": "arrow"}.get(fmt, fmt))
        if len(formats) != 1:
            if formats:
                self.err("substrait_unsupported", loc, f"files of several formats in one read: {sorted(formats)}")
            return None
        fmt = formats.pop()
        if fmt == "arrow":
            self.err("substrait_unsupported", loc, "Arrow IPC files have no Spark data source")
            return None
        return ir.FileSource(tuple(paths), fmt, (), None, None, loc)

    def filter(self, msg: Message, loc: str) -> Rel | None:
        rel = self.rel(msg.input, f"{loc}/input")
        if rel is None:
            return None
        cond = self.expr(msg.condition, f"{loc}/condition", rel.names)
        rel.steps.append(ir.Filter(self.step_index(), "filter", loc, cond))
        return rel

    def project(self, msg: Message, loc: str) -> Rel | None:
        rel = self.rel(msg.input, f"{loc}/input")
        if rel is None:
            return None
        visible = list(rel.names)
        added = []
        for k, e in enumerate(msg.expressions):
            name = self.fresh()
            expr = self.expr(e, f"{loc}/expressions/{k}", visible)
            rel.steps.append(ir.WithColumn(self.step_index(), "project", f"{loc}/expressions/{k}", name, expr))
            added.append(name)
        if "project_outputs_expressions_only" in self.quirks and not msg.HasField("common"):
            rel.names = added  # DuckDB's reading of its own ProjectRel (see PRODUCER_QUIRKS)
        else:
            rel.names = visible + added
        return rel

    def fetch(self, msg: Message, loc: str) -> Rel | None:
        rel = self.rel(msg.input, f"{loc}/input")
        if rel is None:
            return None
        offset = self._count(msg, "offset", loc) or 0
        count = self._count(msg, "count", loc)
        rel.steps.append(ir.Fetch(self.step_index(), "fetch", loc, offset, count))
        return rel

    def _count(self, msg: Message, name: str, loc: str) -> int | None:
        """FetchRel's old int64 ``count``/``offset`` or the newer ``count_expr``/``offset_expr``."""
        if msg.HasField(f"{name}_expr"):
            e = getattr(msg, f"{name}_expr")
            lit = e.literal if e.WhichOneof("rex_type") == "literal" else None
            kind = lit.WhichOneof("literal_type") if lit is not None else None
            if kind in ("i64", "i32", "i16", "i8"):
                value = int(getattr(lit, kind))
            elif kind == "null":
                return None
            else:
                self.err("substrait_unsupported", f"{loc}/{name}Expr", f"fetch {name} must be an integer literal")
                return None
        elif msg.HasField(name):
            value = int(getattr(msg, name))
        else:
            return None
        if value < 0:
            return None  # old encoding: -1 means all rows
        return value

    def sort(self, msg: Message, loc: str) -> Rel | None:
        rel = self.rel(msg.input, f"{loc}/input")
        if rel is None:
            return None
        keys = []
        for k, s in enumerate(msg.sorts):
            kloc = f"{loc}/sorts/{k}"
            expr = self.expr(s.expr, f"{kloc}/expr", rel.names)
            if s.WhichOneof("sort_kind") != "direction" or s.direction not in sp.SORT_DIRECTIONS:
                self.err(
                    "substrait_unsupported",
                    kloc,
                    "a sort needs a direction (comparison function references are not supported)",
                )
                continue
            asc, nulls_first = sp.SORT_DIRECTIONS[s.direction]
            keys.append(ir.SortKey(expr, asc, nulls_first, kloc))
        rel.steps.append(ir.OrderBy(self.step_index(), "sort", loc, tuple(keys)))
        return rel

    def aggregate(self, msg: Message, loc: str) -> Rel | None:
        rel = self.rel(msg.input, f"{loc}/input")
        if rel is None:
            return None
        visible = list(rel.names)
        # the grouping keys: the new shared list + references, or the old inline expressions
        shared = list(msg.grouping_expressions)
        sets: list[list[tuple[Message, str]]] = []
        for g, grouping in enumerate(msg.groupings):
            gloc = f"{loc}/groupings/{g}"
            if grouping.expression_references:
                refs = []
                for r, ref in enumerate(grouping.expression_references):
                    if not 0 <= ref < len(shared):
                        self.err(
                            "substrait_field_index",
                            f"{gloc}/expressionReferences/{r}",
                            f"grouping expression {ref} of {len(shared)}",
                        )
                        return None
                    refs.append((shared[ref], f"{loc}/groupingExpressions/{ref}"))
                sets.append(refs)
            else:
                sets.append(
                    [(e, f"{gloc}/groupingExpressions/{k}") for k, e in enumerate(grouping.grouping_expressions)]
                )
        # every distinct key expression once (by its proto), in order of first appearance
        key_of: dict[bytes, str] = {}
        if len(sets) > 1:  # the new encoding's shared list gives the output order of the keys
            for i, e in enumerate(shared):
                blob = e.SerializeToString(deterministic=True)
                if blob not in key_of:
                    expr = self.expr(e, f"{loc}/groupingExpressions/{i}", visible)
                    name = expr.name if isinstance(expr, ir.Col) else self.fresh()
                    if not isinstance(expr, ir.Col):
                        rel.steps.append(ir.WithColumn(self.step_index(), "aggregate.key", loc, name, expr))
                    key_of[blob] = name
        set_keys: list[list[str]] = []
        for one in sets:
            names_in_set = []
            for e, eloc in one:
                blob = e.SerializeToString(deterministic=True)
                if blob not in key_of:
                    expr = self.expr(e, eloc, visible)
                    if isinstance(expr, ir.Col):
                        key_of[blob] = expr.name
                    else:
                        name = self.fresh()
                        rel.steps.append(ir.WithColumn(self.step_index(), "aggregate.key", eloc, name, expr))
                        key_of[blob] = name
                names_in_set.append(key_of[blob])
            set_keys.append(names_in_set)
        distinct_keys = list(dict.fromkeys(key_of.values()))
        aggs = []
        agg_names = []
        for k, m in enumerate(msg.measures):
            mloc = f"{loc}/measures/{k}"
            call = self.aggregate_function(m.measure, f"{mloc}/measure", visible)
            if m.HasField("filter"):
                # FILTER (WHERE c): the measure sees only rows where c is true
                cond = self.expr(m.filter, f"{mloc}/filter", visible)
                call = self._filtered(call, cond, mloc)
            name = self.fresh()
            aggs.append(ir.AggItem(call, name, mloc))
            agg_names.append(name)
        keys = tuple(ir.Col(n, loc) for n in distinct_keys)
        if len(sets) > 1:
            masks = [
                sum(1 << (len(distinct_keys) - 1 - j) for j, n in enumerate(distinct_keys) if n not in one)
                for one in set_keys
            ]
            if len(set(masks)) != len(masks):
                self.err("substrait_unsupported", f"{loc}/groupings", "the same grouping set twice is not supported")
                return None
            gid = self.fresh()
            aggs.append(ir.AggItem(ir.Call("grouping_id", (), loc), gid, loc))
            index_sets = tuple(tuple(distinct_keys.index(n) for n in dict.fromkeys(one)) for one in set_keys)
            rel.steps.append(
                ir.GroupBy(self.step_index(), "aggregate", loc, "grouping_sets", keys, tuple(aggs), index_sets)
            )
            # Substrait's trailing column: the index of the grouping set that made the row
            index = self.fresh()
            branches = tuple(
                (
                    ir.Call("==", (ir.Col(gid, loc), ir.Lit(mask, loc, Primitive("bigint"))), loc),
                    ir.Lit(i, loc, Primitive("int")),
                )
                for i, mask in enumerate(masks)
            )
            rel.steps.append(
                ir.WithColumn(self.step_index(), "aggregate.set_index", loc, index, ir.When(branches, None, loc))
            )
            rel.names = distinct_keys + agg_names + [index]
            return rel
        if not aggs:
            # a GROUP BY without measures: the distinct key values
            items = tuple(ir.SelectItem(ir.Col(n, loc), None, loc) for n in distinct_keys)
            rel.steps.append(ir.Select(self.step_index(), "aggregate", loc, items))
            rel.steps.append(ir.Distinct(self.step_index(), "aggregate", loc))
        elif keys:
            rel.steps.append(ir.GroupBy(self.step_index(), "aggregate", loc, "groupby", keys, tuple(aggs)))
        else:
            rel.steps.append(ir.Agg(self.step_index(), "aggregate", loc, tuple(aggs)))
        # one output column per grouping expression of the (single) set, repeats included
        rel.names = (set_keys[0] if set_keys else []) + agg_names
        return rel

    def _filtered(self, call: ir.Expr, cond: ir.Expr, loc: str) -> ir.Expr:
        """An aggregate over the rows where ``cond`` holds: its arguments become null elsewhere
        (every aggregate here skips nulls; count(*) counts the rows where ``cond`` holds)."""
        if not isinstance(call, ir.Call):
            return call
        args = tuple(ir.When(((cond, a),), None, loc) for a in call.args)
        return ir.Call(call.fn, args, call.loc, call.distinct)

    def join(self, msg: Message, loc: str) -> Rel | None:
        left = self.rel(msg.left, f"{loc}/left")
        right = self.rel(msg.right, f"{loc}/right")
        if left is None or right is None:
            return None
        how = sp.JOIN_TYPES.get(msg.type, "unknown") if msg.type else None
        if how is None or how == "unknown":
            name = msg.DESCRIPTOR.fields_by_name["type"].enum_type.values_by_number.get(msg.type)
            self.err(
                "substrait_unsupported",
                f"{loc}/type",
                f"join type {name.name if name else msg.type} has no Spark join"
                + (" (a single or mark join: rewrite it as a subquery)" if how is None and msg.type else ""),
            )
            return None
        both = left.names + right.names
        cond = self.expr(msg.expression, f"{loc}/expression", both) if msg.HasField("expression") else None
        if how in ("left_mark", "right_mark"):
            return self._mark_join(left, right, cond, how == "right_mark", loc, msg)
        if how in ("right_semi", "right_anti"):
            left, right = right, left
            how = "left_semi" if how == "right_semi" else "left_anti"
        if cond is None and how == "inner":
            left.steps.append(ir.CrossJoin(self.step_index(), "join", loc, right.plan()))
        else:
            if cond is None:
                cond = ir.Lit(True, loc)
            left.steps.append(ir.Join(self.step_index(), "join", loc, right.plan(), how, (), cond))  # type: ignore[arg-type]
        names = left.names if how in ("left_semi", "left_anti") else left.names + right.names
        left.names = names
        if msg.HasField("post_join_filter"):
            post = self.expr(msg.post_join_filter, f"{loc}/postJoinFilter", names)
            left.steps.append(ir.Filter(self.step_index(), "join.post_join_filter", f"{loc}/postJoinFilter", post))
        return left

    def _mark_join(self, left: Rel, right: Rel, cond: ir.Expr | None, swap: bool, loc: str, msg: Message) -> Rel:
        """A mark join keeps the probe side's rows and adds the mark: true when a row of the
        other side satisfies the condition, else null when one makes it unknown, else false
        (IN's three-valued logic). Spark has no such join; two EXISTS subqueries say exactly
        that (the probe side's columns are outer references inside them)."""
        probe, build = (right, left) if swap else (left, right)
        cond = cond if cond is not None else ir.Lit(True, loc)
        base = build.plan()

        def exists(predicate: ir.Expr) -> ir.Subquery:
            step = ir.Filter(self.step_index(), "join.mark", loc, predicate)
            return ir.Subquery("exists", ir.Plan(base.source, (*base.steps, step), base.loc), (), loc)

        mark = ir.When(
            (
                (exists(cond), ir.Lit(True, loc, Primitive("boolean"))),
                (exists(ir.Call("isnull", (cond,), loc)), ir.Lit(None, loc, Primitive("boolean"))),
            ),
            ir.Lit(False, loc, Primitive("boolean")),
            loc,
        )
        name = self.fresh()
        probe.steps.append(ir.WithColumn(self.step_index(), "join.mark", loc, name, mark))
        probe.names = [*probe.names, name]
        if msg.HasField("post_join_filter"):
            post = self.expr(msg.post_join_filter, f"{loc}/postJoinFilter", probe.names)
            probe.steps.append(ir.Filter(self.step_index(), "join.post_join_filter", f"{loc}/postJoinFilter", post))
        return probe

    def cross(self, msg: Message, loc: str) -> Rel | None:
        left = self.rel(msg.left, f"{loc}/left")
        right = self.rel(msg.right, f"{loc}/right")
        if left is None or right is None:
            return None
        left.steps.append(ir.CrossJoin(self.step_index(), "cross", loc, right.plan()))
        left.names = left.names + right.names
        return left

    def set(self, msg: Message, loc: str) -> Rel | None:
        op = sp.SET_OPS.get(msg.op)
        if op is None:
            self.err("substrait_unsupported", f"{loc}/op", f"set operation {msg.op} has no Spark equivalent")
            return None
        kind, distinct = op
        inputs = [self.rel(r, f"{loc}/inputs/{k}") for k, r in enumerate(msg.inputs)]
        if any(r is None for r in inputs) or len(inputs) < 2:
            if len(inputs) < 2:
                self.err("substrait_invalid", f"{loc}/inputs", "a set operation needs at least two inputs")
            return None
        first = self.materialize(inputs[0], loc, "set")  # type: ignore[arg-type]
        for k, other in enumerate(inputs[1:], 1):
            assert other is not None
            if len(other.names) != len(first.names):
                self.err(
                    "column_count",
                    f"{loc}/inputs/{k}",
                    f"{len(other.names)} columns, the first input has {len(first.names)}",
                )
                return None
            right = self.materialize(other, f"{loc}/inputs/{k}", "set")
            first.steps.append(ir.SetOp(self.step_index(), "set", loc, right.plan(), kind, False, False, distinct))
        return first

    # ------------------------------------------------------------ expressions

    def expr(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        kind = msg.WhichOneof("rex_type")
        if kind is None:
            self.err("substrait_invalid", loc, "an expression with no kind set")
            return ir.Lit(None, loc)
        builder = EXPRESSIONS.get(kind)
        sub_loc = f"{loc}/{_json(msg, kind)}"
        if builder is None:
            self.err("substrait_unsupported", sub_loc, f"the Substrait expression '{kind}' is not supported yet")
            return ir.Lit(None, sub_loc)
        return builder(self, getattr(msg, kind), sub_loc, names)

    def selection(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        ref_kind = msg.WhichOneof("root_type")
        scope = names
        if ref_kind == "outer_reference":
            steps = msg.outer_reference.steps_out or 1
            if steps > len(self.outer):
                self.err(
                    "substrait_field_index",
                    f"{loc}/outerReference",
                    f"an outer reference {steps} levels out, the plan has {len(self.outer)}",
                )
                return ir.Lit(None, loc)
            scope = self.outer[-steps]
        elif ref_kind == "expression":
            self.err(
                "substrait_unsupported",
                f"{loc}/expression",
                "field references into an expression are not supported yet",
            )
            return ir.Lit(None, loc)
        if (
            msg.WhichOneof("reference_type") != "direct_reference"
            or msg.direct_reference.WhichOneof("reference_type") != "struct_field"
        ):
            self.err("substrait_unsupported", loc, "only direct struct-field references are supported")
            return ir.Lit(None, loc)
        field_ref = msg.direct_reference.struct_field
        if not 0 <= field_ref.field < len(scope):
            self.err(
                "substrait_field_index",
                f"{loc}/directReference/structField/field",
                f"field {field_ref.field} of an input of {len(scope)} columns",
            )
            return ir.Lit(None, loc)
        if field_ref.HasField("child"):
            self.err(
                "substrait_unsupported",
                f"{loc}/directReference/structField/child",
                "nested field references are not supported yet",
            )
        return ir.Col(scope[field_ref.field], loc)

    def literal(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        value, typ = self.literal_value(msg, loc)
        return ir.Lit(value, loc, typ)

    def literal_value(self, msg: Message, loc: str) -> tuple[Any, DataType | None]:
        kind = msg.WhichOneof("literal_type")
        simple = {
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
        if kind in simple:
            return getattr(msg, kind), Primitive(simple[kind])
        if kind == "var_char":
            return msg.var_char.value, Primitive("string")
        if kind == "date":
            return (_EPOCH + datetime.timedelta(days=msg.date)).isoformat(), Primitive("date")
        if kind == "decimal":
            d = msg.decimal
            unscaled = int.from_bytes(d.value, "little", signed=True)
            value = decimal.Decimal(unscaled).scaleb(-d.scale)
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
            return None, self.spark_type(msg.null, f"{loc}/null")
        self.err(
            "substrait_unsupported",
            f"{loc}/{_json(msg, kind) if kind else 'literalType'}",
            f"literals of type '{kind}' are not supported yet",
        )
        return None, None

    def subquery(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        """Scalar, IN and EXISTS subqueries. Inside, an outer reference (``steps_out`` n) names
        a column of the n-th enclosing relation's input: the names are unique in the plan, so
        Spark resolves them outside the subquery (correlation)."""
        kind = msg.WhichOneof("subquery_type")
        sub_loc = f"{loc}/{_json(msg, kind) if kind else 'subqueryType'}"
        self.outer.append(names)
        try:
            if kind == "scalar":
                rel = self.rel(msg.scalar.input, f"{sub_loc}/input")
                if rel is None:
                    return ir.Lit(None, loc)
                if len(rel.names) != 1:
                    self.err(
                        "substrait_invalid",
                        sub_loc,
                        f"a scalar subquery must output one column, this one has {len(rel.names)}",
                    )
                    return ir.Lit(None, loc)
                return ir.Subquery("scalar", self.materialize(rel, sub_loc, "subquery").plan(), (), loc)
            if kind == "in_predicate":
                pred = msg.in_predicate
                rel = self.rel(pred.haystack, f"{sub_loc}/haystack")
                needles = tuple(self.expr(n, f"{sub_loc}/needles/{k}", names) for k, n in enumerate(pred.needles))
                if rel is None:
                    return ir.Lit(None, loc)
                if len(rel.names) != len(needles):
                    self.err(
                        "substrait_invalid",
                        sub_loc,
                        f"{len(needles)} needles for a haystack of {len(rel.names)} columns",
                    )
                    return ir.Lit(None, loc)
                return ir.Subquery("in", self.materialize(rel, sub_loc, "subquery").plan(), needles, loc)
            if kind == "set_predicate" and msg.set_predicate.predicate_op == 1:  # EXISTS
                rel = self.rel(msg.set_predicate.tuples, f"{sub_loc}/tuples")
                if rel is None:
                    return ir.Lit(None, loc)
                return ir.Subquery("exists", rel.plan(), (), loc)
            what = "UNIQUE" if kind == "set_predicate" else kind
            self.err("substrait_unsupported", sub_loc, f"{what} subqueries are not supported yet")
            return ir.Lit(None, loc)
        finally:
            self.outer.pop()

    def cast(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        inner = self.expr(msg.input, f"{loc}/input", names)
        to = self.spark_type(msg.type, f"{loc}/type")
        if to is None:
            return ir.Lit(None, loc)
        # FAILURE_BEHAVIOR_RETURN_NULL (1): try_cast; THROW_EXCEPTION (2) and unspecified: a cast
        mode = "try" if msg.failure_behavior == 1 else "cast"
        return ir.Cast(inner, to, loc, mode)

    def if_then(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        branches = tuple(
            (
                self.expr(c.__getattribute__("if"), f"{loc}/ifs/{k}/if", names),
                self.expr(c.then, f"{loc}/ifs/{k}/then", names),
            )
            for k, c in enumerate(msg.ifs)
        )
        otherwise = self.expr(msg.__getattribute__("else"), f"{loc}/else", names) if msg.HasField("else") else None
        return ir.When(branches, otherwise, loc)

    def switch(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        match = self.expr(msg.match, f"{loc}/match", names)
        branches = []
        for k, c in enumerate(msg.ifs):
            value, typ = self.literal_value(c.__getattribute__("if"), f"{loc}/ifs/{k}/if")
            cond = ir.Call("==", (match, ir.Lit(value, f"{loc}/ifs/{k}/if", typ)), f"{loc}/ifs/{k}")
            branches.append((cond, self.expr(c.then, f"{loc}/ifs/{k}/then", names)))
        otherwise = self.expr(msg.__getattribute__("else"), f"{loc}/else", names) if msg.HasField("else") else None
        return ir.When(tuple(branches), otherwise, loc)

    def singular_or_list(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        value = self.expr(msg.value, f"{loc}/value", names)
        options = tuple(self.expr(o, f"{loc}/options/{k}", names) for k, o in enumerate(msg.options))
        return ir.Call("in", (value, *options), loc)

    def scalar_function(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        compound = self._function(msg.function_reference, loc)
        if compound is None:
            return ir.Lit(None, loc)
        name, sig = sp.function_name(compound)
        args, enums = self.arguments(msg, loc, names)
        special = SPECIAL.get(name)
        if special is not None:
            return special(self, args, enums, sig, msg, loc)
        fn = sp.SCALARS.get(name)
        if fn is None:
            known = [*sp.SCALARS, *SPECIAL]
            close = difflib.get_close_matches(name, known, n=3)
            self.err(
                "substrait_function",
                loc,
                f"unknown scalar function {compound!r} (anchor {msg.function_reference}"
                f"{self._uri_text(msg.function_reference)})" + (f"; did you mean {', '.join(close)}?" if close else ""),
            )
            return ir.Lit(None, loc)
        return ir.Call(fn, tuple(args), loc)

    def _uri_text(self, anchor: int) -> str:
        for decl in self.plan_msg.extensions:
            if (
                decl.WhichOneof("mapping_type") == "extension_function"
                and decl.extension_function.function_anchor == anchor
            ):
                f = decl.extension_function
                urn = getattr(f, "extension_urn_reference", 0)
                uri = getattr(f, "extension_uri_reference", 0)
                for u in self.plan_msg.extension_uris:
                    if u.extension_uri_anchor == uri and u.uri:
                        return f", {u.uri}"
                for n in self.plan_msg.extension_urns:
                    if n.extension_urn_anchor == urn and n.urn:
                        return f", {n.urn}"
        return ", no extension URI"

    def _function(self, anchor: int, loc: str) -> str | None:
        name = self.functions.get(anchor)
        if name is None:
            self.err(
                "substrait_function",
                f"{loc}/functionReference",
                f"function anchor {anchor} is declared nowhere in the plan's extensions",
            )
        return name

    def arguments(self, msg: Message, loc: str, names: list[str]) -> tuple[list[ir.Expr], list[str]]:
        args: list[ir.Expr] = []
        enums: list[str] = []
        for k, opt in enumerate(msg.options):
            # overflow, rounding, division-by-zero...: Spark's behaviour is its own (and depends on
            # ANSI mode), so an explicit option is refused rather than silently not honoured
            self.err(
                "substrait_unsupported",
                f"{loc}/options/{k}",
                f"function option {opt.name!r} (preference {list(opt.preference)}) cannot be honoured on Spark",
            )
        if len(msg.arguments):
            for k, a in enumerate(msg.arguments):
                kind = a.WhichOneof("arg_type")
                if kind == "value":
                    args.append(self.expr(a.value, f"{loc}/arguments/{k}/value", names))
                elif kind == "enum":
                    enums.append(a.enum)
                else:
                    self.err(
                        "substrait_unsupported",
                        f"{loc}/arguments/{k}",
                        f"a function argument of kind '{kind}' is not supported",
                    )
        else:  # the old (spec <0.20) plain expression list
            for k, e in enumerate(msg.args):
                if e.WhichOneof("rex_type") == "enum":
                    enums.append(e.enum.specified)
                else:
                    args.append(self.expr(e, f"{loc}/args/{k}", names))
        return args, enums

    def window_function(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        compound = self._function(msg.function_reference, loc)
        if compound is None:
            return ir.Lit(None, loc)
        name, _ = sp.function_name(compound)
        args, _enums = self.arguments(msg, loc, names)
        fn = sp.WINDOWS.get(name) or sp.AGGREGATES.get(name)
        if fn is None:
            close = difflib.get_close_matches(name, [*sp.WINDOWS, *sp.AGGREGATES], n=3)
            self.err(
                "substrait_function",
                loc,
                f"unknown window function {compound!r} (anchor {msg.function_reference}{self._uri_text(msg.function_reference)})"
                + (f"; did you mean {', '.join(close)}?" if close else ""),
            )
            return ir.Lit(None, loc)
        if name == "count" and not args:
            args = [ir.Lit(1, loc)]
        partitions = tuple(self.expr(e, f"{loc}/partitions/{k}", names) for k, e in enumerate(msg.partitions))
        keys = []
        for k, s in enumerate(msg.sorts):
            kloc = f"{loc}/sorts/{k}"
            if s.WhichOneof("sort_kind") != "direction" or s.direction not in sp.SORT_DIRECTIONS:
                self.err("substrait_unsupported", kloc, "a sort needs a direction")
                continue
            asc, nulls_first = sp.SORT_DIRECTIONS[s.direction]
            keys.append(ir.SortKey(self.expr(s.expr, f"{kloc}/expr", names), asc, nulls_first, kloc))
        frame = None
        if name not in sp.RANKING_WINDOWS:
            lower = self._bound(msg, "lower_bound", loc)
            upper = self._bound(msg, "upper_bound", loc)
            # BOUNDS_TYPE_ROWS (1); RANGE (2) and unspecified are RANGE (the SQL default)
            kind = "rows" if msg.bounds_type == 1 else "range"
            if keys or lower is not None or upper is not None:
                frame = ir.Frame(kind, lower, upper, loc)
        call = ir.Call(fn, tuple(args), loc, distinct=msg.invocation == 2)
        return ir.Window(call, partitions, tuple(keys), frame, loc)

    def _bound(self, msg: Message, name: str, loc: str) -> int | None:
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

    def aggregate_function(self, msg: Message, loc: str, names: list[str]) -> ir.Expr:
        compound = self._function(msg.function_reference, loc)
        if compound is None:
            return ir.Lit(None, loc)
        name, _ = sp.function_name(compound)
        args, _enums = self.arguments(msg, loc, names)
        if msg.phase not in (0, 3):  # unspecified, INITIAL_TO_RESULT
            self.err(
                "substrait_unsupported",
                f"{loc}/phase",
                "only whole aggregations (phase INITIAL_TO_RESULT) can run on Spark",
            )
        if len(msg.sorts):
            self.err("substrait_unsupported", f"{loc}/sorts", "ordered aggregate calls are not supported yet")
        fn = sp.AGGREGATES.get(name)
        if fn is None:
            close = difflib.get_close_matches(name, list(sp.AGGREGATES), n=3)
            self.err(
                "substrait_function",
                loc,
                f"unknown aggregate function {compound!r} (anchor {msg.function_reference}{self._uri_text(msg.function_reference)})"
                + (f"; did you mean {', '.join(close)}?" if close else ""),
            )
            return ir.Lit(None, loc)
        if name == "count" and not args:
            args = [ir.Lit(1, loc)]  # count(*)
        return ir.Call(fn, tuple(args), loc, distinct=msg.invocation == 2)

    # ------------------------------------------------------------ types

    def spark_type(self, msg: Message, loc: str) -> DataType | None:
        kind = msg.WhichOneof("kind")
        if kind in PRIMITIVE_TYPES:
            return Primitive(PRIMITIVE_TYPES[kind])
        if kind == "decimal":
            return Primitive("decimal", msg.decimal.precision, msg.decimal.scale)
        if kind == "list":
            inner = self.spark_type(msg.list.type, f"{loc}/list/type")
            return ArrayType(inner) if inner is not None else None
        if kind == "map":
            k = self.spark_type(msg.map.key, f"{loc}/map/key")
            v = self.spark_type(msg.map.value, f"{loc}/map/value")
            return MapType(k, v) if k is not None and v is not None else None
        if kind == "struct":
            fields = []
            for i, t in enumerate(msg.struct.types):
                ft = self.spark_type(t, f"{loc}/struct/types/{i}")
                if ft is None:
                    return None
                fields.append((f"f{i}", ft))
            return StructType(tuple(fields))
        self.err(
            "substrait_type",
            f"{loc}/{_json(msg, kind) if kind else 'kind'}",
            f"the Substrait type '{kind}' has no Spark type" if kind else "a type with no kind set",
        )
        return None


def _top_names(schema: Message) -> list[str]:
    """The top-level column names of a NamedStruct: its names are depth-first, a struct
    column's field names right after its own name."""
    names = list(schema.names)
    out: list[str] = []
    pos = 0

    def skip(t: Message) -> None:
        nonlocal pos
        if t.WhichOneof("kind") == "struct":
            for sub in t.struct.types:
                pos += 1
                skip(sub)

    for t in schema.struct.types:
        if pos >= len(names):
            break
        out.append(names[pos])
        skip(t)
        pos += 1
    return out if schema.struct.types else names


# ------------------------------------------------------------------ special functions

Special = Callable[[Converter, list[ir.Expr], list[str], str, Message, str], ir.Expr]


def _is_integer_division(sig: str, msg: Message) -> bool:
    if msg.HasField("output_type"):
        return msg.output_type.WhichOneof("kind") in sp.INTEGER_TYPES
    return bool(sig) and sig.split("_")[0] in sp.INTEGER_TYPES


def _divide(c: Converter, args: list[ir.Expr], enums: list[str], sig: str, msg: Message, loc: str) -> ir.Expr:
    if _is_integer_division(sig, msg):
        # Substrait's integer division truncates toward zero, as Spark's `div` does
        return ir.UdfCall("div", tuple(args), loc)
    return ir.Call("/", tuple(args), loc)


def _not_equal(c: Converter, args: list[ir.Expr], enums: list[str], sig: str, msg: Message, loc: str) -> ir.Expr:
    return ir.Call("not", (ir.Call("==", tuple(args), loc),), loc)


def _distinct_from(c: Converter, args: list[ir.Expr], enums: list[str], sig: str, msg: Message, loc: str) -> ir.Expr:
    return ir.Call("not", (ir.Call("<=>", tuple(args), loc),), loc)


def _like(c: Converter, args: list[ir.Expr], enums: list[str], sig: str, msg: Message, loc: str) -> ir.Expr:
    fn = sp.function_name(c.functions.get(msg.function_reference, "like"))[0]
    if len(args) == 3:
        escape = args[2]
        if isinstance(escape, ir.Lit) and escape.value is None:
            args = args[:2]  # DataFusion's 'no escape' (a typed null)
        else:
            return ir.UdfCall(fn, tuple(args), loc)
    return ir.Call(fn, tuple(args), loc)


def _substring(c: Converter, args: list[ir.Expr], enums: list[str], sig: str, msg: Message, loc: str) -> ir.Expr:
    return ir.Call("substring", tuple(args), loc)


def _extract(c: Converter, args: list[ir.Expr], enums: list[str], sig: str, msg: Message, loc: str) -> ir.Expr:
    component: str | None = enums[0] if enums else None
    if component is None and args and isinstance(args[0], ir.Lit) and isinstance(args[0].value, str):
        component, args = args[0].value, args[1:]  # DataFusion's date_part('YEAR', x)
    fn = sp.EXTRACT_FIELDS.get((component or "").upper())
    if fn is None or len(args) != 1:
        c.err(
            "substrait_function",
            loc,
            f"extract of {component!r} is not supported (known: {', '.join(sp.EXTRACT_FIELDS)})",
        )
        return ir.Lit(None, loc)
    if fn in ("dayofyear", "weekofyear"):
        return ir.UdfCall(fn, tuple(args), loc)
    return ir.Call(fn, tuple(args), loc)


def _round(c: Converter, args: list[ir.Expr], enums: list[str], sig: str, msg: Message, loc: str) -> ir.Expr:
    return ir.Call("round", tuple(args), loc)


def _xor(c: Converter, args: list[ir.Expr], enums: list[str], sig: str, msg: Message, loc: str) -> ir.Expr:
    return ir.Call("not", (ir.Call("==", tuple(args), loc),), loc)


SPECIAL: dict[str, Special] = {
    "not_equal": _not_equal,
    "is_distinct_from": _distinct_from,
    "divide": _divide,
    "like": _like,
    "ilike": _like,
    "substring": _substring,
    "extract": _extract,
    "date_part": _extract,
    "round": _round,
    "xor": _xor,
}

RELATIONS: dict[str, Callable[[Converter, Any, str], Rel | None]] = {
    "read": Converter.read,
    "filter": Converter.filter,
    "project": Converter.project,
    "fetch": Converter.fetch,
    "sort": Converter.sort,
    "aggregate": Converter.aggregate,
    "join": Converter.join,
    "cross": Converter.cross,
    "set": Converter.set,
}

EXPRESSIONS: dict[str, Callable[[Converter, Any, str, list[str]], ir.Expr]] = {
    "selection": Converter.selection,
    "literal": Converter.literal,
    "scalar_function": Converter.scalar_function,
    "cast": Converter.cast,
    "if_then": Converter.if_then,
    "switch_expression": Converter.switch,
    "singular_or_list": Converter.singular_or_list,
    "subquery": Converter.subquery,
    "window_function": Converter.window_function,
}


def convert_plan(plan_msg: Message, tables: Mapping[str, ir.Source] | None = None) -> ir.Plan:
    conv = Converter(plan_msg, dict(tables or {}))
    out = conv.convert()
    if conv.errors:
        raise PlanError(conv.errors)
    assert out is not None
    return out
