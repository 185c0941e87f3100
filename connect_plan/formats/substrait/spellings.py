"""Every Substrait spelling this front-end reads, as tables: function names (any URI/URN style,
any signature spelling), the values of the proto enums it reads (join types, sort directions,
set operations, write and create modes...), extract components, producer quirks. The converter
only looks names up here.

Proto enums are keyed by their value names (``"JOIN_TYPE_LEFT_SEMI"``), never by number: the
converter reads a value's name from the message's own descriptor (the private pool of
:mod:`.proto`), and a unit test checks that every name written here is a value of the schema."""

from __future__ import annotations

from typing import Literal, NamedTuple

from google.protobuf.message import Message

from ... import ir
from ...types import DataType, Primitive

__all__ = [
    "CREATE_MODES",
    "EXTRACT_FIELDS",
    "FUNCTIONS",
    "FUNCTION_OPTIONS",
    "JOIN_TYPES",
    "LAMBDA_ARGUMENTS",
    "PRODUCER_QUIRKS",
    "REDUCTIONS",
    "REWRITTEN_JOINS",
    "SET_COMPARISONS",
    "SET_INDEX_MAYBE_OMITTED",
    "SET_OPS",
    "SET_PREDICATES",
    "SORT_DIRECTIONS",
    "TAKES_ENUMS",
    "WHOLE_AGGREGATION_PHASES",
    "WRITE_OPS",
    "Function",
    "FunctionKind",
    "SetOperation",
    "function_name",
    "set_index_maybe_omitted",
]

FunctionKind = Literal["scalar", "aggregate", "window"]


class Function(NamedTuple):
    """One row of :data:`FUNCTIONS`: a Substrait function of one kind, and what a call of it
    becomes on Spark."""

    kind: FunctionKind
    #: the Substrait name, lower case, without a signature (``equal``, not ``equal:any_any``)
    name: str
    #: the catalog function a call becomes; None: the builder registered under the name
    #: (a function that needs code: integer division, ``not_equal``, ``extract``...)
    spark: str | None
    #: the standard extension files that declare it, by stem (``functions_comparison``); none:
    #: a name only some producer writes (``note`` says who)
    files: tuple[str, ...] = ()
    note: str = ""
    #: a window function Spark gives its own fixed frame (ranking and offset functions): a
    #: plan's frame bounds are not sent
    fixed_frame: bool = False
    #: the producers known to write this name (checked against every recorded plan); a row with
    #: no ``files`` is a producer's own spelling and names its producers
    producers: tuple[str, ...] = ()


_CMP = ("functions_comparison",)
_CMP_DT = ("functions_comparison", "functions_datetime")
_BOOL = ("functions_boolean",)
_ARITH = ("functions_arithmetic",)
_ARITH_DEC = ("functions_arithmetic", "functions_arithmetic_decimal")
_ARITH_DEC_DT = ("functions_arithmetic", "functions_arithmetic_decimal", "functions_datetime")
_ROUND = ("functions_rounding", "functions_rounding_decimal")
_LOG = ("functions_logarithmic",)
_STR = ("functions_string",)
_DT = ("functions_datetime",)
_AGG = ("functions_aggregate_generic",)
_DF = ("datafusion",)
_DUCK = ("duckdb",)
_BOTH = ("datafusion", "duckdb")
_RE = "a search; the pattern translated from the producer's regex dialect to Java's, or refused (regex.py)"

