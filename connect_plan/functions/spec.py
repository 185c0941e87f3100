"""How a function catalog row is written: the slot language of signatures and the row options.

Each row says how a plan calls the function and what Spark function it becomes::

    fn("substring", "e, I pos, I? len")

The signature lists argument slots, comma-separated; each slot is a code with an optional
modifier and a name:

==== ==================================================================================
code meaning of the slot
==== ==================================================================================
e    any expression; a bare JSON string here is a **column name** (plan-format rule)
I    integer literal slot: a bare integer or ``{"lit": int}`` (or any expression object)
N    non-negative integer literal slot
F    number literal slot (a JSON array of numbers is an array literal)
S    string literal slot: a bare string here is the **string**, not a column
B    boolean literal slot
L    any scalar literal slot (bare value = literal; a JSON array = array literal)
T    type-name slot (``"int"``, ``{"lit": "decimal(10,2)"}``)
M    options slot: a JSON object of scalars, sent as ``map(k1, v1, ...)`` of strings
X    lambda slot (``{"lambda": {"params": [...], "body": ...}}``); digits after the X
     list the parameter counts Spark accepts (``X12``: one or two)
==== ==================================================================================

Modifiers: ``?`` optional, ``*`` zero or more, ``+`` one or more. Literal slots take bare
values as the literal the user meant (PLAN_FORMAT.md Policy 4) but still accept an
explicit expression object where Spark takes a column. Optional slots are filled left to
right: the required slots take their arguments first, extra arguments go to the optional
slots in order (so ``"S? source, S target, e ts"`` takes two or three arguments).

Row options:

``spark``
    the Spark function emitted as ``unresolved_function`` (default: the plan name)
``order``
    reorders arguments where the plan format's order differs from Spark's
``fill``
    ``{slot index: value}``: literals PySpark sends for omitted optional arguments. An
    omitted argument is filled (left to right, while every earlier slot has a value) so
    the proto, and so Spark's default column name, equals what PySpark sends
``distinct``
    emitted with ``is_distinct`` (``count_distinct`` is Spark's ``count(DISTINCT ...)``)
``cycle``
    the signature repeats (``named_struct``: name, value, name, value, ...)
``desugar``
    names a parse-stage rewrite (casts, ``when``, ``get`` ...): a function of
    ``formats/json_plan/specials.py`` turns the call into other IR (checked at import: every
    name has its function there, every function a row)
``builder``
    names an emit-stage builder in ``translator/expressions.py`` (``SPECIAL_BUILDERS``, also
    checked at import). A row may have both: ``get``, ``log``, ``call_function`` and ``in`` are
    desugared here and built there. Everything else is emitted generically
``op_form``
    the function is also written ``{"op": word, ...}`` (the words are the JSON format's, in
    ``formats/json_plan/spellings.py``): ``binary`` (``left``/``right``), ``unary`` (``arg``)
    or ``args`` (an ``args`` list)
``null_skipping``
    an aggregate that ignores null inputs, so ``agg(x) FILTER (WHERE c)`` equals
    ``agg(CASE WHEN c THEN x END)`` (the only aggregates a filter is accepted for)
``needs_order``
    a window function Spark needs an ordered window for (robin orders by the partition
    columns when a plan gives none)
``counts_rows``
    a lone ``*`` argument counts rows and is sent as ``1`` (PySpark's ``count(*)``)
``nondeterministic``
    the result differs per evaluation, row or partition: never merged across steps

PySpark functions that have no row are listed in :data:`EXCLUDED` with the reason; a
unit test fails when ``pyspark.sql.functions`` has a function in neither.
"""

from __future__ import annotations

import functools
import re
from dataclasses import field
from typing import Any

from ..records import Value, frozen

__all__ = [
    "KINDS",
    "OP_FORMS",
    "FunctionSpec",
    "Param",
    "agg",
    "fn",
    "gen",
    "parse_signature",
    "unary",
    "win",
]

KINDS = ("scalar", "aggregate", "window", "generator", "operator")
#: how a function is written as ``{"op": word, ...}`` (None: only as ``{"fn": name}``)
OP_FORMS = (None, "binary", "unary", "args")


@frozen
class Param(Value):
    """One slot of a function's signature (see :func:`parse_signature` for the codes)."""

    code: str  # e I N F S B L T M X
    name: str = ""
    optional: bool = False
    variadic: bool = False  # repeats; with optional → zero or more, else one or more
    arities: tuple[int, ...] = ()  # X slots: the lambda parameter counts Spark accepts

    @property
    def is_literal_slot(self) -> bool:
        return self.code not in ("e", "X")

    def describe(self) -> str:
        mod = "*" if self.variadic and self.optional else "+" if self.variadic else "?" if self.optional else ""
        digits = "".join(str(a) for a in self.arities)
        return f"{self.code}{digits}{mod}" + (f" {self.name}" if self.name else "")


