"""Lowering, the translator's second pass: analysed steps → a chain of ``Rel`` records.

Forward over the :class:`~.facts.PlanFacts`, innermost relation first, one plan id each
from a per-call counter (the same plan always gets the same ids: golden files stay
stable). It merges runs that Spark can take as one relation, which keeps a long plan under
the servers' nesting limit: filters into one conjunction, independent ``withColumn``\\ s
into one ``WithColumns``, renames, drops; and it turns join keys given with a condition
into equalities. Each merge rule is a small function below.

Everything a rule needs to know of names, analysis has decided: lowering reports no
errors and does no I/O.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import ir
from .facts import (
    AggregateFacts,
    FilterFacts,
    JoinFacts,
    PlanFacts,
    PrimarySetOpFacts,
    SetOpFacts,
    StepFacts,
    WithColumnFacts,
)
from .rels import (
    AggregateRel,
    DedupRel,
    DropRel,
    FilterRel,
    HintRel,
    JoinRel,
    LimitRel,
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

__all__ = ["LOWERINGS", "Lowerer"]


class Lowerer:
    """Lowers analysed plans; holds the plan-id counter and the shared sub-plans lowered
    so far (each lowered once, emitted at every use)."""

    def __init__(self, *, case_sensitive: bool = False) -> None:
        self.case_sensitive = case_sensitive
        self._next_id = 0
        self._shared: dict[int, SharedRelation] = {}

    def new_id(self) -> int:
        pid = self._next_id
        self._next_id += 1
        return pid

    def plan(self, facts: PlanFacts) -> list[Rel]:
        chain: list[Rel] = []
        self.source(facts, chain)
        lowerings = LOWERINGS
        for step in facts.steps:
            lowerings[type(step.step)](self, step, chain)
        return chain

    def source(self, facts: PlanFacts, chain: list[Rel]) -> None:
        inner = facts.inner
        if inner is None:
            chain.append(SOURCE_LOWERINGS[type(facts.source)](self.new_id(), facts.source))
        elif not facts.shared:
            chain.extend(self.plan(inner))
        else:
            shared = self._shared.get(id(inner))
            if shared is None:
                shared = self._shared[id(inner)] = SharedRelation(self.plan(inner))
            chain.append(SharedUseRel(self.new_id(), [], shared))

    def side(self, names: Scope, plan_id: int, renames: dict[str, str] | None = None) -> Scope:
        """One input of a join condition: its columns, and the plan id that pins a
        reference to it (renames: right-hand columns renamed before the join)."""
        return Scope(names.names, self.case_sensitive, plan_id=plan_id, renames=renames or {})

    def condition_scope(self, left: Scope, right: Scope) -> Scope:
        return Scope(None, self.case_sensitive, sides={"left": left, "right": right})


# ------------------------------------------------------------------ merge rules


def _filter_run(last: Rel, facts: FilterFacts) -> FilterRel | None:
    """A deterministic condition joins the deterministic filter before it (one conjunction)."""
    return last if isinstance(last, FilterRel) and not facts.nondet and not last.nondet else None


def _with_columns_run(last: Rel, facts: WithColumnFacts) -> WithColumnsRel | None:
    """A withColumn joins the run before it unless it reads or redefines a column of the
    run, or either holds a star or a generator (then the order of evaluation shows)."""
    if not isinstance(last, WithColumnsRel) or last.generator or facts.star or facts.generator:
        return None
    return last if facts.key not in last.defined and not (facts.refs & last.defined_lower) else None


def _rename_run(last: Rel, old: str, new: str, norm: Callable[[str], str]) -> RenameRel | None:
    """A rename joins the renames before it unless it touches a name they rename from or to."""
    if not isinstance(last, RenameRel):
        return None
    touched = {norm(o) for o, _ in last.pairs} | {norm(n) for _, n in last.pairs}
    return None if {norm(old), norm(new)} & touched else last


def _drop_run(last: Rel) -> DropRel | None:
    """Drops always merge: dropping ``a`` then ``b`` is dropping both."""
    return last if isinstance(last, DropRel) else None


def _keys_as_condition(step: ir.Join) -> ir.Expr | None:
    """Keys given together with a condition join as equalities ANDed in front of it
    (Spark has USING columns or a condition, not both)."""
    if step.condition is None or not step.keys:
        return step.condition
    eqs: list[ir.Expr] = [
        ir.Call("==", (ir.Col(k, step.loc, "left"), ir.Col(k, step.loc, "right")), step.loc) for k in step.keys
    ]
    return ir.Call("and", (*eqs, step.condition), step.loc)


def _columns_paired(left: Scope, right: Scope, loc: str) -> ir.Expr:
    """Every column null-safe equal to the other input's column at its position."""
    eqs: list[ir.Expr] = [
        ir.Call("<=>", (ir.Col(a, loc, "left"), ir.Col(b, loc, "right")), loc)
        for a, b in zip(left.known(), right.known())
    ]
    return eqs[0] if len(eqs) == 1 else ir.Call("and", tuple(eqs), loc)