#: Every Substrait function this front-end runs, one row per (kind, name): scalar functions,
#: aggregate functions (an AggregateRel measure, or a window function's aggregate) and window
#: functions. A call is looked up by its kind and its name alone, whatever extension URI
#: declares it: producers spell the same file many ways (Isthmus ``/functions_comparison.yaml``;
#: ibis and DuckDB ``https://github.com/substrait-io/substrait/blob/main/extensions/
#: functions_comparison.yaml``; URNs ``extension:io.substrait:functions_comparison``) or none
#: (DataFusion declares no URI at all; DuckDB names only the extensions folder for some, or
#: none), and a name means the same on Spark in every file that declares it. ``files`` records
#: where the spec declares each one; ``producers`` who writes a name of its own (and who is seen
#: writing some of the spec's); tests check both against the spec's YAML files and every
#: recorded producer plan (tests/unit/test_substrait_structure.py). docs/substrait.md's function
#: list is generated from this table (scripts/gen_substrait_functions_doc.py).
FUNCTIONS: dict[tuple[FunctionKind, str], Function] = {
    (f.kind, f.name): f
    for f in (
        # functions_comparison (lt...gte also compare datetimes: functions_datetime)
        Function("scalar", "equal", "==", _CMP),
        Function("scalar", "not_equal", None, _CMP, "not(x == y)"),
        Function("scalar", "lt", "<", _CMP_DT),
        Function("scalar", "lte", "<=", _CMP_DT),
        Function("scalar", "gt", ">", _CMP_DT),
        Function("scalar", "gte", ">=", _CMP_DT),
        Function("scalar", "is_null", "isnull", _CMP),
        Function("scalar", "is_not_null", "isnotnull", _CMP),
        Function("scalar", "is_nan", None, _CMP, "isnan(x), NULL for NULL (Spark's isnan is false there)"),
        Function("scalar", "is_not_distinct_from", "<=>", _CMP),
        Function("scalar", "is_distinct_from", None, _CMP, "not(x <=> y)"),
        Function("scalar", "is_true", None, _CMP, "x <=> true: false for NULL", producers=_DF),
        Function("scalar", "is_false", None, _CMP, "x <=> false: false for NULL", producers=_DF),
        Function("scalar", "is_not_true", None, _CMP, "not(x <=> true): true for NULL", producers=_DF),
        Function("scalar", "is_not_false", None, _CMP, "not(x <=> false): true for NULL", producers=_DF),
        Function("scalar", "between", "between", _CMP),
        Function("scalar", "coalesce", "coalesce", _CMP),
        Function("scalar", "nullif", "nullif", _CMP),
        Function("scalar", "least", "least", _CMP),
        Function("scalar", "greatest", "greatest", _CMP),
        Function(
            "scalar",
            "constant_or_null",
            None,
            note="DuckDB's optimizer: NULL if any argument after the first is NULL, else the first",
            producers=_DUCK,
        ),
        Function("scalar", "is_finite", None, _CMP, "x - x = 0: false for NaN and infinities"),
        Function("scalar", "is_infinite", None, _CMP, "abs(x) = inf"),
        # functions_boolean
        Function("scalar", "and_not", None, _BOOL, "x and not y"),
        Function("scalar", "and", "and", _BOOL),
        Function("scalar", "or", "or", _BOOL),
        Function("scalar", "not", "not", _BOOL),
        Function("scalar", "xor", None, _BOOL, "not(x == y)"),
        # functions_arithmetic / _decimal (add and subtract also take dates and intervals: datetime)
        Function("scalar", "add", None, _ARITH_DEC_DT, "+ (a date plus whole days written as seconds: days)"),
        Function("scalar", "subtract", None, _ARITH_DEC_DT, "one argument (DuckDB's -x): negative"),
        Function("scalar", "multiply", "*", _ARITH_DEC_DT),
        Function("scalar", "divide", None, _ARITH_DEC, "/ (integers: div, which truncates as Substrait does)"),
        Function("scalar", "modulus", "%", _ARITH_DEC),
        Function("scalar", "modulo", "%", note="an older spelling of modulus (no recorded producer writes it)"),
        Function(
            "scalar",
            "%",
            None,
            note="DuckDB's operator: NULL for x % 0 (NaN for floats), an error for the smallest integer % -1",
            producers=_DUCK,
        ),
        Function(
            "scalar", "negate", None, _ARITH_DEC, "negative; a decimal 0 - x (Spark's negative rounds to 34 digits)"
        ),
        Function("scalar", "abs", None, _ARITH_DEC, "abs; a decimal x or 0 - x (Spark's abs rounds to 34 digits)"),
        Function("scalar", "sign", None, _ARITH, "an integer result: signum cast to it, NaN's sign 0 (DuckDB's)"),
        Function("scalar", "signum", None, note="DataFusion's sign: a double, 0.0 for -0.0", producers=_DF),
        Function("scalar", "sqrt", None, _ARITH_DEC, "sqrt; of a negative decimal an error (raise_error)"),
        Function("scalar", "exp", "exp", _ARITH),
        Function("scalar", "factorial", None, _ARITH_DEC, "factorial of 0..20, an error beyond (Spark's is NULL)"),
        # trigonometric and hyperbolic functions (doubles; a domain error is NaN, or as the option says)
        *(Function("scalar", n, n, _ARITH) for n in ("sin", "cos", "tan", "atan", "atan2", "sinh", "cosh", "tanh")),
        *(
            Function("scalar", n, None, _ARITH, "outside its domain NaN, or as on_domain_error says")
            for n in ("asin", "acos", "asinh", "acosh", "atanh")
        ),
        Function("scalar", "power", "power", _ARITH_DEC),
        # ... their bitwise functions (DataFusion's bitwise_shift_*: TPC-DS q70/q86)
        *(
            Function("scalar", n, None, _ARITH_DEC, "decimals of up to 18 digits through bigint, exactly")
            for n in ("bitwise_and", "bitwise_or", "bitwise_xor")
        ),
        Function("scalar", "bitwise_not", "~", _ARITH),
        Function("scalar", "shift_left", "shiftleft", _ARITH),
        Function("scalar", "shift_right", "shiftright", _ARITH),
        Function("scalar", "shift_right_unsigned", "shiftrightunsigned", _ARITH),
        Function("scalar", "bitwise_shift_left", "shiftleft", producers=_DF),
        Function("scalar", "bitwise_shift_right", "shiftright", producers=_DF),
        Function(
            "scalar",
            "<<",
            None,
            note="DuckDB's shift: an error for a negative value or shift and on overflow",
            producers=_DUCK,
        ),
        Function("scalar", ">>", None, note="DuckDB's shift: 0 for a shift outside 0..bits-1", producers=_DUCK),
        # functions_rounding / _decimal
        Function("scalar", "ceil", "ceil", _ROUND),
        Function("scalar", "floor", "floor", _ROUND),
        Function("scalar", "round", None, _ROUND, "round"),
        # functions_logarithmic
        *(
            Function("scalar", n, None, _LOG, "NULL for x <= 0 (Spark's), or as on_log_zero / on_domain_error say")
            for n in ("ln", "log10", "log2")
        ),
        Function(
            "scalar",
            "logb",
            None,
            _LOG,
            "logb(x, b) in IEEE doubles (NaN, -inf) where Spark's log is NULL",
            producers=_DF,
        ),
        Function(
            "scalar",
            "log",
            None,
            note="DuckDB's: log(x) base 10; log(b, x) an error for x <= 0, b <= 0, b = 1",
            producers=_DUCK,
        ),
        # functions_string
        Function("scalar", "concat", None, _STR, "concat (NULL if any is); IGNORE_NULLS: concat_ws('', ...)"),
        Function("scalar", "concat_ws", "concat_ws", _STR),
        Function("scalar", "left", "left", _STR),
        Function("scalar", "right", "right", _STR),
        Function("scalar", "bit_length", "bit_length", _STR),
        Function("scalar", "octet_length", "octet_length", _STR),
        Function("scalar", "repeat", None, _STR, "repeat(s, n) with n an INT (a larger n an error)"),
        Function("scalar", "string_split", None, _STR, "split on a literal delimiter (a Java regex quoting it)"),
        Function("scalar", "||", None, note="DuckDB's string concatenation (NULL if any is)", producers=_DUCK),
        Function("scalar", "str_concat", None, note="DataFusion's || (NULL if any is)", producers=_DF),
        Function("scalar", "contains", "contains", _STR),
        Function("scalar", "starts_with", "startswith", _STR),
        Function("scalar", "ends_with", "endswith", _STR),
        Function("scalar", "lower", "lower", _STR),
        Function("scalar", "upper", "upper", _STR),
        Function("scalar", "char_length", "char_length", _STR),
        Function("scalar", "character_length", "char_length", producers=_DF),
        Function("scalar", "trim", "trim", _STR),
        Function("scalar", "ltrim", "ltrim", _STR),
        Function("scalar", "rtrim", "rtrim", _STR),
        Function("scalar", "btrim", "btrim", note="DataFusion's trim (spaces, or a set of characters)", producers=_DF),
        Function("scalar", "replace", "replace", _STR),
        Function("scalar", "reverse", "reverse", _STR),
        Function("scalar", "lpad", "lpad", _STR),
        Function("scalar", "rpad", "rpad", _STR),
        Function("scalar", "strpos", "instr", _STR, producers=_DF),
        Function("scalar", "position", "instr", note="DuckDB's position(haystack, needle)", producers=_DUCK),
        Function("scalar", "like", None, _STR, "no escape character without ESCAPE (DataFusion's: the backslash)"),
        Function(
            "scalar", "ilike", None, note="LIKE without case (the spec's like takes a case option)", producers=_DF
        ),
        Function("scalar", "like_escape", None, note="DuckDB's LIKE ... ESCAPE", producers=_DUCK),
        Function(
            "scalar",
            "~~*",
            None,
            note="DuckDB's ILIKE (no escape; lower case a character at a time)",
            producers=_DUCK,
        ),
        Function("scalar", "regexp_matches", None, note="DuckDB's: " + _RE, producers=_DUCK),
        Function("scalar", "regex_match", None, note="DataFusion's ~: " + _RE, producers=_DF),
        Function("scalar", "regex_not_match", None, note="DataFusion's !~: " + _RE, producers=_DF),
        Function(
            "scalar",
            "regexp_replace",
            None,
            _STR,
            "the first match (anchored patterns) or every one ('g'; a pattern that cannot match empty)",
            producers=_BOTH,
        ),
        Function("scalar", "substring", None, _STR, "substring"),
        Function("scalar", "regexp_count_substring", None, _STR, "regexp_count from position 1 (ICU → Java, regex.py)"),
        Function(
            "scalar",
            "regexp_match_substring",
            None,
            _STR,
            "the occurrence-th whole match from position 1: try_element_at(regexp_extract_all(s, p, 0), n)",
        ),
        Function("scalar", "regexp_string_split", None, _STR, "split(s, p, -1); a pattern matching '' refused"),
        # functions_datetime
        Function(
            "scalar",
            "extract",
            None,
            _DT,
            "year, month, day, quarter, hour, minute, second, dayofweek, dayofyear (DAY_OF_YEAR, DOY), weekofyear",
        ),
        Function("scalar", "date_part", None, note="DataFusion's extract: date_part('YEAR', x)", producers=_DF),
        Function(
            "scalar",
            "date_trunc",
            None,
            note="date_trunc(unit, x) to a date or a timestamp without zone, computed without zones",
            producers=_BOTH,
        ),
        Function("scalar", "dayofyear", None, note="DuckDB's extract(doy)", producers=_DUCK),
        Function("scalar", "add_intervals", "+", _DT),
        # functions_list
        Function("scalar", "cardinality", "array_size", ("functions_list",)),
        Function("scalar", "sort", None, ("functions_list",), "sort_array / array_sort by the direction option"),
        Function(
            "scalar", "transform", None, ("functions_list",), "transform(list, x -> f(x)); a null function: refused"
        ),
        Function("scalar", "filter", None, ("functions_list",), "filter(list, x -> p(x)); a null predicate: refused"),
        Function(
            "scalar",
            "any_match",
            None,
            ("functions_list",),
            "not forall(list, x -> not p(x)): Kleene OR whatever Spark's legacy exists setting; a null predicate: NULL",
        ),
        Function("scalar", "all_match", None, ("functions_list",), "forall(list, x -> p(x)); a null predicate: NULL"),
        # nested values (DataFusion's names; array_element, 1-based, needs an int index)
        Function("scalar", "make_array", "array", producers=_DF),
        Function("scalar", "get_field", None, note="struct field access and map lookup", producers=_DF),
        Function(
            "scalar", "array_element", None, note="l[i], 1-based: try_element_at(l, cast(i as int))", producers=_DF
        ),
        Function("scalar", "map", None, note="map(keys, values) over two arrays", producers=_DF),
        Function("scalar", "named_struct", None, note="named_struct", producers=_DF),
        # aggregate functions
        Function("aggregate", "sum", "sum", _ARITH_DEC),
        Function("aggregate", "sum0", None, _ARITH_DEC, "coalesce(sum(x), 0): the sum of no values is 0"),
        Function("aggregate", "avg", None, _ARITH_DEC, "of integers, an integer: sum(x) div count(x)"),
        Function("aggregate", "mean", "avg", note="an older spelling of avg (no recorded producer writes it)"),
        Function("aggregate", "min", "min", _ARITH_DEC_DT),
        Function("aggregate", "max", "max", _ARITH_DEC_DT),
        Function("aggregate", "count", "count", (*_AGG, "functions_aggregate_decimal_output")),
        Function("aggregate", "any_value", "any_value", _AGG),
        Function("aggregate", "first_value", "first", producers=_DF),
        Function("aggregate", "last_value", "last", producers=_DF),
        Function("aggregate", "std_dev", None, _ARITH, "SAMPLE: stddev_samp, POPULATION: stddev_pop"),
        Function("aggregate", "stddev", "stddev", producers=_DF),
        Function("aggregate", "stddev_samp", "stddev_samp", producers=_DUCK),
        Function("aggregate", "stddev_pop", "stddev_pop", producers=_BOTH),
        Function("aggregate", "variance", None, _ARITH, "SAMPLE: var_samp, POPULATION: var_pop"),
        Function("aggregate", "var", "var_samp", note="DataFusion's var_samp", producers=_DF),
        Function("aggregate", "var_samp", "var_samp", producers=_DUCK),
        Function("aggregate", "var_pop", "var_pop", producers=_BOTH),
        Function("aggregate", "bool_and", "bool_and", _BOOL),
        Function("aggregate", "bool_or", "bool_or", _BOOL),
        Function(
            "aggregate",
            "approx_count_distinct",
            "approx_count_distinct",
            ("functions_aggregate_approx", "functions_aggregate_decimal_output"),
        ),
        Function("aggregate", "median", "median", _ARITH),
        Function("aggregate", "string_agg", "string_agg", _STR),
        # window functions (functions_arithmetic); a window call of an aggregate is an aggregate's row
        Function("window", "row_number", "row_number", _ARITH, fixed_frame=True),
        Function("window", "rank", "rank", _ARITH, fixed_frame=True),
        Function("window", "dense_rank", "dense_rank", _ARITH, fixed_frame=True),
        Function("window", "percent_rank", "percent_rank", _ARITH, fixed_frame=True),
        Function("window", "cume_dist", "cume_dist", _ARITH, fixed_frame=True),
        Function("window", "ntile", "ntile", _ARITH, "an i64 literal bucket count sent as an INT", fixed_frame=True),
        Function("window", "lag", "lag", _ARITH, fixed_frame=True),
        Function("window", "lead", "lead", _ARITH, fixed_frame=True),
        Function("window", "first_value", "first_value", _ARITH),
        Function("window", "last_value", "last_value", _ARITH),
        Function("window", "nth_value", "nth_value", _ARITH),
    )
}

