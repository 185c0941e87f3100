"""The Substrait front-end's function, literal and expression translations, on minimal hand-made
plans (no producer, no server): what each producer's spelling becomes in the IR, and what is
refused, located, with its reason. tests/integration/test_substrait_functions.py holds the same
translations to the producers' own engines on Spark."""

from __future__ import annotations

from typing import Any

import pytest

from connect_plan import ir
from connect_plan.errors import PlanError
from connect_plan.formats.substrait import parse_substrait_plan
from connect_plan.formats.substrait import spellings as sp
from connect_plan.formats.substrait.calls import AGGREGATE_BUILDERS, BUILDERS, like_pattern
from connect_plan.formats.substrait.declared import result_contract
from connect_plan.formats.substrait.proto import parse_substrait
from connect_plan.formats.substrait.regex import RegexRefused, java_regex, java_replacement
from connect_plan.types import Primitive

NULLABLE = {"nullability": "NULLABILITY_NULLABLE"}
TYPES = {
    "b": {"bool": NULLABLE},
    "i": {"i32": NULLABLE},
    "k": {"i64": NULLABLE},
    "f": {"fp64": NULLABLE},
    "s": {"string": NULLABLE},
    "d": {"date": NULLABLE},
}
COLUMNS = list(TYPES)
#: where the one projected expression of :func:`plan` is
AT = "/relations/0/root/input/project/expressions/0"


def col(name: str) -> dict[str, Any]:
    return {"selection": {"directReference": {"structField": {"field": COLUMNS.index(name)}}, "rootReference": {}}}


def lit(**value: Any) -> dict[str, Any]:
    return {"literal": value}


NULL = {"literal": {"null": {}}}  # DuckDB 1.1's NULL: no type kind


def fn(name: str, *args: dict[str, Any], out: str | None = None) -> dict[str, Any]:
    """A scalar call of ``name`` (declared under anchor = its position in :data:`NAMES`)."""
    body: dict[str, Any] = {"functionReference": _anchor(name), "arguments": [{"value": a} for a in args]}
    if out is not None:
        body["outputType"] = {out: NULLABLE}
    return {"scalarFunction": body}


NAMES: list[str] = []


def _anchor(name: str) -> int:
    if name not in NAMES:
        NAMES.append(name)
    return NAMES.index(name) + 1


def plan(expr: dict[str, Any], producer: str | None = None, measure: dict[str, Any] | None = None) -> dict[str, Any]:
    """A plan projecting ``expr`` over the table t (columns :data:`TYPES`), or aggregating
    ``measure`` over it; written by ``producer`` (Plan.version.producer)."""
    read = {
        "read": {
            "baseSchema": {"names": COLUMNS, "struct": {"types": list(TYPES.values())}},
            "namedTable": {"names": ["t"]},
        }
    }
    if measure is not None:
        rel: dict[str, Any] = {"aggregate": {"input": read, "groupings": [{}], "measures": [measure]}}
        names = ["r"]
    else:
        rel = {"project": {"input": read, "expressions": [expr], "common": {"emit": {"outputMapping": [6]}}}}
        names = ["r"]
    doc: dict[str, Any] = {
        "extensions": [{"extensionFunction": {"functionAnchor": i + 1, "name": name}} for i, name in enumerate(NAMES)],
        "relations": [{"root": {"input": rel, "names": names}}],
    }
    if producer:
        doc["version"] = {"producer": producer, "minorNumber": 53}
    return doc


def converted(expr: dict[str, Any], producer: str | None = None) -> ir.Expr:
    """The IR of the projected ``expr``."""
    steps = parse_substrait_plan(plan(expr, producer)).steps
    return next(s.expr for s in steps if isinstance(s, ir.WithColumn))


def refused(expr: dict[str, Any], producer: str | None = None) -> PlanError:
    with pytest.raises(PlanError) as e:
        parse_substrait_plan(plan(expr, producer))
    return e.value


