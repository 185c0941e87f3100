"""IR plan steps → Spark Connect ``Relation`` protos.

Two passes over the step list:

1. **lower** (forward): tracks the output column names through every step (see
   :class:`~connect_plan.translator.scope.Scope`), merges runs that Spark can take as one
   relation (filters → one conjunction, independent ``withColumn``\\ s → one
   ``WithColumns``, renames, drops) and decides join renames (``name_right``). The result
   is a chain of small ``Rel`` records, innermost first, with plan ids assigned.
2. **emit** (top-down): the outermost relation is filled first and each builder returns
   the ``input`` slot of the relation it filled, for the next (inner) builder. Nothing is
   copied, so the cost per step is flat at any plan size (bottom-up building with
   ``CopyFrom`` re-copies the whole subtree at each level).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pyspark.sql.connect import proto as pb

from .. import ir
from ..data import fill_local_relation
from ..errors import ErrorDetail
from ..functions import CATALOG
from .expressions import ExprContext, emit, fill_sort_order
from .naming import col_output_name, default_agg_name, generator_names, is_generator, unique_suffix
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
    SharedRelation,
    SharedUseRel,
    SortRel,
    SqlRel,
    TailRel,
    WithColumnsRel,
)
from .scope import Scope
from .statictypes import generator_width, static_type

if TYPE_CHECKING:
    import pyarrow as pa

    from ..types import DataType

__all__ = ["Emitter", "Lowerer", "emit_chain"]


#: Spark function names whose results differ per evaluation (never merged across steps)
NONDETERMINISTIC = frozenset(
    {
        "rand",
        "randn",
        "uuid",
        "shuffle",
        "monotonically_increasing_id",
        "random",
        "spark_partition_id",
        "input_file_name",
    }
)

#: a resolver asks a server for the column names of a relation (None: not available); it
#: gets the relation and its inline tables (unfilled when translating with inline_data=False)
Resolver = Callable[[pb.Relation, "list[LocalData]"], "list[str]"]


# ------------------------------------------------------------------ lowering


_JOIN_TYPES = {
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
#: set operations that are a join on every column (their join type)
_PRIMARY_SET_OPS = {"minus_primary": "left_anti", "intersect_primary": "left_semi"}
_SET_OP_TYPES = {
    "union": pb.SetOperation.SET_OP_TYPE_UNION,
    "intersect": pb.SetOperation.SET_OP_TYPE_INTERSECT,
    "except": pb.SetOperation.SET_OP_TYPE_EXCEPT,
}


def _expr_refs(expr: ir.Expr) -> tuple[set[str], bool, bool, bool]:
    """Names referenced (lower-cased, with struct roots), and whether the expression has a
    star, a non-deterministic call, or a generator."""
    names: set[str] = set()
    star = nondet = generator = False
    stack: list[ir.Expr] = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ir.Lit:
            continue
        if kind is ir.Col:
            name = node.name.lower()  # type: ignore[union-attr]
            names.add(name)
            if "." in name:
                names.add(name.split(".", 1)[0])
        elif kind is ir.Call:
            spec = CATALOG[node.fn]  # type: ignore[union-attr]
            nondet = nondet or spec.nondeterministic or spec.spark in NONDETERMINISTIC
            generator = generator or spec.kind == "generator"
            stack.extend(node.args)  # type: ignore[union-attr]
        elif kind is ir.Star:
            star = True
        else:
            if kind is ir.UdfCall:
                nondet = True  # UDFs may be non-deterministic; never merged
            stack.extend(ir.children(node))
    return names, star, nondet, generator


class Lowerer:
    """Forward pass: IR steps → a chain of ``Rel`` with names tracked (see module doc)."""

    def __init__(
        self,
        *,
        case_sensitive: bool = False,
        resolver: Resolver | None = None,
        inline_data: bool = True,
        check_only: bool = False,
    ) -> None:
        self.case_sensitive = case_sensitive
        self.resolver = resolver
        self.inline_data = inline_data
        #: validating without a server: what only the server can tell (a join input's column
        #: names) is not an error; the checks that need those names are skipped
        self.check_only = check_only
        self.errors: list[ErrorDetail] = []
        self._next_id = 0
        #: shared sub-plans: uses counted before lowering, lowered once (by identity)
        self._uses: dict[int, int] = {}
        self._shared: dict[int, SharedRelation] = {}

    def new_id(self) -> int:
        pid = self._next_id
        self._next_id += 1
        return pid

    def err(self, code: str, loc: str, message: str, input: Any = None) -> None:
        self.errors.append(
            ErrorDetail(code, loc, message, input) if input is not None else ErrorDetail(code, loc, message)
        )

    # -------------------------------------------------------------- plans

    def plan(self, plan: ir.Plan) -> tuple[list[Rel], Scope]:
        if not self._uses:
            self.count_uses(plan)
        chain: list[Rel] = []
        scope = self.source(plan.source, chain)
        pending: ir.GroupBy | None = None
        for step in plan.steps:
            if isinstance(step, ir.Stop):
                continue  # a no-op everywhere, also between a groupBy and its agg
            if pending is not None:
                if isinstance(step, ir.Agg):
                    scope = self.aggregate(pending, step.aggs, chain, scope, extra_step=step.index)
                    pending = None
                    continue
                self.err(
                    "groupby_without_aggs",
                    pending.loc,
                    f"{pending.op} has no 'aggs' and is not followed by an 'agg' step (found {step.op!r})",
                )
                pending = None
            if isinstance(step, ir.GroupBy) and step.aggs is None:
                pending = step
                continue
            lower = LOWERINGS[type(step)]
            scope = lower(self, step, chain, scope)
        if pending is not None:
            self.err(
                "groupby_without_aggs",
                pending.loc,
                f"{pending.op} has no 'aggs' and is the last step; add 'aggs' or an 'agg' step",
            )
        return chain, scope

    def count_uses(self, plan: ir.Plan) -> None:
        """How often each shared sub-plan is used (iteratively: plans nest without limit)."""
        stack = [plan]
        seen: set[int] = set()
        while stack:
            p = stack.pop()
            if isinstance(p.source, ir.SharedPlan):
                key = id(p.source)
                self._uses[key] = self._uses.get(key, 0) + 1
                if key not in seen:
                    seen.add(key)
                    stack.append(p.source.plan)
            for step in p.steps:
                if isinstance(step, (ir.Join, ir.SetOp, ir.CrossJoin)):
                    stack.append(step.right)

    def source(self, source: ir.Source, chain: list[Rel]) -> Scope:
        return SOURCE_LOWERINGS[type(source)](self, source, chain)

    def inline_source(self, source: ir.InlineData, chain: list[Rel]) -> Scope:
        chain.append(LocalRel(self.new_id(), [], source.table))
        scope = Scope(tuple(source.table.column_names), self.case_sensitive)
        return scope.with_names(scope.names, _arrow_types(source.table, scope))

    def table_source(self, source: ir.TableSource, chain: list[Rel]) -> Scope:
        chain.append(ReadTableRel(self.new_id(), [], source.name, source.options))
        return Scope(None, self.case_sensitive)

    def file_source(self, source: ir.FileSource, chain: list[Rel]) -> Scope:
        chain.append(ReadFilesRel(self.new_id(), [], source))
        return Scope(source.columns, self.case_sensitive)

    def range_source(self, source: ir.RangeSource, chain: list[Rel]) -> Scope:
        chain.append(RangeRel(self.new_id(), [], source))
        return Scope(("id",), self.case_sensitive)

    def sql_source(self, source: ir.SqlSource, chain: list[Rel]) -> Scope:
        chain.append(SqlRel(self.new_id(), [], source))
        return Scope(None, self.case_sensitive)

    def shared_source(self, source: ir.SharedPlan, chain: list[Rel]) -> Scope:
        key = id(source)
        if self._uses.get(key, 0) <= 1:
            sub_chain, scope = self.plan(source.plan)
            chain.extend(sub_chain)
            return scope
        shared = self._shared.get(key)
        if shared is None:
            sub_chain, scope = self.plan(source.plan)
            shared = SharedRelation(sub_chain, scope)
            self._shared[key] = shared
        chain.append(SharedUseRel(self.new_id(), [], shared))
        return shared.scope

    def resolve(self, chain: list[Rel], scope: Scope) -> Scope:
        """Ask the server for the names when static tracking lost them (rare)."""
        if scope.complete or self.resolver is None:
            return scope
        last = chain[-1] if chain else None
        if isinstance(last, SharedUseRel):  # resolve the shared sub-plan once, for every use
            shared = last.shared
            if not shared.scope.complete:
                shared.scope = self.resolve(shared.chain, shared.scope)
            return shared.scope
        rel = pb.Relation()
        local = emit_chain(chain, rel, inline_data=self.inline_data)
        names = self.resolver(rel, local)
        return Scope(tuple(names), self.case_sensitive)

    # -------------------------------------------------------------- steps

    def filter(self, step: ir.Filter, chain: list[Rel], scope: Scope) -> Scope:
        last = chain[-1]
        _, _, nondet, _ = _expr_refs(step.condition)
        if isinstance(last, FilterRel) and not nondet and not last.nondet:
            last.conditions.append(step.condition)
            last.steps.append(step.index)
        else:
            chain.append(FilterRel(self.new_id(), [step.index], [step.condition], scope, nondet))
        return scope

    def select(self, step: ir.Select, chain: list[Rel], scope: Scope) -> Scope:
        out: list[str | None] = []
        unknown = False
        types: dict[str, Any] = {}
        for item in step.items:
            if isinstance(item.alias, str):
                self._check_generator_width(item.expr, scope, item.expr.loc, "the item names one column")
            known = static_type(item.expr, scope)
            if known is not None and (
                isinstance(item.alias, str) or (item.alias is None and isinstance(item.expr, ir.Col))
            ):
                types[scope.norm(item.alias or item.expr.name)] = known  # type: ignore[union-attr]
            if isinstance(item.alias, tuple):
                out.extend(item.alias)
            elif item.alias is not None:
                out.append(item.alias)
            elif is_generator(item.expr):
                generated = generator_names(item.expr)
                if generated is None:
                    unknown = True  # posexplode, inline ...: the column count depends on types
                else:
                    out.extend(generated)
            elif isinstance(item.expr, ir.Star):
                if scope.names is None:
                    unknown = True
                else:
                    out.extend(scope.names)
            elif isinstance(item.expr, ir.Col):
                name = item.expr.name
                out.append(name if scope.has(name) is not False or "." not in name else name.rsplit(".", 1)[-1])
            else:
                out.append(None)
        seen: dict[str, int] = {}
        for i, out_name in enumerate(out):
            if out_name is None:
                continue
            key = scope.norm(out_name)
            if key in seen:
                self.err(
                    "duplicate_column",
                    step.loc,
                    f"select outputs column {out_name!r} twice; output names must be unique (add an alias)",
                    out_name,
                )
            seen[key] = i
        chain.append(ProjectRel(self.new_id(), [step.index], list(step.items), scope))
        return scope.with_names(None if unknown else out, types)

    def with_column(self, step: ir.WithColumn, chain: list[Rel], scope: Scope) -> Scope:
        last = chain[-1]
        refs, star, _, generator = _expr_refs(step.expr)
        key = scope.norm(step.name)
        if (
            isinstance(last, WithColumnsRel)
            and not star
            and not generator
            and key not in last.defined
            and not (refs & last.defined_lower)
            and not last.generator
        ):
            last.items.append((step.name, step.expr))
            last.defined.add(key)
            last.defined_lower.add(key.lower())
            last.steps.append(step.index)
        else:
            chain.append(
                WithColumnsRel(
                    self.new_id(), [step.index], [(step.name, step.expr)], scope, {key}, {key.lower()}, generator
                )
            )
        self._check_generator_width(step.expr, scope, step.expr.loc, "withColumn names one column")
        if scope.names is None:
            return scope
        names = list(scope.names)
        idx = scope.index_of(step.name)
        if idx is None:
            names.append(step.name)
        else:
            names[idx] = step.name
        types = {k: t for k, t in scope.types.items() if k != key}
        new_type = static_type(step.expr, scope)
        if new_type is not None:
            types[key] = new_type
        return scope.with_names(names, types)

    def _check_generator_width(self, expr: ir.Expr, scope: Scope, loc: str, why: str) -> None:
        """A generator that outputs several columns cannot go under one name: Spark's
        UDTF_ALIAS_NUMBER_MISMATCH, refused here before anything is sent."""
        if not is_generator(expr):
            return
        assert isinstance(expr, ir.Call)
        width = generator_width(expr, scope)
        if width is None or width < 2:
            return
        many = "at least 2" if expr.fn.startswith("posexplode") and width == 2 else str(width)
        self.err(
            "generator_columns",
            loc,
            f"{expr.fn!r} outputs {many} columns here and {why} (Spark refuses it: UDTF_ALIAS_NUMBER_MISMATCH); "
            'use a select item with one name per column ({"expr": ..., "name": ["pos", "col"]}) or no name',
        )

    def rename(self, step: ir.WithColumnRenamed, chain: list[Rel], scope: Scope) -> Scope:
        idx = scope.index_of(step.old)
        if idx is None and scope.complete:
            self.err(
                "unknown_column",
                f"{step.loc}/payload/old",
                f"withColumnRenamed: no column {step.old!r} (columns: {scope.known()})",
                step.old,
            )
            return scope
        clash = scope.index_of(step.new)
        if clash is not None and clash != idx:
            self.err(
                "duplicate_column",
                f"{step.loc}/payload/new",
                f"withColumnRenamed: a column {step.new!r} already exists; output names must be unique",
                step.new,
            )
            return scope
        last = chain[-1]
        olds = {scope.norm(o) for o, _ in last.pairs} if isinstance(last, RenameRel) else set()
        news = {scope.norm(n) for _, n in last.pairs} if isinstance(last, RenameRel) else set()
        if isinstance(last, RenameRel) and not ({scope.norm(step.old), scope.norm(step.new)} & (olds | news)):
            last.pairs.append((step.old, step.new))
            last.steps.append(step.index)
        else:
            chain.append(RenameRel(self.new_id(), [step.index], [(step.old, step.new)]))
        if scope.names is None or idx is None:
            return scope
        names = list(scope.names)
        names[idx] = step.new
        types = {k: t for k, t in scope.types.items() if k != scope.norm(step.old)}
        moved = scope.type_of(step.old)
        if moved is not None:
            types[scope.norm(step.new)] = moved
        return scope.with_names(names, types)

    def drop(self, step: ir.Drop, chain: list[Rel], scope: Scope) -> Scope:
        names = list(scope.names) if scope.names is not None else None
        for i, name in enumerate(step.names):
            idx = scope.index_of(name)
            if idx is None and scope.complete:
                self.err(
                    "unknown_column",
                    f"{step.loc}/payload/columns/{i}",
                    f"drop: no column {name!r} (columns: {scope.known()})",
                    name,
                )
            elif idx is not None and names is not None:
                names[idx] = "\0dropped"
        if names is not None:
            names = [n for n in names if n != "\0dropped"]
        last = chain[-1]
        if isinstance(last, DropRel):
            last.names.extend(step.names)
            last.steps.append(step.index)
        else:
            chain.append(DropRel(self.new_id(), [step.index], list(step.names), scope))
        return scope.with_names(names, scope.types)

    def distinct(self, step: ir.Distinct, chain: list[Rel], scope: Scope) -> Scope:
        chain.append(DedupRel(self.new_id(), [step.index]))
        return scope

    def limit(self, step: ir.Limit, chain: list[Rel], scope: Scope) -> Scope:
        chain.append(LimitRel(self.new_id(), [step.index], step.n))
        return scope

    def offset(self, step: ir.Offset, chain: list[Rel], scope: Scope) -> Scope:
        if step.n:
            chain.append(OffsetRel(self.new_id(), [step.index], step.n))
        return scope

    def order_by(self, step: ir.OrderBy, chain: list[Rel], scope: Scope) -> Scope:
        chain.append(SortRel(self.new_id(), [step.index], list(step.keys), scope, step.is_global))
        return scope

    def group_by(self, step: ir.GroupBy, chain: list[Rel], scope: Scope) -> Scope:
        assert step.aggs is not None
        return self.aggregate(step, step.aggs, chain, scope)

    def agg(self, step: ir.Agg, chain: list[Rel], scope: Scope) -> Scope:
        # a standalone agg not preceded by a groupBy aggregates all rows (DataFrame.agg)
        whole = ir.GroupBy(step.index, step.op, step.loc, "groupby", (), None)
        return self.aggregate(whole, step.aggs, chain, scope)

    def aggregate(
        self,
        step: ir.GroupBy,
        aggs: tuple[ir.AggItem, ...],
        chain: list[Rel],
        scope: Scope,
        extra_step: int | None = None,
    ) -> Scope:
        steps = [step.index] + ([extra_step] if extra_step is not None else [])
        chain.append(AggregateRel(self.new_id(), steps, step.kind, list(step.keys), list(aggs), scope, step.sets))
        names: list[str | None] = []
        for k in step.keys:
            names.append(col_output_name(k, scope))
        seen = {scope.norm(n) for n in names if n is not None}
        for a in aggs:
            name = a.alias if a.alias is not None else default_agg_name(a.expr)
            if name is not None and scope.norm(name) in seen:
                self.err(
                    "duplicate_column",
                    a.loc,
                    f"{step.op} outputs column {name!r} twice; output names must be unique (add an alias)",
                    name,
                )
            elif name is not None:
                seen.add(scope.norm(name))
            names.append(name)
        return scope.with_names(names)

    # -------------------------------------------------------------- binary steps

    def _right(self, plan: ir.Plan) -> tuple[list[Rel], Scope]:
        return self.plan(plan)

    def join(self, step: ir.Join, chain: list[Rel], scope: Scope) -> Scope:
        right_chain, right = self._right(step.right)
        if step.right_hint is not None:
            right_chain.append(HintRel(self.new_id(), [step.index], step.right_hint, [], right))
        left = scope
        how = step.how
        semi = how in ("left_semi", "left_anti")
        using = list(step.keys) if step.condition is None else []
        keys_as_condition = list(step.keys) if step.condition is not None else []
        if not left.complete and not semi:
            left = self.resolve(chain, left)
        if not right.complete and not semi:
            right = self.resolve(right_chain, right)
        # keys must exist on both sides (when that can be known)
        for k in step.keys:
            for side_name, sc in (("left", left), ("right", right)):
                if sc.has(k) is False:
                    self.err(
                        "unknown_column",
                        f"{step.loc}/payload/on",
                        f"join key {k!r} is not a column of the {side_name} side (columns: {sc.known()})",
                        k,
                    )
        renames: dict[str, str] = {}
        if not semi:
            if not left.complete or not right.complete:
                if not self.check_only:
                    self.err(
                        "needs_schema",
                        step.loc,
                        "the column names of a join input cannot be known without asking the server; translate with a client (connect_plan.connect(...).translate) or name every computed column",
                    )
            else:
                key_set = {left.norm(k) for k in using}
                taken = {left.norm(n) for n in left.known()} | {left.norm(n) for n in right.known()}
                for name in right.known():
                    if left.norm(name) in key_set:
                        continue
                    if left.has(name):
                        new = unique_suffix(name, taken, left.norm)
                        taken.add(left.norm(new))
                        renames[left.norm(name)] = new
        if renames:
            right_chain.append(RenameRel(self.new_id(), [], _rename_pairs(right, renames)))
        # condition references use the right side's original names; renames map them
        left_scope = Scope(left.names, self.case_sensitive, plan_id=chain[-1].plan_id)
        right_scope = Scope(right.names, self.case_sensitive, plan_id=right_chain[-1].plan_id, renames=renames)
        condition = step.condition
        if keys_as_condition:
            eqs: list[ir.Expr] = [
                ir.Call("==", (ir.Col(k, step.loc, "left"), ir.Col(k, step.loc, "right")), step.loc)
                for k in keys_as_condition
            ]
            condition = ir.Call("and", (*eqs, condition), step.loc) if condition is not None else None
        cond_scope = (
            Scope(None, self.case_sensitive, sides={"left": left_scope, "right": right_scope})
            if condition is not None
            else None
        )
        chain.append(JoinRel(self.new_id(), [step.index], right_chain, how, using, condition, cond_scope))
        if semi:
            if not using or scope.names is None:
                return scope
            # a USING semi/anti join outputs the key columns first, then the rest of the left
            key_norms = {scope.norm(k) for k in using}
            keys_first = [scope.names[i] if (i := scope.index_of(k)) is not None else k for k in using]
            return scope.with_names(
                [*keys_first, *(n for n in scope.names if n is None or scope.norm(n) not in key_norms)]
            )
        if not left.complete or not right.complete:
            return scope.with_names(None)
        right_names = [renames.get(right.norm(n), n) if renames else n for n in right.known()]
        if using:
            key_norms = {left.norm(k) for k in using}
            key_names = []
            for k in using:
                i = left.index_of(k)
                key_names.append(left.known()[i] if i is not None else k)
            rest_left = [n for n in left.known() if left.norm(n) not in key_norms]
            rest_right = [n for n in right_names if left.norm(n) not in key_norms]
            return scope.with_names([*key_names, *rest_left, *rest_right])
        return scope.with_names([*left.known(), *right_names])

    def cross_join(self, step: ir.CrossJoin, chain: list[Rel], scope: Scope) -> Scope:
        as_join = ir.Join(step.index, step.op, step.loc, step.right, "cross", (), None)
        return self.join(as_join, chain, scope)

    def set_op(self, step: ir.SetOp, chain: list[Rel], scope: Scope) -> Scope:
        if step.kind in _PRIMARY_SET_OPS:
            return self.primary_set_op(step, chain, scope)
        right_chain, right = self._right(step.right)
        chain.append(
            SetOpRel(
                self.new_id(), [step.index], right_chain, step.by_name, step.allow_missing, not step.distinct, step.kind
            )
        )
        if not step.by_name or scope.names is None:
            return scope
        if not scope.complete or not right.complete:
            return scope.with_names(None)
        extra = [n for n in right.known() if not scope.has(n)]
        return scope.with_names([*scope.known(), *(extra if step.allow_missing else [])])

    def primary_set_op(self, step: ir.SetOp, chain: list[Rel], scope: Scope) -> Scope:
        """Substrait Minus (Primary) / Intersection (Primary), the primary input's rows with
        their duplicates, without / with a matching row in the other input: a left anti /
        semi join on null-safe equality of every column, paired by position as set
        operations pair them (Spark's EXCEPT and INTERSECT would de-duplicate or count)."""
        right_chain, right = self._right(step.right)
        left = scope if scope.complete else self.resolve(chain, scope)
        if not right.complete:
            right = self.resolve(right_chain, right)
        how = _PRIMARY_SET_OPS[step.kind]
        if not left.complete or not right.complete:
            if not self.check_only:
                self.err(
                    "needs_schema",
                    step.loc,
                    f"{step.op} pairs the columns of both inputs by position, and their names cannot be known without asking the server; translate with a client (connect_plan.connect(...).translate) or name every computed column",
                )
            chain.append(JoinRel(self.new_id(), [step.index], right_chain, how, [], None, None))
            return scope
        left_names, right_names = left.known(), right.known()
        if len(left_names) != len(right_names):
            self.err(
                "column_count",
                step.loc,
                f"{step.op} pairs columns by position, so both inputs need the same number of columns: the left has {len(left_names)} ({left_names}), the right {len(right_names)} ({right_names})",
            )
            return scope
        left_scope = Scope(left.names, self.case_sensitive, plan_id=chain[-1].plan_id)
        right_scope = Scope(right.names, self.case_sensitive, plan_id=right_chain[-1].plan_id)
        eqs: list[ir.Expr] = [
            ir.Call("<=>", (ir.Col(a, step.loc, "left"), ir.Col(b, step.loc, "right")), step.loc)
            for a, b in zip(left_names, right_names)
        ]
        condition = eqs[0] if len(eqs) == 1 else ir.Call("and", tuple(eqs), step.loc)
        cond_scope = Scope(None, self.case_sensitive, sides={"left": left_scope, "right": right_scope})
        chain.append(JoinRel(self.new_id(), [step.index], right_chain, how, [], condition, cond_scope))
        return scope

    def stop(self, step: ir.Stop, chain: list[Rel], scope: Scope) -> Scope:
        return scope

    def fetch(self, step: ir.Fetch, chain: list[Rel], scope: Scope) -> Scope:
        # Substrait Fetch = Spark's Offset then Limit (df.offset(o).limit(n))
        if step.offset:
            chain.append(OffsetRel(self.new_id(), [step.index], step.offset))
        if step.count is not None:
            chain.append(LimitRel(self.new_id(), [step.index], step.count))
        return scope

    def sample(self, step: ir.Sample, chain: list[Rel], scope: Scope) -> Scope:
        chain.append(SampleRel(self.new_id(), [step.index], step))
        return scope

    def repartition(self, step: ir.Repartition, chain: list[Rel], scope: Scope) -> Scope:
        chain.append(RepartitionRel(self.new_id(), [step.index], step.n, list(step.keys), step.shuffle, scope))
        return scope

    def hint(self, step: ir.Hint, chain: list[Rel], scope: Scope) -> Scope:
        chain.append(HintRel(self.new_id(), [step.index], step.name, list(step.parameters), scope))
        return scope

    def tail(self, step: ir.Tail, chain: list[Rel], scope: Scope) -> Scope:
        chain.append(TailRel(self.new_id(), [step.index], step.n))
        return scope


def _rename_pairs(right: Scope, renames: dict[str, str]) -> list[tuple[str, str]]:
    return [(n, renames[right.norm(n)]) for n in right.known() if right.norm(n) in renames]


def _arrow_types(table: pa.Table, scope: Scope) -> dict[str, DataType]:
    """The plan-format types of an inline table's columns (normalised names)."""
    from ..types import TypeParseError, from_arrow

    out: dict[str, DataType] = {}
    for f in table.schema:
        try:
            out[scope.norm(f.name)] = from_arrow(f.type)
        except TypeParseError:
            continue
    return out


LOWERINGS: dict[type, Callable[[Lowerer, Any, list[Rel], Scope], Scope]] = {
    ir.Filter: Lowerer.filter,
    ir.Select: Lowerer.select,
    ir.WithColumn: Lowerer.with_column,
    ir.WithColumnRenamed: Lowerer.rename,
    ir.Drop: Lowerer.drop,
    ir.Distinct: Lowerer.distinct,
    ir.Limit: Lowerer.limit,
    ir.Offset: Lowerer.offset,
    ir.OrderBy: Lowerer.order_by,
    ir.GroupBy: Lowerer.group_by,
    ir.Agg: Lowerer.agg,
    ir.Join: Lowerer.join,
    ir.SetOp: Lowerer.set_op,
    ir.CrossJoin: Lowerer.cross_join,
    ir.Stop: Lowerer.stop,
    ir.Fetch: Lowerer.fetch,
    ir.Sample: Lowerer.sample,
    ir.Repartition: Lowerer.repartition,
    ir.Hint: Lowerer.hint,
    ir.Tail: Lowerer.tail,
}

SOURCE_LOWERINGS: dict[type, Callable[[Lowerer, Any, list[Rel]], Scope]] = {
    ir.InlineData: Lowerer.inline_source,
    ir.TableSource: Lowerer.table_source,
    ir.FileSource: Lowerer.file_source,
    ir.RangeSource: Lowerer.range_source,
    ir.SqlSource: Lowerer.sql_source,
    ir.SharedPlan: Lowerer.shared_source,
}

# ------------------------------------------------------------------ emission (top-down)


def _ctx(scope: Scope) -> ExprContext:
    return ExprContext(scope)


def build_local(rel: LocalRel, out: pb.Relation, em: Emitter) -> None:
    if em.inline_data:
        fill_local_relation(out.local_relation, rel.table)
    em.local.append(LocalData(out, rel.table))
    return None


def build_filter(rel: FilterRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    f = out.filter
    cond = rel.conditions[0] if len(rel.conditions) == 1 else ir.Call("and", tuple(rel.conditions), "")
    emit(cond, f.condition, _ctx(rel.scope))
    return f.input


def build_project(rel: ProjectRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    p = out.project
    ctx = _ctx(rel.scope)
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
    ctx = _ctx(rel.scope)
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
    ctx = _ctx(rel.scope)
    for key in rel.keys:
        fill_sort_order(key, s.order.add(), ctx)
    return s.input


def build_aggregate(rel: AggregateRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    a = out.aggregate
    a.group_type = _GROUP_TYPES[rel.kind]
    ctx = _ctx(rel.scope)
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
        emit(rel.condition, j.join_condition, ExprContext(rel.cond_scope))
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
    ctx = ExprContext(Scope(None), literal_protos=True)
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
    ctx = _ctx(rel.scope)
    for k in rel.keys:
        emit(k, e.partition_exprs.add(), ctx)
    if rel.n is not None:
        e.num_partitions = rel.n
    return e.input


def build_hint(rel: HintRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    h = out.hint
    h.name = rel.name
    ctx = _ctx(rel.scope)
    for p in rel.parameters:
        emit(p, h.parameters.add(), ctx)
    return h.input


def build_tail(rel: TailRel, out: pb.Relation, em: Emitter) -> pb.Relation:
    out.tail.limit = rel.n
    return out.tail.input


RELATION_BUILDERS: dict[type, Callable[[Any, pb.Relation, Emitter], pb.Relation | None]] = {
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
if set(ir.STEP_CLASSES) - set(LOWERINGS):  # pragma: no cover
    raise RuntimeError(f"no lowering for {sorted(c.__name__ for c in set(ir.STEP_CLASSES) - set(LOWERINGS))}")


@dataclass
class Emitter:
    """Top-down emission of ``Rel`` chains; collects every inline table it places."""

    inline_data: bool = True
    local: list[LocalData] = field(default_factory=list)

    def chain(self, chain: list[Rel], out: pb.Relation) -> None:
        """Fill ``out`` with the chain, outermost relation first (no copies), each
        relation with its plan id (the one place that sets it)."""
        slot: pb.Relation | None = out
        builders = RELATION_BUILDERS
        for rel in reversed(chain):
            assert slot is not None
            slot.common.plan_id = rel.plan_id
            slot = builders[type(rel)](rel, slot, self)


def emit_chain(chain: list[Rel], out: pb.Relation, *, inline_data: bool = True) -> list[LocalData]:
    """Fill ``out`` with the chain (see :class:`Emitter`); returns the inline tables placed."""
    em = Emitter(inline_data)
    em.chain(chain, out)
    return em.local