#: the functions whose builder reads enum arguments (any other's enum argument is refused)
TAKES_ENUMS = frozenset({"extract", "date_part", "std_dev", "variance"})

#: the functions that take lambdas: name → the positions of their function arguments (a lambda,
#: ``Expression.Lambda``, may stand there and nowhere else; Spark's higher-order functions)
LAMBDA_ARGUMENTS: dict[str, tuple[int, ...]] = {
    "transform": (1,),
    "filter": (1,),
    "any_match": (1,),
    "all_match": (1,),
}

_SILENT = frozenset({"SILENT"})
_LOG_OPTIONS = {
    "on_log_zero": frozenset({"NAN", "MINUS_INFINITY", "ERROR"}),
    "on_domain_error": frozenset({"NAN", "NULL", "ERROR", "NONE"}),
}

#: (kind, function, option) → the option values Spark honours exactly for it (a builder reads
#: the value, or Spark's behaviour is that value's). Any other option or value is refused by name.
#: overflow SILENT: the spec leaves the result undefined, so Spark's (wrapped or an error) is one.
#: rounding TIE_TO_EVEN: IEEE arithmetic's (the builders refuse it for decimals, which Spark
#: rounds half up).
FUNCTION_OPTIONS: dict[tuple[FunctionKind, str, str], frozenset[str]] = {
    **{("scalar", f, "overflow"): _SILENT for f in ("add", "subtract", "multiply", "negate", "abs", "divide")},
    **{("aggregate", f, "overflow"): _SILENT for f in ("sum", "sum0", "avg")},
    **{("scalar", f, "rounding"): frozenset({"TIE_TO_EVEN"}) for f in ("add", "subtract")},
    **{("scalar", f, o): v for f in ("ln", "log10", "log2") for o, v in _LOG_OPTIONS.items()},
    **{("scalar", f, "on_domain_error"): _LOG_OPTIONS["on_domain_error"] for f in ("asin", "acos", "acosh", "atanh")},
    ("scalar", "concat", "null_handling"): frozenset({"ACCEPT_NULLS", "IGNORE_NULLS"}),
    ("scalar", "sort", "direction"): frozenset(
        {"ASC_NULLS_FIRST", "ASC_NULLS_LAST", "DESC_NULLS_FIRST", "DESC_NULLS_LAST"}
    ),
    ("scalar", "power", "complex_number_result"): frozenset({"NAN"}),
}

