"""Every spelling of the JSON plan format, as data: op names, the words of its ``{"op": ...}``
expressions, join types, set operations, write modes, and :data:`KEY_ALIASES`, the keys the
parser reads on each kind of object with all their accepted spellings.

This module is the accepted language, auditable in one place: the parser modules look keys
up here (``key(obj, kind, name)``, ``RawStep.key(name)``) instead of spelling them inline.
It imports nothing from the package. What a spelled function *does* (its arguments, whether
it is binary, unary or takes ``args``) is the function catalog's (``connect_plan/functions/``).

Where each spelling comes from (tags in the comments):

``robin``
    robin-sparkless, HEAD and/or 0.11 (``PLAN_FORMAT.md`` in the shared research notes)
``seed``
    the format's seed document (``seeds/logical-plan-format.txt``), where robin never
    implemented it (the standalone ``agg``, ``nulls_first``)
``Sparkless``
    Sparkless' shapes: ``{"type": ...}`` items (Sparkless 3), the step lists and keys its
    4.0.0 plan emitters write (``other_plan``, ``cols``, ``existing``, ``func``, ``descending``)
``PySpark``
    a PySpark parameter or method name (``withReplacement``, ``numPartitions``, ``colName``)
``camelCase``
    the camelCase twin of a snake_case key (robin reads some: ``otherData``; we read all)
``ext``
    a connect_plan extension (``docs/plan-format.md``: sources, plan trees, outputs, frames)
``Substrait``
    a Substrait relation or set-operation name, as the seed document words it
"""

from __future__ import annotations

from ... import ir

__all__ = [
    "AGG_ENTRY_KEYS",
    "CALL_KEYS",
    "COLUMN_FORM_KEYS",
    "DOCUMENT_EXTENSION_KEYS",
    "DOCUMENT_KEYS",
    "EXPR_OP_FUNCTIONS",
    "EXPR_OP_WORDS",
    "FRAME_KEYS",
    "GROUP_KINDS",
    "JOIN_TYPES",
    "KEY_ALIASES",
    "LITERAL_FORM_KEYS",
    "NOT_OPS_HINTS",
    "OP_KEYS",
    "OTHER_KEYS",
    "PAYLOAD_KEYS",
    "PRODUCER_KEYS",
    "RANGE_KEYS",
    "RIGHT_PLAN_KEYS",
    "ROWS_INPUT_KEYS",
    "SCHEMA_FIELD_KEYS",
    "SET_OPS",
    "SINGLE_JOIN",
    "SORT_ITEM_KEYS",
    "SOURCE_KEYS",
    "SOURCE_KINDS",
    "SPARKLESS_OPS",
    "SPARKLESS_OP_KEYS",
    "STEP_KEYS",
    "STEP_OPS",
    "VIEW_OPS",
    "WINDOW_SPEC_KEYS",
    "WRITE_METHODS",
    "WRITE_MODES",
    "WRITE_TARGETS",
]

# ---------------------------------------------------------------- step ops

#: every step op, in the order ``supported_plan_operations()`` lists them
STEP_OPS: tuple[str, ...] = (
    # robin (HEAD; 0.11 lacks crossJoin/cross_join, rollup, cube, stop)
    "filter",
    "select",
    "withColumn",
    "withColumnRenamed",
    "drop",
    "distinct",
    "limit",
    "offset",
    "orderBy",
    "sort",  # Substrait's Sort, PySpark's DataFrame.sort (= orderBy)
    "sortWithinPartitions",  # PySpark
    "groupBy",
    "rollup",
    "cube",
    "agg",  # seed: completes a preceding groupBy without aggs, else aggregates all rows
    "join",
    "union",
    "unionByName",
    "crossJoin",
    "cross_join",
    "stop",
    # ext (docs/plan-format.md)
    "read",
    "intersect",
    "intersectAll",
    "except",
    "exceptAll",
    "subtract",
    "unionAll",
    "minusPrimary",
    "intersectPrimary",
    "fetch",  # Substrait's Fetch
    "groupingSets",
    "sample",
    "repartition",
    "coalesce",
    "hint",
    "tail",
    "write",
    "createOrReplaceTempView",
    "createTempView",
    "createOrReplaceGlobalTempView",
    "createGlobalTempView",
)

