"""The function catalog: one row per function, as data.

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

import dataclasses
import decimal
import functools
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BUILDER_FORMS",
    "CATALOG",
    "DESUGAR_FORMS",
    "EXCLUDED",
    "KINDS",
    "NULL_SKIPPING_NAMES",
    "OP_FORMS",
    "SORT_FUNCTIONS",
    "FunctionSpec",
    "Param",
    "agg",
    "fn",
    "lookup",
    "parse_signature",
    "rows",
    "suggest",
]

KINDS = ("scalar", "aggregate", "window", "generator", "operator")
#: how a function is written as ``{"op": word, ...}`` (None: only as ``{"fn": name}``)
OP_FORMS = (None, "binary", "unary", "args")


@dataclass(frozen=True)
class Param:
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


@dataclass(frozen=True)
class FunctionSpec:
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

    def slot_indices(self, n_args: int) -> list[int] | None:
        """The index (into ``params``) of the slot each of ``n_args`` arguments fills, or
        None if that many arguments are not allowed."""
        params = self.params
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


def parse_signature(sig: str) -> tuple[Param, ...]:
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


def _unary(*names: str, kind: str = "scalar", **kw: Any) -> list[FunctionSpec]:
    return [fn(n, "e", kind=kind, **kw) for n in names]


_UNIX_FORMAT = "yyyy-MM-dd HH:mm:ss"
_TUPLE_MODE = "sum"

# ---------------------------------------------------------------------------------------
# The rows. Grouped roughly as PLAN_FORMAT.md §4 groups them, then PySpark's own sections.

_LISTING: list[FunctionSpec | str] = [  # a string starts a group (docs/functions.md sections)
    "Operators",
    fn("==", "e, e", kind="operator", aliases=("eq",), op_form="binary"),
    fn(">", "e, e", kind="operator", aliases=("gt",), op_form="binary"),
    fn(">=", "e, e", kind="operator", aliases=("ge",), op_form="binary"),
    fn("<", "e, e", kind="operator", aliases=("lt",), op_form="binary"),
    fn("<=", "e, e", kind="operator", aliases=("le",), op_form="binary"),
    fn(
        "!=",
        "e, e",
        kind="operator",
        aliases=("ne",),
        desugar="not_equal",
        op_form="binary",
        notes="emitted as not(a == b)",
    ),
    fn("<=>", "e, e", kind="operator", aliases=("eq_null_safe", "eqNullSafe"), op_form="binary"),
    fn(
        "and",
        "e, e+",
        kind="operator",
        builder="logical_chain",
        notes="n-ary; emitted as a balanced tree so long chains stay shallow",
    ),
    fn("or", "e, e+", kind="operator", builder="logical_chain"),
    fn(
        "not",
        "e",
        kind="operator",
        op_form="unary",
        notes="logical NOT (robin HEAD computed a bitwise complement even on booleans)",
    ),
    fn("~", "e", kind="operator", aliases=("bitwise_not", "bitwiseNOT"), op_form="unary"),
    fn("&", "e, e", kind="operator", aliases=("bitwise_and", "bitwiseAND")),
    fn("|", "e, e", kind="operator", aliases=("bitwise_or", "bitwiseOR")),
    fn("^", "e, e", kind="operator", aliases=("bitwise_xor", "bitwiseXOR")),
    fn(
        "+",
        "e, e",
        kind="operator",
        aliases=("add",),
        op_form="binary",
        notes="Spark's result type (robin always returned double)",
    ),
    fn("-", "e, e", kind="operator", aliases=("subtract", "sub", "minus"), op_form="binary"),
    fn("*", "e, e", kind="operator", aliases=("multiply", "mul"), op_form="binary"),
    fn("/", "e, e", kind="operator", aliases=("divide", "div"), op_form="binary"),
    fn("%", "e, e", kind="operator", aliases=("mod", "remainder"), notes="remainder is robin's name for Spark's %"),
    fn(
        "power",
        "e, e",
        aliases=("pow", "**"),
        op_form="binary",
        notes="robin required an integer literal exponent; any expression works here",
    ),
    fn(
        "between",
        "e, e lower, e upper",
        builder="between",
        notes="x >= lower AND x <= upper, as PySpark's Column.between",
    ),
    fn(
        "in",
        "e, L*",
        aliases=("isin",),
        # desugar here (a single list of values is spread), build there (Spark's "in")
        desugar="isin",
        builder="isin",
        notes="values are literals (a bare string is a value); Spark's IN semantics, nulls kept",
    ),
    fn("isnull", "e", aliases=("is_null", "isNull"), op_form="unary"),
    fn("isnotnull", "e", aliases=("is_not_null", "isNotNull"), op_form="unary"),
    fn("isnan", "e", aliases=("isNaN",)),
    "Conditionals, nulls and types",
    fn("coalesce", "e+", op_form="args"),
    fn(
        "when",
        "e, e, e*",
        desugar="when",
        notes="when(c, v): null where c is not true; when(c1, v1, c2, v2, ..., else) chains; "
        "an 'otherwise' key on the object or the otherwise function adds the else branch",
    ),
    fn(
        "otherwise",
        "e when, e value",
        desugar="otherwise",
        notes="otherwise(when(...), v): the else branch of a when (Column.otherwise)",
    ),
    fn("assert_true", "e, S? message"),
    fn("raise_error", "S message"),
    fn("nvl", "e, e", op_form="args"),
    fn("ifnull", "e, e"),
    fn("nullif", "e, e"),
    fn("nullifzero", "e"),
    fn("zeroifnull", "e"),
    fn("nvl2", "e, e, e"),
    fn(
        "greatest",
        "e+",
        builder="single_passthrough",
        notes="one argument returns it unchanged (robin); Spark needs two",
    ),
    fn("least", "e+", builder="single_passthrough", notes="one argument returns it unchanged (robin); Spark needs two"),
    fn("equal_null", "e, e"),
    fn("nanvl", "e, e"),
    fn("typeof", "e", notes="Spark type names (robin returned Polars names)"),
    fn("cast", "e, T type", desugar="cast"),
    fn("try_cast", "e, T type", desugar="cast"),
    fn("astype", "e, T type", desugar="cast", notes="PySpark's astype is cast (robin made it try_cast)"),
    fn(
        "call_udf",
        "S name, e*",
        desugar="udf",
        notes="a UDF registered with Client.register_udf, else a function registered on the server",
    ),
    fn(
        "call_function",
        "S name, e*",
        # desugar here (the name must be a string literal), build there (CallFunction)
        desugar="call_function",
        builder="call_function",
        notes="calls a function registered on the server by name (Spark Connect CallFunction)",
    ),
    fn("unwrap_udt", "e"),
    "Strings, binary, JSON/CSV/XML",
    *_unary(
        "upper",
        "ucase",
        "lower",
        "lcase",
        "length",
        "char_length",
        "character_length",
        "initcap",
        "reverse",
        "ascii",
        "char",
        "chr",
        "base64",
        "unbase64",
        "sha1",
        "sha",
        "md5",
    ),
    *_unary("soundex", "crc32", op_form="args"),
    *_unary(
        "bit_length",
        "octet_length",
        "hex",
        "unhex",
        "bin",
        "quote",
        "url_encode",
        "url_decode",
        "try_url_decode",
        "is_valid_utf8",
        "make_valid_utf8",
        "validate_utf8",
        "try_validate_utf8",
        "to_base32",
        "from_base32",
        "collation",
    ),
    fn(
        "trim",
        "e, S? chars",
        order=(1, 0),
        notes="optional characters to trim; Spark's two-argument form is trim(chars, str)",
    ),
    fn("ltrim", "e, S? chars", order=(1, 0)),
    fn("rtrim", "e, S? chars", order=(1, 0)),
    fn("btrim", "e, S? chars"),
    fn("substring", "e, I pos, I? len"),
    fn("substr", "e, I pos, I? len"),
    fn("concat", "e*", op_form="args"),
    fn("concat_ws", "S sep, e*"),
    fn("repeat", "e, I n"),
    fn("instr", "e, S substr, I? start, I? occurrence"),
    fn("position", "S substr, e, I? start"),
    fn("locate", "S substr, e, I? start", fill={2: 1}),
    fn("format_number", "e, L decimals", notes="decimals (an integer) or a format pattern string, as in Spark"),
    fn("overlay", "e, S replace, I pos, I? len", fill={3: -1}),
    fn("sha2", "e, I bits"),
    fn("lpad", "e, I len, S? pad"),
    fn("rpad", "e, I len, S? pad"),
    fn("translate", "e, S from, S to", op_form="args"),
    fn("substring_index", "e, S delim, I count", aliases=("substringIndex",), op_form="args"),
    fn("left", "e, I n"),
    fn("right", "e, I n"),
    fn("replace", "e, S search, S? replacement"),
    fn("startswith", "e, S prefix", aliases=("startsWith",)),
    fn("endswith", "e, S suffix", aliases=("endsWith",)),
    fn("contains", "e, S substr", op_form="args"),
    fn("like", "e, S pattern, S? escape"),
    fn("ilike", "e, S pattern, S? escape"),
    fn("rlike", "e, S regex"),
    fn("regexp", "e, S regex"),
    fn("regexp_like", "e, S regex"),
    fn("levenshtein", "e, e, I? threshold", op_form="args"),
    fn("jaro_winkler_similarity", "e, e"),
    fn("xxhash64", "e+", op_form="args"),
    fn("hash", "e+", notes="Spark's Murmur3 hash (robin's values differ)"),
    fn("regexp_extract", "e, S regex, N? group", op_form="args", notes="group defaults to 1 as in Spark SQL"),
    fn("regexp_replace", "e, S regex, S replacement, I? position", op_form="args"),
    fn("regexp_extract_all", "e, S regex, N? group", aliases=("regexpExtractAll",), op_form="args"),
    fn("regexp_count", "e, S regex"),
    fn("regexp_substr", "e, S regex"),
    fn("regexp_instr", "e, S regex, N? group"),
    fn(
        "split",
        "e, S regex, I? limit",
        fill={2: -1},
        notes="the delimiter is a Java regex, as in Spark (robin matched it literally)",
    ),
    fn("split_part", "e, S delim, I part"),
    fn("find_in_set", "e, e"),
    fn("format_string", "S format, e*", aliases=("formatString",), op_form="args"),
    fn("printf", "S format, e*"),
    fn("mask", "e, S? upper, S? lower, S? digit, S? other", fill={1: "X", 2: "x", 3: "n", 4: None}),
    fn("str_to_map", "e, S? pair_delim, S? kv_delim", fill={1: ",", 2: ":"}),
    fn("get_json_object", "e, S path", aliases=("getJsonObject",), op_form="args"),
    fn("json_array_length", "e"),
    fn("json_object_keys", "e"),
    fn("from_json", "e, S schema, M? options", notes="schema: a DDL string or Spark's JSON schema"),
    fn("to_json", "e, M? options"),
    fn("schema_of_json", "S json, M? options"),
    fn("from_csv", "e, S schema, M? options"),
    fn("to_csv", "e, M? options"),
    fn("schema_of_csv", "S csv, M? options"),
    fn("from_xml", "e, S schema, M? options"),
    fn("to_xml", "e, M? options"),
    fn("schema_of_xml", "S xml, M? options"),
    fn("conv", "e, I from_base, I to_base"),
    fn("decode", "e, S charset"),
    fn("encode", "e, S charset"),
    fn("to_binary", "e, S? format"),
    fn("try_to_binary", "e, S? format"),
    fn("elt", "e, e+", notes="elt(n, v1, v2, ...): the n-th value (1-based)"),
    fn("sentences", "e, S? language, S? country", fill={1: "", 2: ""}),
    fn("collate", "e, S collation"),
    fn("parse_url", "e, S part, S? key"),
    fn("try_parse_url", "e, S part, S? key"),
    fn("aes_encrypt", "e, e key, S? mode, S? padding, e? iv, e? aad", fill={2: "GCM", 3: "DEFAULT", 4: "", 5: ""}),
    fn("aes_decrypt", "e, e key, S? mode, S? padding, e? aad", fill={2: "GCM", 3: "DEFAULT", 4: ""}),
    fn("try_aes_decrypt", "e, e key, S? mode, S? padding, e? aad", fill={2: "GCM", 3: "DEFAULT", 4: ""}),
    fn("hmac", "e key, e message, S? algorithm"),
    fn("java_method", "S class_name, S method, e*"),
    fn("reflect", "S class_name, S method, e*"),
    fn("try_reflect", "S class_name, S method, e*"),
    "Math and bits",
    *_unary(
        "abs",
        "sqrt",
        "exp",
        "sin",
        "cos",
        "tan",
        "asin",
        "acos",
        "atan",
        "cosh",
        "sinh",
        "tanh",
        "cot",
        "csc",
        "sec",
        "degrees",
        "radians",
        "cbrt",
        "expm1",
        "log1p",
        "log10",
        "log2",
        "rint",
        "factorial",
        "signum",
        "sign",
        "positive",
        "asinh",
        "acosh",
        "atanh",
        "ln",
    ),
    fn("ceil", "e, I? scale"),
    fn("ceiling", "e, I? scale"),
    fn("floor", "e, I? scale"),
    fn("round", "e, I? scale"),
    fn("bround", "e, I? scale"),
    fn("negative", "e", aliases=("negate",)),
    fn(
        "log",
        "e, e?",
        # desugar here (PySpark's argument order), build there (ln for one argument)
        desugar="log",
        builder="log",
        op_form="args",
        notes="robin's order log(value, base) (the base a number literal); PySpark's "
        "log(base, value) is recognised when the first argument is the number literal",
    ),
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
    fn(
        "shiftleft",
        "e, I bits",
        aliases=("shift_left", "shiftLeft"),
        notes="shift_left is robin's name for Spark's shiftleft",
    ),
    fn("shiftright", "e, I bits", aliases=("shift_right", "shiftRight")),
    fn("shiftrightunsigned", "e, I bits", aliases=("shift_right_unsigned", "shiftRightUnsigned")),
    fn("bit_count", "e"),
    fn("bit_get", "e, e pos"),
    fn("getbit", "e, e pos"),
    fn("rand", "I? seed", aliases=("random",), nondeterministic=True),
    fn("randn", "I? seed", nondeterministic=True),
    fn("uuid", "I? seed", nondeterministic=True),
    fn("uniform", "e min, e max, I? seed", nondeterministic=True),
    fn("randstr", "e length, I? seed", nondeterministic=True),
    "Dates, times and intervals",
    *_unary(
        "year",
        "month",
        "day",
        "dayofmonth",
        "hour",
        "minute",
        "second",
        "quarter",
        "weekofyear",
        "dayofweek",
        "dayofyear",
        "last_day",
        "dayname",
        "monthname",
        "weekday",
        "unix_date",
        "date_from_unix_date",
        "unix_micros",
        "unix_millis",
        "unix_seconds",
        "unix_nanos",
        "timestamp_seconds",
        "timestamp_millis",
        "timestamp_micros",
        "timestamp_nanos",
        "time_from_micros",
        "time_from_millis",
        "time_from_seconds",
        "time_to_micros",
        "time_to_millis",
        "time_to_seconds",
        "window_time",
    ),
    fn("to_date", "e, S? format", op_form="args"),
    fn("try_to_date", "e, S? format"),
    fn("to_timestamp", "e, S? format"),
    fn("try_to_timestamp", "e, S? format"),
    fn("to_timestamp_ltz", "e, S? format"),
    fn("to_timestamp_ntz", "e, S? format"),
    fn("to_time", "e, S? format"),
    fn("try_to_time", "e, S? format"),
    fn("to_unix_timestamp", "e, S? format"),
    fn("date_format", "e, S pattern"),
    fn("date_add", "e, I days"),
    fn("dateadd", "e, I days"),
    fn("date_sub", "e, I days"),
    fn("datediff", "e end, e start"),
    fn("date_diff", "e end, e start"),
    fn("trunc", "e, S unit", notes="returns a date, as Spark's trunc (robin returned a timestamp)"),
    fn("date_trunc", "S unit, e", aliases=("dateTrunc",), op_form="args"),
    fn("add_months", "e, I months"),
    fn("months_between", "e end, e start, B? round_off", fill={2: True}),
    fn("next_day", "e, S day_name"),
    fn("unix_timestamp", "e?, S? format", fill={1: _UNIX_FORMAT}),
    fn("from_unixtime", "e, S? format", fill={1: _UNIX_FORMAT}),
    fn("make_date", "e, e, e"),
    fn(
        "make_timestamp",
        "e, e, e?, e?, e?, e?, S? timezone",
        desugar="make_timestamp",
        notes="(years, months, days, hours, mins, secs[, timezone]) or (date, time[, timezone]); "
        'the time zone is a string literal slot: a bare "UTC" is the zone (robin ignored a bare string there)',
    ),
    fn("try_make_timestamp", "e, e, e?, e?, e?, e?, S? timezone", desugar="make_timestamp", notes="as make_timestamp"),
    fn(
        "make_timestamp_ntz",
        "e, e, e?, e?, e?, e?",
        desugar="make_timestamp",
        notes="(years, months, days, hours, mins, secs) or (date, time)",
    ),
    fn("try_make_timestamp_ntz", "e, e, e?, e?, e?, e?", desugar="make_timestamp", notes="as make_timestamp_ntz"),
    fn("make_timestamp_ltz", "e, e, e, e, e, e, S? timezone"),
    fn("try_make_timestamp_ltz", "e, e, e, e, e, e, S? timezone"),
    fn("make_time", "e, e, e"),
    fn(
        "make_interval",
        "e? years, e? months, e? weeks, e? days, e? hours, e? mins, e? secs",
        fill={0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: decimal.Decimal(0)},
    ),
    fn(
        "try_make_interval",
        "e? years, e? months, e? weeks, e? days, e? hours, e? mins, e? secs",
        fill={0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: decimal.Decimal(0)},
    ),
    fn("make_dt_interval", "e? days, e? hours, e? mins, e? secs", fill={0: 0, 1: 0, 2: 0, 3: decimal.Decimal(0)}),
    fn("make_ym_interval", "e? years, e? months", fill={0: 0, 1: 0}),
    fn("timestampadd", "S unit, e amount, e ts", aliases=("timestamp_add",)),
    fn("timestampdiff", "S unit, e start, e end", aliases=("timestamp_diff",)),
    fn("days", "e n", desugar="interval", notes="robin's duration: make_dt_interval(n)"),
    fn("hours", "e n", desugar="interval", notes="robin's duration: make_dt_interval(0, n)"),
    fn("minutes", "e n", desugar="interval", notes="robin's duration: make_dt_interval(0, 0, n)"),
    fn(
        "months",
        "e n",
        desugar="interval",
        notes="a year-month interval make_ym_interval(0, n) (robin approximated 30 days)",
    ),
    fn(
        "years",
        "e n",
        desugar="interval",
        notes="a year-month interval make_ym_interval(n) (robin approximated 365 days)",
    ),
    fn("from_utc_timestamp", "e, S tz"),
    fn("to_utc_timestamp", "e, S tz"),
    fn(
        "convert_timezone",
        "S? source_tz, S target_tz, e",
        notes="without a source zone the session time zone is the source",
    ),
    *(
        # per-partition / per-file / per-row values: non-deterministic (never merged across steps)
        fn(n, "", nondeterministic=n in ("spark_partition_id", "input_file_name", "monotonically_increasing_id"))
        for n in (
            "current_date",
            "curdate",
            "current_timestamp",
            "now",
            "localtimestamp",
            "current_timezone",
            "spark_partition_id",
            "input_file_name",
            "input_file_block_length",
            "input_file_block_start",
            "monotonically_increasing_id",
            "current_catalog",
            "current_database",
            "current_schema",
            "current_user",
            "user",
            "session_user",
            "current_path",
            "version",
        )
    ),
    fn("current_time", "I? precision"),
    fn(
        "extract",
        "e source, S field",
        desugar="date_part",
        notes="robin's order extract(source, field); PySpark's (field, source) is recognised "
        "when the first argument is the string literal",
    ),
    fn("date_part", "e source, S field", desugar="date_part", notes="as extract"),
    fn("datepart", "e source, S field", desugar="date_part", notes="as extract"),
    fn(
        "to_char",
        "e, S? format",
        desugar="to_char",
        notes="with a format: Spark's to_char (numbers and datetimes); without: cast to string (robin)",
    ),
    fn("to_varchar", "e, S? format", desugar="to_char", notes="as to_char"),
    fn(
        "to_number",
        "e, S? format",
        desugar="to_number",
        notes="with a format: Spark's to_number; without: cast to double (robin)",
    ),
    fn(
        "try_to_number",
        "e, S? format",
        desugar="to_number",
        notes="with a format: Spark's try_to_number; without: try_cast to double (robin)",
    ),
    fn(
        "window",
        "e, S duration, S? slide, S? start",
        notes="time window struct (start, end) for grouping by time buckets",
    ),
    fn("session_window", "e, S gap"),
    fn("time_bucket", "e, e, e?"),
    fn("time_diff", "S unit, e, e"),
    fn("time_trunc", "S unit, e"),
    "Arrays",
    fn("array", "e*"),
    *_unary(
        "array_max", "array_min", "array_distinct", "array_compact", "array_size", "size", "cardinality", "flatten"
    ),
    fn("shuffle", "e, I? seed", nondeterministic=True),
    fn("element_at", "e, L index", notes="array index (1-based) or map key"),
    fn("try_element_at", "e, L index"),
    fn("array_contains", "e, e"),
    fn("array_remove", "e, e"),
    fn("array_position", "e, e"),
    fn("array_append", "e, e"),
    fn("array_prepend", "e, e"),
    fn("array_except", "e, e"),
    fn("array_intersect", "e, e"),
    fn("array_union", "e, e"),
    fn("arrays_overlap", "e, e"),
    fn("arrays_zip", "e+"),
    fn("array_insert", "e array, e pos, e value"),
    fn("array_join", "e, S sep, S? null_replacement"),
    fn(
        "array_sort",
        "e, X2?",
        desugar="array_sort",
        notes="array_sort(a) and array_sort(a, true|false) are sort_array (nulls first when "
        "ascending, as robin); with a comparator lambda it is Spark's array_sort",
    ),
    fn("sort_array", "e, B? asc", fill={1: True}),
    fn("array_slice", "e, I start, I? length", "slice", notes="robin's name for Spark's slice"),
    fn("slice", "e, e start, e length"),
    fn("sequence", "e start, e stop, e? step"),
    fn("array_repeat", "e, e count"),
    fn(
        "array_sum",
        "e",
        desugar="array_sum",
        notes="no Spark function: aggregate(a, zero, (acc, x) -> acc + coalesce(x, 0)); nulls "
        "are skipped and an empty array sums to 0, as in robin; decimal arrays are not supported",
    ),
    "Higher-order functions (lambdas)",
    fn("transform", "e, X12"),
    fn("filter", "e, X12"),
    fn("exists", "e, X1"),
    fn("forall", "e, X1"),
    fn("aggregate", "e, e zero, X2 merge, X1? finish"),
    fn("reduce", "e, e zero, X2 merge, X1? finish"),
    fn("zip_with", "e, e, X2"),
    fn("map_filter", "e, X2"),
    fn("transform_keys", "e, X2"),
    fn("transform_values", "e, X2"),
    fn("map_zip_with", "e, e, X3"),
    "Maps and structs",
    fn("create_map", "e? key, e? value", "map", aliases=("createMap",), cycle=True, op_form="args"),
    fn("map_keys", "e", aliases=("keys",)),
    fn("map_values", "e"),
    fn("map_entries", "e"),
    fn("map_concat", "e*"),
    fn("map_contains_key", "e, L key"),
    fn("map_from_arrays", "e, e"),
    fn("map_from_entries", "e"),
    fn(
        "get",
        "e, e",
        # desugar here (a key that is no integer literal is x[key]), build there (x[key]
        # again when x is statically a map, else Spark's get)
        desugar="get",
        builder="get",
        notes="any key but an integer literal is a map lookup x[key] (robin's get(map, key)); an "
        "integer literal is that lookup too when x is known to be a map (an inline map column, a "
        "map-building function, a cast), else Spark's get (0-based array access, null out of range)",
    ),
    fn("get_field", "e, S field", aliases=("getField",), desugar="extract", notes="struct field (Column.getField)"),
    fn(
        "get_item",
        "e, L key",
        aliases=("getItem",),
        desugar="extract",
        notes="0-based array element or map value (Column.getItem)",
    ),
    fn("struct", "e*", aliases=("struct_",), notes="field names from the argument expressions"),
    fn("named_struct", "S name, e value", cycle=True),
    fn("with_field", "e, S field, e value", aliases=("withField",), builder="update_fields", notes="Column.withField"),
    fn("drop_fields", "e, S+ fields", aliases=("dropFields",), builder="update_fields", notes="Column.dropFields"),
    "Generators",
    gen("explode", "e", op_form="args"),
    gen("explode_outer", "e", aliases=("explodeOuter",), op_form="args"),
    gen(
        "posexplode",
        "e",
        notes="two output columns: pos and col (key and value for maps); like "
        "every generator with several output columns, not allowed under one name (withColumn)",
    ),
    gen("posexplode_outer", "e"),
    gen("inline", "e", notes="one output column per struct field"),
    gen("inline_outer", "e"),
    gen("stack", "I n, e+", notes="stack(n, v1, v2, ...): n rows of columns col0, col1, ..."),
    gen(
        "json_tuple",
        "e, S+ fields",
        aliases=("jsonTuple",),
        op_form="args",
        notes="Spark's generator: one string column per field, c0, c1, ... (robin returned a struct)",
    ),
    "Aggregates",
    agg(
        "count",
        "e",
        counts_rows=True,
        null_skipping=True,
        notes="count(*) and a count without a column count rows: count(1)",
    ),
    agg(
        "count_distinct", "e+", "count", aliases=("countDistinct",), distinct=True, counts_rows=True, null_skipping=True
    ),
    agg("approx_count_distinct", "e, F? rsd", aliases=("approxCountDistinct",), null_skipping=True),
    agg("sum", "e", null_skipping=True),
    agg("sum_distinct", "e", "sum", aliases=("sumDistinct",), distinct=True, null_skipping=True),
    agg("avg", "e", aliases=("mean",), null_skipping=True),
    agg("try_avg", "e"),
    agg("try_sum", "e"),
    agg("min", "e", null_skipping=True),
    agg("max", "e", null_skipping=True),
    agg("first", "e, B? ignorenulls", fill={1: False}),
    agg("last", "e, B? ignorenulls", fill={1: False}),
    agg("first_value", "e, B? ignorenulls"),
    agg("last_value", "e, B? ignorenulls"),
    agg("any_value", "e, B? ignorenulls"),
    agg("collect_list", "e", null_skipping=True),
    agg("collect_set", "e", null_skipping=True),
    agg("collect_union", "e"),
    agg("array_agg", "e", null_skipping=True),
    agg("listagg", "e, S? delimiter"),
    agg("listagg_distinct", "e, S? delimiter", "listagg", distinct=True),
    agg("string_agg", "e, S? delimiter"),
    agg("string_agg_distinct", "e, S? delimiter", "string_agg", distinct=True),
    agg("count_if", "e", null_skipping=True),
    agg("bool_and", "e", null_skipping=True),
    agg("bool_or", "e", null_skipping=True),
    agg("every", "e", null_skipping=True),
    agg("some", "e", null_skipping=True),
    agg("product", "e", null_skipping=True),
    agg("median", "e", null_skipping=True),
    agg("mode", "e, B? deterministic", fill={1: False}),
    agg(
        "percentile",
        "e, F percentage, I? frequency",
        fill={2: 1},
        null_skipping=True,
        notes="percentage: a number or an array of numbers",
    ),
    agg("percentile_approx", "e, F percentage, I? accuracy", fill={2: 10000}, null_skipping=True),
    agg("approx_percentile", "e, F percentage, I? accuracy", fill={2: 10000}, null_skipping=True),
    *_unary(
        "stddev",
        "std",
        "stddev_samp",
        "stddev_pop",
        "variance",
        "var_samp",
        "var_pop",
        "kurtosis",
        "skewness",
        "bit_and",
        "bit_or",
        "bit_xor",
        kind="aggregate",
        null_skipping=True,
    ),
    *_unary(
        "grouping",
        "bitmap_construct_agg",
        "bitmap_or_agg",
        "bitmap_and_agg",
        "theta_intersection_agg",
        "schema_of_variant_agg",
        "vector_avg",
        "vector_sum",
        kind="aggregate",
    ),
    *(agg(n, "e, e", null_skipping=True) for n in ("corr", "covar_pop", "covar_samp")),
    *(
        agg(n, "e, e")
        for n in (
            "regr_avgx",
            "regr_avgy",
            "regr_count",
            "regr_intercept",
            "regr_r2",
            "regr_slope",
            "regr_sxx",
            "regr_sxy",
            "regr_syy",
        )
    ),
    agg("max_by", "e, e ord, I? k"),
    agg("min_by", "e, e ord, I? k"),
    agg("histogram_numeric", "e, I bins"),
    agg("count_min_sketch", "e, F eps, F confidence, I? seed"),
    agg("hll_sketch_agg", "e, I? lg_config_k"),
    agg("hll_union_agg", "e, B? allow_different_lg_config_k"),
    agg("grouping_id", "e*"),
    *(agg(f"kll_{k}_agg_{t}", "e, I? k") for k in ("sketch", "merge") for t in ("bigint", "double", "float")),
    agg("theta_sketch_agg", "e, I? lg_nom_entries"),
    agg("theta_union_agg", "e, I? lg_nom_entries"),
    *(
        agg(f"tuple_sketch_agg_{t}", "e key, e summary, I? lg_nom_entries, S? mode", fill={2: 12, 3: _TUPLE_MODE})
        for t in ("double", "integer")
    ),
    *(
        agg(f"tuple_union_agg_{t}", "e, I? lg_nom_entries, S? mode", fill={1: 12, 2: _TUPLE_MODE})
        for t in ("double", "integer")
    ),
    *(agg(f"tuple_intersection_agg_{t}", "e, S? mode") for t in ("double", "integer")),
    "Window functions",
    *(win(n, "", needs_order=True) for n in ("row_number", "rank", "dense_rank", "percent_rank", "cume_dist")),
    win("ntile", "I n", needs_order=True),
    win("lag", "e, I? offset, L? default", fill={1: 1}, needs_order=True),
    win("lead", "e, I? offset, L? default", fill={1: 1}, needs_order=True),
    win("nth_value", "e, I offset, B? ignore_nulls", fill={2: False}, needs_order=True),
    win("counter_diff", "e, e? start_time"),
    "Sketches and bitmaps",
    *_unary(
        "hll_sketch_estimate",
        "theta_sketch_estimate",
        "bitmap_bit_position",
        "bitmap_bucket_number",
        "bitmap_count",
        *(f"kll_sketch_{op}_{t}" for op in ("get_n", "to_string") for t in ("bigint", "double", "float")),
        *(f"tuple_sketch_{op}_{t}" for op in ("estimate", "theta") for t in ("double", "integer")),
    ),
    fn("hll_union", "e, e, B? allow_different_lg_config_k"),
    *(
        fn(f"kll_sketch_{op}_{t}", "e, e")
        for op in ("get_quantile", "get_rank", "merge")
        for t in ("bigint", "double", "float")
    ),
    fn("theta_difference", "e, e"),
    fn("theta_intersection", "e, e"),
    fn("theta_union", "e, e, I? lg_nom_entries"),
    *(fn(f"tuple_difference_{k}{t}", "e, e") for k in ("", "theta_") for t in ("double", "integer")),
    *(fn(f"tuple_intersection_{k}{t}", "e, e, S? mode") for k in ("", "theta_") for t in ("double", "integer")),
    *(
        fn(f"tuple_union_{k}{t}", "e, e, I? lg_nom_entries, S? mode", fill={2: 12, 3: _TUPLE_MODE})
        for k in ("", "theta_")
        for t in ("double", "integer")
    ),
    *(fn(f"tuple_sketch_summary_{t}", "e, S? mode") for t in ("double", "integer")),
    "Variant, XPath, geospatial, vectors",
    *_unary(
        "parse_json",
        "try_parse_json",
        "is_variant_null",
        "is_valid_variant",
        "schema_of_variant",
        "to_variant_object",
        "st_geogfromwkb",
        "st_srid",
    ),
    fn("variant_get", "e, S path, S type"),
    fn("try_variant_get", "e, S path, S type"),
    *(
        fn(n, "e, S path, e value")
        for n in ("variant_array_append", "try_variant_array_append", "variant_insert", "try_variant_insert")
    ),
    fn("variant_set", "e, S path, e value, B? create_if_missing", fill={3: True}),
    fn("try_variant_set", "e, S path, e value, B? create_if_missing", fill={3: True}),
    fn("variant_delete", "e, S+ paths"),
    fn("variant_strip_nulls", "e, B? include_arrays", fill={1: True}),
    *(
        fn(n, "e, S path")
        for n in (
            "xpath",
            "xpath_boolean",
            "xpath_double",
            "xpath_float",
            "xpath_int",
            "xpath_long",
            "xpath_number",
            "xpath_short",
            "xpath_string",
        )
    ),
    fn("st_asbinary", "e, S? endianness"),
    fn("st_geomfromwkb", "e, e? srid"),
    fn("st_setsrid", "e, e srid"),
    *(fn(n, "e, e") for n in ("vector_cosine_similarity", "vector_inner_product", "vector_l2_distance")),
    fn("vector_norm", "e, e? degree"),
    fn("vector_normalize", "e, e? degree"),
]


def _grouped(listing: list[FunctionSpec | str]) -> list[FunctionSpec]:
    out: list[FunctionSpec] = []
    group = ""
    for item in listing:
        if isinstance(item, str):
            group = item
        else:
            out.append(dataclasses.replace(item, group=group))
    return out


_ROWS: list[FunctionSpec] = _grouped(_LISTING)

#: sort-order functions: accepted as ``orderBy`` and window ``order_by`` items
#: (``{"fn": "desc", "args": ["x"]}``), never as values
SORT_FUNCTIONS: dict[str, tuple[bool, bool | None]] = {
    "asc": (True, None),
    "desc": (False, None),
    "asc_nulls_first": (True, True),
    "asc_nulls_last": (True, False),
    "desc_nulls_first": (False, True),
    "desc_nulls_last": (False, False),
}

#: PySpark functions (``pyspark.sql.functions``) without a catalog row, and why
EXCLUDED: dict[str, str] = {
    **{
        n: "a class exported by pyspark.sql.functions, not a function"
        for n in (
            "AnalyzeArgument",
            "AnalyzeResult",
            "ArrowUDFType",
            "OrderingColumn",
            "PandasUDFType",
            "PartitioningColumn",
            "SelectedColumn",
            "SkipRestOfInputTableException",
            "UserDefinedFunction",
            "UserDefinedTableFunction",
        )
    },
    **{
        n: "builds a UDF object: register Python functions with Client.register_udf (or the "
        'Client.udf decorator) and call them by name ({"udf": name, "args": [...]})'
        for n in ("udf", "pandas_udf", "arrow_udf")
    },
    "udtf": "a table function produces a relation; no plan op reads one",
    "arrow_udtf": "a table function produces a relation; no plan op reads one",
    "col": 'an expression form: {"col": name} or a bare string',
    "column": 'an expression form: {"col": name} or a bare string',
    "lit": 'an expression form: {"lit": value} or a bare scalar',
    "expr": "parses SQL text; connect_plan never builds SQL from plan input (no injection surface)",
    "broadcast": "a join hint on a DataFrame, not a column function",
    "bucket": "a partition transform, only valid in DataFrameWriterV2.partitionedBy",
    **{
        n: "a sort order, not a value: accepted as an orderBy / window order_by item "
        '({"fn": "' + n + '", "args": [col]})'
        for n in SORT_FUNCTIONS
    },
}

CATALOG: dict[str, FunctionSpec] = {}
for _spec in _ROWS:
    for _name in _spec.names:
        if _name in CATALOG:
            raise RuntimeError(f"function name {_name!r} is in the catalog twice")
        CATALOG[_name] = _spec
for _spec in _ROWS:
    for _i in _spec.fill:
        if not 0 <= _i < len(_spec.params) or not _spec.params[_i].optional:
            raise RuntimeError(f"{_spec.name}: fill index {_i} is not an optional slot")
_clash = set(CATALOG) & set(EXCLUDED)
if _clash:
    raise RuntimeError(f"names both in the catalog and excluded: {sorted(_clash)}")


def rows() -> list[FunctionSpec]:
    """Every catalog row once, in catalog order."""
    return list(_ROWS)


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


#: the parse-stage rewrites rows name (``formats/json_plan/specials.py`` has one function each)
DESUGAR_FORMS: frozenset[str] = frozenset(s.desugar for s in _ROWS if s.desugar)
#: the emit-stage builders rows name (``translator/expressions.py`` ``SPECIAL_BUILDERS``)
BUILDER_FORMS: frozenset[str] = frozenset(s.builder for s in _ROWS if s.builder)

#: the names of the aggregates that skip nulls (rows and their lower-case aliases), for messages
NULL_SKIPPING_NAMES: tuple[str, ...] = tuple(
    sorted({n for s in _ROWS if s.null_skipping for n in s.names if n == n.lower()})
)

for _spec in _ROWS:
    if _spec.op_form is not None:
        _count = {"binary": 2, "unary": 1}.get(_spec.op_form)
        if _count is not None and _spec.slot_indices(_count) is None:
            raise RuntimeError(f"{_spec.name}: an op_form {_spec.op_form!r} row must take {_count} argument(s)")
    if (_spec.null_skipping or _spec.counts_rows) and _spec.kind != "aggregate":
        raise RuntimeError(f"{_spec.name}: null_skipping/counts_rows apply to aggregates")
    if _spec.needs_order and _spec.kind != "window":
        raise RuntimeError(f"{_spec.name}: needs_order applies to window functions")
