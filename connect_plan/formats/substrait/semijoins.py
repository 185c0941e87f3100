"""LEFT SEMI joins sent in the forms Spark SQL's own decorrelation gives Spark's optimizer.

Producers decorrelate subqueries into semi joins before writing the plan (DataFusion, DuckDB).
Spark SQL, from the same text, keeps an ``IN``/``EXISTS`` subquery in its filter until late in
the optimizer (``RewritePredicateSubquery`` runs after the operator optimisations) and makes a
correlated scalar subquery an outer join, then an inner join, with its aggregate. Both forms let
the optimizer do what a semi join sent as a join does not (measured on Spark 4.3, TPC-H sf 1):

- a filter by an IN subquery is a *constraint* of its relation: ``InferFiltersFromConstraints``
  copies it onto every column the plan equates with a needle, and the copy is pushed through
  joins and into aggregates. DataFusion's q20 writes ``ps_partkey IN (SELECT p_partkey ...)``
  as ``partsupp ⋉ part``: as a join, Spark aggregates every 1994 lineitem row (7.0E+5 groups);
  as an IN filter it infers ``l_partkey IN (...)`` through ``ps_partkey = l_partkey`` and
  aggregates only the 'forest%' parts' rows (7.6E+3 groups), as for the SQL text;
- a semi join that compares with an aggregate's values (DataFusion's q02 ``ps_supplycost =
  min(...)``, q20's ``ps_availqty > 0.5 * sum(...)``) is a decorrelated scalar subquery. Sent as
  an IN filter it is pushed below the selective joins (q02: all of partsupp shuffled into the
  semi join); sent as the inner join Spark SQL makes of it, it stays where Spark SQL has it.

So (:func:`semi_join`), first: **a semi join with an aggregate, compared with its values**
becomes an inner join on the same condition, its output the left input's columns. When the
right input is an aggregate grouped by keys ``K`` (then filters, and projections that pass
every key column through unchanged), every key of ``K`` is equated by the condition with a
column of the left input of the same declared type (``=`` or ``<=>``), and the condition also
reads a column of the right input that is not a key:

- uniqueness: the aggregate's rows have distinct values of ``K`` (GROUP BY: one row per group;
  filters drop rows, pass-through projections keep the values), where "distinct" is GROUP BY's
  equality: NULL equals NULL, and ``-0.0``/``0.0`` and NaNs are one group each, as Spark's ``=``
  and ``<=>`` have them (it normalises floats for both). Two right rows that both match a left
  row ``l`` would have every key equal to the same value of ``l``, under ``=`` (then no key is
  NULL) or ``<=>`` (NULL matches only NULL): the same group, the same row. So each left row
  matches at most one right row, whatever else the condition says;
- then ``L ⋉_c R`` keeps ``l`` iff some ``r`` makes ``c(l, r)`` TRUE, and ``L ⨝_c R`` outputs
  ``(l, r)`` for each such ``r``: at most one, so projected on ``L``'s columns the two are the
  same rows, each once. NULL keys: ``=`` never matches NULL, in either join;
- the types: a key compared with a left column of another type is cast to a common type, and
  a cast need not keep distinct values distinct (``bigint`` → ``double``, strings → numbers).
  Equal declared types (:class:`~.declared.Derivation`) leave nothing to cast; a column not
  declared, or a key equated only with an expression, leaves the semi join as written.

Else: **a semi join on equalities only with a filtered table** (a read, a filter other than IS
NOT NULL, projections: no aggregate, join or subquery) becomes a filter by an IN subquery. Spark
copies that filter wherever it infers it (measured in the EXPLAIN of TPC-H and TPC-DS): a
filtered table costs one more scan there and filters (q20's ``part``); an aggregate or a join
would be computed again (TPC-H q18's ``IN (SELECT l_orderkey ... GROUP BY l_orderkey HAVING
sum(l_quantity) > 300)``: Spark SQL's own plan aggregates lineitem twice, DataFusion's semi
join once, 0.83× Spark SQL's time), and an unfiltered table filters nothing (TPC-DS q37 and
q82: DataFusion's semi join with catalog_sales would become three, each scanning it), so those
stay semi joins. For ``a_1 = b_1
AND ... AND a_n = b_n`` with each ``a_i`` an expression of the left input's columns only and
each ``b_i`` of the right input's only: the semi join keeps ``l`` iff some right row makes
every ``a_i(l) = b_i(r)`` TRUE; ``(a_1, ..., a_n) IN (SELECT b_1, ..., b_n FROM R)`` is TRUE
iff some row compares equal on every column, NULL iff none does but a comparison is NULL, and
FALSE otherwise; a filter keeps exactly the rows where it is TRUE: the same rows, each once. A
null-safe ``<=>`` (``is_not_distinct_from``: DataFusion's INTERSECT) matches NULL to NULL,
which IN does not, so it stays a join, as do any other conjunct (a ``>``, an OR, an operand
that reads both sides or neither), anti joins (NOT IN is null-aware, an anti join is not), a
condition that refers to an enclosing query's columns or holds a subquery, and every semi join
inside a subquery (an outer reference in its right input would move one subquery deeper, a
nesting Spark does not decorrelate in every case: left as written).
"""

