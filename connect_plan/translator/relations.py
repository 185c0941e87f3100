"""Emission, the translator's last pass: ``Rel`` chains → Spark Connect ``Relation`` protos.

One builder per ``Rel`` class (``RELATION_BUILDERS``), each a plain function of the record:
it fills the relation it is given and returns that relation's ``input`` slot, for the next
(inner) builder, or None for a leaf. :meth:`Emitter.chain` walks a chain outermost first
and gives every relation its plan id, the one place that does.

Top-down on purpose: the outermost relation is filled first and each builder fills its
parent's ``input`` slot in place, so nothing is copied and the cost per step is flat at any
plan size (bottom-up building with ``CopyFrom`` re-copies the whole subtree at each level).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .. import ir
from ..data import fill_local_relation
from ..records import Record
from ..spark_proto import pb
from .expressions import ExprContext, InlineUdf, emit, fill_sort_order
from .rels import (
    AggregateRel,
    DedupRel,
    DropRel,
    FilterRel,
    HintRel,
    JoinRel,
    LimitRel,
    LocalData,
    LocalRel,
    OffsetRel,
    ProjectRel,
    RangeRel,
    ReadFilesRel,
    ReadTableRel,
    Rel,
    RenameRel,
    RepartitionRel,
    SampleRel,
    SetOpRel,
    SharedUseRel,
    SortRel,
    SqlRel,
    TailRel,
    WithColumnsRel,
)
from .scope import Scope

__all__ = ["RELATION_BUILDERS", "Emitter", "emit_chain", "subqueries_in"]

_JOIN_TYPES: dict[ir.JoinKind, pb.Join.JoinType.ValueType] = {
    "inner": pb.Join.JOIN_TYPE_INNER,
    "left": pb.Join.JOIN_TYPE_LEFT_OUTER,
    "right": pb.Join.JOIN_TYPE_RIGHT_OUTER,
    "full": pb.Join.JOIN_TYPE_FULL_OUTER,
    "left_semi": pb.Join.JOIN_TYPE_LEFT_SEMI,
    "left_anti": pb.Join.JOIN_TYPE_LEFT_ANTI,
    "cross": pb.Join.JOIN_TYPE_CROSS,
}
_GROUP_TYPES = {
    "groupby": pb.Aggregate.GROUP_TYPE_GROUPBY,
    "rollup": pb.Aggregate.GROUP_TYPE_ROLLUP,
    "cube": pb.Aggregate.GROUP_TYPE_CUBE,
    "grouping_sets": pb.Aggregate.GROUP_TYPE_GROUPING_SETS,
}
_SET_OP_TYPES = {
    "union": pb.SetOperation.SET_OP_TYPE_UNION,
    "intersect": pb.SetOperation.SET_OP_TYPE_INTERSECT,
    "except": pb.SetOperation.SET_OP_TYPE_EXCEPT,
}


def build_local(rel: LocalRel, out: pb.Relation, em: Emitter) -> None:
    if em.inline_data:
        fill_local_relation(out.local_relation, rel.table)
    em.local.append(LocalData(out, rel.table))
    return None


def build_filter(rel: FilterRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    f = out.filter
    cond = rel.conditions[0] if len(rel.conditions) == 1 else ir.Call("and", tuple(rel.conditions), "")
    emit(cond, f.condition, em.ctx(rel.scope))
    return f.input


def build_project(rel: ProjectRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    p = out.project
    ctx = em.ctx(rel.scope)
    for item in rel.items:
        target = p.expressions.add()
        if item.alias is not None:
            target.alias.name.extend(item.alias if isinstance(item.alias, tuple) else (item.alias,))
            emit(item.expr, target.alias.expr, ctx)
        else:
            emit(item.expr, target, ctx)
    return p.input


def build_with_columns(rel: WithColumnsRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    w = out.with_columns
    ctx = em.ctx(rel.scope)
    for name, expr in rel.items:
        alias = w.aliases.add()
        alias.name.append(name)
        emit(expr, alias.expr, ctx)
    return w.input


def build_with_columns_renamed(rel: RenameRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    r = out.with_columns_renamed
    for old, new in rel.pairs:
        entry = r.renames.add()
        entry.col_name = old
        entry.new_col_name = new
    return r.input


def build_drop(rel: DropRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    d = out.drop
    d.column_names.extend(rel.names)
    return d.input


def build_deduplicate(rel: DedupRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    out.deduplicate.all_columns_as_keys = True
    return out.deduplicate.input


def build_limit(rel: LimitRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    out.limit.limit = rel.n
    return out.limit.input


def build_offset(rel: OffsetRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    out.offset.offset = rel.n
    return out.offset.input


def build_sort(rel: SortRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    s = out.sort
    s.is_global = rel.is_global
    ctx = em.ctx(rel.scope)
    for key in rel.keys:
        fill_sort_order(key, s.order.add(), ctx)
    return s.input


def build_aggregate(rel: AggregateRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    a = out.aggregate
    a.group_type = _GROUP_TYPES[rel.kind]
    ctx = em.ctx(rel.scope)
    for k in rel.keys:
        emit(k, a.grouping_expressions.add(), ctx)
    for members in rel.sets or ():
        group = a.grouping_sets.add()
        for i in members:
            emit(rel.keys[i], group.grouping_set.add(), ctx)
    for item in rel.aggs:
        target = a.aggregate_expressions.add()
        if item.alias is not None:
            target.alias.name.append(item.alias)
            emit(item.expr, target.alias.expr, ctx)
        else:
            emit(item.expr, target, ctx)
    return a.input


def build_join(rel: JoinRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    j = out.join
    j.join_type = _JOIN_TYPES[rel.how]
    if rel.using:
        j.using_columns.extend(rel.using)
    if rel.condition is not None:
        assert rel.cond_scope is not None
        emit(rel.condition, j.join_condition, em.ctx(rel.cond_scope))
    em.chain(rel.right, j.right)
    return j.left


def build_set_operation(rel: SetOpRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    s = out.set_op
    s.set_op_type = _SET_OP_TYPES[rel.kind]
    s.is_all = rel.is_all
    s.by_name = rel.by_name
    if rel.by_name:
        s.allow_missing_columns = rel.allow_missing
    em.chain(rel.right, s.right_input)
    return s.left_input


def build_read_table(rel: ReadTableRel, out: pb.Relation, em: Emitter) -> None:
    t = out.read.named_table
    t.unparsed_identifier = rel.name
    for k, v in rel.options:
        t.options[k] = v
    return None


def build_read_files(rel: ReadFilesRel, out: pb.Relation, em: Emitter) -> None:
    em.files = True
    d = out.read.data_source
    src = rel.source
    if src.format is not None:
        d.format = src.format
    if src.schema is not None:
        d.schema = src.schema
    d.paths.extend(src.paths)
    for k, v in src.options:
        d.options[k] = v
    return None


def build_range(rel: RangeRel, out: pb.Relation, em: Emitter) -> None:
    r = out.range
    r.start = rel.source.start
    r.end = rel.source.end
    r.step = rel.source.step
    if rel.source.num_partitions is not None:
        r.num_partitions = rel.source.num_partitions
    return None


def build_sql(rel: SqlRel, out: pb.Relation, em: Emitter) -> None:
    q = out.sql
    q.query = rel.source.query
    # SQL parameters must be literals or constructors over literals (the parser checks),
    # so typed literals, also inside array/map/struct calls, are typed Literal protos here
    # rather than the casts other slots use
    ctx = em.ctx(Scope(None), literal_protos=True)
    for name, expr in rel.source.named_args:
        emit(expr, q.named_arguments[name], ctx)
    for expr in rel.source.pos_args:
        emit(expr, q.pos_arguments.add(), ctx)
    return None


def build_shared_use(rel: SharedUseRel, out: pb.Relation, em: Emitter) -> None:
    p = out.project
    p.expressions.add().unresolved_star.SetInParent()
    # each use is emitted in full (not copied) so every inline table it holds is known to
    # the emitter: the executor fills them, or swaps in cached artifacts, before sending
    em.chain(rel.shared.chain, p.input)
    return None


def build_sample(rel: SampleRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    s = out.sample
    s.lower_bound = rel.step.lower
    s.upper_bound = rel.step.upper
    s.with_replacement = rel.step.with_replacement
    if rel.step.seed is not None:
        s.seed = rel.step.seed
    return s.input


def build_repartition(rel: RepartitionRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    if not rel.keys:
        r = out.repartition
        assert rel.n is not None
        r.num_partitions = rel.n
        r.shuffle = rel.shuffle
        return r.input
    e = out.repartition_by_expression
    ctx = em.ctx(rel.scope)
    for k in rel.keys:
        emit(k, e.partition_exprs.add(), ctx)
    if rel.n is not None:
        e.num_partitions = rel.n
    return e.input


def build_hint(rel: HintRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    h = out.hint
    h.name = rel.name
    ctx = em.ctx(rel.scope)
    for p in rel.parameters:
        emit(p, h.parameters.add(), ctx)
    return h.input


def build_tail(rel: TailRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    out.tail.limit = rel.n
    return out.tail.input


RELATION_BUILDERS: dict[type[Rel], Callable[[Any, pb.Relation, Emitter], pb.Relation | None]] = {
    LocalRel: build_local,
    FilterRel: build_filter,
    ProjectRel: build_project,
    WithColumnsRel: build_with_columns,
    RenameRel: build_with_columns_renamed,
    DropRel: build_drop,
    DedupRel: build_deduplicate,
    LimitRel: build_limit,
    OffsetRel: build_offset,
    SortRel: build_sort,
    AggregateRel: build_aggregate,
    JoinRel: build_join,
    SetOpRel: build_set_operation,
    ReadTableRel: build_read_table,
    ReadFilesRel: build_read_files,
    RangeRel: build_range,
    SqlRel: build_sql,
    SharedUseRel: build_shared_use,
    SampleRel: build_sample,
    RepartitionRel: build_repartition,
    HintRel: build_hint,
    TailRel: build_tail,
}


if set(Rel.__subclasses__()) - set(RELATION_BUILDERS):  # pragma: no cover - developer error at import
    missing = set(Rel.__subclasses__()) - set(RELATION_BUILDERS)
    raise RuntimeError(f"no relation builder for {sorted(c.__name__ for c in missing)}")
if set(_JOIN_TYPES) != set(ir.JOIN_KINDS):  # pragma: no cover
    raise RuntimeError(f"join kinds without a Spark join type: {sorted(set(ir.JOIN_KINDS) - set(_JOIN_TYPES))}")


@dataclass(eq=False, repr=False)
class Emitter(Record):
    """Top-down emission of ``Rel`` chains; collects every inline table it places."""

    inline_data: bool = True
    #: the client's UDFs, sent inline where the plan calls them
    udfs: Mapping[str, InlineUdf] = field(default_factory=dict)
    local: list[LocalData] = field(default_factory=list)
    #: ``id()`` of each subquery node → its lowered chain (see :func:`subqueries_in`)
    subqueries: Mapping[int, list[Rel]] = field(default_factory=dict)
    #: fresh plan ids (for the WithRelations around a relation that uses subqueries)
    new_id: Callable[[], int] | None = None
    #: a relation or the output named files (a Read.DataSource, a WriteOperation): only then
    #: has the executor relative paths to make absolute (client/paths.py)
    files: bool = False

    #: ``id()`` of each subquery node → the plan id of the reference relation last emitted for
    #: it (filled by :meth:`chain`; read, live, by the expressions that name the subquery)
    reference_ids: dict[int, int] = field(default_factory=dict)

    def chain(self, chain: list[Rel], out: pb.Relation) -> None:
        """Fill ``out`` with the chain, outermost relation first (no copies), each
        relation with its plan id. A relation whose expressions hold subqueries is wrapped
        in a ``WithRelations`` that carries their relations (as PySpark does)."""
        slot: pb.Relation | None = out
        builders = RELATION_BUILDERS
        for rel in reversed(chain):
            assert slot is not None
            if self.subqueries:
                subs = subqueries_in(rel)
                if subs:
                    assert self.new_id is not None
                    slot.common.plan_id = self.new_id()
                    wrapper = slot.with_relations
                    for sub in subs:
                        reference = wrapper.references.add()
                        self.chain(self.subqueries[id(sub)], reference)
                        # the subquery expression names this relation: its chain's last plan id,
                        # or the WithRelations around it when that relation holds subqueries too
                        # (Spark looks the id up among the references' own ids)
                        self.reference_ids[id(sub)] = reference.common.plan_id
                    slot = wrapper.root
            slot.common.plan_id = rel.plan_id
            slot = builders[type(rel)](rel, slot, self)

    def ctx(self, scope: Scope, *, literal_protos: bool = False) -> ExprContext:
        """The context a relation's expressions are emitted in."""
        ids = self.reference_ids if self.subqueries else _NO_IDS
        return ExprContext(scope, literal_protos=literal_protos, udfs=self.udfs, subquery_ids=ids)