# ------------------------------------------------------------------ steps


def lower_filter(lw: Lowerer, facts: FilterFacts, chain: list[Rel]) -> None:
    step = facts.step
    run = _filter_run(chain[-1], facts)
    if run is not None:
        run.conditions.append(step.condition)
        run.steps.append(step.index)
    else:
        chain.append(FilterRel(lw.new_id(), [step.index], [step.condition], facts.scope, facts.nondet))


def lower_select(lw: Lowerer, facts: StepFacts[ir.Select], chain: list[Rel]) -> None:
    step = facts.step
    chain.append(ProjectRel(lw.new_id(), [step.index], list(step.items), facts.scope))


def lower_with_column(lw: Lowerer, facts: WithColumnFacts, chain: list[Rel]) -> None:
    step = facts.step
    key = facts.key
    run = _with_columns_run(chain[-1], facts)
    if run is not None:
        run.items.append((step.name, step.expr))
        run.defined.add(key)
        run.defined_lower.add(key.lower())
        run.steps.append(step.index)
    else:
        chain.append(
            WithColumnsRel(
                lw.new_id(), [step.index], [(step.name, step.expr)], facts.scope, {key}, {key.lower()}, facts.generator
            )
        )


def lower_rename(lw: Lowerer, facts: StepFacts[ir.WithColumnRenamed], chain: list[Rel]) -> None:
    step = facts.step
    run = _rename_run(chain[-1], step.old, step.new, facts.scope.norm)
    if run is not None:
        run.pairs.append((step.old, step.new))
        run.steps.append(step.index)
    else:
        chain.append(RenameRel(lw.new_id(), [step.index], [(step.old, step.new)]))


def lower_drop(lw: Lowerer, facts: StepFacts[ir.Drop], chain: list[Rel]) -> None:
    step = facts.step
    run = _drop_run(chain[-1])
    if run is not None:
        run.names.extend(step.names)
        run.steps.append(step.index)
    else:
        chain.append(DropRel(lw.new_id(), [step.index], list(step.names), facts.scope))


def lower_aggregate(lw: Lowerer, facts: AggregateFacts, chain: list[Rel]) -> None:
    step = facts.step
    steps = [step.index] + ([facts.agg_index] if facts.agg_index is not None else [])
    chain.append(AggregateRel(lw.new_id(), steps, step.kind, list(step.keys), list(facts.aggs), facts.scope, step.sets))


def lower_join(lw: Lowerer, facts: JoinFacts, chain: list[Rel]) -> None:
    step = facts.step
    right_chain = lw.plan(facts.right)
    if step.right_hint is not None:
        right_chain.append(HintRel(lw.new_id(), [step.index], step.right_hint, [], facts.right.scope))
    if facts.rename_pairs:
        right_chain.append(RenameRel(lw.new_id(), [], facts.rename_pairs))
    condition = _keys_as_condition(step)
    cond_scope: Scope | None = None
    if condition is not None:
        # condition references use the right side's original names; renames map them
        left = lw.side(facts.left_names, chain[-1].plan_id)
        right = lw.side(facts.right_names, right_chain[-1].plan_id, facts.renames)
        cond_scope = lw.condition_scope(left, right)
    chain.append(JoinRel(lw.new_id(), [step.index], right_chain, step.how, list(facts.using), condition, cond_scope))


def lower_set_op(lw: Lowerer, facts: SetOpFacts | PrimarySetOpFacts, chain: list[Rel]) -> None:
    step = facts.step
    right_chain = lw.plan(facts.right)
    if isinstance(facts, SetOpFacts):
        pid = lw.new_id()
        chain.append(
            SetOpRel(pid, [step.index], right_chain, step.by_name, step.allow_missing, not step.distinct, step.kind)
        )
        return
    left, right = facts.left_names, facts.right_names
    condition: ir.Expr | None = None
    cond_scope: Scope | None = None
    if left.complete and right.complete:  # else validating only: the names are the server's
        condition = _columns_paired(left, right, step.loc)
        cond_scope = lw.condition_scope(lw.side(left, chain[-1].plan_id), lw.side(right, right_chain[-1].plan_id))
    chain.append(JoinRel(lw.new_id(), [step.index], right_chain, facts.how, [], condition, cond_scope))


