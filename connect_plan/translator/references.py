"""Column references checked before any network call, following Spark's resolution.

Where the columns of a step's input are known (inline rows and what is derived from them;
files with a schema), every column an expression references must resolve there as Spark
would resolve it: case-insensitively unless ``spark.sql.caseSensitive``, an exact name
first (a column literally named ``a.b``), else the parts of the identifier (backticks quote,
dots separate: ``a.b`` is field ``b`` of struct ``a``, or column ``b`` under a qualifier
``a``). The check only refuses what no reading could resolve, so a plan Spark runs is never
refused; in particular a ``filter`` or ``orderBy`` may name a column that an earlier
projection dropped (Spark's analyzer adds it back: ResolveMissingReferences), so those
steps look at every scope of the plan before them. What cannot be known (a table's
columns, a computed column Spark names) is the server's to decide.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterable, Sequence

from .. import ir
from ..names import attribute_parts
from .scope import Scope

__all__ = ["root_name", "unmatched_by_name", "unresolved", "unresolved_in_join", "unresolved_refs"]

#: hidden columns Spark resolves without their being in a relation's output
_HIDDEN_ROOTS = frozenset({"_metadata"})


def _column_refs(expr: ir.Expr, *, sided: bool = False) -> list[ir.Col]:
    """The column references of ``expr``, except names rooted at a lambda parameter (and,
    unless ``sided``, those a join condition pins to one input), in written order."""
    out: list[ir.Col] = []
    stack: list[ir.Expr] = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ir.Col:
            if sided or node.side is None:  # type: ignore[union-attr]
                out.append(node)  # type: ignore[arg-type]
        elif kind is ir.Call:  # the usual inner node
            stack.extend(reversed(node.args))  # type: ignore[union-attr]
        elif kind is ir.Lit:
            continue
        elif kind is ir.Lambda:
            params = {n.lower() for n in node.params}  # type: ignore[union-attr]
            body = _column_refs(node.body, sided=sided)  # type: ignore[union-attr]
            out.extend(col for col in body if root_name(col.name).lower() not in params)
        else:
            stack.extend(reversed(ir.children(node)))
    return out


def root_name(name: str) -> str:
    """The first part of a column name as Spark reads it (``a`` of ``a.b``)."""
    parts = attribute_parts(name)
    return parts[0] if parts else name


def _resolves(name: str, scopes: Sequence[Scope]) -> bool:
    """Whether any reading of ``name`` could resolve in one of ``scopes`` (all complete)."""
    # the usual case: the name as written is a column of the latest scope (a filter looks at
    # every scope of the plan before it, so a long plan has many: the latest is looked at first)
    for scope in reversed(scopes):
        if scope.has(name):
            return True
    parts = attribute_parts(name)
    if parts is None:
        return True  # text Spark refuses to parse: its own error says more
    candidates = {name, parts[0]}
    if len(parts) > 1:
        candidates.add(parts[1])  # a qualifier, then the column
        if parts[-1] == "*":
            candidates.add(".".join(parts[:-1]))
    if parts[0].lower() in _HIDDEN_ROOTS:
        return True
    return any(scope.has(c) for scope in scopes for c in candidates)


def unresolved(exprs: Iterable[ir.Expr], scopes: Sequence[Scope], also: Sequence[str] = ()) -> list[tuple[ir.Col, str]]:
    """The references of ``exprs`` that resolve in none of ``scopes`` (nor to a name of
    ``also``: a select's own earlier aliases, which Spark resolves laterally), each with
    its message. Empty when any scope's columns are not all known."""
    return unresolved_refs(
        [col for expr in exprs if type(expr) is not ir.Lit for col in _column_refs(expr)], scopes, also
    )


def unresolved_refs(
    refs: Iterable[ir.Col], scopes: Sequence[Scope], also: Sequence[str] = ()
) -> list[tuple[ir.Col, str]]:
    """:func:`unresolved` for column references already found (in written order, as
    :func:`_column_refs` finds them)."""
    if not scopes:
        return []
    lateral: Scope | None = None  # ``also`` as a scope, made for the first name not found in ``scopes``
    out: list[tuple[ir.Col, str]] = []
    for col in refs:
        if _resolves(col.name, scopes):
            continue
        if also:
            if lateral is None:
                lateral = Scope(tuple(also), scopes[0].case_sensitive)
            if _resolves(col.name, (lateral,)):
                continue
        out.append((col, _message(col, scopes[-1])))
    # every scope is looked at only when a name was not found in any (a long plan has many)
    if out and not all(s.complete for s in scopes):
        return []
    return out


def unresolved_in_join(condition: ir.Expr, left: Scope, right: Scope) -> list[tuple[ir.Col, str]]:
    """The references of a join condition that resolve in neither input (a reference pinned
    to one input: not in that one), each with its message. Empty unless both inputs' columns
    are all known."""
    if not left.complete or not right.complete:
        return []
    out: list[tuple[ir.Col, str]] = []
    for col in _column_refs(condition, sided=True):
        looked = [left] if col.side == "left" else [right] if col.side == "right" else [left, right]
        if _resolves(col.name, looked):
            continue
        if len(looked) == 1:
            out.append((col, _message(col, looked[0], where=f" in the join's {col.side} input")))
        else:
            both = Scope(tuple(dict.fromkeys((*left.known(), *right.known()))), left.case_sensitive)
            out.append((col, _message(col, both, where=" in either input of the join")))
    return out


def unmatched_by_name(left: Scope, right: Scope) -> tuple[list[str], list[str]]:
    """For ``unionByName`` without missing columns allowed: the left columns the right input
    lacks (Spark: UNRESOLVED_COLUMN_AMONG_FIELD_NAMES), and the right columns the left lacks
    (Spark: NUM_COLUMNS_MISMATCH). Both empty unless both inputs' columns are all known."""
    if not left.complete or not right.complete:
        return [], []
    return [n for n in left.known() if not right.has(n)], [n for n in right.known() if not left.has(n)]


def _message(col: ir.Col, scope: Scope, *, where: str = "") -> str:
    names = scope.known()
    near = difflib.get_close_matches(col.name, names, n=1, cutoff=0.6) or difflib.get_close_matches(
        col.name.lower(), [n.lower() for n in names], n=1, cutoff=0.6
    )
    text = f"no column {col.name!r}{where} (columns: {names})"
    if near:
        text += f"; did you mean {near[0]!r}?"
    if col.loc.endswith("/name"):
        text += (
            '. If this is a string value: Sparkless writes a plain string operand as a column reference ({"type": "column", "name": ...}); '
            f'write it as a literal, F.lit({col.name!r}) in the program or {{"lit": {json.dumps(col.name)}}} in the plan'
        )
    return text