#: op names people write that are not ops, and the op they mean (for the error message)
NOT_OPS_HINTS: dict[str, str] = {
    "where": "filter",
    "orderby": "orderBy",
    "order_by": "orderBy",
    "groupby": "groupBy",
    "group_by": "groupBy",
    "unionAll": "union",
    "withColumns": "withColumn",
    "dropDuplicates": "distinct",
}

#: grouping ops → ``ir.GroupBy.kind``
GROUP_KINDS: dict[str, str] = {"groupBy": "groupby", "rollup": "rollup", "cube": "cube"}

#: set operations beyond union → (``ir.SetOp.kind``, distinct) (ext, PySpark's names)
SET_OPS: dict[str, tuple[str, bool]] = {
    "intersect": ("intersect", True),
    "intersectAll": ("intersect", False),
    "except": ("except", True),
    "subtract": ("except", True),
    "exceptAll": ("except", False),
    "unionAll": ("union", False),
    # Substrait Minus (Primary) / Intersection (Primary) as the seed spec words them: the
    # primary input's rows, duplicates kept, without / with a matching secondary row
    "minusPrimary": ("minus_primary", False),
    "intersectPrimary": ("intersect_primary", False),
}

#: temp-view ops (ext, PySpark's names) → (replace, global)
VIEW_OPS: dict[str, tuple[bool, bool]] = {
    "createOrReplaceTempView": (True, False),
    "createTempView": (False, False),
    "createOrReplaceGlobalTempView": (True, True),
    "createGlobalTempView": (False, True),
}

# ---------------------------------------------------------------- join types

#: ``how`` (lower-cased, spaces removed) → canonical join type (``ir.Join.how``)
JOIN_TYPES: dict[str, ir.JoinKind] = {
    "inner": "inner",  # robin
    "cross": "cross",  # PySpark
    "outer": "full",  # robin
    "full": "full",  # robin HEAD
    "fullouter": "full",  # robin HEAD
    "full_outer": "full",  # robin HEAD
    "left": "left",  # robin
    "leftouter": "left",  # PySpark
    "left_outer": "left",  # PySpark
    "right": "right",  # robin
    "rightouter": "right",  # PySpark
    "right_outer": "right",  # PySpark
    "semi": "left_semi",  # robin
    "leftsemi": "left_semi",  # robin HEAD
    "left_semi": "left_semi",  # robin
    "anti": "left_anti",  # robin
    "leftanti": "left_anti",  # robin HEAD
    "left_anti": "left_anti",  # robin
}

#: Substrait's single join, which Spark lacks: refused with advice
SINGLE_JOIN: frozenset[str] = frozenset({"single", "leftsingle", "left_single"})

# ---------------------------------------------------------------- outputs (ext)

#: write target keys → the write method they imply (None: files at ``path``)
WRITE_TARGETS: dict[str, str | None] = {
    "path": None,
    "table": "save_as_table",
    "saveAsTable": "save_as_table",  # PySpark
    "insertInto": "insert_into",  # PySpark
}

#: ``method`` (lower-cased) → write method
WRITE_METHODS: dict[str, str] = {
    "saveastable": "save_as_table",
    "save_as_table": "save_as_table",
    "insertinto": "insert_into",
    "insert_into": "insert_into",
}

#: ``mode`` (lower-cased) → save mode (PySpark's names)
WRITE_MODES: dict[str, str] = {
    "error": "error",
    "errorifexists": "error",
    "default": "error",
    "append": "append",
    "overwrite": "overwrite",
    "ignore": "ignore",
}

# ---------------------------------------------------------------- {"op": word} expressions

