"""Substrait relations → IR steps: read (named tables, local files, virtual tables), filter,
project, fetch, sort, aggregate (grouping sets too), join (single and mark joins rewritten, semi
joins sent as inner joins or IN subqueries: :mod:`.semijoins`),
cross, set and reference. Each is a module function registered by its ``Rel.rel_type`` kind
(:func:`~.state.relation`); :meth:`~.state.Converter.rel` dispatches to it and applies the
relation's ``emit``."""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message

from ... import ir
from ...types import Primitive
from . import spellings as sp
from .conjuncts import FIXED_WIDTH, cheap_first
from .expressions import sort_keys
from .functions import aggregate_measure
from .literals import python_value
from .semijoins import equi_pairs, semi_join
from .state import Converter, Rel, enum_name, enum_text, json_name, relation
from .types import PRIMITIVE_TYPES, schema_shapes, spark_type, top_names

__all__ = ["FILE_FORMATS"]

#: ReadRel.LocalFiles file format → the Spark data source that reads it (others by their own name)
FILE_FORMATS: dict[str, str] = {"dwrf": "orc", "arrow": "arrow"}


@relation("read")
def read_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    base = list(top_names(msg.base_schema))
    kind = msg.WhichOneof("read_type")
    source: ir.Source | None
    if kind == "named_table":
        name = ".".join(msg.named_table.names)
        source = c.mapped(name) or ir.TableSource(name, (), f"{loc}/namedTable")
    elif kind == "local_files":
        source = _local_files(c, msg.local_files, f"{loc}/localFiles")
    elif kind == "virtual_table":
        return _virtual_table(c, msg, f"{loc}/virtualTable", base)
    else:
        c.err(
            "substrait_unsupported",
            f"{loc}/{json_name(msg, kind) if kind else 'readType'}",
            f"read of kind '{kind}' is not supported yet",
        )
        return None
    if source is None:
        return None
    if not base:
        c.err("substrait_invalid", f"{loc}/baseSchema", "a read needs its base_schema (the names of its columns)")
        return None
    fresh = [c.fresh() for _ in base]
    for f, shape in zip(fresh, schema_shapes(msg.base_schema)):
        if shape is not None:
            c.shapes[f] = shape
    for f, t in zip(fresh, msg.base_schema.struct.types):
        if t.WhichOneof("kind") == "decimal":
            c.decimals[f] = (t.decimal.precision, t.decimal.scale)
        elif PRIMITIVE_TYPES.get(t.WhichOneof("kind") or "") in FIXED_WIDTH:
            c.fixed_width.add(f)
    items = tuple(
        ir.SelectItem(ir.Col(b, loc), f, f"{loc}/baseSchema/names/{k}") for k, (b, f) in enumerate(zip(base, fresh))
    )
    rel = Rel(source, [ir.Select(c.step_index(), "read", loc, items)], fresh, loc)
    if msg.HasField("filter"):
        # the filter uses base-schema indices and must be applied (DuckDB puts filters only here)
        cond = cheap_first(c, c.expr(msg.filter, f"{loc}/filter", fresh))
        rel.steps.append(ir.Filter(c.step_index(), "read.filter", f"{loc}/filter", cond))
    if msg.HasField("projection"):
        mask = msg.projection
        if mask.HasField("select"):
            out = []
            for k, item in enumerate(mask.select.struct_items):
                if item.HasField("child"):
                    c.err(
                        "substrait_unsupported",
                        f"{loc}/projection/select/structItems/{k}/child",
                        "nested projection masks are not supported yet",
                    )
                if not 0 <= item.field < len(fresh):
                    c.err(
                        "substrait_field_index",
                        f"{loc}/projection/select/structItems/{k}/field",
                        f"field {item.field} of a base schema of {len(fresh)} columns",
                    )
                    return None
                out.append(fresh[item.field])
            rel.names = out
    return rel


