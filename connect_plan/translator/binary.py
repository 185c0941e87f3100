"""Analysis of the steps with a right-hand input: joins (their conditions, keys, resolved
inputs and the renames of colliding columns) and set operations (by name, by position,
Substrait's primary ones). Functions of the :class:`~.analyze.Analyzer`, as ``analyze.ANALYSES``
calls every step's analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import ir
from .facts import JoinFacts, PlanFacts, PrimarySetOpFacts, SetOpFacts
from .naming import unique_suffix
from .references import unmatched_by_name, unresolved_in_join
from .scope import Scope

if TYPE_CHECKING:
    from .analyze import Analyzer

__all__ = ["PRIMARY_SET_OPS", "cross_join", "join", "set_op"]

#: set operations that are a join on every column (their join type)
PRIMARY_SET_OPS: dict[str, ir.JoinKind] = {"minus_primary": "left_anti", "intersect_primary": "left_semi"}
#: joins that output the left side's columns only (nothing to rename, no names to ask for)
_SEMI_JOINS = frozenset({"left_semi", "left_anti"})


def join(a: Analyzer, step: ir.Join, facts: PlanFacts, scope: Scope) -> Scope:
    """A join: the right plan analysed, its condition checked, the inputs' names resolved
    where the join needs them, colliding right-hand columns renamed ``name_right``."""
    right_facts = a.plan(step.right)
    if step.condition is not None:
        a.exprs.check(step.condition)
    left, right = scope, right_facts.scope
    semi = step.how in _SEMI_JOINS
    if not semi:
        left = a.resolve(facts, left)
        right = a.resolve(right_facts, right)
    _check_join_keys(a, step, left, right)
    if step.condition is not None:
        for col, message in unresolved_in_join(step.condition, left, right):
            a.err("unknown_column", col.loc, message, col.name)
    using = step.keys if step.condition is None else ()
    renames = {} if semi else _join_renames(a, step, using, left, right)
    pairs = [(n, renames[right.norm(n)]) for n in right.known() if right.norm(n) in renames] if renames else []
    facts.steps.append(JoinFacts(step, scope, right_facts, left, right, using, renames, pairs))
    return _join_output(semi, using, scope, left, right, renames)


def _check_join_keys(a: Analyzer, step: ir.Join, left: Scope, right: Scope) -> None:
    """Keys must exist on both sides (when that can be known)."""
    for k in step.keys:
        for side_name, sc in (("left", left), ("right", right)):
            if sc.has(k) is False:
                a.err(
                    "unknown_column",
                    f"{step.loc}/payload/on",
                    f"join key {k!r} is not a column of the {side_name} side (columns: {sc.known()})",
                    k,
                )


def _join_renames(a: Analyzer, step: ir.Join, using: tuple[str, ...], left: Scope, right: Scope) -> dict[str, str]:
    """The right-hand columns the left side also has (USING keys aside), renamed
    ``name_right`` so that the output names stay unique."""
    renames: dict[str, str] = {}
    if not left.complete or not right.complete:
        if not a.check_only:
            a.err(
                "needs_schema",
                step.loc,
                "the column names of a join input cannot be known without asking the server; translate with a client (connect_plan.connect(...).translate) or name every computed column",
            )
        return renames
    key_set = {left.norm(k) for k in using}
    taken = {left.norm(n) for n in left.known()} | {left.norm(n) for n in right.known()}
    for name in right.known():
        if left.norm(name) in key_set:
            continue
        if left.has(name):
            new = unique_suffix(name, taken, left.norm)
            taken.add(left.norm(new))
            renames[left.norm(name)] = new
    return renames


def cross_join(a: Analyzer, step: ir.CrossJoin, facts: PlanFacts, scope: Scope) -> Scope:
    as_join = ir.Join(step.index, step.op, step.loc, step.right, "cross", (), None)
    return join(a, as_join, facts, scope)


def set_op(a: Analyzer, step: ir.SetOp, facts: PlanFacts, scope: Scope) -> Scope:
    if step.kind in PRIMARY_SET_OPS:
        return primary_set_op(a, step, facts, scope)
    right_facts = a.plan(step.right)
    right = right_facts.scope
    facts.steps.append(SetOpFacts(step, scope, right_facts))
    if not step.by_name or scope.names is None:
        return scope
    if not scope.complete or not right.complete:
        return scope.with_names(None)
    if not step.allow_missing:
        _check_by_name(a, step, scope, right)
    extra = [n for n in right.known() if not scope.has(n)]
    return scope.with_names([*scope.known(), *(extra if step.allow_missing else [])])


def _check_by_name(a: Analyzer, step: ir.SetOp, left: Scope, right: Scope) -> None:
    """``unionByName`` without missing columns allowed: each input has the other's columns."""
    missing, extra = unmatched_by_name(left, right)
    for name in missing:
        a.err(
            "unknown_column",
            f"{step.loc}/payload",
            f"{step.op} pairs columns by name, and the other input has no column {name!r} "
            f"(its columns: {right.known()}); set allowMissingColumns to fill it with nulls",
            name,
        )
    if extra and not missing:
        a.err(
            "column_count",
            f"{step.loc}/payload",
            f"{step.op} pairs columns by name, and the other input has columns this one lacks: {extra} "
            f"(this one's: {left.known()}); set allowMissingColumns to keep them, null-filled",
        )


def primary_set_op(a: Analyzer, step: ir.SetOp, facts: PlanFacts, scope: Scope) -> Scope:
    """Substrait Minus (Primary) / Intersection (Primary), the primary input's rows with
    their duplicates, without / with a matching row in the other input: a left anti /
    semi join on null-safe equality of every column, paired by position as set
    operations pair them (Spark's EXCEPT and INTERSECT would de-duplicate or count)."""
    right_facts = a.plan(step.right)
    left = a.resolve(facts, scope)
    right = a.resolve(right_facts, right_facts.scope)
    if not left.complete or not right.complete:
        if not a.check_only:
            a.err(
                "needs_schema",
                step.loc,
                f"{step.op} pairs the columns of both inputs by position, and their names cannot be known without asking the server; translate with a client (connect_plan.connect(...).translate) or name every computed column",
            )
    elif len(left.known()) != len(right.known()):
        left_names, right_names = left.known(), right.known()
        a.err(
            "column_count",
            step.loc,
            f"{step.op} pairs columns by position, so both inputs need the same number of columns: the left has {len(left_names)} ({left_names}), the right {len(right_names)} ({right_names})",
        )
        return scope
    how = PRIMARY_SET_OPS[step.kind]
    facts.steps.append(PrimarySetOpFacts(step, scope, right_facts, how, left, right))
    return scope


def _join_output(
    semi: bool, using: tuple[str, ...], scope: Scope, left: Scope, right: Scope, renames: dict[str, str]
) -> Scope:
    """A join's output columns: USING keys first, then the rest of the left, then the right
    (renamed); a semi or anti join outputs the left side's only."""
    if semi:
        if not using or scope.names is None:
            return scope
        # a USING semi/anti join outputs the key columns first, then the rest of the left
        key_norms = {scope.norm(k) for k in using}
        keys_first = [scope.names[i] if (i := scope.index_of(k)) is not None else k for k in using]
        return scope.with_names([*keys_first, *(n for n in scope.names if n is None or scope.norm(n) not in key_norms)])
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