#: the subquery ids of a plan without subqueries (shared, never changed)
_NO_IDS: Mapping[int, int] = MappingProxyType({})
#: values that never hold a subquery (skipped by :func:`subqueries_in` without a look inside)
_NO_SUBQUERY = frozenset({str, int, float, bool, bytes, type(None), ir.Col, ir.Lit, ir.LambdaVar})
#: each dataclass's field names, read once per class (see :func:`subqueries_in`)
_FIELDS: dict[type, tuple[str, ...]] = {}


def subqueries_in(node: Any) -> list[ir.Subquery]:
    """The subquery nodes in the expressions of a ``Rel`` or an IR step (not in its input
    chains or right-hand plans, and not nested in another subquery's plan), in order.
    Called for every step of every plan: leaves are skipped by type and each class's fields
    are read once (a generic walk was a quarter of translation's time at 100 steps)."""
    out: list[ir.Subquery] = []
    seen: set[int] = set()
    stack: list[Any] = [node]
    skip = _NO_SUBQUERY
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind in skip:
            continue
        if isinstance(value, ir.Subquery):
            if id(value) not in seen:
                seen.add(id(value))
                out.append(value)
            stack.extend(reversed(value.values))
        elif kind is list or kind is tuple:
            stack.extend(reversed(value))
        elif kind is dict:
            stack.extend(reversed(list(value.values())))
        elif isinstance(value, (ir.Plan, Rel, Scope)) and value is not node:
            continue
        else:
            names = _FIELDS.get(kind)
            if names is None:
                fields = getattr(kind, "__dataclass_fields__", None)
                names = _FIELDS[kind] = tuple(fields) if fields is not None and not isinstance(value, type) else ()
            if names:
                stack.extend(reversed([getattr(value, f) for f in names]))
    return out


def emit_chain(
    chain: list[Rel], out: pb.Relation, *, inline_data: bool = True, udfs: Mapping[str, InlineUdf] | None = None
) -> list[LocalData]:
    """Fill ``out`` with the chain (see :class:`Emitter`); returns the inline tables placed."""
    em = Emitter(inline_data, udfs or {})
    em.chain(chain, out)
    return em.local