def _virtual_table(c: Converter, msg: Message, loc: str, base: list[str]) -> Rel | None:
    """Rows of literals (the old ``values`` structs or the newer ``expressions`` of literal
    fields) → inline Arrow data typed by the base schema."""
    import pyarrow as pa

    from ...arrow_types import inline_arrow_type as arrow_type

    types = [
        spark_type(c, t, f"{loc}/../baseSchema/struct/types/{i}") for i, t in enumerate(msg.base_schema.struct.types)
    ]
    if any(t is None for t in types) or len(types) != len(base):
        if len(types) != len(base):
            c.err("substrait_unsupported", loc, "a virtual table with struct columns is not supported yet")
        return None
    vt = msg.virtual_table
    rows: list[list[Any]] = []
    if len(vt.expressions):
        for r, row in enumerate(vt.expressions):
            values: list[Any] = []
            for j, e in enumerate(row.fields):
                if e.WhichOneof("rex_type") != "literal":
                    c.err(
                        "substrait_unsupported",
                        f"{loc}/expressions/{r}/fields/{j}",
                        "virtual table values must be literals",
                    )
                    values.append(None)
                else:
                    values.append(python_value(c, e.literal, f"{loc}/expressions/{r}/fields/{j}/literal"))
            rows.append(values)
    elif not base and "virtual_table_rows_of_no_columns" in c.quirks:
        # DuckDB's SELECT without FROM: rows holding one placeholder value that no column names
        # (see PRODUCER_QUIRKS)
        rows = [[] for _ in vt.values]
    else:
        for r, row in enumerate(vt.values):
            rows.append([python_value(c, lit, f"{loc}/values/{r}/fields/{j}") for j, lit in enumerate(row.fields)])
    for r, row in enumerate(rows):
        if len(row) != len(base):
            field = "expressions" if len(vt.expressions) else "values"
            c.err("substrait_invalid", f"{loc}/{field}/{r}", f"a row of {len(row)} values for {len(base)} columns")
            return None
    fresh = [c.fresh() for _ in base]
    try:
        arrays = [pa.array([row[i] for row in rows], type=arrow_type(t)) for i, t in enumerate(types)]
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as e:
        c.err("substrait_invalid", loc, f"a virtual table value does not fit its column's type: {e}")
        return None
    if not base:  # rows of no columns (DataFusion's SELECT without FROM): one hidden column
        arrays, names = [pa.nulls(len(rows), pa.bool_())], [c.fresh()]
    else:
        names = fresh
    table = pa.Table.from_arrays(arrays, names=names)
    return Rel(ir.InlineData(table, loc), [], fresh, loc)


def _local_files(c: Converter, msg: Message, loc: str) -> ir.Source | None:
    paths: list[str] = []
    formats: set[str] = set()
    for k, item in enumerate(msg.items):
        path_kind = item.WhichOneof("path_type")
        if path_kind is None:
            c.err("substrait_invalid", f"{loc}/items/{k}", "a file item without a path")
            continue
        uri = getattr(item, path_kind)
        paths.append(uri[len("file://") :] if uri.startswith("file://") else uri)
        fmt = item.WhichOneof("file_format")
        if fmt is None or fmt == "extension":
            c.err("substrait_unsupported", f"{loc}/items/{k}", f"file format {fmt!r} is not supported")
            continue
        formats.add(FILE_FORMATS.get(fmt, fmt))
    if len(formats) != 1:
        if formats:
            c.err("substrait_unsupported", loc, f"files of several formats in one read: {sorted(formats)}")
        return None
    fmt = formats.pop()
    if fmt == "arrow":
        c.err("substrait_unsupported", loc, "Arrow IPC files have no Spark data source")
        return None
    return ir.FileSource(tuple(paths), fmt, (), None, None, loc)


@relation("filter")
def filter_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    rel = c.rel(msg.input, f"{loc}/input")
    if rel is None:
        return None
    cond = cheap_first(c, c.expr(msg.condition, f"{loc}/condition", rel.names))
    rel.steps.append(ir.Filter(c.step_index(), "filter", loc, cond))
    return rel