def strip(e: Any) -> Any:
    """An IR expression without its locations, as nested tuples (to compare shapes)."""
    if isinstance(e, ir.Lit):
        return ("lit", e.value, e.type.name if isinstance(e.type, Primitive) else e.type)
    if isinstance(e, ir.Col):
        return ("col",)
    if isinstance(e, ir.Call):
        return (e.fn, *(strip(a) for a in e.args)) + (("distinct",) if e.distinct else ())
    if isinstance(e, ir.UdfCall):
        return ("udf:" + e.name, *(strip(a) for a in e.args))
    if isinstance(e, ir.Cast):
        return ("cast", strip(e.expr), e.to.name if isinstance(e.to, Primitive) else e.to)
    if isinstance(e, ir.When):
        return ("when", tuple((strip(c), strip(v)) for c, v in e.branches), strip(e.otherwise))
    if e is None:
        return None
    return type(e).__name__


# ---------------------------------------------------------------- the table and its builders


def test_every_row_without_a_spark_function_has_a_builder_and_back() -> None:
    from connect_plan.formats.substrait import functions

    assert functions.extension_functions  # importing it registers every builder
    built = {(k, n) for (k, n), row in sp.FUNCTIONS.items() if row.spark is None}
    registered = {("scalar", n) for n in BUILDERS} | {("aggregate", n) for n in AGGREGATE_BUILDERS}
    assert built == registered


def test_a_producers_own_name_names_its_producer() -> None:
    """A row no spec file declares is some producer's spelling: it says whose (or why none)."""
    own = [f"{k} {n}" for (k, n), row in sp.FUNCTIONS.items() if not row.files and not (row.producers or row.note)]
    assert not own, own
    assert {p for row in sp.FUNCTIONS.values() for p in row.producers} <= {"datafusion", "duckdb", "isthmus", "ibis"}


# ---------------------------------------------------------------- untyped and under-typed expressions


def test_an_untyped_null_in_a_cast_is_a_null_of_the_casts_type_for_any_producer() -> None:
    e = converted({"cast": {"type": {"i32": NULLABLE}, "input": NULL}})
    assert e == ir.Lit(None, f"{AT}/cast/input/literal", Primitive("int"))


def test_an_untyped_null_elsewhere_is_duckdbs_untyped_null_and_refused_from_others() -> None:
    e = converted({"singularOrList": {"value": col("k"), "options": [lit(i64="1"), NULL]}}, "DuckDB")
    assert (
        isinstance(e, ir.Call) and e.fn == "in" and e.args[2] == ir.Lit(None, f"{AT}/singularOrList/options/1/literal")
    )
    err = refused({"singularOrList": {"value": col("k"), "options": [lit(i64="1"), NULL]}}, "datafusion")
    assert err.codes == ("substrait_type",)
    assert err.locs == (f"{AT}/singularOrList/options/1/literal/null/kind",)


def test_the_declared_type_of_a_cast_of_an_untyped_null_is_the_casts() -> None:
    doc = plan({"cast": {"type": {"decimal": {"precision": 10, "scale": 2, **NULLABLE}}, "input": NULL}}, "DuckDB")
    contract = result_contract(parse_substrait(doc))
    assert contract is not None
    assert contract.columns[0].type == Primitive("decimal", 10, 2)


