"""The builders of the function names only some producers write (DuckDB's operators and
internal functions, DataFusion's names), and of the spec's functions whose meaning depends on
the producer's engine (regular expressions, ``logb``, ``date_trunc``): each computes on Spark
exactly what the producer's engine computes, NULLs, argument order, case and regex dialect
included, or refuses the call by name with the reason. The rows are in
:data:`~.spellings.FUNCTIONS` (each with the producers that write it); docs/substrait.md lists
them, and tests/integration/test_substrait_functions.py holds each to the producer's own engine
on edge values."""

from __future__ import annotations

from ... import ir
from ...types import Primitive
from .calls import ScalarCall, builder, like_call, like_pattern, literal_text, refuse
from .regex import DIALECTS, Dialect, RegexRefused, java_regex, java_replacement
from .state import Converter

__all__ = ["BITS", "DATE_TRUNC_UNITS", "REGEX_DIALECTS", "regex_dialect"]

#: integer output kind → its width in bits and its smallest value
BITS: dict[str, int] = {"i8": 8, "i16": 16, "i32": 32, "i64": 64}

#: the producer quirk that names each producer's regular-expression engine
REGEX_DIALECTS: dict[str, Dialect] = {"regex_re2": "re2", "regex_rust": "rust"}

#: date_trunc's unit (lower case, the producers' spellings) → Spark's ``trunc`` format for a
#: date (units of a day or more; "day" is the date itself) or None for a unit under a day
DATE_TRUNC_UNITS: dict[str, str | None] = {
    "year": "YEAR",
    "quarter": "QUARTER",
    "month": "MONTH",
    "week": "WEEK",  # Monday, in DuckDB, DataFusion and Spark
    "day": "DAY",
    "hour": None,
    "minute": None,
    "second": None,
    "microsecond": None,
    "microseconds": None,
}

_STRINGS = frozenset({"string", "varchar", "fixed_char"})
_NAN = float("nan")
_INF = float("inf")


def _arity(c: Converter, call: ScalarCall, *counts: int) -> bool:
    if len(call.args) in counts:
        return True
    want = " or ".join(map(str, counts))
    refuse(c, call.loc, f"{call.name} takes {want} arguments, not {len(call.args)}")
    return False


def _lit(value: object, loc: str, t: str | None = None) -> ir.Lit:
    return ir.Lit(value, loc, Primitive(t) if t else None)


def _call(fn: str, loc: str, *args: ir.Expr) -> ir.Call:
    return ir.Call(fn, args, loc)


def _error(message: str, loc: str) -> ir.Expr:
    """Spark's ``raise_error``: where the producer's engine fails the query, Spark fails it too."""
    return _call("raise_error", loc, _lit(message, loc))


# ---------------------------------------------------------------- strings