@relation("project")
def project_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    rel = c.rel(msg.input, f"{loc}/input")
    if rel is None:
        return None
    visible = list(rel.names)
    added = []
    for k, e in enumerate(msg.expressions):
        expr = c.expr(e, f"{loc}/expressions/{k}", visible)
        if isinstance(expr, ir.Col) and expr.name in visible:
            # a column passed on keeps its name: a copy under a fresh name would leave a
            # projection of renames between two joins, which keeps Spark's cost-based join
            # reorder from seeing the joins as one run (it crosses plain-attribute projections only)
            added.append(expr.name)
            continue
        name = c.fresh()
        if isinstance(expr, ir.Col):  # an outer reference (a column of the input is passed on above)
            c.carry(expr.name, name)
        elif (shape := c.shape_of(expr)) is not None:
            c.shapes[name] = shape
        rel.steps.append(ir.WithColumn(c.step_index(), "project", f"{loc}/expressions/{k}", name, expr))
        added.append(name)
    if "project_outputs_expressions_only" in c.quirks and not msg.HasField("common"):
        rel.names = added  # DuckDB's reading of its own ProjectRel (see PRODUCER_QUIRKS)
    else:
        rel.names = visible + added
    return rel


#: the spec version (0.x) from which FetchRel's count has presence (a oneof with count_expr): before
#: it, count was a plain int64, so an absent count was a count of 0 (proto3 writes no zero), and
#: "all rows" was -1; since, an unset count means all rows
FETCH_COUNT_PRESENCE = 63


@relation("fetch")
def fetch_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    rel = c.rel(msg.input, f"{loc}/input")
    if rel is None:
        return None
    offset = _count(c, msg, "offset", loc) or 0
    if msg.HasField("count_expr") or msg.HasField("count"):
        count = _count(c, msg, "count", loc)
    elif not c.plan_msg.HasField("version"):
        c.err(
            "substrait_unsupported",
            f"{loc}/count",
            "a fetch without a count in a plan that names no Substrait version: before 0.63 an absent count "
            "is 0 (no rows), since 0.63 it is all rows (write count_expr, count -1 for all rows, or the plan's version)",
        )
        return None
    elif (c.plan_msg.version.major_number, c.plan_msg.version.minor_number) < (0, FETCH_COUNT_PRESENCE):
        count = 0  # the plain int64 of its spec version: proto3 omits a 0 (ibis' LIMIT 0)
    else:
        count = None
    rel.steps.append(ir.Fetch(c.step_index(), "fetch", loc, offset, count))
    return rel


def _count(c: Converter, msg: Message, name: str, loc: str) -> int | None:
    """FetchRel's old int64 ``count``/``offset`` or the newer ``count_expr``/``offset_expr``
    (None: all rows, for a count)."""
    if msg.HasField(f"{name}_expr"):
        e = getattr(msg, f"{name}_expr")
        lit = e.literal if e.WhichOneof("rex_type") == "literal" else None
        kind = lit.WhichOneof("literal_type") if lit is not None else None
        if kind in ("i64", "i32", "i16", "i8"):
            value = int(getattr(lit, kind))
        elif kind == "null":
            return None
        else:
            c.err("substrait_unsupported", f"{loc}/{name}Expr", f"fetch {name} must be an integer literal")
            return None
    elif msg.HasField(name):
        value = int(getattr(msg, name))
    else:
        return None
    if value < 0:
        return None  # old encoding: -1 means all rows
    return value


@relation("sort")
def sort_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    rel = c.rel(msg.input, f"{loc}/input")
    if rel is None:
        return None
    if len(msg.sorts):  # no sort field orders nothing (Isthmus' LIMIT without ORDER BY): no step
        rel.steps.append(ir.OrderBy(c.step_index(), "sort", loc, sort_keys(c, msg.sorts, loc, rel.names)))
    return rel


