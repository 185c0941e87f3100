"""Parser state, the raw step record, step registration and the small helpers every part
of the JSON-plan parser shares.

The parser is a set of module functions taking the :class:`Parser` (the state: errors,
lambda scopes, ``with`` definitions, nesting) as their first argument. Step parsers are
registered with :func:`step`; the op table of the package is assembled from the
registrations in the order of :data:`~.spellings.STEP_OPS`.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Mapping
from typing import Any

from ... import ir
from ...errors import MISSING, ErrorDetail, PlanError
from .spellings import KEY_ALIASES

__all__ = [
    "MAP",
    "MISSING",
    "STEP_PARSERS",
    "Parser",
    "RawStep",
    "StepParser",
    "alias",
    "check_keys",
    "column_name",
    "first",
    "key",
    "no_side",
    "options",
    "side",
    "split_args",
    "step",
]

#: isinstance(x, MAP) accepts any Mapping but decides dicts without the slow ABC check
MAP = (dict, Mapping)


class Parser:
    """What parsing one plan accumulates; see :func:`~connect_plan.formats.json_plan.parse_plan`."""

    def __init__(self) -> None:
        self.errors: list[ErrorDetail] = []
        #: lambda parameters in scope while parsing a lambda body (innermost last)
        self.lambda_scopes: list[dict[str, str]] = []
        #: ``with`` definitions by name; nested documents by their canonical JSON
        self.named: dict[str, ir.SharedPlan] = {}
        self.nested_cache: dict[str, ir.SharedPlan] = {}
        self.nesting = 0
        #: > 0 while parsing a join condition, the only place a column may name its 'side'
        self.join_condition = 0
        #: a groupBy without aggs was parsed: the plan needs pairing with its agg step
        self.unpaired_groups = False
        #: the supported ops were listed in an earlier problem (they are listed once)
        self.ops_listed = False
        #: the document's conf sets spark.sql.caseSensitive=true: row object keys match
        #: their columns in the exact case only
        self.case_sensitive = False
        #: window expressions made so far: a filter walks its condition for one only when
        #: its parse made one (windows are refused there)
        self.windows = 0

    def err(self, code: str, loc: str, message: str, input: Any = MISSING) -> None:
        self.errors.append(ErrorDetail(code, loc, message, input))

    def raise_if_errors(self) -> None:
        if self.errors:
            raise PlanError(self.errors)

    def has_errors_under(self, loc: str) -> bool:
        return any(d.loc == loc or d.loc.startswith(loc + "/") for d in self.errors)

    def lambda_var(self, name: str) -> str | None:
        """The lambda parameter ``name`` names (case-insensitively), innermost first."""
        lowered = name.lower()
        for scope in reversed(self.lambda_scopes):
            if lowered in scope:
                return scope[lowered]
        return None


class RawStep:
    """One plan step as written: ``{"op": op, "payload": payload, ...}`` at ``loc``;
    ``ploc`` is the payload's location. ``kind`` names the step's entry in
    :data:`~.spellings.KEY_ALIASES` (ops sharing a parser share it). A plain slotted class:
    one is made per step, so it is built without dataclass machinery."""

    __slots__ = ("index", "kind", "loc", "op", "payload", "ploc", "raw")

    def __init__(self, op: str, index: int, loc: str, payload: Any, raw: Mapping[str, Any], kind: str) -> None:
        self.op = op
        self.index = index
        self.loc = loc
        self.payload = payload
        self.raw = raw
        self.kind = kind
        self.ploc = f"{loc}/payload"

    def key(self, name: str, obj: Mapping[str, Any] | None = None) -> tuple[str | None, Any]:
        """The spelling of key ``name`` present in the payload (or ``obj``) and its value."""
        d = self.payload if obj is None else obj
        for k in KEY_ALIASES[self.kind][name]:
            if k in d:
                return k, d[k]
        return None, MISSING


StepParser = Callable[[Parser, RawStep], "ir.Step | None"]

#: op name → (its parser, its KEY_ALIASES kind), filled by :func:`step`
STEP_PARSERS: dict[str, tuple[StepParser, str]] = {}


def step(*ops: str) -> Callable[[StepParser], StepParser]:
    """Register a step parser for ``ops``; the first op names the payload's key kind."""

    def register(parse: StepParser) -> StepParser:
        for op in ops:
            if op in STEP_PARSERS:  # pragma: no cover - a developer error caught on import
                raise RuntimeError(f"op {op!r} registered twice")
            STEP_PARSERS[op] = (parse, ops[0])
        return parse

    return register


# ---------------------------------------------------------------- key lookup


def first(d: Mapping[str, Any], spellings: tuple[str, ...]) -> tuple[str | None, Any]:
    """The first of ``spellings`` present in ``d`` and its value; ``(None, MISSING)`` if none."""
    for k in spellings:
        if k in d:
            return k, d[k]
    return None, MISSING


