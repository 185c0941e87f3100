"""Every Substrait spelling this front-end reads, as tables: function names (any URI/URN style,
any signature spelling), the values of the proto enums it reads (join types, sort directions,
set operations, write and create modes...), extract components, producer quirks. The converter
only looks names up here.

Proto enums are keyed by their value names (``"JOIN_TYPE_LEFT_SEMI"``), never by number: the
converter reads a value's name from the message's own descriptor (the private pool of
:mod:`.proto`), and a unit test checks that every name written here is a value of the schema."""

from __future__ import annotations

from typing import Literal

from ... import ir
from ...types import DataType, Primitive

__all__ = [
    "AGGREGATES",
    "CREATE_MODES",
    "EXTRACT_FIELDS",
    "JOIN_TYPES",
    "PRODUCER_QUIRKS",
    "RANKING_WINDOWS",
    "REDUCTIONS",
    "REWRITTEN_JOINS",
    "SCALARS",
    "SET_COMPARISONS",
    "SET_OPS",
    "SET_PREDICATES",
    "SORT_DIRECTIONS",
    "WHOLE_AGGREGATION_PHASES",
    "WINDOWS",
    "WRITE_OPS",
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

#: SetRel.SetOp → (IR SetOp kind, distinct); None: no Spark relation
SET_OPS: dict[str, tuple[str, bool] | None] = {
    "SET_OP_MINUS_PRIMARY": ("except", True),  # EXCEPT DISTINCT
    "SET_OP_MINUS_PRIMARY_ALL": ("except", False),  # EXCEPT ALL
    "SET_OP_MINUS_MULTISET": None,
    "SET_OP_INTERSECTION_PRIMARY": ("intersect_primary", True),  # primary rows found in any other input
    "SET_OP_INTERSECTION_MULTISET": ("intersect", True),  # INTERSECT DISTINCT
    "SET_OP_INTERSECTION_MULTISET_ALL": ("intersect", False),  # INTERSECT ALL
    "SET_OP_UNION_DISTINCT": ("union", True),
    "SET_OP_UNION_ALL": ("union", False),
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