@relation("aggregate")
def aggregate_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    rel = c.rel(msg.input, f"{loc}/input")
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
                    c.err(
                        "substrait_field_index",
                        f"{gloc}/expressionReferences/{r}",
                        f"grouping expression {ref} of {len(shared)}",
                    )
                    return None
                refs.append((shared[ref], f"{loc}/groupingExpressions/{ref}"))
            sets.append(refs)
        else:
            sets.append([(e, f"{gloc}/groupingExpressions/{k}") for k, e in enumerate(grouping.grouping_expressions)])
    # every distinct key expression once (by its proto), in order of first appearance
    key_of: dict[bytes, str] = {}
    if len(sets) > 1:  # the new encoding's shared list gives the output order of the keys
        for i, e in enumerate(shared):
            blob = e.SerializeToString(deterministic=True)
            if blob not in key_of:
                expr = c.expr(e, f"{loc}/groupingExpressions/{i}", visible)
                name = expr.name if isinstance(expr, ir.Col) else c.fresh()
                if not isinstance(expr, ir.Col):
                    rel.steps.append(ir.WithColumn(c.step_index(), "aggregate.key", loc, name, expr))
                key_of[blob] = name
    set_keys: list[list[str]] = []
    for one in sets:
        names_in_set = []
        for e, eloc in one:
            blob = e.SerializeToString(deterministic=True)
            if blob not in key_of:
                expr = c.expr(e, eloc, visible)
                if isinstance(expr, ir.Col):
                    key_of[blob] = expr.name
                else:
                    name = c.fresh()
                    rel.steps.append(ir.WithColumn(c.step_index(), "aggregate.key", eloc, name, expr))
                    key_of[blob] = name
            names_in_set.append(key_of[blob])
        set_keys.append(names_in_set)
    distinct_keys = list(dict.fromkeys(key_of.values()))
    aggs = []
    agg_names = []
    for k, m in enumerate(msg.measures):
        mloc = f"{loc}/measures/{k}"
        call = aggregate_measure(c, m, mloc, visible)  # FILTER (WHERE c) applied to its arguments
        name = c.fresh()
        aggs.append(ir.AggItem(call, name, mloc))
        agg_names.append(name)
    keys = tuple(ir.Col(n, loc) for n in distinct_keys)
    if len(sets) > 1:
        masks = [
            sum(1 << (len(distinct_keys) - 1 - j) for j, n in enumerate(distinct_keys) if n not in one)
            for one in set_keys
        ]
        if len(set(masks)) != len(masks):
            c.err("substrait_unsupported", f"{loc}/groupings", "the same grouping set twice is not supported")
            return None
        gid = c.fresh()
        aggs.append(ir.AggItem(ir.Call("grouping_id", (), loc), gid, loc))
        index_sets = tuple(tuple(distinct_keys.index(n) for n in dict.fromkeys(one)) for one in set_keys)
        rel.steps.append(ir.GroupBy(c.step_index(), "aggregate", loc, "grouping_sets", keys, tuple(aggs), index_sets))
        if "aggregate_grouping_id_before_measures" in c.quirks:
            if not msg.HasField("common") or msg.common.WhichOneof("emit_kind") != "emit":
                # DataFusion's own order: its __grouping_id is Spark's grouping_id() (PRODUCER_QUIRKS)
                rel.names = [*distinct_keys, gid, *agg_names]
                return rel
            if len(distinct_keys) + len(agg_names) in msg.common.emit.output_mapping:
                c.err(
                    "substrait_unsupported",
                    f"{loc}/common/emit/outputMapping",
                    "a DataFusion AggregateRel of several grouping sets with an emit that keeps the set index: "
                    "DataFusion after 55 writes the spec's order (apache/datafusion#23468) but its __grouping_id "
                    "bitmask where the spec puts the set index (apache/datafusion#25208); which this plan means "
                    "cannot be told",
                )
                return None
        # Substrait's trailing column: the index of the grouping set that made the row (Isthmus'
        # older plans have none: see Converter.set_index)
        c.multi_set_aggregates.append(loc)
        if c.set_index == "none":
            rel.names = distinct_keys + agg_names
            return rel
        index = c.fresh()
        branches = tuple(
            (
                ir.Call("==", (ir.Col(gid, loc), ir.Lit(mask, loc, Primitive("bigint"))), loc),
                ir.Lit(i, loc, Primitive("int")),
            )
            for i, mask in enumerate(masks)
        )
        rel.steps.append(ir.WithColumn(c.step_index(), "aggregate.set_index", loc, index, ir.When(branches, None, loc)))
        rel.names = distinct_keys + agg_names + ([index] if c.set_index == "output" else [])
        return rel
    if not aggs:
        # a GROUP BY without measures: the distinct key values
        items = tuple(ir.SelectItem(ir.Col(n, loc), None, loc) for n in distinct_keys)
        rel.steps.append(ir.Select(c.step_index(), "aggregate", loc, items))
        rel.steps.append(ir.Distinct(c.step_index(), "aggregate", loc))
    elif keys:
        rel.steps.append(ir.GroupBy(c.step_index(), "aggregate", loc, "groupby", keys, tuple(aggs)))
    else:
        rel.steps.append(ir.Agg(c.step_index(), "aggregate", loc, tuple(aggs)))
    # one output column per grouping expression of the (single) set, repeats included
    rel.names = (set_keys[0] if set_keys else []) + agg_names
    return rel