#: JoinRel.JoinType → the Spark join it runs as, and whether the inputs are exchanged first
#: (Spark has no right semi or anti join: the left one with the sides exchanged is the same)
JOIN_TYPES: dict[str, tuple[ir.JoinKind, bool]] = {
    "JOIN_TYPE_INNER": ("inner", False),
    "JOIN_TYPE_OUTER": ("full", False),
    "JOIN_TYPE_LEFT": ("left", False),
    "JOIN_TYPE_RIGHT": ("right", False),
    "JOIN_TYPE_LEFT_SEMI": ("left_semi", False),  # JOIN_TYPE_SEMI before spec 0.53 (the same number)
    "JOIN_TYPE_LEFT_ANTI": ("left_anti", False),  # JOIN_TYPE_ANTI
    "JOIN_TYPE_RIGHT_SEMI": ("left_semi", True),  # the right input's rows
    "JOIN_TYPE_RIGHT_ANTI": ("left_anti", True),
}

#: JoinRel.JoinType → the joins Spark has none of, rewritten exactly (see the converter): a single
#: join (at most one match per probe row, else an error) or a mark join (the probe rows plus
#: whether a row of the other side matches), and whether the right input is the probe side
REWRITTEN_JOINS: dict[str, tuple[Literal["single", "mark"], bool]] = {
    "JOIN_TYPE_LEFT_SINGLE": ("single", False),  # JOIN_TYPE_SINGLE before spec 0.53
    "JOIN_TYPE_RIGHT_SINGLE": ("single", True),
    "JOIN_TYPE_LEFT_MARK": ("mark", False),
    "JOIN_TYPE_RIGHT_MARK": ("mark", True),
}

