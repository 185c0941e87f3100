"""The translator's size bounds: one on the IR before anything is done with it, one on the
lowered chain before it is emitted (Spark Connect servers refuse deep plans, and a plan that
copies shared sub-plans into every use can ask for gigabytes)."""

from __future__ import annotations

from .. import ir
from ..errors import PlanError
from ..limits import MAX_EXPANDED_STEPS, MAX_PLAN_NESTING, MAX_RELATION_DEPTH
from .rels import JoinRel, Rel, SetOpRel, SharedUseRel

__all__ = ["chain_depth", "check_depth", "check_plan_size"]


def check_plan_size(plan: ir.Plan) -> None:
    """Bound what analysis, lowering and emission will do, before they start: sub-plans
    (nested documents and references to ``with`` definitions) nest at most
    ``MAX_PLAN_NESTING`` levels, and the plan has at most ``MAX_EXPANDED_STEPS`` steps
    counting every use of a shared sub-plan, which is copied into each use (definitions that
    use the one before twice double the plan at every level: 2 KB of JSON could otherwise
    ask for gigabytes).
    """
    # iterative post-order over plans; a shared sub-plan is measured once (by identity)
    measured: dict[int, tuple[int, int]] = {}  # id(plan) → (nesting, expanded steps)
    stack: list[tuple[ir.Plan, bool]] = [(plan, False)]
    while stack:
        node, children_done = stack.pop()
        if id(node) in measured:
            continue
        subs = _sub_plans(node)
        if not children_done:
            stack.append((node, True))
            stack.extend((sub, False) for sub in subs if id(sub) not in measured)
            continue
        nesting = 1 + max((measured[id(sub)][0] for sub in subs), default=0)
        steps = 1 + len(node.steps) + sum(measured[id(sub)][1] for sub in subs)
        measured[id(node)] = (nesting, steps)
        if nesting > MAX_PLAN_NESTING + 1:
            raise PlanError.single(
                "too_deep",
                node.loc,
                f"sub-plans (nested documents and references to 'with' definitions) nest more than {MAX_PLAN_NESTING} levels deep here",
            )
        if steps > MAX_EXPANDED_STEPS:
            raise PlanError.single(
                "plan_too_large",
                node.loc,
                f"with every use of a shared sub-plan copied in (Spark Connect has no relation references), "
                f"this plan has {steps:,} steps; connect_plan stops at {MAX_EXPANDED_STEPS:,}",
            )


def _sub_plans(plan: ir.Plan) -> list[ir.Plan]:
    subs: list[ir.Plan] = []
    if isinstance(plan.source, ir.SharedPlan):
        subs.append(plan.source.plan)
    subs.extend(ir.right_plans(plan.steps))
    return subs


def chain_depth(chain: list[Rel], memo: dict[int, int] | None = None) -> int:
    """Nesting depth of the relations of a chain (the deepest path, right sides included);
    a shared sub-plan's depth is computed once, however often it is used."""
    memo = {} if memo is None else memo
    depth = 0
    best = 0
    for rel in chain:
        depth += 1
        if isinstance(rel, (JoinRel, SetOpRel)):
            best = max(best, depth + chain_depth(rel.right, memo))
        elif isinstance(rel, SharedUseRel):
            key = id(rel.shared)
            if key not in memo:
                memo[key] = chain_depth(rel.shared.chain, memo)
            best = max(best, depth + memo[key])
    return max(best, depth)


def check_depth(chain: list[Rel], loc: str) -> None:
    depth = chain_depth(chain)
    if depth > MAX_RELATION_DEPTH:
        raise PlanError.single(
            "plan_too_deep",
            loc,
            f"the plan nests {depth} relations after merging runs of filters and withColumns; "
            f"Spark Connect servers reject more than about 500, connect_plan stops at {MAX_RELATION_DEPTH}",
        )
