"""IR → Spark Connect ``Plan``, in three passes: deterministic, and pure but for one seam.

:func:`translate_ir` bounds the plan's size, then

1. **analyses** it (:mod:`.analyze`): the columns every step sees and outputs, and every
   check that needs them, all problems collected; the only pass that may ask a server
   (``resolver``) for names, when static tracking lost the names a join needs;
2. **lowers** it (:mod:`.lower`): a chain of small ``Rel`` records (:mod:`.rels`), runs
   merged, plan ids from a per-call counter (the same plan always gives the same proto:
   golden files stay stable); then bounds the chain's depth (:mod:`.bounds`);
3. **emits** the protos top-down (:mod:`.relations`, :mod:`.expressions`, :mod:`.outputs`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import field

from .. import ir
from ..errors import PlanError
from ..records import Value, frozen
from ..spark_proto import pb
from .analyze import Analyzer
from .bounds import check_depth, check_plan_size
from .expressions import InlineUdf
from .facts import PlanFacts, Resolver
from .lower import Lowerer
from .relations import Emitter, emit_chain, subqueries_in
from .rels import JoinRel, LimitRel, LocalData, Rel, SetOpRel, SharedUseRel

__all__ = ["LocalData", "Translation", "translate_ir"]


@frozen
class Translation(Value):
    """A translated plan plus what the executor needs to explain errors."""

    plan: pb.Plan
    #: plan id → indices of the plan steps merged into that relation
    steps_by_plan_id: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: output column names when known statically (None entries: named by Spark)
    columns: tuple[str | None, ...] | None = None
    #: op name of each top-level step, by index
    op_names: dict[int, str] = field(default_factory=dict)
    #: every inline table and the relation carrying it, in emission order
    local_data: tuple[LocalData, ...] = ()
    #: the output column names of every source and step by its location (``/plan/2``),
    #: as known statically (see :attr:`columns`; a plan drawing shows them)
    step_columns: Mapping[str, tuple[str | None, ...] | None] = field(default_factory=dict)
    #: the plan names files (reads them, or writes one): relative paths to make absolute
    #: for the local server (client/paths.py); none to look for otherwise
    files: bool = False


def _index(chain: list[Rel], out: dict[int, tuple[int, ...]]) -> None:
    for rel in chain:
        out[rel.plan_id] = tuple(rel.steps)
        if isinstance(rel, (JoinRel, SetOpRel)):
            _index(rel.right, out)
        elif isinstance(rel, SharedUseRel) and rel.shared.chain[-1].plan_id not in out:
            _index(rel.shared.chain, out)


def all_subqueries(plan: ir.Plan) -> list[ir.Subquery]:
    """Every subquery expression in the plan, its nested plans and the subqueries' own plans
    (each once, outermost first)."""
    out: list[ir.Subquery] = []
    if not ir.subqueries_made():
        return out
    plans = [plan]
    seen: set[int] = set()
    while plans:
        p = plans.pop(0)
        if id(p) in seen:
            continue
        seen.add(id(p))
        if isinstance(p.source, ir.SharedPlan):
            plans.append(p.source.plan)
        for step in p.steps:
            right = getattr(step, "right", None)
            if isinstance(right, ir.Plan):
                plans.append(right)
            for sub in subqueries_in(step):
                out.append(sub)
                plans.append(sub.plan)
    return out


def translate_ir(
    plan: ir.Plan,
    *,
    case_sensitive: bool = False,
    resolver: Resolver | None = None,
    udfs: Mapping[str, InlineUdf] | None = None,
    inline_data: bool = True,
    limit: int | None = None,
    check_only: bool = False,
) -> Translation:
    """Lower and emit ``plan``.

    ``udfs``: Python UDFs registered with the client, sent inline where the plan calls
    them by name (other names are called on the server). ``inline_data=False`` leaves each
    ``local_relation`` empty and lists it in ``Translation.local_data`` for the executor to
    fill (inline, or as a cached artifact). ``limit`` adds a ``Limit`` relation on top (a
    bounded preview; not a plan step). ``check_only=True`` validates without a server: what
    only a server can tell (the column names of a table joined without a schema) is not
    reported as ``needs_schema``, and the returned proto is not meant to be sent.
    """
    check_plan_size(plan)
    udfs = dict(udfs or {})
    for key, value in plan.conf:  # the plan document's own setting wins (as it does on the server)
        if key == "spark.sql.caseSensitive":
            case_sensitive = value.lower() == "true"

    def relation_of(facts: PlanFacts) -> tuple[pb.Relation, list[LocalData]]:
        """What the resolver is asked about: an analysed plan so far, lowered and emitted."""
        rel = pb.Relation()
        chain = Lowerer(case_sensitive=case_sensitive).plan(facts)
        return rel, emit_chain(chain, rel, inline_data=inline_data, udfs=udfs)

    analyzer = Analyzer(
        case_sensitive=case_sensitive, resolver=resolver, relation_of=relation_of, udfs=udfs, check_only=check_only
    )
    facts = analyzer.plan(plan)
    sub_facts = [(sub, analyzer.plan(sub.plan)) for sub in all_subqueries(plan)]
    if analyzer.errors:
        raise PlanError(analyzer.errors)
    lowerer = Lowerer(case_sensitive=case_sensitive)
    chain = lowerer.plan(facts)
    sub_chains = {id(sub): lowerer.plan(f) for sub, f in sub_facts}
    if limit is not None and plan.output is None:
        chain.append(LimitRel(lowerer.new_id(), [], limit))
    check_depth(chain, plan.loc)
    out = pb.Plan()
    em = Emitter(inline_data, udfs, subqueries=sub_chains, new_id=lowerer.new_id)
    if plan.output is not None:
        from .outputs import emit_output

        emit_output(plan.output, chain, lowerer.new_id(), out, em)
    else:
        em.chain(chain, out.root)
    by_id: dict[int, tuple[int, ...]] = {}
    _index(chain, by_id)
    for sub_chain in sub_chains.values():
        _index(sub_chain, by_id)
    return Translation(
        out,
        by_id,
        facts.scope.names,
        {s.index: s.op for s in plan.steps},
        tuple(em.local),
        dict(analyzer.columns),
        em.files,
    )