@frozen
class FunctionSpec(Value):
    """One catalog row."""

    name: str
    params: tuple[Param, ...]
    spark: str
    kind: str = "scalar"
    aliases: tuple[str, ...] = ()
    order: tuple[int, ...] | None = None
    desugar: str | None = None
    builder: str | None = None
    op_form: str | None = None
    nondeterministic: bool = False
    null_skipping: bool = False
    needs_order: bool = False
    counts_rows: bool = False
    notes: str = ""
    signature: str = ""
    fill: dict[int, Any] = field(default_factory=dict, hash=False, compare=False)
    distinct: bool = False
    cycle: bool = False
    group: str = ""

    # cached: read for every call the parser sees (rows are immutable)
    @functools.cached_property
    def min_args(self) -> int:
        if self.cycle:
            return 0 if all(p.optional for p in self.params) else len(self.params)
        return sum(1 for p in self.params if not p.optional)

    @functools.cached_property
    def max_args(self) -> int | None:
        if self.cycle or any(p.variadic for p in self.params):
            return None
        return len(self.params)

    @functools.cached_property
    def fixed_arity(self) -> bool:
        """Every slot is required and none repeats (``e, e``: most rows)."""
        return not self.cycle and not any(p.optional or p.variadic for p in self.params)

    @functools.cached_property
    def expressions_only(self) -> bool:
        """Every slot is a required plain expression (``e, e``): arguments need no slot rules."""
        return self.fixed_arity and all(p.code == "e" for p in self.params)

    def slot_indices(self, n_args: int) -> list[int] | None:
        """The index (into ``params``) of the slot each of ``n_args`` arguments fills, or
        None if that many arguments are not allowed."""
        params = self.params
        if self.fixed_arity:  # the usual row, asked for every call the parser sees
            return list(range(n_args)) if n_args == len(params) else None
        if self.cycle:
            if n_args % len(params) or n_args < self.min_args:
                return None
            return [i % len(params) for i in range(n_args)]
        if n_args < self.min_args or (self.max_args is not None and n_args > self.max_args):
            return None
        var = next((j for j, p in enumerate(params) if p.variadic), None)
        if var is not None:
            fixed = len(params) - 1
            if n_args < fixed:  # optional slots next to a variadic one are never dropped
                return None
            return [*range(var), *([var] * (n_args - fixed)), *range(var + 1, len(params))]
        extra = n_args - self.min_args
        out: list[int] = []
        for j, p in enumerate(params):
            if not p.optional:
                out.append(j)
            elif extra > 0:
                out.append(j)
                extra -= 1
        return out

    def slots(self, n_args: int) -> list[Param] | None:
        """The slot each of ``n_args`` arguments fills, or None if the count is invalid."""
        idx = self.slot_indices(n_args)
        return None if idx is None else [self.params[i] for i in idx]

    def arity_text(self) -> str:
        if self.cycle:
            return f"a multiple of {len(self.params)} arguments"
        lo, hi = self.min_args, self.max_args
        if hi is None:
            return f"at least {lo} argument{'s' if lo != 1 else ''}"
        if lo == hi:
            return f"exactly {lo} argument{'s' if lo != 1 else ''}"
        return f"{lo} to {hi} arguments"

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.aliases)


_SLOT = re.compile(r"^([eINFSBLTMX])(\d*)([?*+]?)(?:\s+(\w+))?$")


#: signatures already parsed (most rows share a few: "e", "e, e", ...; Params are immutable)
_PARSED: dict[str, tuple[Param, ...]] = {}


def parse_signature(sig: str) -> tuple[Param, ...]:
    parsed = _PARSED.get(sig)
    if parsed is None:
        parsed = _PARSED[sig] = _parse_signature(sig)
    return parsed


def _parse_signature(sig: str) -> tuple[Param, ...]:
    if not sig.strip():
        return ()
    out = []
    for part in sig.split(","):
        m = _SLOT.match(part.strip())
        if not m:
            raise ValueError(f"bad signature slot {part!r} in {sig!r}")
        code, digits, mod, name = m.groups()
        if digits and code != "X":
            raise ValueError(f"only lambda slots take arities: {part!r}")
        out.append(
            Param(
                code,
                name or "",
                optional=mod in ("?", "*"),
                variadic=mod in ("*", "+"),
                arities=tuple(int(d) for d in digits),
            )
        )
    if sum(p.variadic for p in out) > 1:
        raise ValueError(f"at most one variadic slot: {sig!r}")
    return tuple(out)


def fn(
    name: str,
    sig: str,
    spark: str | None = None,
    *,
    kind: str = "scalar",
    aliases: tuple[str, ...] = (),
    order: tuple[int, ...] | None = None,
    desugar: str | None = None,
    builder: str | None = None,
    op_form: str | None = None,
    nondeterministic: bool = False,
    null_skipping: bool = False,
    needs_order: bool = False,
    counts_rows: bool = False,
    notes: str = "",
    fill: dict[int, Any] | None = None,
    distinct: bool = False,
    cycle: bool = False,
) -> FunctionSpec:
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r} for {name!r}")
    if op_form not in OP_FORMS:
        raise ValueError(f"unknown op form {op_form!r} for {name!r}")
    return FunctionSpec(
        name=name,
        params=parse_signature(sig),
        spark=spark or name,
        kind=kind,
        aliases=aliases,
        order=order,
        desugar=desugar,
        builder=builder,
        op_form=op_form,
        nondeterministic=nondeterministic,
        null_skipping=null_skipping,
        needs_order=needs_order,
        counts_rows=counts_rows,
        notes=notes,
        signature=sig,
        fill=dict(fill or {}),
        distinct=distinct,
        cycle=cycle,
    )


def agg(name: str, sig: str, spark: str | None = None, **kw: Any) -> FunctionSpec:
    return fn(name, sig, spark, kind="aggregate", **kw)


def win(name: str, sig: str, spark: str | None = None, **kw: Any) -> FunctionSpec:
    return fn(name, sig, spark, kind="window", **kw)


def gen(name: str, sig: str, spark: str | None = None, **kw: Any) -> FunctionSpec:
    return fn(name, sig, spark, kind="generator", **kw)


def unary(*names: str, kind: str = "scalar", **kw: Any) -> list[FunctionSpec]:
    return [fn(n, "e", kind=kind, **kw) for n in names]