@relation("join")
def join_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    left = c.rel(msg.left, f"{loc}/left")
    right = c.rel(msg.right, f"{loc}/right")
    if left is None or right is None:
        return None
    kind = enum_name(msg, "type")
    plain, rewritten = sp.JOIN_TYPES.get(kind), sp.REWRITTEN_JOINS.get(kind)
    if plain is None and rewritten is None:
        c.err("substrait_unsupported", f"{loc}/type", f"join type {enum_text(msg, 'type')} has no Spark join")
        return None
    both = left.names + right.names
    cond = c.expr(msg.expression, f"{loc}/expression", both) if msg.HasField("expression") else None
    if rewritten is not None:
        rewrite, swap = rewritten
        # a right single or mark join: the right input's rows, each with its left match(es)
        probe, build = (right, left) if swap else (left, right)
        if rewrite == "mark":
            return _mark_join(c, probe, build, cond, loc, msg)
        return _single_join(c, probe, build, cond, swap, loc, msg)
    assert plain is not None  # one of the two tables has the type (refused above otherwise)
    how, swap = plain
    if swap:
        left, right = right, left
    sides = (msg.right, msg.left) if swap else (msg.left, msg.right)
    if how == "left_semi" and semi_join(c, left, right, cond, loc, sides):
        # an inner join with an aggregate, or a filter by an IN subquery (semijoins.py)
        return _post_join_filter(c, msg, left, loc)
    if cond is None and how == "inner":
        left.steps.append(ir.CrossJoin(c.step_index(), "join", loc, right.plan()))
    else:
        if cond is None:
            cond = ir.Lit(True, loc)
        left.steps.append(ir.Join(c.step_index(), "join", loc, right.plan(), how, (), cond))
    names = left.names if how in ("left_semi", "left_anti") else left.names + right.names
    left.names = names
    return _post_join_filter(c, msg, left, loc)


def _post_join_filter(c: Converter, msg: Message, rel: Rel, loc: str) -> Rel:
    """The join's ``post_join_filter``, over the join's output columns, applied after it."""
    if msg.HasField("post_join_filter"):
        post = cheap_first(c, c.expr(msg.post_join_filter, f"{loc}/postJoinFilter", rel.names))
        rel.steps.append(ir.Filter(c.step_index(), "join.post_join_filter", f"{loc}/postJoinFilter", post))
    return rel