#: ``{"op": word}`` expression words → the catalog function they call. The row's
#: ``op_form`` says how its operands are written: binary (``left``/``right``), unary
#: (``arg``) or an ``args`` list.
EXPR_OP_FUNCTIONS: dict[str, str] = {
    # binary (robin: eq ... le, eq_null_safe; robin HEAD: the arithmetic words and symbols)
    "eq": "==",
    "==": "==",  # ext (robin reads it only in a join's on)
    "ne": "!=",
    "!=": "!=",  # ext
    "gt": ">",
    "ge": ">=",
    "lt": "<",
    "le": "<=",
    "eq_null_safe": "<=>",
    "add": "+",
    "+": "+",
    "sub": "-",
    "minus": "-",
    "-": "-",
    "mul": "*",
    "*": "*",
    "div": "/",
    "divide": "/",
    "/": "/",
    "%": "%",  # ext (as + - * /: issue 14)
    "**": "power",
    "pow": "power",
    # unary (robin: not; robin HEAD: the rest)
    "not": "not",
    "bitwise_not": "~",
    "is_null": "isnull",
    "is_not_null": "isnotnull",
    # args (robin HEAD; the camelCase words are op-only aliases there)
    "translate": "translate",
    "substring_index": "substring_index",
    "substringIndex": "substring_index",
    "levenshtein": "levenshtein",
    "soundex": "soundex",
    "crc32": "crc32",
    "xxhash64": "xxhash64",
    "get_json_object": "get_json_object",
    "getJsonObject": "get_json_object",
    "json_tuple": "json_tuple",
    "jsonTuple": "json_tuple",
    "regexp_extract_all": "regexp_extract_all",
    "regexpExtractAll": "regexp_extract_all",
    "date_trunc": "date_trunc",
    "dateTrunc": "date_trunc",
    "to_date": "to_date",
    "toDate": "to_date",
    "format_string": "format_string",
    "formatString": "format_string",
    "log": "log",
    "explode": "explode",
    "explode_outer": "explode_outer",
    "explodeOuter": "explode_outer",
    "concat": "concat",
    "contains": "contains",
    "coalesce": "coalesce",
    "nvl": "nvl",
    "create_map": "create_map",
    "createMap": "create_map",
    "regexp_extract": "regexp_extract",  # also an own form without args (below)
    "regexp_replace": "regexp_replace",  # also an own form without args (below)
}

#: every ``{"op": word}`` word: the above, and/or (robin), and the words with operand keys
#: of their own (robin HEAD: between, isin, getItem, startswith, regexp_*, udf)
EXPR_OP_WORDS: frozenset[str] = frozenset(EXPR_OP_FUNCTIONS) | {
    "and",
    "or",
    "between",
    "isin",
    "getItem",
    "startswith",
    "regexp_extract",
    "regexp_replace",
    "udf",
}

#: ``{"op": word}`` words of Sparkless' emitters (see ``sparkless.py``) → (the catalog
#: function, or sort order, they mean; how their ``left``/``right`` operands are read).
#: Forms: binary (``right: null`` is a null literal, as PySpark's ``col == None``), unary
#: (``right`` must be null), sort (an orderBy / order_by item only), isin (``right`` a list),
#: between (``right``: ``{"type": "between_bounds", "lower", "upper"}``), cast (``right``
#: the type name as a literal), alias (a select item), case (``branches``/``default``).
#: Tags: ``Sparkless`` = the sparkless format of ``logical_plan.serialize_expression``
#: (3.31.0 and 4.0.0); ``Sparkless 4 robin`` = 4.0.0's ``robin_plan.to_robin_plan``.
SPARKLESS_OPS: dict[str, tuple[str, str]] = {
    "==": ("==", "binary"),  # Sparkless
    "!=": ("!=", "binary"),  # Sparkless
    "<": ("<", "binary"),  # Sparkless
    ">": (">", "binary"),  # Sparkless
    "<=": ("<=", "binary"),  # Sparkless
    ">=": (">=", "binary"),  # Sparkless
    "eqNullSafe": ("<=>", "binary"),  # Sparkless
    "+": ("+", "binary"),  # Sparkless
    "-": ("-", "binary"),  # Sparkless (with "right": null under "type": "op": negation)
    "*": ("*", "binary"),  # Sparkless
    "/": ("/", "binary"),  # Sparkless
    "%": ("%", "binary"),  # Sparkless
    "**": ("power", "binary"),  # Sparkless
    "&": ("and", "binary"),  # Sparkless (PySpark's & on columns is logical AND)
    "|": ("or", "binary"),  # Sparkless
    "like": ("like", "binary"),  # Sparkless
    "rlike": ("rlike", "binary"),  # Sparkless
    "!": ("not", "unary"),  # Sparkless
    "isnull": ("isnull", "unary"),  # Sparkless
    "isnotnull": ("isnotnull", "unary"),  # Sparkless
    "isin": ("in", "isin"),  # Sparkless
    "between": ("between", "between"),  # Sparkless
    "cast": ("cast", "to_type"),  # Sparkless; Sparkless 4 robin
    "asc": ("asc", "sort"),  # Sparkless
    "desc": ("desc", "sort"),  # Sparkless
    "asc_nulls_first": ("asc_nulls_first", "sort"),  # Sparkless
    "asc_nulls_last": ("asc_nulls_last", "sort"),  # Sparkless
    "desc_nulls_first": ("desc_nulls_first", "sort"),  # Sparkless
    "desc_nulls_last": ("desc_nulls_last", "sort"),  # Sparkless
    "alias": ("alias", "alias"),  # Sparkless 4 robin
    "when": ("when", "case"),  # Sparkless 4 robin (robin#472)
}