#: Subquery.SetComparison.ComparisonOp → catalog comparison (NE is not(==))
SET_COMPARISONS: dict[str, str] = {
    "COMPARISON_OP_EQ": "==",
    "COMPARISON_OP_NE": "!=",
    "COMPARISON_OP_LT": "<",
    "COMPARISON_OP_GT": ">",
    "COMPARISON_OP_LE": "<=",
    "COMPARISON_OP_GE": ">=",
}

#: Subquery.SetComparison.ReductionOp → whether the comparison must hold for ANY row (else ALL)
REDUCTIONS: dict[str, bool] = {"REDUCTION_OP_ANY": True, "REDUCTION_OP_ALL": False}

#: Subquery.SetPredicate.PredicateOp → whether it is EXISTS (else UNIQUE)
SET_PREDICATES: dict[str, bool] = {"PREDICATE_OP_EXISTS": True, "PREDICATE_OP_UNIQUE": False}

#: SortField.SortDirection → (ascending, nulls_first); CLUSTERED only asks equal values to be
#: adjacent, which an ascending sort satisfies
SORT_DIRECTIONS: dict[str, tuple[bool, bool]] = {
    "SORT_DIRECTION_ASC_NULLS_FIRST": (True, True),
    "SORT_DIRECTION_ASC_NULLS_LAST": (True, False),
    "SORT_DIRECTION_DESC_NULLS_FIRST": (False, True),
    "SORT_DIRECTION_DESC_NULLS_LAST": (False, False),
    "SORT_DIRECTION_CLUSTERED": (True, True),
}


