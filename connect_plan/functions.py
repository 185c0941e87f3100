"""The function catalog: one row per function, as data.

Each row says how a plan calls the function and what Spark function it becomes::

    fn("substring", "e, I pos, I? len", aliases=("substr",))

The signature lists argument slots, comma-separated; each slot is a code with an optional
modifier and a name:

==== ==================================================================================
code meaning of the slot
==== ==================================================================================
e    any expression; a bare JSON string here is a **column name** (plan-format rule)
I    integer literal slot: a bare integer or ``{"lit": int}`` (or any expression object)
N    non-negative integer literal slot
F    number literal slot
S    string literal slot: a bare string here is the **string**, not a column
B    boolean literal slot
L    any scalar literal slot (bare value = literal)
T    type-name slot (``"int"``, ``{"lit": "decimal(10,2)"}``)
==== ==================================================================================

Modifiers: ``?`` optional, ``*`` zero or more, ``+`` one or more. Literal slots take bare
values as the literal the user meant (PLAN_FORMAT.md Policy 4) but still accept an
explicit expression object where Spark takes a column.

``spark`` is the Spark function emitted as ``unresolved_function`` (default: the plan
name); ``order`` reorders arguments where the plan format's order differs from Spark's;
``special`` names a form the parser or translator builds by hand (casts, ``when``,
``isin``...). Everything else is emitted generically.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

__all__ = [
    "CATALOG",
    "FunctionSpec",
    "Param",
    "lookup",
    "parse_signature",
]

KINDS = ("scalar", "aggregate", "window", "generator", "operator")


@dataclass(frozen=True)
class Param:
    code: str  # e I N F S B L T
    name: str = ""
    optional: bool = False
    variadic: bool = False  # repeats; with optional → zero or more, else one or more

    @property
    def is_literal_slot(self) -> bool:
        return self.code != "e"

    def describe(self) -> str:
        mod = "*" if self.variadic and self.optional else "+" if self.variadic else "?" if self.optional else ""
        return f"{self.code}{mod}" + (f" {self.name}" if self.name else "")


@dataclass(frozen=True)
class FunctionSpec:
    """One catalog row."""

    name: str
    params: tuple[Param, ...]
    spark: str
    kind: str = "scalar"
    aliases: tuple[str, ...] = ()
    order: tuple[int, ...] | None = None
    special: str | None = None
    nondeterministic: bool = False
    notes: str = ""
    signature: str = ""

    # cached: read for every call the parser sees (rows are immutable)
    @functools.cached_property
    def min_args(self) -> int:
        return sum(1 for p in self.params if not p.optional)

    @functools.cached_property
    def max_args(self) -> int | None:
        if any(p.variadic for p in self.params):
            return None
        return len(self.params)

    def param_for(self, i: int, n_args: int) -> Param:
        """The slot that argument ``i`` of ``n_args`` fills."""
        fixed_after = 0
        for j, p in enumerate(self.params):
            if p.variadic:
                # arguments after the variadic slot fill the trailing slots
                fixed_after = len(self.params) - j - 1
                if i < j:
                    return self.params[i]
                if i >= n_args - fixed_after:
                    return self.params[len(self.params) - (n_args - i)]
                return p
        if i < len(self.params):
            return self.params[i]
        return self.params[-1] if self.params else Param("e")

    def arity_text(self) -> str:
        lo, hi = self.min_args, self.max_args
        if hi is None:
            return f"at least {lo} argument{'s' if lo != 1 else ''}"
        if lo == hi:
            return f"exactly {lo} argument{'s' if lo != 1 else ''}"
        return f"{lo} to {hi} arguments"


_SLOT = re.compile(r"^([eINFSBLT])([?*+]?)(?:\s+(\w+))?$")


def parse_signature(sig: str) -> tuple[Param, ...]:
    if not sig.strip():
        return ()
    out = []
    for part in sig.split(","):
        m = _SLOT.match(part.strip())
        if not m:
            raise ValueError(f"bad signature slot {part!r} in {sig!r}")
        code, mod, name = m.groups()
        out.append(
            Param(code, name or "", optional=mod in ("?", "*"), variadic=mod in ("*", "+"))
        )
    return tuple(out)


def fn(
    name: str,
    sig: str,
    spark: str | None = None,
    *,
    kind: str = "scalar",
    aliases: tuple[str, ...] = (),
    order: tuple[int, ...] | None = None,
    special: str | None = None,
    nondeterministic: bool = False,
    notes: str = "",
) -> FunctionSpec:
    assert kind in KINDS, kind
    return FunctionSpec(
        name=name,
        params=parse_signature(sig),
        spark=spark or name,
        kind=kind,
        aliases=aliases,
        order=order,
        special=special,
        nondeterministic=nondeterministic,
        notes=notes,
        signature=sig,
    )


def agg(name: str, sig: str, spark: str | None = None, **kw: object) -> FunctionSpec:
    return fn(name, sig, spark, kind="aggregate", **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------
# The rows. Grouped as PLAN_FORMAT.md §4 groups them.

_ROWS: list[FunctionSpec] = [
    # ---- operators (reached through {"op": ...} and also callable as {"fn": ...}) ----
    fn("==", "e, e", kind="operator", aliases=("eq",)),
    fn(">", "e, e", kind="operator", aliases=("gt",)),
    fn(">=", "e, e", kind="operator", aliases=("ge",)),
    fn("<", "e, e", kind="operator", aliases=("lt",)),
    fn("<=", "e, e", kind="operator", aliases=("le",)),
    fn("!=", "e, e", kind="operator", aliases=("ne",), special="not_equal",
       notes="emitted as not(a == b), as PySpark does"),
    fn("<=>", "e, e", kind="operator", aliases=("eq_null_safe", "equal_null")),
    fn("and", "e, e+", kind="operator", special="logical_chain",
       notes="n-ary; emitted as a balanced tree so long chains stay shallow"),
    fn("or", "e, e+", kind="operator", special="logical_chain"),
    fn("not", "e", kind="operator",
       notes="logical NOT (robin HEAD computed a bitwise complement even on booleans)"),
    fn("~", "e", kind="operator", aliases=("bitwise_not", "bitwiseNOT")),
    fn("+", "e, e", kind="operator", aliases=("add",)),
    fn("-", "e, e", kind="operator", aliases=("subtract", "sub", "minus")),
    fn("*", "e, e", kind="operator", aliases=("multiply", "mul")),
    fn("/", "e, e", kind="operator", aliases=("divide", "div")),
    fn("%", "e, e", kind="operator", aliases=("mod", "remainder"),
       notes="remainder is robin's name for Spark's %"),
    fn("power", "e, e", aliases=("pow", "**"),
       notes="robin required an integer literal exponent; any expression works here"),
    fn("between", "e, e lower, e upper", special="between",
       notes="x >= lower AND x <= upper, as PySpark's Column.between"),
    fn("in", "e, L*", aliases=("isin",), special="isin",
       notes="values are literals (a bare string is a value); Spark's IN semantics, nulls kept"),
    fn("isnull", "e", aliases=("is_null", "isNull")),
    fn("isnotnull", "e", aliases=("is_not_null", "isNotNull")),
    fn("isnan", "e", aliases=("isNaN",)),
    # ---- control, null handling, types (§4.1) ----
    fn("coalesce", "e+"),
    fn("when", "e, e, e*", special="when",
       notes="when(c, v) → null else; when(c1, v1, c2, v2, ..., else) chains"),
    fn("assert_true", "e, S? message"),
    fn("nvl", "e, e", aliases=("ifnull",)),
    fn("nullif", "e, e"),
    fn("nvl2", "e, e, e"),
    fn("greatest", "e+", special="single_passthrough",
       notes="one argument returns it unchanged (robin); Spark needs two"),
    fn("least", "e+", special="single_passthrough",
       notes="one argument returns it unchanged (robin); Spark needs two"),
    fn("nanvl", "e, e"),
    fn("typeof", "e", notes="Spark type names (robin returned Polars names)"),
    fn("cast", "e, T type", special="cast"),
    fn("try_cast", "e, T type", special="cast"),
    fn("astype", "e, T type", special="cast",
       notes="PySpark's astype is cast (robin made it try_cast)"),
    # ---- strings (§4.2) ----
    fn("upper", "e"),
    fn("ucase", "e"),
    fn("lower", "e"),
    fn("lcase", "e"),
    fn("length", "e"),
    fn("char_length", "e"),
    fn("character_length", "e"),
    fn("trim", "e, S? chars", notes="optional characters to trim, as Spark's trim(str, chars)"),
    fn("ltrim", "e, S? chars"),
    fn("rtrim", "e, S? chars"),
    fn("btrim", "e, S? chars"),
    fn("substring", "e, I pos, I? len", aliases=("substr",)),
    fn("concat", "e*"),
    fn("concat_ws", "S sep, e*"),
    fn("initcap", "e"),
    fn("reverse", "e"),
    fn("ascii", "e"),
    fn("char", "e"),
    fn("chr", "e"),
    fn("base64", "e"),
    fn("unbase64", "e"),
    fn("sha1", "e"),
    fn("sha", "e"),
    fn("md5", "e"),
    fn("soundex", "e"),
    fn("repeat", "e, I n"),
    fn("instr", "e, S substr"),
    fn("position", "S substr, e, I? start"),
    fn("locate", "S substr, e, I? start"),
    fn("format_number", "e, N decimals"),
    fn("overlay", "e, S replace, I pos, I? len"),
    fn("sha2", "e, I bits"),
    fn("lpad", "e, I len, S? pad"),
    fn("rpad", "e, I len, S? pad"),
    fn("translate", "e, S from, S to"),
    fn("substring_index", "e, S delim, I count", aliases=("substringIndex",)),
    fn("left", "e, I n"),
    fn("right", "e, I n"),
    fn("replace", "e, S search, S? replacement"),
    fn("startswith", "e, S prefix", aliases=("startsWith",)),
    fn("endswith", "e, S suffix", aliases=("endsWith",)),
    fn("contains", "e, S substr"),
    fn("like", "e, S pattern, S? escape"),
    fn("ilike", "e, S pattern, S? escape"),
    fn("rlike", "e, S regex"),
    fn("regexp", "e, S regex"),
    fn("regexp_like", "e, S regex"),
    fn("levenshtein", "e, e, I? threshold"),
    fn("crc32", "e"),
    fn("xxhash64", "e+"),
    fn("hash", "e+", notes="Spark's Murmur3 hash (robin's values differ)"),
    fn("regexp_extract", "e, S regex, N? group",
       notes="group defaults to 1 as in Spark SQL"),
    fn("regexp_replace", "e, S regex, S replacement, I? position"),
    fn("regexp_extract_all", "e, S regex, N? group", aliases=("regexpExtractAll",)),
    fn("regexp_count", "e, S regex"),
    fn("regexp_substr", "e, S regex"),
    fn("regexp_instr", "e, S regex, N? group"),
    fn("split", "e, S regex, I? limit",
       notes="the delimiter is a Java regex, as in Spark (robin matched it literally)"),
    fn("split_part", "e, S delim, I part"),
    fn("find_in_set", "e, e"),
    fn("format_string", "S format, e*", aliases=("formatString",)),
    fn("printf", "S format, e*"),
    fn("mask", "e, S? upper, S? lower, S? digit, S? other"),
    fn("str_to_map", "e, S? pair_delim, S? kv_delim"),
    fn("get_json_object", "e, S path", aliases=("getJsonObject",)),
    fn("bit_length", "e"),
    fn("octet_length", "e"),
    fn("hex", "e"),
    fn("unhex", "e"),
    fn("bin", "e"),
    # ---- math and arithmetic (§4.3) ----
    *(
        fn(n, "e")
        for n in (
            "abs", "sqrt", "exp", "sin", "cos", "tan", "asin", "acos", "atan", "cosh",
            "sinh", "tanh", "cot", "csc", "sec", "degrees", "radians", "cbrt", "expm1",
            "log1p", "log10", "log2", "rint", "factorial", "signum", "sign", "positive",
            "asinh", "acosh", "atanh",
        )
    ),
    fn("ceil", "e, I? scale"),
    fn("ceiling", "e, I? scale"),
    fn("floor", "e, I? scale"),
    fn("round", "e, I? scale"),
    fn("bround", "e, I? scale"),
    fn("negative", "e", aliases=("negate",)),
    fn("ln", "e"),
    fn("log", "e, F? base", special="log",
       notes="plan order is log(value, base); Spark's is log(base, value): reordered"),
    fn("atan2", "e y, e x"),
    fn("hypot", "e, e"),
    fn("pmod", "e, e"),
    fn("e", ""),
    fn("pi", ""),
    fn("to_degrees", "e", "degrees", aliases=("toDegrees",)),
    fn("to_radians", "e", "radians", aliases=("toRadians",)),
    fn("try_add", "e, e"),
    fn("try_subtract", "e, e"),
    fn("try_multiply", "e, e"),
    fn("try_divide", "e, e"),
    fn("try_mod", "e, e"),
    fn("width_bucket", "e, e min, e max, e buckets"),
    fn("shiftleft", "e, I bits", aliases=("shift_left", "shiftLeft")),
    fn("shiftright", "e, I bits", aliases=("shift_right", "shiftRight")),
    fn("shiftrightunsigned", "e, I bits", aliases=("shift_right_unsigned",)),
    fn("rand", "I? seed", nondeterministic=True),
    fn("randn", "I? seed", nondeterministic=True),
    # ---- maps and structs (§4.8, the parts the op table reaches) ----
    fn("create_map", "e*", "map", aliases=("createMap",),
       notes="zero arguments give an empty map"),
    # ---- aggregates used by groupBy/agg entries (§5) ----
    agg("count", "e"),
    agg("sum", "e"),
    agg("avg", "e", aliases=("mean",)),
    agg("min", "e"),
    agg("max", "e"),
    agg("first", "e, B? ignorenulls"),
    agg("last", "e, B? ignorenulls"),
]

CATALOG: dict[str, FunctionSpec] = {}
for _spec in _ROWS:
    for _name in (_spec.name, *_spec.aliases):
        if _name in CATALOG:
            raise RuntimeError(f"function name {_name!r} is in the catalog twice")
        CATALOG[_name] = _spec


def lookup(name: str) -> FunctionSpec | None:
    """The catalog row for a plan function name (exact, case-sensitive), or None."""
    return CATALOG.get(name)


def suggest(name: str, limit: int = 3) -> list[str]:
    """Close catalog names for an unknown one (for error messages)."""
    import difflib

    lowered = name.lower()
    if lowered != name and lowered in CATALOG:
        return [lowered]
    return difflib.get_close_matches(name, list(CATALOG), n=limit, cutoff=0.75)


SPECIAL_FORMS: frozenset[str] = frozenset(s.special for s in _ROWS if s.special)

__all__ += ["KINDS", "SPECIAL_FORMS", "agg", "fn", "suggest"]