def _mark_join(c: Converter, probe: Rel, build: Rel, cond: ir.Expr | None, loc: str, msg: Message) -> Rel:
    """A mark join keeps the probe side's rows and adds the mark: true when a row of the
    other side satisfies the condition, else null when one makes it unknown, else false
    (IN's three-valued logic). Spark has no such join; two EXISTS subqueries say exactly
    that (the probe side's columns are outer references inside them)."""
    probe_names, build_names = set(probe.names), set(build.names)
    pairs = None if probe_names & build_names else equi_pairs(cond, probe_names, build_names)
    cond = cond if cond is not None else ir.Lit(True, loc)
    base = build.plan()

    def exists(predicate: ir.Expr | None) -> ir.Subquery:
        steps = (
            base.steps if predicate is None else (*base.steps, ir.Filter(c.step_index(), "join.mark", loc, predicate))
        )
        return ir.Subquery("exists", ir.Plan(base.source, steps, base.loc), (), loc)

    if pairs is not None and len(pairs) == 1 and all(isinstance(side, ir.Col) for side in pairs[0]):
        # one key, a = b, two columns (a the probe row's, b the other side's; columns, so that
        # nothing is evaluated that the condition would not have): a comparison is unknown exactly
        # when a or b is null, so "some row makes it unknown" is (a is null and the other side
        # has rows) or (the other side has a null b). Neither EXISTS reads the probe row, so
        # Spark computes each once, where EXISTS(cond IS NULL) was a nested-loop existence join
        # with no key over the whole other side (TPC-DS q35 through DataFusion's plan, tail.md)
        ((a, b),) = pairs
        unknown: ir.Expr = ir.Call(
            "or",
            (ir.Call("and", (ir.Call("isnull", (a,), loc), exists(None)), loc), exists(ir.Call("isnull", (b,), loc))),
            loc,
        )
    else:
        unknown = exists(ir.Call("isnull", (cond,), loc))
    mark = ir.When(
        (
            (exists(cond), ir.Lit(True, loc, Primitive("boolean"))),
            (unknown, ir.Lit(None, loc, Primitive("boolean"))),
        ),
        ir.Lit(False, loc, Primitive("boolean")),
        loc,
    )
    name = c.fresh()
    probe.steps.append(ir.WithColumn(c.step_index(), "join.mark", loc, name, mark))
    probe.names = [*probe.names, name]
    return _post_join_filter(c, msg, probe, loc)


def _single_join(c: Converter, probe: Rel, build: Rel, cond: ir.Expr | None, swap: bool, loc: str, msg: Message) -> Rel:
    """A single join: every probe row with its one matching row of the other side (nulls if
    none); more than one match is an error (how scalar subqueries are planned). Spark has no
    such join: a left join that counts each probe row's matches (by a row id) and fails the
    query where a count exceeds one, exactly."""
    rid, count = c.fresh(), c.fresh()
    probe.steps.append(
        ir.WithColumn(c.step_index(), "join.single", loc, rid, ir.Call("monotonically_increasing_id", (), loc))
    )
    cond = cond if cond is not None else ir.Lit(True, loc)
    probe.steps.append(ir.Join(c.step_index(), "join", loc, build.plan(), "left", (), cond))
    matches = ir.Window(ir.Call("count", (ir.Lit(1, loc),), loc), (ir.Col(rid, loc),), (), None, loc)
    probe.steps.append(ir.WithColumn(c.step_index(), "join.single", loc, count, matches))
    fail = ir.Call(
        "raise_error",
        (ir.Lit(f"a single join ({loc}) found more than one matching row for a row", loc),),
        loc,
    )
    too_many = ir.Call(">", (ir.Col(count, loc), ir.Lit(1, loc)), loc)
    # a filter (never pruned, unlike an unused column) that fails where a row has two matches
    probe.steps.append(
        ir.Filter(c.step_index(), "join.single", loc, ir.When(((too_many, fail),), ir.Lit(True, loc), loc))
    )
    probe.names = build.names + probe.names if swap else probe.names + build.names
    return _post_join_filter(c, msg, probe, loc)