@builder("||", "str_concat")
def build_concat_operator(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's || and DataFusion's str_concat on strings: NULL if any argument is NULL, as
    # Spark's concat (DuckDB's || of lists or blobs is another function: refused)
    out = call.output
    if (out is not None and out not in _STRINGS) or (out is None and call.name == "||"):
        return refuse(c, call.loc, f"{call.name} of a {out or 'undeclared'} result: only the string concatenation runs")
    return ir.Call("concat", call.args, call.loc)


@builder("like_escape")
def build_like_escape(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's LIKE ... ESCAPE e: e is one literal character, or '' (no escape)
    if not _arity(c, call, 3):
        return ir.Lit(None, call.loc)
    escape = literal_text(call.args[2])
    if escape is None or len(escape) > 1:
        return refuse(c, f"{call.loc}/arguments/2", "like_escape's escape must be a literal of one character or none")
    return like_call(c, "like", call.args[0], call.args[1], escape or None, call.loc)


#: the characters whose one-character lower case (DuckDB's utf8proc, per character) differs
#: from Java's full lower case (Spark's lower): U+0130 is "i" + U+0307 in Java, and a final
#: capital sigma is "ς" there
_SIMPLE_LOWER = ("\u0130\u03a3", "i\u03c3")


@builder("~~*")
def build_duckdb_ilike(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's ILIKE: no escape character; both sides lower-cased a character at a time. Spark's
    # ilike lower-cases with Java's full mapping: the two characters where it differs are mapped
    # first, so Spark's lower then agrees with DuckDB's
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    loc = call.loc
    value, pattern = call.args

    def folded(e: ir.Expr) -> ir.Expr:
        return _call("lower", loc, _call("translate", loc, e, _lit(_SIMPLE_LOWER[0], loc), _lit(_SIMPLE_LOWER[1], loc)))

    text = literal_text(pattern)
    if text is not None:
        spark_pattern: ir.Expr = _lit(like_pattern(text, None), pattern.loc)
    else:
        spark_pattern = _call("replace", loc, pattern, _lit("\\", loc), _lit("\\\\", loc))
    return _call("like", loc, folded(value), folded(spark_pattern))


# ---------------------------------------------------------------- regular expressions


def regex_dialect(c: Converter, call: ScalarCall) -> Dialect | None:
    """The regex dialect of the plan's producer (its quirk), None when it is not known."""
    for quirk, dialect in REGEX_DIALECTS.items():
        if quirk in c.quirks:
            return dialect
    return None


def _pattern(c: Converter, call: ScalarCall, arg: int, dialect: Dialect | None) -> tuple[str, int, bool, bool] | None:
    """Argument ``arg`` as a Java pattern: (text, groups, nullable, anchored); None after a
    located refusal (not a literal, the dialect unknown, a construct outside the common subset)."""
    loc = f"{call.loc}/arguments/{arg}"
    text = literal_text(call.args[arg])
    if text is None:
        refuse(c, loc, f"{call.name}'s pattern must be a literal (its dialect is translated to Java's)")
        return None
    if dialect is None:
        refuse(c, call.loc, f"{call.name}: the regular-expression dialect of this plan's producer is not known")
        return None
    try:
        t = java_regex(text, dialect)
    except RegexRefused as e:
        refuse(c, loc, f"{call.name}'s pattern {text!r}: {e}")
        return None
    return t.java, t.groups, t.nullable, t.anchored


@builder("regexp_matches", "regex_match", "regex_not_match")
def build_regex_match(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's regexp_matches(s, p) and DataFusion's s ~ p / s !~ p: a search, as Spark's rlike
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    found = _pattern(c, call, 1, regex_dialect(c, call))
    if found is None:
        return ir.Lit(None, call.loc)
    match = _call("rlike", call.loc, call.args[0], _lit(found[0], call.loc))
    return _call("not", call.loc, match) if call.name == "regex_not_match" else match


@builder("regexp_replace")
def build_regexp_replace(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's and DataFusion's (s, p, r[, flags]) replace the first match, or every match with
    # the flag 'g'; the spec's (s, p, r, occurrence, position) its occurrence-th from position
    # (0: every one) in ICU's dialect. Spark's regexp_replace replaces every match: the first
    # only is the same when every match starts at the text's start; every match is the same
    # when the pattern cannot match empty (the engines step over empty matches differently).
    if not _arity(c, call, 3, 4, 5):
        return ir.Lit(None, call.loc)
    loc = call.loc
    every = False
    dialect = regex_dialect(c, call)
    if len(call.args) == 4:
        flags = literal_text(call.args[3])
        if flags not in ("", "g"):
            return refuse(c, f"{loc}/arguments/3", f"regexp_replace's flags {flags!r}: only 'g' (every match) runs")
        every = flags == "g"
    elif len(call.args) == 5:
        # the spec's (input, pattern, replacement, position, occurrence): functions_string.yaml
        position, occurrence = call.args[3], call.args[4]
        if not (isinstance(position, ir.Lit) and position.value == 1):
            return refuse(c, f"{loc}/arguments/3", "regexp_replace from a position other than 1 is not supported")
        if not (isinstance(occurrence, ir.Lit) and occurrence.value in (0, 1)):
            return refuse(c, f"{loc}/arguments/4", "regexp_replace of an occurrence other than 0 (every) or 1")
        every, dialect = occurrence.value == 0, "icu"
    found = _pattern(c, call, 1, dialect)
    if found is None or dialect is None:
        return ir.Lit(None, loc)
    java, groups, nullable, anchored = found
    if every and nullable:
        return refuse(
            c, f"{loc}/arguments/1", "regexp_replace of every match of a pattern that matches the empty string"
        )
    if not every and not anchored:
        return refuse(
            c,
            f"{loc}/arguments/1",
            "regexp_replace of the first match only: Spark replaces every match, the same only for a pattern "
            "anchored with ^",
        )
    replacement = literal_text(call.args[2])
    if replacement is None:
        return refuse(c, f"{loc}/arguments/2", "regexp_replace's replacement must be a literal")
    try:
        java_rep = java_replacement(replacement, dialect, groups)
    except RegexRefused as e:
        return refuse(
            c, f"{loc}/arguments/2", f"regexp_replace's replacement {replacement!r} ({DIALECTS[dialect]}): {e}"
        )
    return _call("regexp_replace", loc, call.args[0], _lit(java, loc), _lit(java_rep, loc))


# ---------------------------------------------------------------- numbers


@builder("%")
def build_duckdb_mod(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's %: truncated (the dividend's sign), as Spark's; x % 0 is NULL for integers and
    # decimals (Spark's try_mod) and NaN for floats (fmod); the smallest integer % -1 fails
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    x, y = call.args
    loc, out = call.loc, call.output
    if out in BITS:
        smallest = -(2 ** (BITS[out] - 1))
        overflow = _call(
            "and", loc, _call("==", loc, x, _lit(smallest, loc, "bigint")), _call("==", loc, y, _lit(-1, loc))
        )
        return ir.When(
            ((overflow, _error(f"Overflow in division of {smallest} / -1", loc)),), _call("try_mod", loc, x, y), loc
        )
    if out == "decimal":
        return _call("try_mod", loc, x, y)
    if out in ("fp32", "fp64"):
        by_zero = _call("and", loc, _call("==", loc, y, _lit(0, loc)), _call("isnotnull", loc, x))
        nan = ir.Lit(_NAN, loc, call.output_type)
        return ir.When(((by_zero, nan),), _call("%", loc, x, y), loc)
    return refuse(c, loc, f"% of a {out or 'undeclared'} result (DuckDB's % is known on integers, decimals, floats)")


@builder("<<", ">>")
def build_duckdb_shift(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's shifts of an integer type of n bits (its output type). x >> s: 0 for s < 0 or
    # s >= n, else the arithmetic shift. x << s fails for x < 0, s < 0, an overflow (x above
    # the type's largest >> s) or s >= n (0 << s is 0), else the shift. Spark shifts ints and
    # bigints by s mod 32/64: the cases DuckDB defines are the ones where they agree
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    x, s = call.args
    loc, out = call.loc, call.output
    unknown = _call("or", loc, _call("isnull", loc, x), _call("isnull", loc, s))
    if out not in BITS:
        return refuse(c, loc, f"{call.name} of a {out or 'undeclared'} result (DuckDB's shifts of i8..i64 run)")
    bits = BITS[out]
    t = call.output_type
    assert t is not None
    width = _lit(bits, loc)
    outside = _call("or", loc, _call("<", loc, s, _lit(0, loc)), _call(">=", loc, s, width))
    if call.name == ">>":
        shifted = ir.Cast(_call("shiftright", loc, x, s), t, loc)
        return ir.When(((unknown, ir.Lit(None, loc, t)), (outside, ir.Lit(0, loc, t))), shifted, loc)
    largest = _lit(2 ** (bits - 1) - 1, loc, "bigint")
    fails = (
        (_call("<", loc, x, _lit(0, loc)), f"Cannot left-shift a negative number ({call.name} of an i{bits})"),
        (_call("<", loc, s, _lit(0, loc)), "Cannot left-shift by a negative number"),
        (_call(">=", loc, s, width), None),
        (_call(">", loc, x, _call("shiftright", loc, largest, s)), f"Overflow in left shift of an i{bits}"),
    )
    branches: list[tuple[ir.Expr, ir.Expr]] = [(unknown, ir.Lit(None, loc, t))]
    for cond, message in fails:
        if message is None:  # s >= n: 0 << s is 0, any other x fails
            zero = _call("==", loc, x, _lit(0, loc))
            branches.append(
                (cond, ir.When(((zero, ir.Lit(0, loc, t)),), _error("Left-shift value is out of range", loc), loc))
            )
        else:
            branches.append((cond, _error(message, loc)))
    return ir.When(tuple(branches), ir.Cast(_call("shiftleft", loc, x, s), t, loc), loc)


@builder("log")
def build_duckdb_log(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's log(x) is the base-10 logarithm; log(b, x) the base-b one, failing for x <= 0,
    # b <= 0 and b = 1 (Spark's log(b, x) is NULL there): NaN and infinities as IEEE says
    if not _arity(c, call, 1, 2):
        return ir.Lit(None, call.loc)
    loc = call.loc
    if len(call.args) == 1:
        return _call("log10", loc, call.args[0])
    b, x = call.args
    double = Primitive("double")
    fails = _call(
        "or",
        loc,
        _call("<=", loc, x, _lit(0, loc)),
        _call("<=", loc, b, _lit(0, loc)),
        _call("==", loc, b, _lit(1, loc)),
    )
    unknown = _call("or", loc, _call("isnull", loc, x), _call("isnull", loc, b))
    message = "cannot take the logarithm of zero or a negative number, or in base 1 (DuckDB's log)"
    return ir.When(
        ((unknown, ir.Lit(None, loc, double)), (fails, _error(message, loc))),
        ir.Call("log", (x, b), loc),  # the catalog's log(value, base): Spark's log(base, value)
        loc,
    )


def _ieee_ln(v: ir.Expr, loc: str) -> ir.Expr:
    """The natural logarithm as IEEE 754 (Rust's ln) has it: NaN below 0, -inf at 0 (Spark's
    ln is NULL there)."""
    return ir.When(
        (
            (_call("<", loc, v, _lit(0, loc)), ir.Lit(_NAN, loc, Primitive("double"))),
            (_call("==", loc, v, _lit(0, loc)), ir.Lit(-_INF, loc, Primitive("double"))),
        ),
        _call("ln", loc, v),
        loc,
    )


@builder("logb")
def build_logb(c: Converter, call: ScalarCall) -> ir.Expr:
    # the spec's logb(x, b) = log_b(x), DataFusion's log(b, x): ln(x) / ln(b) in IEEE doubles
    # (NaN for a negative, -inf for ln 0, ±inf or NaN dividing by ln 1 = 0), where Spark's log
    # is NULL for x <= 0 or b <= 0 and its division by zero NULL or an error
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    loc = call.loc
    x, b = call.args
    lx, lb = _ieee_ln(x, loc), _ieee_ln(b, loc)
    double = Primitive("double")
    over_zero = ir.When(
        (
            (_call("or", loc, _call("isnan", loc, lx), _call("==", loc, lx, _lit(0, loc))), ir.Lit(_NAN, loc, double)),
            (_call(">", loc, lx, _lit(0, loc)), ir.Lit(_INF, loc, double)),
        ),
        ir.Lit(-_INF, loc, double),
        loc,
    )
    unknown = _call("or", loc, _call("isnull", loc, x), _call("isnull", loc, b))
    return ir.When(
        ((unknown, ir.Lit(None, loc, double)), (_call("==", loc, lb, _lit(0, loc)), over_zero)),
        _call("/", loc, lx, lb),
        loc,
    )


@builder("signum")
def build_signum(c: Converter, call: ScalarCall) -> ir.Expr:
    # DataFusion's signum: a double, 0.0 for -0.0 (Spark's signum keeps -0.0; adding 0.0 makes
    # it 0.0 as IEEE says, and leaves every other value as it is)
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    return _call("+", call.loc, _call("signum", call.loc, call.args[0]), _lit(0.0, call.loc))


@builder("constant_or_null")
def build_constant_or_null(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's constant_or_null(v, a1, a2...): NULL if any a is NULL, else v (its optimizer
    # writes it where a comparison with a NULL-able side folds to a constant)
    if len(call.args) < 2:
        return refuse(c, call.loc, f"constant_or_null takes a value and at least one argument, not {len(call.args)}")
    loc = call.loc
    nulls = [_call("isnull", loc, a) for a in call.args[1:]]
    any_null = nulls[0] if len(nulls) == 1 else ir.Call("or", tuple(nulls), loc)
    return ir.When(((any_null, ir.Lit(None, loc, call.output_type)),), call.args[0], loc)


# ---------------------------------------------------------------- dates


@builder("date_trunc")
def build_date_trunc(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's and DataFusion's date_trunc(unit, x), its result typed by the plan: a date, or a
    # timestamp without a zone (DataFusion casts a date to one). Computed without time zones:
    # a unit of a day or more truncates the date (trunc), a smaller one rebuilds the wall time
    # from its parts (Spark's date_trunc works in the session's zone)
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    loc = call.loc
    unit = literal_text(call.args[0])
    if unit is None or unit.lower() not in DATE_TRUNC_UNITS:
        known = ", ".join(DATE_TRUNC_UNITS)
        return refuse(c, f"{loc}/arguments/0", f"date_trunc's unit must be a literal of {known} (not {unit!r})")
    unit = unit.lower()
    fmt = DATE_TRUNC_UNITS[unit]
    out = call.output
    x = call.args[1]
    if out == "date":
        if fmt is None:
            return refuse(c, loc, f"date_trunc to a {unit} with a date result")
        day = ir.Cast(x, Primitive("date"), loc)
        return day if fmt == "DAY" else _call("trunc", loc, day, _lit(fmt, loc))
    if out not in ("timestamp", "precision_timestamp"):
        return refuse(c, loc, f"date_trunc of a {out or 'undeclared'} result (a date or a timestamp without zone runs)")
    ntz = Primitive("timestamp_ntz")
    wall = ir.Cast(x, ntz, loc)
    if fmt is not None:
        day = ir.Cast(wall, Primitive("date"), loc)
        truncated = day if fmt == "DAY" else _call("trunc", loc, day, _lit(fmt, loc))
        return ir.Cast(truncated, ntz, loc)
    if unit.startswith("microsecond"):
        return wall  # Spark's timestamps hold microseconds
    parts = [_call(p, loc, wall) for p in ("year", "month", "day", "hour", "minute", "second")]
    keep = {"hour": 4, "minute": 5, "second": 6}[unit]
    args = parts[:keep] + [_lit(0, loc)] * (6 - keep)
    return ir.Call("make_timestamp_ntz", tuple(args), loc)


@builder("dayofyear")
def build_dayofyear(c: Converter, call: ScalarCall) -> ir.Expr:
    # DuckDB's dayofyear(date or timestamp): 1..366, as Spark's
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    return ir.UdfCall("dayofyear", call.args, call.loc)