from __future__ import annotations

from google.protobuf.message import Message

from ... import ir
from .declared import CannotDerive, Derivation
from .declared_types import SType
from .state import Converter, Rel

__all__ = ["equi_pairs", "filtered_scan", "grouped_keys", "semi_join"]


def semi_join(
    c: Converter, left: Rel, right: Rel, cond: ir.Expr | None, loc: str, sides: tuple[Message, Message]
) -> bool:
    """``left ⋉ right`` on ``cond`` as an inner join or a filter by an IN subquery (module doc),
    ``sides`` the Substrait relations of ``left`` and ``right``: True when the steps are appended
    to ``left`` (its columns stay the output), False when the caller is to send the join."""
    if cond is None or set(left.names) & set(right.names):
        return False  # no condition (a cross semi join), or a name on both sides: as written
    if _scalar_subquery(c, left, right, cond, loc, sides):
        left.steps.append(ir.Join(c.step_index(), "join", loc, right.plan(), "inner", (), cond))
        return True
    if c.outer:
        return False  # inside a subquery: an IN would nest an outer reference one level deeper
    pairs = equi_pairs(cond, set(left.names), set(right.names))
    if pairs is None or not filtered_scan(right):
        return False
    keys = [c.fresh() for _ in pairs]
    right.steps.append(
        ir.Select(
            c.step_index(),
            "join.semi",
            loc,
            tuple(ir.SelectItem(b, k, loc) for (_, b), k in zip(pairs, keys)),
        )
    )
    right.names = keys
    needles = tuple(a for a, _ in pairs)
    left.steps.append(ir.Filter(c.step_index(), "join.semi", loc, ir.Subquery("in", right.plan(), needles, loc)))
    return True


def equi_pairs(cond: ir.Expr | None, left: set[str], right: set[str]) -> list[tuple[ir.Expr, ir.Expr]] | None:
    """``cond`` as (left operand, right operand) of each of its conjuncts when every conjunct is
    an ``=`` between an expression of ``left``'s columns only and one of ``right``'s only (in
    either order); None otherwise (module doc)."""
    if cond is None:
        return None
    pairs: list[tuple[ir.Expr, ir.Expr]] = []
    for conjunct in _conjuncts(cond):
        if not isinstance(conjunct, ir.Call) or conjunct.fn != "==" or len(conjunct.args) != 2:
            return None
        x, y = conjunct.args
        sides = _side(x, left, right), _side(y, left, right)
        if sides == ("left", "right"):
            pairs.append((x, y))
        elif sides == ("right", "left"):
            pairs.append((y, x))
        else:
            return None
    return pairs


def _conjuncts(expr: ir.Expr) -> list[ir.Expr]:
    if isinstance(expr, ir.Call) and expr.fn == "and" and not expr.distinct:
        return [part for arg in expr.args for part in _conjuncts(arg)]
    return [expr]


def _side(expr: ir.Expr, left: set[str], right: set[str]) -> str | None:
    """ "left" or "right" when ``expr`` reads columns of that input only (at least one), else None
    (both, neither, an enclosing query's column, a subquery, a lambda)."""
    names: set[str] = set()
    for node in ir.walk(expr):
        if isinstance(node, ir.Col):
            names.add(node.name)
        elif isinstance(node, (ir.Subquery, ir.Lambda, ir.LambdaVar, ir.Star)):
            return None
    if names and names <= left:
        return "left"
    if names and names <= right:
        return "right"
    return None