# ---------------------------------------------------------------- keys of each kind of object

#: kind of object → {key: its accepted spellings, first preferred}. Every key the parser
#: reads on that kind is listed (single spellings included), so the set of keys a kind
#: accepts is the union of its spellings.
KEY_ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    # ---- documents and inputs
    "document": {
        "input": ("input",),  # robin
        "plan": ("plan",),  # robin
        "conf": ("conf",),  # ext
        "with": ("with",),  # ext
        "output": ("output",),  # ext
    },
    "input": {  # a document's input, a read step's payload, "other": {...}
        "rows": ("rows", "data"),  # robin; data: ext (robin's parameter name)
        "schema": ("schema",),  # robin; ext: also a DDL string for files
        "table": ("table",),  # ext
        "files": ("files", "paths", "path"),  # ext; paths/path: PySpark
        "format": ("format",),  # ext
        "options": ("options",),  # ext
        "range": ("range",),  # ext
        "sql": ("sql",),  # ext
        "args": ("args", "params", "parameters"),  # ext
        "ref": ("ref",),  # ext
        "plan": ("plan",),  # ext: a nested document
    },
    "schema": {"fields": ("fields",)},  # robin HEAD: Spark's StructType JSON
    "schema_field": {
        "name": ("name", "fieldName"),  # robin; fieldName: robin HEAD
        "type": ("type", "dataType"),  # robin; dataType: robin HEAD
        "type_object": ("typeName", "type"),  # robin HEAD: "dataType": {"typeName": ...}
    },
    "range": {  # ext
        "start": ("start",),
        "end": ("end",),
        "step": ("step",),
        "num_partitions": ("num_partitions", "numPartitions"),  # numPartitions: PySpark
    },
    "step": {"op": ("op",), "payload": ("payload",)},  # robin
    # ---- single-input steps (payload keys; one entry per step parser, named by its first op)
    "filter": {"condition": ("condition",)},  # Sparkless; without it the payload is the expression
    "distinct": {},  # no payload
    "stop": {},  # no payload
    "read": {},  # the payload is an input ("input")
    "select": {"columns": ("columns",)},  # robin HEAD, seed (Sparkless compatibility)
    "select_item": {
        "expr": ("expr",),  # robin
        "alias": ("alias",),  # ext: a column item's output name
        "output_name": ("name", "alias"),  # robin: {"name", "expr"}
        "expression_name": ("alias", "name"),  # ext: the name of a bare expression item
        "column": ("col", "column", "name"),  # robin HEAD; name: Sparkless {"type": "column"}
        "type": ("type",),  # Sparkless: {"type": "window"} / {"type": "column"}
        "side": ("side",),  # ext: refused here (only a join condition reads it)
    },
    "withColumn": {
        "name": ("name", "alias", "colName"),  # robin; alias: robin HEAD; colName: PySpark
        "expr": ("expr", "col", "expression"),  # robin; col: PySpark's withColumn(colName, col); expression: Sparkless
    },
    "withColumnRenamed": {
        "old": ("old", "existing"),  # robin; existing: Sparkless, PySpark
        "new": ("new", "newName"),  # robin; newName: PySpark
    },
    "drop": {"columns": ("columns", "cols")},  # robin; cols: Sparkless
    "limit": {"n": ("n",)},  # robin
    "offset": {"n": ("n",)},  # robin
    "tail": {"n": ("n",)},  # ext
    "fetch": {  # ext (Substrait's Fetch)
        "offset": ("offset", "skip"),
        "count": ("count", "n", "limit"),
    },
    "orderBy": {  # also sort, sortWithinPartitions; plus the "sort_lists" keys
        "columns": ("columns", "cols"),  # robin; cols: Sparkless
    },
    "sample": {  # ext
        "fraction": ("fraction",),  # PySpark
        "withReplacement": ("withReplacement", "with_replacement", "replace"),  # PySpark; replace: pandas
        "upper_bound": ("upper_bound", "upperBound"),  # Spark Connect's Sample
        "lower_bound": ("lower_bound", "lowerBound"),  # Spark Connect's Sample
        "seed": ("seed",),  # PySpark
    },
    "repartition": {  # ext (also coalesce)
        "n": ("n", "num_partitions", "numPartitions"),  # numPartitions: PySpark
        "columns": ("columns", "cols", "partition_by", "partitionBy"),
    },
    "hint": {"name": ("name",), "parameters": ("parameters", "params")},  # ext
    # ---- aggregation steps
    "groupBy": {  # also rollup, cube
        "group_by": ("group_by", "groupBy", "columns", "cols"),  # robin; columns: robin HEAD rollup/cube, Sparkless
        "aggs": ("aggs", "aggregations", "agg"),  # robin; aggregations: robin HEAD
    },
    "agg": {"aggs": ("aggs", "aggregations")},  # seed
    "groupingSets": {  # ext
        "sets": ("sets", "grouping_sets", "groupingSets"),
        "group_by": ("group_by", "groupBy", "columns", "cols"),
        "aggs": ("aggs", "aggregations", "agg"),
    },
    "agg_entry": {
        "expr": ("expr",),  # robin HEAD; Sparkless {"type": "agg_str", "expr": "sum(age)"}
        "type": ("type",),  # Sparkless: "agg_str"
        "alias": ("alias", "name"),  # robin; name: robin HEAD
        "agg": ("agg", "func", "function", "fn"),  # robin; func: robin HEAD, Sparkless
        "column": ("column", "col", "columns", "cols"),  # robin; lists: ext (corr's two columns)
        "args": ("args",),  # seed (python_grouped_udf); ext: further arguments
        "ignorenulls": ("ignorenulls", "ignoreNulls"),  # robin HEAD; camelCase
        "distinct": ("distinct",),  # ext
        "cast": ("cast", "cast_type"),  # robin HEAD
        "filter": ("filter", "where"),  # ext: a filtered measure
        "udf": ("udf",),  # seed (python_grouped_udf)
        "return_type": ("return_type", "returnType"),  # seed; camelCase
    },
    # ---- two-input steps
    "right_side": {  # the right input of join, union, unionByName, crossJoin and the set ops
        "other_data": ("other_data", "otherData"),  # robin; otherData: robin HEAD
        "other_schema": ("other_schema", "otherSchema"),  # robin; otherSchema: robin HEAD
        "other": ("other",),  # ext
        "other_plan": ("other_plan", "otherPlan"),  # Sparkless (a step list); ext (a document)
        "other_table": ("other_table", "otherTable"),  # ext
    },
    "join": {"on": ("on",), "how": ("how",), "broadcast": ("broadcast",)},  # robin; broadcast: ext
    "union": {"allowMissingColumns": ("allowMissingColumns",), "distinct": ("distinct",)},  # PySpark; ext
    "crossJoin": {},
    "intersect": {"distinct": ("distinct",)},  # the set operations (ext)
    "join_on": {  # an item of a join's "on"
        "col": ("col", "column"),  # robin HEAD
        "name": ("name",),  # Sparkless {"type": "column", "name"}
        "type": ("type",),  # Sparkless
        "op": ("op", "operator"),  # robin HEAD: operator
        "left": ("left",),
        "right": ("right",),
    },
    # ---- outputs (ext)
    "write": {
        "path": ("path",),
        "table": ("table", "saveAsTable", "insertInto"),  # PySpark's method names
        "method": ("method",),
        "mode": ("mode",),  # PySpark
        "overwrite": ("overwrite",),  # PySpark's insertInto(overwrite=)
        "format": ("format",),
        "partition_by": ("partition_by", "partitionBy"),  # PySpark
        "options": ("options",),
    },
    "createOrReplaceTempView": {"name": ("name", "viewName", "view")},  # also the other view ops; viewName: PySpark
    # ---- expressions
    "sparkless": {  # Sparkless' expression nodes (read by sparkless.py; see SPARKLESS_OPS)
        "left": ("left",),  # Sparkless; Sparkless 4 robin
        "right": ("right",),  # Sparkless; Sparkless 4 robin
        "branches": ("branches", "conditions"),  # Sparkless 4 robin {"op": "when"}; Sparkless 4 {"type": "case_when"}
        "default": ("default",),  # Sparkless 4 (both formats)
        "lower": ("lower",),  # Sparkless {"type": "between_bounds"}
        "upper": ("upper",),  # Sparkless {"type": "between_bounds"}
        "repr": ("repr",),  # Sparkless {"type": "opaque"}
        "opaque": ("opaque",),  # Sparkless {"type": "window", "opaque": true}
        "function": ("function",),  # Sparkless {"type": "window"}; Sparkless 4 robin {"window": {...}}
        "column": ("column",),  # the same
        "alias": ("alias",),  # the same
    },
    "column": {  # a column object read as a plain name (drop, groupBy items, partition_by ...)
        "name": ("col", "column", "name"),  # robin HEAD; name: Sparkless {"type": "column"}
        "side": ("side",),  # ext: refused outside a join condition
    },
    "expr": {
        "col": ("col", "column"),  # robin; column: robin HEAD
        "side": ("side",),  # ext: which join input, inside a join condition
        "lit": ("lit",),  # robin
        "type": ("type",),  # ext: a typed literal {"lit", "type"}; Sparkless {"type": "window"|"column"|"literal"}
        "name": ("name",),  # Sparkless {"type": "column", "name"}
        "value": ("value",),  # Sparkless {"type": "literal", "value"}
        "op": ("op",),  # robin
        "udf": ("udf",),  # robin
        "fn": ("fn", "function"),  # robin; function: robin HEAD, Sparkless
        "args": ("args",),  # robin
        "distinct": ("distinct", "isDistinct"),  # ext; isDistinct: Spark Connect's field
        "otherwise": ("otherwise",),  # ext: the else branch of a when
        "window": ("window", "over"),  # robin HEAD; over: ext (SQL's OVER)
        "var": ("var",),  # ext: a lambda variable
        "lambda": ("lambda",),  # ext
    },
    "op": {  # operand keys of {"op": word} expressions
        "left": ("left",),  # robin
        "right": ("right",),  # robin
        "args": ("args",),  # robin HEAD
        "arg": ("arg", "expr", "left"),  # robin: arg; ext: expr, left (Sparkless writes left)
        "between_expr": ("left", "expr", "arg"),  # robin HEAD: left
        "lower": ("lower", "lowerBound", "low"),  # robin HEAD: lower; PySpark: lowerBound
        "upper": ("upper", "upperBound", "high"),  # robin HEAD: upper; PySpark: upperBound
        "isin_expr": ("left", "expr", "arg"),  # robin HEAD: left
        "values": ("values", "right"),  # robin HEAD
        "item": ("right", "key", "index"),  # robin HEAD: right (getItem)
        "prefix": ("right", "prefix"),  # robin HEAD: right (startswith)
        "regexp_expr": ("left", "expr"),  # robin HEAD: left
        "pattern": ("pattern", "right"),  # robin HEAD
        "group": ("group", "idx"),  # robin HEAD: group; idx: PySpark
        "replacement": ("replacement", "replace"),  # robin HEAD: replacement; replace: PySpark
        "udf": ("udf", "name"),  # robin HEAD
    },
    "lambda": {  # ext
        "lambda": ("lambda",),
        "params": ("params", "args", "parameters"),
        "body": ("body",),
    },
    "window": {  # a window spec (or a Sparkless window node carrying the spec keys)
        "partition_by": ("partition_by", "partitionBy", "partition"),  # robin HEAD; camelCase; ext
        "order_by": ("order_by", "orderBy", "order"),  # robin HEAD; camelCase; ext
        "rows_between": ("rows_between", "rowsBetween"),  # ext; PySpark's rowsBetween
        "range_between": ("range_between", "rangeBetween"),  # ext; PySpark's rangeBetween
        "frame": ("frame",),  # ext
        "ascending": ("ascending", "asc"),  # seed (orderBy's list), for the order_by items
        "nulls_first": ("nulls_first", "nullsFirst"),  # seed; camelCase
        "nulls_last": ("nulls_last", "nullsLast"),  # robin HEAD; camelCase
    },
    "frame": {  # ext: "frame": {"type", "start", "end"} or {"rows": [start, end]}
        "type": ("type", "kind", "frame_type"),
        "rows": ("rows",),
        "range": ("range",),
        "start": ("start", "lower", "from"),
        "end": ("end", "upper", "to"),
    },
    "bounds": {  # ext: a frame's bounds as an object
        "start": ("start", "lower", "from"),
        "end": ("end", "upper", "to"),
    },
    "sort_lists": {  # lists beside the sort items: an orderBy payload, a window spec
        "ascending": ("ascending", "asc"),  # seed, robin 0.11
        "nulls_first": ("nulls_first", "nullsFirst"),  # seed; camelCase
        "nulls_last": ("nulls_last", "nullsLast"),  # robin HEAD; camelCase
    },
    "sort_item": {  # an object sort item (besides its column or expression keys)
        "fn": ("fn", "function"),  # ext: {"fn": "desc", "args": [x]}
        "args": ("args",),
        "expr": ("expr",),  # ext
        "asc": ("asc", "ascending"),  # ext
        "desc": ("desc", "descending"),  # ext; descending: Sparkless
        "direction": ("direction",),  # ext (Substrait's SortField direction)
        "nulls_first": ("nulls_first", "nullsFirst"),  # ext; camelCase
        "nulls_last": ("nulls_last", "nullsLast"),  # ext; camelCase
    },
}