class SetOperation(NamedTuple):
    """What a ``SetRel.SetOp`` runs as on Spark: the IR set operation applied to the primary
    input and each secondary input in turn, or (``any_secondary``) once, to the primary input
    and the UNION ALL of the secondary ones."""

    kind: Literal["union", "intersect", "except"]
    distinct: bool
    any_secondary: bool = False


#: SetRel.SetOp → its Spark equivalent, or why there is none. The spec's table (since 0.57; the
#: earlier text said the same of the rows, less exactly of the duplicates), with m the copies of a
#: row in the primary input and n1, n2... in the secondary ones. Spark's set operations match NULL
#: with NULL, as the spec's do.
SET_OPS: dict[str, SetOperation | str] = {
    # every row of the primary input in no secondary input, once: EXCEPT DISTINCT
    "SET_OP_MINUS_PRIMARY": SetOperation("except", True),
    # max(0, m - (n1 + n2 + ...)) copies: EXCEPT ALL, input by input
    "SET_OP_MINUS_PRIMARY_ALL": SetOperation("except", False),
    "SET_OP_MINUS_MULTISET": (
        "the spec defines Minus (Multiset) as the primary input's rows that are not in *every* secondary "
        "input, with no SQL equivalent and without saying how many copies of a primary row it keeps"
    ),
    # the primary input's rows present in *any* secondary input, once (DuckDB's and Isthmus' INTERSECT)
    "SET_OP_INTERSECTION_PRIMARY": SetOperation("intersect", True, any_secondary=True),
    # the primary input's rows present in *every* secondary input, once: INTERSECT DISTINCT
    "SET_OP_INTERSECTION_MULTISET": SetOperation("intersect", True),
    # min(m, n1, n2, ...) copies: INTERSECT ALL, input by input
    "SET_OP_INTERSECTION_MULTISET_ALL": SetOperation("intersect", False),
    "SET_OP_UNION_DISTINCT": SetOperation("union", True),
    "SET_OP_UNION_ALL": SetOperation("union", False),
}