def key(d: Mapping[str, Any], kind: str, name: str) -> tuple[str | None, Any]:
    """Key ``name`` of a ``kind`` object in any of its spellings (:data:`~.spellings.KEY_ALIASES`)."""
    return first(d, KEY_ALIASES[kind][name])


# ---------------------------------------------------------------- shared small parsers


def check_keys(
    p: Parser, obj: Mapping[str, Any], loc: str, allowed: frozenset[str], what: str, *what_args: Any
) -> None:
    """Every key of ``obj`` that is not read here (``allowed``) is an ``unknown_key`` error
    with a did-you-mean, unless its value is null: a typo never silently changes a result.
    ``what`` names the object in the message, formatted with ``what_args`` (only when a key
    is reported: this runs for nearly every object of a plan)."""
    if obj.keys() <= allowed:  # the usual case, decided at C speed
        return
    if what_args:
        what = what.format(*what_args)
    for k, v in obj.items():
        if v is None or k in allowed:
            continue
        near = difflib.get_close_matches(str(k), sorted(allowed), n=1, cutoff=0.6)
        hint = f"; did you mean {near[0]!r}?" if near else f" (keys read here: {', '.join(sorted(allowed))})"
        p.err("unknown_key", f"{loc}/{k}", f"unknown key {k!r} in {what}{hint}", k)


def side(p: Parser, raw: Mapping[str, Any], loc: str) -> str | None:
    """A column's ``side`` ('left'/'right'), which only a join condition may give."""
    value = raw.get("side")
    if value is None:
        return None
    if value not in ("left", "right"):
        p.err("column_side", f"{loc}/side", "'side' must be 'left' or 'right'", value)
        return None
    if not p.join_condition:
        p.err(
            "column_side",
            f"{loc}/side",
            "'side' picks a join input, so it only applies inside a join condition ('on'); elsewhere a column has one input",
            value,
        )
        return None
    return str(value)


def no_side(p: Parser, item: Mapping[str, Any], loc: str) -> None:
    """Where a column object is read as a plain name, a 'side' key would be dropped."""
    if "side" in item and side(p, item, loc) is not None:
        p.err(
            "column_side",
            f"{loc}/side",
            "'side' is not read here: only a column reference in a join condition's expression picks a join input",
            item["side"],
        )


def column_name(p: Parser, item: Any, loc: str, keys: tuple[str, ...] = KEY_ALIASES["column"]["name"]) -> str | None:
    """A plain column name: a string or ``{"col"|"column"|"name": ...}``."""
    if isinstance(item, MAP):
        no_side(p, item, loc)
        k, item = first(item, keys)
        if k is None:
            p.err("column_name", loc, f"expected a column name or an object with one of {list(keys)}", item)
            return None
        loc = f"{loc}/{k}"
    if not isinstance(item, str) or not item:
        p.err("column_name", loc, "expected a non-empty column name string", item)
        return None
    return item


def alias(p: Parser, item: Mapping[str, Any], loc: str, keys: tuple[str, ...], multi: bool = False) -> Any:
    """The output name; with ``multi`` a list of names is allowed too (a generator with
    several output columns, e.g. posexplode → ``["pos", "value"]``)."""
    k, name = first(item, keys)
    if k is None or name is None:
        return None
    if multi and isinstance(name, (list, tuple)):
        if not name or not all(isinstance(n, str) and n for n in name):
            p.err("alias", f"{loc}/{k}", "a list of output names must hold non-empty strings", name)
            return None
        return name[0] if len(name) == 1 else tuple(name)
    if not isinstance(name, str) or not name:
        p.err("alias", f"{loc}/{k}", "an output name must be a non-empty string", name)
        return None
    return name


def options(p: Parser, raw: Any, loc: str) -> tuple[tuple[str, str], ...] | None:
    """Data source options: an object of string keys and scalar values (stringified)."""
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        p.err("options_type", loc, "'options' must be an object of string keys and scalar values", raw)
        return None
    out: list[tuple[str, str]] = []
    ok = True
    for k, v in raw.items():
        if not isinstance(k, str) or not k:
            p.err("option_key", loc, "option names must be non-empty strings", k)
            ok = False
        elif isinstance(v, bool):
            out.append((k, "true" if v else "false"))
        elif isinstance(v, (int, float, str)):
            out.append((k, str(v)))
        else:
            p.err("option_value", f"{loc}/{k}", "an option value must be a string, number or boolean", v)
            ok = False
    return tuple(out) if ok else None


def split_args(inner: str) -> list[str]:
    """Split ``a, 'x, y', b`` on top-level commas, respecting quotes."""
    parts: list[str] = []
    buf: list[str] = []
    quote: str | None = None
    for ch in inner:
        if quote:
            buf.append(ch)
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
        elif ch == ",":
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
    parts.append("".join(buf))
    if len(parts) == 1 and not parts[0].strip():
        return []
    return parts