#: keys of a binary step that may also sit beside its payload (Sparkless, robin HEAD #510)
OTHER_KEYS: tuple[str, ...] = (
    *KEY_ALIASES["right_side"]["other_data"],
    *KEY_ALIASES["right_side"]["other_schema"],
    "on",
    "how",
    *KEY_ALIASES["right_side"]["other"],
    *KEY_ALIASES["right_side"]["other_plan"],
    *KEY_ALIASES["right_side"]["other_table"],
    "broadcast",
    "distinct",
)

#: keys giving a binary step's right side as a plan, a table or a source (one at most)
RIGHT_PLAN_KEYS: tuple[str, ...] = (
    *KEY_ALIASES["right_side"]["other"],
    *KEY_ALIASES["right_side"]["other_plan"],
    *KEY_ALIASES["right_side"]["other_table"],
)

#: input keys naming a source kind by themselves (files and inline rows are told apart by more keys)
SOURCE_KINDS: tuple[str, ...] = ("table", "range", "sql", "ref")

#: document keys that make it an extended document (ext)
DOCUMENT_EXTENSION_KEYS: tuple[str, ...] = ("conf", "with", "output")

#: (window spec key, frame kind): the frame spellings beside partition_by / order_by
FRAME_KEYS: tuple[tuple[str, str], ...] = (
    *((k, "rows") for k in KEY_ALIASES["window"]["rows_between"]),
    *((k, "range") for k in KEY_ALIASES["window"]["range_between"]),
)