def _scalar_subquery(
    c: Converter, left: Rel, right: Rel, cond: ir.Expr, loc: str, sides: tuple[Message, Message]
) -> bool:
    """Whether ``right`` is an aggregate whose every grouping key ``cond`` equates with a left
    column of the same declared type, and ``cond`` also reads one of its other columns (module
    doc)."""
    keys = grouped_keys(right)
    if not keys:
        return False
    lefts, rights = set(left.names), set(right.names)
    equated: dict[str, list[tuple[str, str]]] = {}  # key → (left column, its right column) equated
    reads_other = False
    for conjunct in _conjuncts(cond):
        if isinstance(conjunct, ir.Call) and conjunct.fn in ("==", "<=>") and len(conjunct.args) == 2:
            x, y = conjunct.args
            if isinstance(x, ir.Col) and isinstance(y, ir.Col):
                if x.name in keys and y.name in lefts:
                    x, y = y, x
                if x.name in lefts and y.name in keys:
                    equated.setdefault(keys[y.name], []).append((x.name, y.name))
                    continue
        reads_other = reads_other or any(
            isinstance(n, ir.Col) and n.name in rights and n.name not in keys for n in ir.walk(conjunct)
        )
    if not reads_other or set(equated) != set(keys.values()):
        return False
    try:
        derive = Derivation(c.plan_msg, set_index=c.set_index == "output")
        types = [derive.rel(msg, f"{loc}/{side}") for msg, side in zip(sides, ("left", "right"))]
    except CannotDerive:
        return False
    if len(types[0]) != len(left.names) or len(types[1]) != len(right.names):
        return False

    def declared(rel: Rel, columns: list[SType], name: str) -> SType | None:
        t = columns[rel.names.index(name)]
        return t.as_nullable() if t.declared else None

    left_types = [col.type for col in types[0]]
    right_types = [col.type for col in types[1]]
    for pairs in equated.values():
        if not any(
            (t := declared(right, right_types, r)) is not None and declared(left, left_types, lc) == t
            for lc, r in pairs
        ):
            return False
    return True


def grouped_keys(rel: Rel) -> dict[str, str] | None:
    """When ``rel``'s rows are an aggregate's, one per value of its grouping keys: each visible
    column that carries a key unchanged → that key. Its last step that is not a filter or a
    projection is a GROUP BY of plain columns, and every key is still carried after the
    projections (a copy under another name counts). None otherwise (a join, a limit, grouping
    sets, a key dropped or replaced, no aggregate)."""
    passing = (ir.Filter, ir.WithColumn, ir.Select)
    at = max((k for k, s in enumerate(rel.steps) if not isinstance(s, passing)), default=-1)
    step = rel.steps[at] if at >= 0 else None
    if not isinstance(step, ir.GroupBy) or step.kind != "groupby" or not step.keys:
        return None
    if not all(isinstance(k, ir.Col) for k in step.keys):
        return None
    keys = {k.name for k in step.keys if isinstance(k, ir.Col)}
    carried = {k: k for k in keys}  # column name → the key whose values it holds
    for later in rel.steps[at + 1 :]:
        if isinstance(later, ir.WithColumn):
            source = later.expr.name if isinstance(later.expr, ir.Col) else None
            if source in carried:
                carried[later.name] = carried[source]
            else:
                carried.pop(later.name, None)  # replaced by other values
        elif isinstance(later, ir.Select):
            if any(not isinstance(i.alias, (str, type(None))) for i in later.items):
                return None  # a generator's several columns: rows multiplied
            carried = {
                (i.alias if isinstance(i.alias, str) else i.expr.name): carried[i.expr.name]
                for i in later.items
                if isinstance(i.expr, ir.Col) and i.expr.name in carried
            }
    visible = {n: k for n, k in carried.items() if n in rel.names}
    return visible if set(visible.values()) == keys else None


def filtered_scan(rel: Rel) -> bool:
    """Whether ``rel`` is a table read with a filter (other than IS NOT NULL) and projections
    only (no aggregate, join, set operation, limit; no subquery in its expressions): what Spark
    may copy wherever it infers the IN filter at the cost of one more filtered scan (module
    doc)."""
    if not isinstance(rel.source, (ir.TableSource, ir.FileSource)):
        return False
    selective = False
    for step in rel.steps:
        if isinstance(step, ir.Filter):
            exprs: list[ir.Expr] = [step.condition]
            selective = selective or any(
                not (isinstance(e, ir.Call) and e.fn == "isnotnull") for e in _conjuncts(step.condition)
            )
        elif isinstance(step, ir.WithColumn):
            exprs = [step.expr]
        elif isinstance(step, ir.Select):
            exprs = [item.expr for item in step.items]
        else:
            return False
        if any(isinstance(node, ir.Subquery) for e in exprs for node in ir.walk(e)):
            return False
    return selective
