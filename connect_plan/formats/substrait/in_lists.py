"""A disjunction of equalities of one expression with string constants, sent as Spark SQL's
``IN``.

Isthmus (Calcite) writes an IN list of fewer than 20 values as an OR of equalities, and
DataFusion rewrites its short IN lists the same way. TPC-DS q15's ``SUBSTRING(ca_zip, 1, 5) IN
('85669', ..., '81792') OR ca_state IN ('CA', 'WA', 'GA') OR cs_sales_price > 500`` arrives from
Isthmus as one OR of 13 calls, nine of them ``substring(ca_zip, 1, 5) = '8...'``. Spark has no
rule that makes an OR of equalities an ``In``, so its join condition computes the substring up to
nine times per row where Spark SQL's ``In`` computes it once: Spark SQL's own text spelled with
the ORs takes twice the time of its IN in that query's main stage (docs/benchmarks/spark/
plan-quality/tail.md). :func:`equalities_as_in` sends each run of such equalities, next to each
other in the OR, as one ``x IN (k1, ..., kn)``.

The claim and its proof. Let ``x`` be a deterministic expression and ``k1 .. kn`` string
constants, none NULL (a string literal, or such a literal cast to ``string``), and let a run be
disjuncts next to each other in one OR, each ``x = ki``, ``ki = x`` or ``x IN (...)`` of such
constants, all with the same ``x``.

1. The value. Let ``v`` be ``x``'s value. If ``v`` is NULL, each ``x = ki`` is NULL, so the run's
   OR is NULL, and Spark's ``In`` of a NULL value is NULL. Otherwise each ``x = ki`` is TRUE or
   FALSE, the run's OR is TRUE iff ``v`` equals some ``ki``, and ``In`` is TRUE iff ``v`` equals
   some ``ki``, else FALSE (it is NULL only where an element is NULL, and none is). ``In``
   compares ``v`` with each ``ki`` by the same equality as ``=``: Substrait's ``equal`` is
   ``any1_any1``, so a plan that writes ``x = 'TX'`` declares ``x`` a string, and string against
   string is compared with no coercion (under ``x``'s collation in both).
2. The evaluation. Spark evaluates ``a OR b`` as ``a``, then ``b`` unless ``a`` is TRUE. The run
   is contiguous, so every disjunct before it is evaluated as before; ``x`` is evaluated once
   instead of once per equality, which is the same value (``x`` is deterministic) and the same
   error if it raises one (it raised at the run's first equality before); every disjunct after
   the run is evaluated iff the run is not TRUE, as before (1). A nested OR is the same sequence
   as the flat one (``(a OR b) OR c`` evaluates ``a``, ``b``, ``c`` in order), so nested ORs are
   read as one list; where no run merges, the OR is sent exactly as written.
3. Deterministic ``x``: columns, literals, casts and calls of functions the catalog does not mark
   non-deterministic, nested only of these. Anything else (a CASE, a subquery, a window, a UDF,
   ``rand()``) is never merged.

Where a table's column is not the string the plan declares, Spark coerces ``x = 'k'`` and
``x IN ('k', ...)`` on its own; tests/integration/test_substrait_in_lists.py compares the two on
Spark for columns of ten types (int, bigint, float, double, decimal, date, timestamp, boolean,
binary, string) against string constants that do and do not parse: the same answer, or an error
both ways.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from ... import ir
from ...functions import CATALOG
from ...types import Primitive

__all__ = ["equalities_as_in"]


def equalities_as_in(args: Sequence[ir.Expr], loc: str) -> list[ir.Expr]:
    """The disjuncts of an OR of ``args`` with each run of equalities of one expression with
    string constants (see the module's proof) as one ``in`` call; ``list(args)`` where no run
    merges (the OR is then sent as written, nesting included)."""
    flat = _disjuncts(args)
    out: list[ir.Expr] = []
    merged = False
    k = 0
    while k < len(flat):
        member = _member(flat[k])
        if member is None:
            out.append(flat[k])
            k += 1
            continue
        x, key, constants = member
        end = k + 1
        while end < len(flat):
            following = _member(flat[end])
            if following is None or following[1] != key:
                break
            constants = constants + following[2]
            end += 1
        if end - k > 1:
            out.append(ir.Call("in", (x, *constants), loc))
            merged = True
        else:
            out.append(flat[k])
        k = end
    return out if merged else list(args)


def _disjuncts(args: Sequence[ir.Expr]) -> list[ir.Expr]:
    """The OR's disjuncts in evaluation order, nested ORs read as one list."""
    out: list[ir.Expr] = []
    for a in args:
        if isinstance(a, ir.Call) and a.fn == "or" and not a.distinct:
            out.extend(_disjuncts(a.args))
        else:
            out.append(a)
    return out


def _member(e: ir.Expr) -> tuple[ir.Expr, Hashable, tuple[ir.Expr, ...]] | None:
    """``(x, x's key, the constants)`` of an equality or IN of a deterministic ``x`` with string
    constants, else None."""
    if not isinstance(e, ir.Call) or e.distinct:
        return None
    constants: tuple[ir.Expr, ...]
    if e.fn == "==" and len(e.args) == 2:
        a, b = e.args
        if _string_constant(b):
            x, constants = a, (b,)
        elif _string_constant(a):
            x, constants = b, (a,)
        else:
            return None
    elif e.fn == "in" and len(e.args) >= 2 and all(_string_constant(o) for o in e.args[1:]):
        x, constants = e.args[0], tuple(e.args[1:])
    else:
        return None
    key = _key(x)
    return None if key is None else (x, key, constants)


def _string_constant(e: ir.Expr) -> bool:
    """A non-NULL string literal, or one cast to ``string``."""
    if isinstance(e, ir.Cast):
        return e.mode == "cast" and _is_string(e.to) and _string_constant(e.expr)
    return isinstance(e, ir.Lit) and isinstance(e.value, str) and (e.type is None or _is_string(e.type))


def _is_string(t: object) -> bool:
    return isinstance(t, Primitive) and t.name == "string"


def _key(e: ir.Expr) -> Hashable | None:
    """What ``e`` computes, without where it was written (two spellings of one expression have
    the same key); None if it is not deterministic or not of the kinds the proof covers."""
    if isinstance(e, ir.Col):
        return ("col", e.name, e.side)
    if isinstance(e, ir.Lit):
        return ("lit", type(e.value).__name__, e.value, e.type)
    if isinstance(e, ir.Cast):
        inner = _key(e.expr)
        return None if inner is None else ("cast", inner, e.to, e.mode)
    if isinstance(e, ir.Call):
        spec = CATALOG.get(e.fn)
        if spec is None or spec.nondeterministic or spec.kind not in ("scalar", "operator"):
            return None
        keys = [_key(a) for a in e.args]
        if any(k is None for k in keys):
            return None
        return ("call", e.fn, e.distinct, tuple(keys))
    return None