def _case(*clauses: dict[str, Any], otherwise: dict[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"ifs": list(clauses)}
    if otherwise is not None:
        body["else"] = otherwise
    return {"ifThen": body}


def test_datafusions_simple_case_compares_the_operand_with_each_value() -> None:
    simple = _case({"if": col("k")}, {"if": lit(i64="1"), "then": lit(string="one")}, otherwise=lit(string="other"))
    e = converted(simple, "datafusion")
    assert strip(e) == (
        "when",
        ((("==", ("col",), ("lit", 1, "bigint")), ("lit", "one", "string")),),
        ("lit", "other", "string"),
    )
    # from another producer a clause without its THEN is still an error
    err = refused(simple, "DuckDB")
    assert err.locs == (f"{AT}/ifThen/ifs/0/then",)


# ---------------------------------------------------------------- producers' own names


def test_is_true_family_is_null_safe() -> None:
    assert strip(converted(fn("is_true", col("b")))) == ("<=>", ("col",), ("lit", True, None))
    assert strip(converted(fn("is_not_false", col("b")))) == ("not", ("<=>", ("col",), ("lit", False, None)))


def test_concatenation_operators_are_concat_on_strings_only() -> None:
    assert strip(converted(fn("||", col("s"), col("s"), out="string"))) == ("concat", ("col",), ("col",))
    assert strip(converted(fn("str_concat", col("s"), lit(string="x")))) == ("concat", ("col",), ("lit", "x", "string"))
    err = refused(fn("||", col("s"), col("s"), out="binary"))
    assert err.codes == ("substrait_function",) and "binary" in str(err)


def test_constant_or_null_is_null_when_any_argument_is() -> None:
    e = converted(fn("constant_or_null", lit(boolean=True), col("k"), col("f"), out="bool"))
    assert strip(e) == (
        "when",
        ((("or", ("isnull", ("col",)), ("isnull", ("col",))), ("lit", None, "boolean")),),
        ("lit", True, "boolean"),
    )


def test_duckdb_mod_by_type() -> None:
    ints = strip(converted(fn("%", col("k"), lit(i64="7"), out="i64")))
    assert ints[0] == "when" and ints[2] == ("try_mod", ("col",), ("lit", 7, "bigint"))
    overflow = ("and", ("==", ("col",), ("lit", -(2**63), "bigint")), ("==", ("lit", 7, "bigint"), ("lit", -1, None)))
    assert ints[1][0][0] == overflow
    floats = strip(converted(fn("%", col("f"), lit(fp64=2.0), out="fp64")))
    assert floats[2] == ("%", ("col",), ("lit", 2.0, "double"))
    assert refused(fn("%", col("s"), col("s"), out="string")).codes == ("substrait_function",)


def test_position_and_strpos_are_instr_haystack_first() -> None:
    assert strip(converted(fn("position", col("s"), lit(string="a")))) == ("instr", ("col",), ("lit", "a", "string"))
    assert strip(converted(fn("strpos", col("s"), lit(string="a")))) == ("instr", ("col",), ("lit", "a", "string"))


def test_unary_subtract_is_negative() -> None:
    assert strip(converted(fn("subtract", col("i"), out="i32"))) == ("negative", ("col",))


def test_sign_keeps_an_integer_output() -> None:
    e = strip(converted(fn("sign:fp64", col("f"), out="i8")))
    assert e == ("when", ((("isnan", ("col",)), ("lit", 0, "tinyint")),), ("cast", ("signum", ("col",)), "tinyint"))
    assert strip(converted(fn("sign:fp64", col("f"), out="fp64"))) == ("signum", ("col",))
    assert strip(converted(fn("signum", col("f")))) == ("+", ("signum", ("col",)), ("lit", 0.0, None))


def test_logarithms_keep_their_engines_domain() -> None:
    duck = strip(converted(fn("log", lit(fp64=2.0), col("f"), out="fp64"), "DuckDB"))
    assert duck[0] == "when" and duck[1][1][1][0] == "raise_error"
    assert strip(converted(fn("log", col("f"), out="fp64"))) == ("log10", ("col",))
    logb = strip(converted(fn("logb", col("f"), lit(fp64=2.0))))
    assert logb[0] == "when" and logb[2][0] == "/"


def test_like_patterns_keep_their_escape() -> None:
    # no escape (SQL, DuckDB, Calcite): a backslash is a character
    assert like_pattern("a\\%", None) == "a\\\\%"
    # DuckDB's like_escape and DataFusion's ESCAPE '#': #% is a percent sign; #b a b
    assert like_pattern("%#_b#b%", "#") == "%\\_bb%"
    with pytest.raises(ValueError):
        like_pattern("ab#", "#")
    assert strip(converted(fn("like_escape", col("s"), lit(string="a#%"), lit(string="#")))) == (
        "like",
        ("col",),
        ("lit", "a\\%", None),
    )
    # DataFusion's LIKE without ESCAPE (a null escape): its backslash escapes
    e = converted(fn("like", col("s"), lit(string="a\\%"), {"literal": {"null": {"string": NULLABLE}}}), "datafusion")
    assert strip(e) == ("like", ("col",), ("lit", "a\\%", "string"))
    # DuckDB's: the same text means a backslash then anything
    assert strip(converted(fn("like", col("s"), lit(string="a\\%")), "DuckDB")) == (
        "like",
        ("col",),
        ("lit", "a\\\\%", None),
    )
    # an escape written as a cast of a literal (DataFusion's ESCAPE '#') is that literal
    cast = {"cast": {"type": {"string": NULLABLE}, "input": lit(string="#")}}
    assert strip(converted(fn("like", col("s"), lit(string="#%x"), cast), "datafusion")) == (
        "like",
        ("col",),
        ("lit", "\\%x", None),
    )


def test_duckdb_ilike_lowers_a_character_at_a_time() -> None:
    e = strip(converted(fn("~~*", col("s"), lit(string="İ%"))))
    fold = ("lit", "\u0130\u03a3", None), ("lit", "i\u03c3", None)
    assert e == (
        "like",
        ("lower", ("translate", ("col",), *fold)),
        ("lower", ("translate", ("lit", "İ%", None), *fold)),
    )


def test_date_trunc_without_time_zones() -> None:
    month = strip(converted(fn("date_trunc", lit(string="month"), col("d"), out="date")))
    assert month == ("trunc", ("cast", ("col",), "date"), ("lit", "MONTH", None))
    hour = converted(fn("date_trunc", lit(string="hour"), col("d"), out="precision_timestamp"))
    assert isinstance(hour, ir.Call) and hour.fn == "make_timestamp_ntz"
    err = refused(fn("date_trunc", lit(string="decade"), col("d"), out="date"))
    assert err.locs == (f"{AT}/scalarFunction/arguments/0",)
    assert refused(fn("date_trunc", lit(string="month"), col("d"), out="timestamp_tz")).codes == ("substrait_function",)


def test_extract_doy() -> None:
    e = converted(
        {
            "scalarFunction": {
                "functionReference": _anchor("extract"),
                "arguments": [{"enum": "DOY"}, {"value": col("d")}],
            }
        }
    )
    assert strip(e) == ("udf:dayofyear", ("col",))


# ---------------------------------------------------------------- regular expressions


@pytest.mark.parametrize(
    ("pattern", "dialect", "java"),
    [
        ("^[a-b].*a$", "re2", "^[a-b][^\\n]*a\\z"),
        ("^[a-b].*a$", "rust", "^[a-b][^\\n]*a\\z"),
        ("^[a-b].*a$", "icu", "^[a-b].*a$"),
        ("\\d+\\.\\w\\s", "re2", "[0-9]+\\.[0-9A-Za-z_][\\t\\n\\f\\r ]"),
        ("[^\\d,]x{2,3}?", "re2", "[^0-9,]x{2,3}?"),
        ("\\x41\\v(?:a|b)", "rust", "\\x41\\x0B(?:a|b)"),
    ],
)
def test_patterns_in_javas_dialect(pattern: str, dialect: Any, java: str) -> None:
    assert java_regex(pattern, dialect).java == java


@pytest.mark.parametrize(
    ("pattern", "dialect", "why"),
    [
        ("\\d", "rust", "Unicode"),
        ("(?i)a", "re2", "flags"),
        ("a\\b", "re2", "\\b"),
        ("[[:alpha:]]", "re2", "'['"),
        ("a++", "re2", "quantifier"),
        ("[a&&b]", "rust", "set operation"),
        ("a{,2}", "re2", "repetition"),
        ("(a", "re2", "unclosed"),
    ],
)
def test_patterns_outside_the_common_subset_are_refused(pattern: str, dialect: Any, why: str) -> None:
    with pytest.raises(RegexRefused, match=why.replace("\\", "\\\\").replace("[", "\\[")):
        java_regex(pattern, dialect)


def test_anchoring_and_empty_matches_are_known() -> None:
    assert java_regex("^a|^b", "re2").anchored and not java_regex("^a|b", "re2").anchored
    assert java_regex("a*", "re2").nullable and not java_regex("a+", "re2").nullable
    assert java_regex("(a)(b)", "re2").groups == 2


def test_replacements_in_javas_dialect() -> None:
    assert java_replacement("<\\1>$\\\\", "re2", 1) == "<$1>\\$\\\\"
    with pytest.raises(RegexRefused, match="group 2"):
        java_replacement("\\2", "re2", 1)
    with pytest.raises(RegexRefused, match="'\\$'"):
        java_replacement("$0", "rust", 0)


def test_regex_functions_need_a_known_dialect_and_a_literal_pattern() -> None:
    ok = converted(fn("regexp_matches", col("s"), lit(string="^a.b$")), "DuckDB")
    assert strip(ok) == ("rlike", ("col",), ("lit", "^a[^\\n]b\\z", None))
    assert refused(fn("regexp_matches", col("s"), lit(string="a")), None).codes == ("substrait_function",)
    err = refused(fn("regex_match", col("s"), col("s")), "datafusion")
    assert err.locs == (f"{AT}/scalarFunction/arguments/1",)


def test_regexp_replace_first_or_every_match() -> None:
    first = converted(fn("regexp_replace", col("s"), lit(string="^a+"), lit(string="X")), "DuckDB")
    assert strip(first) == ("regexp_replace", ("col",), ("lit", "^a+", None), ("lit", "X", None))
    every = converted(fn("regexp_replace", col("s"), lit(string="a"), lit(string="X"), lit(string="g")), "datafusion")
    assert strip(every)[0] == "regexp_replace"
    unanchored = refused(fn("regexp_replace", col("s"), lit(string="a"), lit(string="X")), "DuckDB")
    assert "first match" in str(unanchored) and unanchored.locs == (f"{AT}/scalarFunction/arguments/1",)
    empty = refused(fn("regexp_replace", col("s"), lit(string="a*"), lit(string="X"), lit(string="g")), "DuckDB")
    assert "empty" in str(empty)


# ---------------------------------------------------------------- argument and result types


def _window(name: str, *args: dict[str, Any]) -> dict[str, Any]:
    return {
        "windowFunction": {
            "functionReference": _anchor(name),
            "arguments": [{"value": a} for a in args],
            "sorts": [{"expr": col("k"), "direction": "SORT_DIRECTION_ASC_NULLS_LAST"}],
        }
    }


def test_ntile_takes_an_int_literal() -> None:
    e = converted(_window("ntile", lit(i64="4")))
    assert isinstance(e, ir.Window) and isinstance(e.func, ir.Call)
    assert e.func.args == (ir.Lit(4, f"{AT}/windowFunction/arguments/0/value/literal"),)
    err = refused(_window("ntile", col("k")))
    assert err.locs == (f"{AT}/windowFunction/arguments/0/value",)
    assert refused(_window("ntile", lit(i64=str(2**40)))).codes == ("substrait_function",)


def _measure(name: str, *args: dict[str, Any], out: str, distinct: bool = False, where: Any = None) -> dict[str, Any]:
    body: dict[str, Any] = {
        "functionReference": _anchor(name),
        "arguments": [{"value": a} for a in args],
        "outputType": {out: NULLABLE},
    }
    if distinct:
        body["invocation"] = "AGGREGATION_INVOCATION_DISTINCT"
    m: dict[str, Any] = {"measure": body}
    if where is not None:
        m["filter"] = where
    return m


def aggregated(measure: dict[str, Any]) -> ir.Expr:
    steps = parse_substrait_plan(plan({}, measure=measure)).steps
    agg = next(s for s in steps if isinstance(s, ir.Agg))
    return agg.aggs[0].expr


def test_avg_of_integers_is_the_truncated_integer_average() -> None:
    e = aggregated(_measure("avg:i32", col("i"), out="i32", distinct=True, where=col("b")))
    guarded = ("when", ((("col",), ("col",)),), None)
    assert strip(e) == ("udf:div", ("sum", guarded, "distinct"), ("count", guarded, "distinct"))
    assert strip(aggregated(_measure("avg:fp64", col("f"), out="fp64"))) == ("avg", ("col",))


def test_sum0_of_no_values_is_zero() -> None:
    e = aggregated(_measure("sum0:i64", col("k"), out="i64"))
    assert strip(e) == ("coalesce", ("sum", ("col",)), ("lit", 0, None))


def test_a_measure_filter_reaches_the_aggregates_inside_a_composition() -> None:
    """FILTER (WHERE b) of a call built of several aggregates guards each one's arguments."""
    e = aggregated(_measure("sum0:i64", col("k"), out="i64", where=col("b")))
    assert strip(e) == ("coalesce", ("sum", ("when", ((("col",), ("col",)),), None)), ("lit", 0, None))


def test_var_is_var_samp() -> None:
    assert strip(aggregated(_measure("var", col("f"), out="fp64"))) == ("var_samp", ("col",))