@relation("cross")
def cross_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    left = c.rel(msg.left, f"{loc}/left")
    right = c.rel(msg.right, f"{loc}/right")
    if left is None or right is None:
        return None
    left.steps.append(ir.CrossJoin(c.step_index(), "cross", loc, right.plan()))
    left.names = left.names + right.names
    return left


@relation("set")
def set_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    op = sp.SET_OPS.get(enum_name(msg, "op"))
    if not isinstance(op, sp.SetOperation):
        why = f": {op}" if op else ""
        c.err(
            "substrait_unsupported", f"{loc}/op", f"set operation {enum_text(msg, 'op')} has no Spark equivalent{why}"
        )
        return None
    converted = [c.rel(r, f"{loc}/inputs/{k}") for k, r in enumerate(msg.inputs)]
    inputs = [r for r in converted if r is not None]
    if len(inputs) != len(converted) or len(inputs) < 2:
        if len(converted) < 2:
            c.err("substrait_invalid", f"{loc}/inputs", "a set operation needs at least two inputs")
        return None
    first = c.materialize(inputs[0], loc, "set")
    # the secondary inputs in turn, or (any_secondary) their UNION ALL once
    target, kind, distinct = (None, "union", False) if op.any_secondary else (first, op.kind, op.distinct)
    for k, other in enumerate(inputs[1:], 1):
        if len(other.names) != len(first.names):
            c.err(
                "column_count",
                f"{loc}/inputs/{k}",
                f"{len(other.names)} columns, the first input has {len(first.names)}",
            )
            return None
        right = c.materialize(other, f"{loc}/inputs/{k}", "set")
        if target is None:
            target = right
        else:
            target.steps.append(ir.SetOp(c.step_index(), "set", loc, right.plan(), kind, False, False, distinct))
    if op.any_secondary:
        assert target is not None  # there are at least two inputs
        first.steps.append(ir.SetOp(c.step_index(), "set", loc, target.plan(), op.kind, False, False, op.distinct))
    return first


@relation("reference")
def reference_rel(c: Converter, msg: Message, loc: str) -> Rel | None:
    """ReferenceRel: the plan relation ``subtree_ordinal`` (a ``rel`` of the plan's list,
    not the root), converted once into one shared IR sub-plan; each use reads it under
    fresh column names, so a subtree joined with itself stays unambiguous."""
    k = msg.subtree_ordinal
    rels = c.plan_msg.relations
    if not 0 <= k < len(rels) or rels[k].WhichOneof("rel_type") != "rel":
        c.err(
            "substrait_field_index",
            f"{loc}/subtreeOrdinal",
            f"subtree {k}: a reference names one of the plan's {len(rels)} relations that is not its root",
        )
        return None
    if k in c.building:
        c.err("substrait_invalid", f"{loc}/subtreeOrdinal", f"subtree {k} refers to itself (a cycle)")
        return None
    if k not in c.subtrees:
        c.building.add(k)
        try:
            rel = c.rel(rels[k].rel, f"/relations/{k}/rel")
        finally:
            c.building.discard(k)
        if rel is None:
            c.subtrees[k] = None
        else:
            rel = c.materialize(rel, f"/relations/{k}/rel", "reference")
            c.subtrees[k] = (ir.SharedPlan(f"/relations/{k}", rel.plan(), f"/relations/{k}/rel"), rel.names)
    known = c.subtrees[k]
    if known is None:
        return None
    shared, names = known
    fresh = [c.fresh() for _ in names]
    for old, new in zip(names, fresh):
        c.carry(old, new)
    items = tuple(ir.SelectItem(ir.Col(n, loc), f, loc) for n, f in zip(names, fresh))
    return Rel(shared, [ir.Select(c.step_index(), "reference", loc, items)], fresh, loc)