#: every key a window spec may have (others are refused with the list of these)
WINDOW_SPEC_KEYS: frozenset[str] = frozenset(k for spellings in KEY_ALIASES["window"].values() for k in spellings)

#: the keys of an object sort item that are about its order, not its expression
SORT_ITEM_KEYS: frozenset[str] = frozenset(
    k for name in ("asc", "desc", "direction", "nulls_first", "nulls_last") for k in KEY_ALIASES["sort_item"][name]
)


# ---------------------------------------------------------------- the keys each object may have

#: keys real producers write that connect_plan does not read, by kind of object (else an
#: unknown key is an error: ``unknown_key``); keys whose value is null are never errors
PRODUCER_KEYS: dict[str, dict[str, str]] = {
    # a fixture file's own keys (robin's fixtures: name, description, expected; connect_plan's
    # fixtures add setup, then, cleanup): a fixture runs as a plan document as it is
    "document": {
        "name": "robin",
        "description": "robin",
        "expected": "robin",
        "setup": "ext",
        "then": "ext",
        "cleanup": "ext",
    },
    # robin: 0.11 wrote a step's payload for ops without one as {} and its own keys beside
    "step": {},
    # Sparkless {"type": "window"} / robin-format window objects: the output name, read by a
    # select item (withColumn names the column itself)
    "call": {"alias": "Sparkless", "column": "Sparkless"},
    # Spark's StructType JSON (robin HEAD's schemas): inline rows' nullability comes from the
    # values, and a field's metadata has no effect on them
    "schema_field": {"nullable": "robin", "metadata": "robin"},
}