#: AggregationPhase: the phases Spark can run, a whole aggregation (unspecified is one)
WHOLE_AGGREGATION_PHASES = frozenset({"AGGREGATION_PHASE_UNSPECIFIED", "AGGREGATION_PHASE_INITIAL_TO_RESULT"})

#: WriteRel.WriteOp → the DataFrame write it runs as: (save mode, method); a CTAS takes its save
#: mode from CREATE_MODES. DELETE and UPDATE have no DataFrame write.
WRITE_OPS: dict[str, tuple[str | None, str]] = {
    "WRITE_OP_INSERT": ("append", "insert_into"),  # Spark's insertInto: by position, appended
    "WRITE_OP_CTAS": (None, "save_as_table"),
}

#: WriteRel.CreateMode → save mode (ERROR_IF_EXISTS and unspecified: "error")
CREATE_MODES: dict[str, str] = {
    "CREATE_MODE_APPEND_IF_EXISTS": "append",
    "CREATE_MODE_REPLACE_IF_EXISTS": "overwrite",
    "CREATE_MODE_IGNORE_IF_EXISTS": "ignore",
}

#: extract/date_part component (upper-cased) → Spark function of one date/timestamp argument
EXTRACT_FIELDS: dict[str, str] = {
    "YEAR": "year",
    "MONTH": "month",
    "DAY": "day",
    "QUARTER": "quarter",
    "HOUR": "hour",
    "MINUTE": "minute",
    "SECOND": "second",
    "DAY_OF_WEEK": "dayofweek",
    "DAY_OF_YEAR": "dayofyear",
    "DOY": "dayofyear",  # DataFusion's date_part('doy', x), Isthmus' extract(DOY ...)
    "WEEK": "weekofyear",
}

