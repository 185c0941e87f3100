"""Every Substrait spelling this front-end reads, as tables: function names (any URI/URN style,
any signature spelling), join types, sort directions, set operations, cast failure behaviours,
extract components. The converter (:mod:`.convert`) only looks names up here."""

from __future__ import annotations

from ...types import DataType, Primitive

__all__ = [
    "AGGREGATES",
    "EXTRACT_FIELDS",
    "JOIN_TYPES",
    "PRODUCER_QUIRKS",
    "RANKING_WINDOWS",
    "SCALARS",
    "SET_COMPARISONS",
    "SET_OPS",
    "SORT_DIRECTIONS",
    "WINDOWS",
    "function_name",
]

#: Substrait scalar function name (without signature) → (catalog function, note). Standard
#: extension files first (functions_comparison/boolean/arithmetic/arithmetic_decimal/string/
#: datetime/rounding/logarithmic), then the non-standard names real producers write
#: (DataFusion: bare names; DuckDB: ``~~``-style operators are not here on purpose).
#: A few need code (``divide`` on integers, ``not_equal``, ``like`` with escape, ``extract``,
#: ``date_part``, ``substring``): the converter's ``SPECIAL`` table handles those names.
SCALARS: dict[str, str] = {
    # functions_comparison
    "equal": "==",
    "lt": "<",
    "lte": "<=",
    "gt": ">",
    "gte": ">=",
    "is_null": "isnull",
    "is_not_null": "isnotnull",
    "is_nan": "isnan",
    "is_not_distinct_from": "<=>",
    "between": "between",
    "coalesce": "coalesce",
    "nullif": "nullif",
    "least": "least",
    "greatest": "greatest",
    # functions_boolean
    "and": "and",
    "or": "or",
    "not": "not",
    # functions_arithmetic / arithmetic_decimal
    "add": "+",
    "subtract": "-",
    "multiply": "*",
    "modulus": "%",
    "modulo": "%",
    "negate": "negative",
    "abs": "abs",
    "sign": "sign",
    "sqrt": "sqrt",
    "exp": "exp",
    "power": "power",
    # functions_rounding
    "ceil": "ceil",
    "floor": "floor",
    # functions_logarithmic
    "ln": "ln",
    "log10": "log10",
    # functions_string
    "concat": "concat",
    "contains": "contains",
    "starts_with": "startswith",
    "ends_with": "endswith",
    "lower": "lower",
    "upper": "upper",
    "char_length": "char_length",
    "character_length": "char_length",
    "trim": "trim",
    "ltrim": "ltrim",
    "rtrim": "rtrim",
    "replace": "replace",
    "reverse": "reverse",
    "lpad": "lpad",
    "rpad": "rpad",
    # functions_arithmetic's bitwise functions (DataFusion: bitwise_*; TPC-DS q70/q86)
    "bitwise_and": "&",
    "bitwise_or": "|",
    "bitwise_xor": "^",
    "bitwise_not": "~",
    "shift_left": "shiftleft",
    "shift_right": "shiftright",
    "bitwise_shift_left": "shiftleft",
    "bitwise_shift_right": "shiftright",
    "shift_right_unsigned": "shiftrightunsigned",
    # nested values (DataFusion's names; array_element, 1-based, is special: an int index)
    "make_array": "array",
}

#: the special names (handled by code in :mod:`.convert`), listed so the did-you-mean knows them
SPECIAL_SCALARS = (
    "add",
    "subtract",
    "not_equal",
    "is_distinct_from",
    "divide",
    "like",
    "ilike",
    "substring",
    "extract",
    "date_part",
    "round",
    "xor",
    "is_true",
    "is_false",
    "is_not_true",
    "is_not_false",
    "get_field",
    "array_element",
    "map",
    "named_struct",
)