def _keys_of(*kinds: str) -> frozenset[str]:
    return frozenset(k for kind in kinds for spellings in KEY_ALIASES[kind].values() for k in spellings)


#: a plan document's keys (robin's input/plan, the extensions)
DOCUMENT_KEYS: frozenset[str] = _keys_of("document") | frozenset(PRODUCER_KEYS["document"])


def _input_keys(*names: str) -> frozenset[str]:
    return frozenset(k for name in names for k in KEY_ALIASES["input"][name])


#: the keys each kind of input reads (a key another kind reads is still unknown here: a
#: table's 'schema' would otherwise be silently ignored)
SOURCE_KEYS: dict[str, frozenset[str]] = {
    "inline": _input_keys("rows", "schema"),
    "table": _input_keys("table", "options"),
    "files": _input_keys("files", "format", "options", "schema"),
    "range": _input_keys("range"),
    "sql": _input_keys("sql", "args"),
    "ref": _input_keys("ref"),
}
#: a robin document's input: rows and their schema
ROWS_INPUT_KEYS: frozenset[str] = SOURCE_KEYS["inline"]
#: the keys of a range input's object form
RANGE_KEYS: frozenset[str] = _keys_of("range")
#: a step object's keys: op, payload and what binary steps may carry beside their payload
STEP_KEYS: frozenset[str] = _keys_of("step") | frozenset(OTHER_KEYS) | frozenset(PRODUCER_KEYS["step"])

