"""The builders of the spec's functions whose meaning differs from Spark's function of the same
name in NULLs, domains or options (``is_nan`` of NULL, logarithms of 0 and negatives, inverse
trigonometric functions outside their domain, ``factorial`` past 20, ``sqrt`` of a negative
decimal, bitwise functions on decimals, ``concat``'s null handling, ``sort``'s direction, the
variance's SAMPLE/POPULATION...). Each computes the spec's value exactly or raises an error where
the spec expects one (Spark's ``raise_error``); an option no builder honours never reaches here
(:func:`.functions._options` refuses it by name). The rows are in :data:`~.spellings.FUNCTIONS`;
tests/integration/test_substrait_conformance.py holds each to the spec's own test cases."""

from __future__ import annotations

from ... import ir
from ...types import Primitive
from .calls import AggregateCall, ScalarCall, aggregate_builder, builder, literal_text, output_kind, refuse
from .lambdas import null_function
from .regex import RegexRefused, Translated, java_regex
from .state import Converter

__all__ = ["decimal_negative"]

_NAN = float("nan")
_INF = float("inf")


def _lit(value: object, loc: str, t: str | None = None) -> ir.Lit:
    return ir.Lit(value, loc, Primitive(t) if t else None)


def _call(fn: str, loc: str, *args: ir.Expr) -> ir.Call:
    return ir.Call(fn, args, loc)


def _error(message: str, loc: str) -> ir.Expr:
    return _call("raise_error", loc, _lit(message, loc))


def _arity(c: Converter, call: ScalarCall, *counts: int) -> bool:
    if len(call.args) in counts:
        return True
    refuse(c, call.loc, f"{call.name} takes {' or '.join(map(str, counts))} arguments, not {len(call.args)}")
    return False


def _double(value: float, loc: str) -> ir.Expr:
    return ir.Cast(_lit(str(value), loc, "string"), Primitive("double"), loc)


# ---------------------------------------------------------------- comparison