#: Substrait aggregate function name → catalog aggregate
AGGREGATES: dict[str, str] = {
    "sum": "sum",
    "sum0": "sum",
    "avg": "avg",
    "mean": "avg",
    "min": "min",
    "max": "max",
    "count": "count",
    "any_value": "any_value",
    "first_value": "first",
    "last_value": "last",
    "std_dev": "stddev",
    "stddev": "stddev",  # DataFusion's names
    "stddev_samp": "stddev_samp",
    "stddev_pop": "stddev_pop",
    "variance": "variance",
    "var_samp": "var_samp",
    "var_pop": "var_pop",
    "bool_and": "bool_and",
    "bool_or": "bool_or",
    "approx_count_distinct": "approx_count_distinct",
    "median": "median",
    "string_agg": "string_agg",
}

#: Substrait window function name (functions_window / DataFusion names) → catalog function;
#: ``RANKING_WINDOWS`` take no frame in Spark (they have their own fixed frame)
WINDOWS: dict[str, str] = {
    "row_number": "row_number",
    "rank": "rank",
    "dense_rank": "dense_rank",
    "percent_rank": "percent_rank",
    "cume_dist": "cume_dist",
    "ntile": "ntile",
    "lag": "lag",
    "lead": "lead",
    "first_value": "first_value",
    "last_value": "last_value",
    "nth_value": "nth_value",
}
RANKING_WINDOWS = frozenset({"row_number", "rank", "dense_rank", "percent_rank", "cume_dist", "ntile", "lag", "lead"})

#: JoinRel.JoinType number → IR join kind (None: no Spark equivalent, a located error)
JOIN_TYPES: dict[int, str | None] = {
    1: "inner",
    2: "full",
    3: "left",
    4: "right",
    5: "left_semi",  # LEFT_SEMI (SEMI before spec 0.53)
    6: "left_anti",  # LEFT_ANTI (ANTI)
    7: "left_single",  # at most one right row per left row, else an error (rewritten)
    8: "right_semi",  # swapped sides: the right input's rows
    9: "right_anti",
    10: "right_single",
    11: "left_mark",  # the left rows plus a boolean: whether a right row matches (rewritten)
    12: "right_mark",
}

#: Subquery.SetComparison.ComparisonOp number → catalog comparison (NE is not(==))
SET_COMPARISONS: dict[int, str] = {1: "==", 2: "!=", 3: "<", 4: ">", 5: "<=", 6: ">="}

#: SortField.SortDirection number → (ascending, nulls_first); CLUSTERED only asks equal values
#: to be adjacent, which an ascending sort satisfies
SORT_DIRECTIONS: dict[int, tuple[bool, bool]] = {
    1: (True, True),
    2: (True, False),
    3: (False, True),
    4: (False, False),
    5: (True, True),
}

#: SetRel.SetOp number → (IR SetOp kind, distinct)
SET_OPS: dict[int, tuple[str, bool] | None] = {
    1: ("except", True),  # MINUS_PRIMARY: EXCEPT DISTINCT
    7: ("except", False),  # MINUS_PRIMARY_ALL: EXCEPT ALL
    2: None,  # MINUS_MULTISET: no Spark relation
    3: ("intersect_primary", True),  # INTERSECTION_PRIMARY: primary rows found in any other input
    4: ("intersect", True),  # INTERSECTION_MULTISET: INTERSECT DISTINCT
    8: ("intersect", False),  # INTERSECTION_MULTISET_ALL: INTERSECT ALL
    5: ("union", True),  # UNION_DISTINCT
    6: ("union", False),  # UNION_ALL
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
    # DuckDB (1.1.x, spec 0.53) writes ProjectRel without RelCommon.emit and means only the
    # expressions as its output (the spec says input columns + expressions); its consumer reads
    # them so, and every later field index and RelRoot.names count only those
    "duckdb": frozenset({"project_outputs_expressions_only"}),
}


def function_name(compound: str) -> tuple[str, str]:
    """``"equal:any_any"`` → ``("equal", "any_any")``; a bare name has an empty signature."""
    name, _, sig = compound.partition(":")
    return name.strip().lower(), sig.strip().lower()