def lower_distinct(lw: Lowerer, facts: StepFacts[ir.Distinct], chain: list[Rel]) -> None:
    chain.append(DedupRel(lw.new_id(), [facts.step.index]))


def lower_limit(lw: Lowerer, facts: StepFacts[ir.Limit], chain: list[Rel]) -> None:
    step = facts.step
    chain.append(LimitRel(lw.new_id(), [step.index], step.n))


def lower_offset(lw: Lowerer, facts: StepFacts[ir.Offset], chain: list[Rel]) -> None:
    step = facts.step  # never offset(0): analysis leaves it out
    chain.append(OffsetRel(lw.new_id(), [step.index], step.n))


def lower_fetch(lw: Lowerer, facts: StepFacts[ir.Fetch], chain: list[Rel]) -> None:
    step = facts.step
    # Substrait Fetch = Spark's Offset then Limit (df.offset(o).limit(n))
    if step.offset:
        chain.append(OffsetRel(lw.new_id(), [step.index], step.offset))
    if step.count is not None:
        chain.append(LimitRel(lw.new_id(), [step.index], step.count))


def lower_order_by(lw: Lowerer, facts: StepFacts[ir.OrderBy], chain: list[Rel]) -> None:
    step = facts.step
    chain.append(SortRel(lw.new_id(), [step.index], list(step.keys), facts.scope, step.is_global))


def lower_sample(lw: Lowerer, facts: StepFacts[ir.Sample], chain: list[Rel]) -> None:
    step = facts.step
    chain.append(SampleRel(lw.new_id(), [step.index], step))


def lower_repartition(lw: Lowerer, facts: StepFacts[ir.Repartition], chain: list[Rel]) -> None:
    step = facts.step
    chain.append(RepartitionRel(lw.new_id(), [step.index], step.n, list(step.keys), step.shuffle, facts.scope))


def lower_hint(lw: Lowerer, facts: StepFacts[ir.Hint], chain: list[Rel]) -> None:
    step = facts.step
    chain.append(HintRel(lw.new_id(), [step.index], step.name, list(step.parameters), facts.scope))


def lower_tail(lw: Lowerer, facts: StepFacts[ir.Tail], chain: list[Rel]) -> None:
    step = facts.step
    chain.append(TailRel(lw.new_id(), [step.index], step.n))


#: steps analysis turns into others (a join, a groupBy) or leaves out (stop)
_ANALYSED_AWAY = (ir.CrossJoin, ir.Agg, ir.Stop)
LOWERINGS: dict[type, Callable[[Lowerer, Any, list[Rel]], None]] = ir.covering(
    {
        ir.Filter: lower_filter,
        ir.Select: lower_select,
        ir.WithColumn: lower_with_column,
        ir.WithColumnRenamed: lower_rename,
        ir.Drop: lower_drop,
        ir.Distinct: lower_distinct,
        ir.Limit: lower_limit,
        ir.Offset: lower_offset,
        ir.OrderBy: lower_order_by,
        ir.GroupBy: lower_aggregate,
        ir.Join: lower_join,
        ir.SetOp: lower_set_op,
        ir.Fetch: lower_fetch,
        ir.Sample: lower_sample,
        ir.Repartition: lower_repartition,
        ir.Hint: lower_hint,
        ir.Tail: lower_tail,
    },
    ir.STEP_CLASSES,
    "translator.lower.LOWERINGS",
    absent=_ANALYSED_AWAY,
)

#: sources: one relation each (a shared sub-plan is handled by :meth:`Lowerer.source`)
SOURCE_LOWERINGS: dict[type, Callable[[int, Any], Rel]] = ir.covering(
    {
        ir.InlineData: lambda pid, s: LocalRel(pid, [], s.table),
        ir.TableSource: lambda pid, s: ReadTableRel(pid, [], s.name, s.options),
        ir.FileSource: lambda pid, s: ReadFilesRel(pid, [], s),
        ir.RangeSource: lambda pid, s: RangeRel(pid, [], s),
        ir.SqlSource: lambda pid, s: SqlRel(pid, [], s),
    },
    ir.SOURCE_CLASSES,
    "translator.lower.SOURCE_LOWERINGS",
    absent=(ir.SharedPlan,),
)