@builder("is_nan")
def build_is_nan(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's isnan(NULL) is false; the spec's is NULL
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    return ir.When(((_call("isnull", loc, x), _lit(None, loc, "boolean")),), _call("isnan", loc, x), loc)


@builder("is_finite")
def build_is_finite(c: Converter, call: ScalarCall) -> ir.Expr:
    # x - x is 0 for a finite x, NaN for NaN and the infinities, NULL for NULL
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    return _call("==", loc, _call("-", loc, x, x), _lit(0.0, loc, "double"))


@builder("is_infinite")
def build_is_infinite(c: Converter, call: ScalarCall) -> ir.Expr:
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    return _call("==", loc, _call("abs", loc, x), _double(_INF, loc))


@builder("and_not")
def build_and_not(c: Converter, call: ScalarCall) -> ir.Expr:
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    return _call("and", call.loc, call.args[0], _call("not", call.loc, call.args[1]))


# ---------------------------------------------------------------- arithmetic


def _decimal_arg(c: Converter, call: ScalarCall) -> bool:
    return call.sig.split("_")[0] in ("dec", "decimal")


@builder("sqrt")
def build_sqrt(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's sqrt of a negative number is NaN: the spec's of a negative decimal is an error
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    if not _decimal_arg(c, call):
        return _call("sqrt", loc, x)
    if isinstance(x, ir.Lit) and x.value is None:  # Spark 4.3's analysis fails on sqrt of a NULL decimal here
        return _lit(None, loc, "double")
    # the root in a branch of its own: Spark 4.3's analysis fails on sqrt of a NULL decimal in ELSE
    zero = _lit(0, loc)
    return ir.When(
        (
            (_call(">=", loc, x, zero), _call("sqrt", loc, x)),
            (_call("<", loc, x, zero), _error("sqrt of a negative decimal", loc)),
        ),
        None,
        loc,
    )


def decimal_negative(c: Converter, call: ScalarCall, x: ir.Expr) -> ir.Expr:
    """``-x`` of a decimal declared ``call``'s output type, exactly: Spark 4.3's negative (and
    abs) of a decimal rounds it to 34 digits (-1234567890123456789012345678901234567 comes back
    -1234567890123456789012345678901235000), so it is 0 - x, exact where the difference's type
    keeps every digit (a precision <= 37, or a scale <= 6), else refused."""
    loc = call.loc
    out = call.output_type
    if not isinstance(out, Primitive) or out.name != "decimal":
        return refuse(c, loc, f"{call.name} of a decimal needs its declared decimal output type")
    p, s = out.precision or 38, out.scale or 0
    if p > 37 and s > 6:
        return refuse(c, loc, f"{call.name} of a decimal({p}, {s}): Spark cannot negate it exactly")
    zero = ir.Lit("0", loc, Primitive("decimal", 1, 0))
    return ir.Cast(_call("-", loc, zero, x), out, loc)


@builder("negate")
def build_negate(c: Converter, call: ScalarCall) -> ir.Expr:
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    if not _decimal_arg(c, call):
        return _call("negative", loc, x)
    return decimal_negative(c, call, x)


@builder("abs")
def build_abs(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark 4.3's abs of a decimal rounds it to 34 digits too: x, or 0 - x where it is negative
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    if not _decimal_arg(c, call):
        return _call("abs", loc, x)
    negated = decimal_negative(c, call, x)
    if isinstance(negated, ir.Lit):  # refused
        return negated
    out = call.output_type
    assert out is not None
    return ir.When(((_call("<", loc, x, _lit(0, loc)), negated),), ir.Cast(x, out, loc), loc)


@builder("factorial")
def build_factorial(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's factorial is NULL outside 0..20; the spec's overflows (an error) past the result
    # type, and is undefined for a negative number: an error for both
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    if _decimal_arg(c, call):
        return refuse(c, loc, "factorial of a decimal: Spark's factorial takes an integer of 0 to 20")
    bad = _call("or", loc, _call("<", loc, x, _lit(0, loc)), _call(">", loc, x, _lit(20, loc)))
    return ir.When(
        ((bad, _error("factorial of a number outside 0..20 (an overflow or undefined)", loc)),),
        _call("factorial", loc, ir.Cast(x, Primitive("int"), loc)),
        loc,
    )


_BITWISE = {"bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}


@builder("bitwise_and", "bitwise_or", "bitwise_xor")
def build_bitwise(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's & | ^ take integers: decimals of scale 0 and at most 18 digits run through bigint
    # (exact both ways); any other decimal is refused
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    op, loc = _BITWISE[call.name], call.loc
    if not _decimal_arg(c, call):
        return _call(op, loc, *call.args)
    out = call.output_type
    if not isinstance(out, Primitive) or out.name != "decimal" or out.scale != 0 or (out.precision or 0) > 18:
        return refuse(
            c, loc, f"{call.name} of decimals: only a declared decimal(p, 0) with p <= 18 runs (through bigint)"
        )
    for k, a in enumerate(call.args):
        t = a.type if isinstance(a, ir.Lit) else None
        if isinstance(t, Primitive) and t.name == "decimal" and (t.scale != 0 or (t.precision or 0) > 18):
            return refuse(
                c,
                f"{loc}/arguments/{k}",
                f"{call.name} of a decimal({t.precision}, {t.scale}): not an 18-digit integer",
            )
    if not all(isinstance(a, ir.Lit) for a in call.args):
        return refuse(c, loc, f"{call.name} of decimal columns: their digits are not known here")
    args = tuple(ir.Cast(a, Primitive("bigint"), loc) for a in call.args)
    return ir.Cast(_call(op, loc, *args), out, loc)


# ---------------------------------------------------------------- logarithms and trigonometry


def _domain(call: ScalarCall, bad: ir.Expr, zero: ir.Expr | None, value: ir.Expr) -> ir.Expr:
    """``value`` (Spark's function), except where an option the call gives says otherwise: at
    zero (``on_log_zero``: NaN, -inf or an error) and outside the domain (``on_domain_error``:
    NaN, NULL or an error). Without the option the value there is Spark's (the spec leaves it to
    the consumer): NULL for a logarithm, NaN for an inverse trigonometric function."""
    loc = call.loc
    branches: list[tuple[ir.Expr, ir.Expr]] = []
    on_zero = call.option("on_log_zero")
    if zero is not None and on_zero is not None:
        zero_value = {
            "NAN": _double(_NAN, loc),
            "MINUS_INFINITY": _double(-_INF, loc),
            "ERROR": _error(f"{call.name} of zero", loc),
        }[on_zero]
        branches.append((zero, zero_value))
    on_domain = call.option("on_domain_error")
    if on_domain is not None:
        domain_value = {
            "NAN": _double(_NAN, loc),
            "NULL": _lit(None, loc, "double"),
            "NONE": _lit(None, loc, "double"),
            "ERROR": _error(f"{call.name} outside its domain", loc),
        }[on_domain]
        branches.append((bad, domain_value))
    return ir.When(tuple(branches), value, loc) if branches else value


@builder("ln", "log10", "log2")
def build_log(c: Converter, call: ScalarCall) -> ir.Expr:
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    value = _call(call.name, loc, x)
    zero = _call("==", loc, x, _lit(0, loc))
    bad = _call("<", loc, x, _lit(0, loc))
    return _domain(call, bad, zero, value)


#: the inverse functions' domains: (lowest, highest) argument (None: unbounded)
_DOMAINS: dict[str, tuple[float | None, float | None]] = {
    "asin": (-1.0, 1.0),
    "acos": (-1.0, 1.0),
    "asinh": (None, None),
    "acosh": (1.0, None),
    "atanh": (-1.0, 1.0),
}


@builder("asin", "acos", "asinh", "acosh", "atanh")
def build_inverse_trig(c: Converter, call: ScalarCall) -> ir.Expr:
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    x, loc = call.args[0], call.loc
    value = _call(call.name, loc, x)
    low, high = _DOMAINS[call.name]
    tests = []
    if low is not None:
        tests.append(_call("<", loc, x, _lit(low, loc, "double")))
    if high is not None:
        tests.append(_call(">", loc, x, _lit(high, loc, "double")))
    if not tests:
        return value
    bad = tests[0] if len(tests) == 1 else _call("or", loc, *tests)
    return _domain(call, bad, None, value)


# ---------------------------------------------------------------- strings


@builder("concat")
def build_concat(c: Converter, call: ScalarCall) -> ir.Expr:
    # ACCEPT_NULLS (the default): NULL if any argument is, Spark's concat; IGNORE_NULLS: the
    # others concatenated, Spark's concat_ws with no separator
    if call.option("null_handling") == "IGNORE_NULLS":
        return _call("concat_ws", call.loc, _lit("", call.loc), *call.args)
    return ir.Call("concat", call.args, call.loc)


@builder("repeat")
def build_repeat(c: Converter, call: ScalarCall) -> ir.Expr:
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    s, n = call.args
    loc = call.loc
    too_many = _call(">", loc, n, _lit(2**31 - 1, loc, "bigint"))
    return ir.When(
        ((too_many, _error("repeat count beyond an INT", loc)),),
        _call("repeat", loc, s, ir.Cast(n, Primitive("int"), loc)),
        loc,
    )


@builder("string_split")
def build_string_split(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's split takes a Java regex: a literal delimiter quoted (\Q...\E); a NULL delimiter
    # does not split (the spec's: the string alone in a list)
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    s, delim = call.args
    loc = call.loc
    if isinstance(delim, ir.Lit) and delim.value is None:
        return ir.When(((_call("isnull", loc, s), ir.Lit(None, loc)),), _call("array", loc, s), loc)
    text = literal_text(delim)
    if text is None or text == "":
        return refuse(c, f"{loc}/arguments/1", "string_split's delimiter must be a non-empty literal")
    quoted = "\\Q" + text.replace("\\E", "\\E\\\\E\\Q") + "\\E"
    return _call("split", loc, s, _lit(quoted, loc), _lit(-1, loc))


# ---------------------------------------------------------------- the spec's regular expressions (ICU)


def _is_null(e: ir.Expr) -> bool:
    return isinstance(e, ir.Lit) and e.value is None


def _icu(c: Converter, call: ScalarCall, arg: int = 1) -> Translated | None:
    """The spec's pattern (ICU's dialect, functions_string.yaml) in Java's; None after a located
    refusal."""
    loc = f"{call.loc}/arguments/{arg}"
    text = literal_text(call.args[arg])
    if text is None:
        refuse(c, loc, f"{call.name}'s pattern must be a literal (ICU's dialect is translated to Java's)")
        return None
    try:
        return java_regex(text, "icu")
    except RegexRefused as e:
        refuse(c, loc, f"{call.name}'s pattern {text!r}: {e}")
        return None


def _from_the_start(c: Converter, call: ScalarCall, arg: int) -> bool:
    """Whether the position argument ``arg`` (if any) is the literal 1 (else a located refusal:
    Spark's functions search the whole text, and ICU's and Java's regions read anchors and
    lookbehind each their own way)."""
    if len(call.args) <= arg:
        return True
    pos = call.args[arg]
    if isinstance(pos, ir.Lit) and pos.value == 1:
        return True
    refuse(c, f"{call.loc}/arguments/{arg}", f"{call.name} from a position other than the literal 1")
    return False


@builder("regexp_count_substring")
def build_regexp_count(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's regexp_count: every match from the start (Java's and ICU's find steps one
    # character past an empty match, alike)
    if not _arity(c, call, 2, 3) or not _from_the_start(c, call, 2):
        return ir.Lit(None, call.loc)
    loc = call.loc
    if _is_null(call.args[1]):
        return _lit(None, loc, "bigint")
    t = _icu(c, call)
    if t is None:
        return ir.Lit(None, loc)
    return ir.Cast(_call("regexp_count", loc, call.args[0], _lit(t.java, loc)), Primitive("bigint"), loc)


@builder("regexp_match_substring")
def build_regexp_match_substring(c: Converter, call: ScalarCall) -> ir.Expr:
    # the occurrence-th match (group 0: the whole match) from the start: Spark's
    # regexp_extract_all's element (NULL past the last match). Another group is refused: Spark
    # gives '' for a group that took no part in the match, ICU NULL
    if not _arity(c, call, 2, 5) or not _from_the_start(c, call, 2):
        return ir.Lit(None, call.loc)
    loc = call.loc
    occurrence, group = (call.args[3], call.args[4]) if len(call.args) == 5 else (_lit(1, loc), _lit(0, loc))
    if not (isinstance(occurrence, ir.Lit) and isinstance(occurrence.value, int) and occurrence.value >= 1):
        return refuse(c, f"{loc}/arguments/3", "regexp_match_substring's occurrence must be a literal >= 1")
    if not (isinstance(group, ir.Lit) and group.value == 0):
        return refuse(c, f"{loc}/arguments/4", "regexp_match_substring of a group other than 0 (the whole match)")
    if _is_null(call.args[1]):
        return _lit(None, loc, "string")
    t = _icu(c, call)
    if t is None:
        return ir.Lit(None, loc)
    matches = _call("regexp_extract_all", loc, call.args[0], _lit(t.java, loc), _lit(0, loc))
    return _call("try_element_at", loc, matches, _lit(int(occurrence.value), loc))


@builder("regexp_string_split")
def build_regexp_string_split(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's split with no limit: Java's String.split keeping trailing empty strings; a pattern
    # that matches the empty string is refused (Java drops a leading empty piece there)
    if not _arity(c, call, 2):
        return ir.Lit(None, call.loc)
    loc = call.loc
    t = _icu(c, call)
    if t is None:
        return ir.Lit(None, loc)
    if t.nullable:
        return refuse(c, f"{loc}/arguments/1", "regexp_string_split on a pattern that matches the empty string")
    return _call("split", loc, call.args[0], _lit(t.java, loc), _lit(-1, loc))


# ---------------------------------------------------------------- lists


@builder("sort")
def build_sort(c: Converter, call: ScalarCall) -> ir.Expr:
    # sort_array: ascending nulls first, descending nulls last; array_sort: ascending nulls
    # last (reversed: descending nulls first)
    if not _arity(c, call, 1):
        return ir.Lit(None, call.loc)
    a, loc = call.args[0], call.loc
    direction = call.option("direction")
    if direction is None:
        return refuse(c, loc, "sort without its direction option: the spec requires one")
    if direction == "ASC_NULLS_FIRST":
        return _call("sort_array", loc, a, _lit(True, loc))
    if direction == "DESC_NULLS_LAST":
        return _call("sort_array", loc, a, _lit(False, loc))
    if direction == "ASC_NULLS_LAST":
        return _call("array_sort", loc, a)
    return _call("reverse", loc, _call("array_sort", loc, a))


def _element_lambda(c: Converter, call: ScalarCall) -> ir.Lambda | None:
    """The lambda a list function over ``call.args[0]`` takes as its second argument: one of
    one parameter (the element; Spark's two-parameter forms pass the index too, which no
    Substrait signature declares). None after a located refusal, or for a null function (the
    spec's ``null::func<...>``: :func:`_null_function`)."""
    if not _arity(c, call, 2) or _null_function(call):
        return None
    f = call.args[1]
    if not isinstance(f, ir.Lambda):
        if not (isinstance(f, ir.Lit) and f.loc == f"{call.loc}/arguments/1/value/lambda"):  # a lambda in error
            refuse(c, f"{call.loc}/arguments/1", f"{call.name}'s second argument must be a lambda (Expression.Lambda)")
        return None
    if len(f.params) != 1:
        refuse(
            c,
            f"{f.loc}/parameters",
            f"{call.name} takes a lambda of one parameter (the element), this one has {len(f.params)}",
        )
        return None
    body = getattr(call.msg.arguments[1].value, "lambda").body  # `lambda` is a Python keyword
    if call.name != "transform" and body.WhichOneof("rex_type") == "scalar_function":
        declared = output_kind(body.scalar_function)
        if declared not in (None, "bool"):
            refuse(
                c,
                f"{f.loc}/body/scalarFunction/outputType",
                f"{call.name}'s predicate must return a boolean, this one is declared {declared}",
            )
            return None
    return f


def _null_function(call: ScalarCall) -> bool:
    """Whether the call's function argument is the spec's NULL function literal."""
    raw = call.msg.arguments
    return len(raw) > 1 and raw[1].WhichOneof("arg_type") == "value" and null_function(raw[1].value)


@builder("transform", "filter")
def build_transform_filter(c: Converter, call: ScalarCall) -> ir.Expr:
    # Spark's transform and filter (filter keeps the elements whose predicate is true: false
    # and NULL drop them, as the spec says); a null list gives NULL in both
    f = _element_lambda(c, call)
    if f is None:
        if len(call.args) == 2 and _null_function(call):
            return refuse(
                c, f"{call.loc}/arguments/1", f"{call.name} with a NULL function: the spec gives it no result"
            )
        return ir.Lit(None, call.loc)
    return _call(call.name, call.loc, call.args[0], f)


@builder("any_match", "all_match")
def build_match(c: Converter, call: ScalarCall) -> ir.Expr:
    # all_match: Spark's forall (Kleene AND: false if a predicate is false, else NULL if one is
    # NULL, else true; true over no element). any_match: Kleene OR, as not(forall(not p)): Spark's
    # exists gives it only under spark.sql.legacy.followThreeValuedLogicInArrayExists (a
    # server setting). A NULL list or a NULL predicate: NULL (the spec's words)
    loc = call.loc
    f = _element_lambda(c, call)
    if f is None:
        if len(call.args) == 2 and _null_function(call):
            return _lit(None, loc, "boolean")
        return ir.Lit(None, loc)
    if call.name == "all_match":
        return _call("forall", loc, call.args[0], f)
    negated = ir.Lambda(f.params, _call("not", f.loc, f.body), f.loc)
    return _call("not", loc, _call("forall", loc, call.args[0], negated))


# ---------------------------------------------------------------- aggregates


_DISPERSION = {
    ("variance", "SAMPLE"): "var_samp",
    ("variance", "POPULATION"): "var_pop",
    ("std_dev", "SAMPLE"): "stddev_samp",
    ("std_dev", "POPULATION"): "stddev_pop",
}


@aggregate_builder("variance", "std_dev")
def build_dispersion(c: Converter, call: AggregateCall) -> ir.Expr:
    # the spec's distribution enum (SAMPLE, POPULATION; none: SAMPLE, as SQL's VARIANCE)
    kind = call.enums[0].upper() if call.enums else "SAMPLE"
    fn = _DISPERSION.get((call.name, kind))
    if fn is None or len(call.enums) > 1:
        c.err("substrait_function", call.loc, f"{call.name}'s distribution {list(call.enums)}: SAMPLE or POPULATION")
        return ir.Lit(None, call.loc)
    return call.make(fn, call.args)