#: integer Substrait type names (in signatures and output types) → Spark type
INTEGER_TYPES: dict[str, DataType] = {
    "i8": Primitive("tinyint"),
    "i16": Primitive("smallint"),
    "i32": Primitive("int"),
    "i64": Primitive("bigint"),
}


#: Plan.version.producer (lower-cased) → how that producer's plans deviate from the spec in a way
#: that its own consumer expects, and that a plan shows no other sign of. Applied openly (listed in
#: docs/substrait.md), only for that producer string; bugs that change a query's meaning are not
#: here: they are recorded as the producer's (strict xfails in the tests).
PRODUCER_QUIRKS: dict[str, frozenset[str]] = {
    "duckdb": frozenset(
        {
            # DuckDB (1.1.x, spec 0.53) writes ProjectRel without RelCommon.emit and means only the
            # expressions as its output (the spec says input columns + expressions); its consumer
            # reads them so, and every later field index and RelRoot.names count only those
            "project_outputs_expressions_only",
            # its SELECT without FROM reads a virtual table with no base schema whose one row holds
            # one placeholder value (to_substrait.cpp TransformDummyScan: "emit one garbage row,
            # the projection will take care of the rest"): rows of no columns
            "virtual_table_rows_of_no_columns",
            # every NULL constant is written literal.null {} (no type kind), whatever its type in
            # DuckDB: inside a cast it takes the cast's type (for any producer); elsewhere it is
            # Spark's untyped NULL, which takes its type from where it is used
            "untyped_null_literal",
            # its regular expressions are RE2's (regex.py)
            "regex_re2",
        }
    ),
    "datafusion": frozenset(
        {
            # DataFusion 55 writes CASE x WHEN v THEN r as an IfThen whose first clause holds x
            # with no then, each later clause's if a value v (its consumer reads it so); later
            # versions write x = v
            "simple_case_operand_first",
            # its LIKE without ESCAPE reads the backslash as the escape character
            "like_backslash_escape",
            # its regular expressions are Rust's regex crate's (regex.py)
            "regex_rust",
            # DataFusion (55 and before, spec 0.85) writes an AggregateRel of several grouping sets
            # with its own output order, not the spec's: the distinct keys, its __grouping_id
            # (Spark's grouping_id(): a bit per key, the first key highest, set where the set lacks
            # the key), then the measures, and no set index; every later field index counts so, and
            # its consumer reads it so (apache/datafusion#17910, changed after 55 by #23468)
            "aggregate_grouping_id_before_measures",
        }
    ),
}

#: Plan.version.producer (lower-cased) → the last spec version (0.x) whose plans of that producer
#: may write an AggregateRel of several grouping sets without the spec's trailing set-index
#: column: substrait-java (Isthmus) added it in 0.67 (#565), whose plans name spec 0.77 as those
#: of 0.59-0.66 do; before 0.59 (Isthmus 0.5 among them) its plans name no version at all. Such a
#: plan is read without the column only where the plan itself shows it (:func:`set_index_maybe_omitted`).
SET_INDEX_MAYBE_OMITTED: dict[str, int] = {"isthmus": 77}


def set_index_maybe_omitted(plan: Message) -> bool:
    """Whether ``plan``'s AggregateRels of several grouping sets may lack the set-index column:
    a plan of a producer and spec version of :data:`SET_INDEX_MAYBE_OMITTED`, or of no version."""
    if not plan.HasField("version"):
        return True
    v = plan.version
    last = SET_INDEX_MAYBE_OMITTED.get(v.producer.lower())
    return last is not None and (v.major_number, v.minor_number) <= (0, last)


def function_name(compound: str) -> tuple[str, str]:
    """``"equal:any_any"`` → ``("equal", "any_any")``; a bare name has an empty signature."""
    name, _, sig = compound.partition(":")
    return name.strip().lower(), sig.strip().lower()