#: step parser kind → the keys its payload object may have (kinds whose payload may be an
#: expression or an input are not listed: filter and read are checked as those)
PAYLOAD_KEYS: dict[str, frozenset[str]] = {
    "select": _keys_of("select"),
    "withColumn": _keys_of("withColumn"),
    "withColumnRenamed": _keys_of("withColumnRenamed"),
    "drop": _keys_of("drop"),
    "limit": _keys_of("limit"),
    "offset": _keys_of("offset"),
    "tail": _keys_of("tail"),
    "fetch": _keys_of("fetch"),
    "orderBy": _keys_of("orderBy", "sort_lists"),
    "sample": _keys_of("sample"),
    "repartition": _keys_of("repartition"),
    "hint": _keys_of("hint"),
    "groupBy": _keys_of("groupBy"),
    "agg": _keys_of("agg"),
    "groupingSets": _keys_of("groupingSets"),
    "join": _keys_of("join", "right_side"),
    "union": _keys_of("union", "right_side"),
    "crossJoin": _keys_of("crossJoin", "right_side"),
    "intersect": _keys_of("intersect", "right_side"),
    "write": _keys_of("write"),
    "createOrReplaceTempView": _keys_of("createOrReplaceTempView"),
}

#: the keys of a function call object ({"fn", "args", ...}) besides window spec keys:
#: the call's own, a select item's or an aggregation's output name, Sparkless' window node
CALL_KEYS: frozenset[str] = (
    frozenset(("fn", "function", "args", "distinct", "isDistinct", "otherwise", "window", "over", "type", "udf"))
    | frozenset(("alias", "name"))
    | frozenset(PRODUCER_KEYS["call"])
)
#: the keys of an {"op": word} object: its operands in every spelling, a select item's name
OP_KEYS: frozenset[str] = _keys_of("op") | frozenset(("op", "type", "alias", "name"))
#: the keys of a Sparkless op node ({"type": "op", "op", "left", "right"}, when's branches)
SPARKLESS_OP_KEYS: frozenset[str] = _keys_of("sparkless") | frozenset(("op", "type", "name"))
#: a schema field object's keys ({"name", "type"}, Spark's StructType JSON)
SCHEMA_FIELD_KEYS: frozenset[str] = _keys_of("schema_field") | frozenset(PRODUCER_KEYS["schema_field"])
#: the keys of a column reference object: its name, a join side, Sparkless' {"type":
#: "column", "name"} and a select item's output name (a sort item's keys are taken off first)
COLUMN_FORM_KEYS: frozenset[str] = _keys_of("column") | frozenset(("type", "alias"))
#: the keys of a literal object: the value and its type, Sparkless' {"type": "literal",
#: "value"} and a select item's output name
LITERAL_FORM_KEYS: frozenset[str] = frozenset(("lit", "type", "value", "alias", "name"))
#: an aggregation entry's keys
AGG_ENTRY_KEYS: frozenset[str] = _keys_of("agg_entry")
