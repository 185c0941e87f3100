"""The registry of ``PlanError`` codes: every ``ErrorDetail.code`` connect_plan reports,
each with a one-line meaning.

The codes are part of the public API: a code, once released, keeps its name and its
meaning, so callers may branch on ``PlanError.codes`` or ``ErrorDetail.code``. The
sentences here (and the messages of the errors themselves) may be reworded, and new codes
may be added. ``docs/error-codes.md`` is generated from this table
(``python scripts/gen_error_codes_doc.py``).

A base-layer module: it imports nothing from the package. Nothing checks a code against
this table at run time (an unregistered code must never break a caller); the unit tests
check every code the package can report, statically and during the test session.
"""

from __future__ import annotations

__all__ = ["CODES"]

#: code → what was wrong, in the terms of the plan's author; sorted by code
CODES: dict[str, str] = {
    "agg_entry": "An aggregation entry is not an object, or names neither a function ('agg') nor an 'expr'.",
    "agg_filter": "An aggregation's 'filter' is not on an aggregate function call, "
    "or on an aggregate that does not skip nulls.",
    "agg_str": "A Sparkless agg_str aggregation is not one aggregate call of a column or '*' (such as 'sum(age)').",
    "alias": "An output name ('alias'/'name') is not a non-empty string, or a list of names holds something else.",
    "alias_position": "An 'alias' op appears where no output name is read (only a select item takes one).",
    "args_type": "The 'args' of a function, op or aggregation is not a list.",
    "arity": "A function, operator or sort order got a number of arguments it does not take.",
    "bad_count": "A row or partition count ('n', fetch's 'offset'/'count') is not a non-negative "
    "(for partitions: positive) 32-bit integer.",
    "bool_expected": "A flag (e.g. 'distinct', 'broadcast', 'ignorenulls', 'nulls_first') is not true or false.",
    "bool_list": "A sort direction or nulls flag given beside 'order_by' is neither true/false nor a list of them.",
    "column_count": "A union by position or a set operation has inputs with different numbers of columns.",
    "column_name": "A column name is missing, empty or not a string.",
    "column_side": "A column's 'side' is not 'left'/'right', or is given outside a join condition.",
    "conf_key": "A key of the document's 'conf' is not a non-empty string.",
    "conf_type": "The document's 'conf' is not an object of Spark configuration keys and values.",
    "conf_value": "A value of the document's 'conf' is not a string, number or boolean.",
    "conflict": "Two settings of one item contradict each other (e.g. nulls_first and nulls_last, "
    "ascending and descending, a set op's name and its 'distinct').",
    "conflicting_input": "The input (or a two-input step's right side) is given twice in different ways.",
    "conflicting_output": "The plan ends with an output step and the document also has an 'output'.",
    "cyclic_plan": "A plan or row value given as Python objects contains itself (a list or dict inside itself).",
    "document_type": "A plan document (or a fixture file, or a nested plan) is not a JSON object.",
    "duplicate_column": "Two columns have the same name (in a schema, an input, or a step's output).",
    "duplicate_definition": "A name is defined twice in the document's 'with'.",
    "empty": "A list that needs at least one item is empty (select columns, join keys, sort columns).",
    "expr_form": "An expression object has none of the keys that make an expression ('col', 'lit', 'op', 'fn', 'udf').",
    "expr_type": "A value where an expression goes is neither a column name, a literal nor an expression object "
    "(e.g. a JSON array).",
    "fixture_expected": "A fixture's 'expected' section is malformed (its schema, rows or error).",
    "fixture_field": "A fixture's field has the wrong type (e.g. 'name', 'setup', 'cleanup').",
    "fixture_type": "A fixture is not a JSON object.",
    "fn_name": "A function name is not a string (or a window's function is neither a name nor a function call).",
    "format": "A data source 'format' (for reading or writing files) is not a non-empty string.",
    "fraction": "A sampling fraction or its bounds are not a number in [0, 1], or the lower bound exceeds the upper.",
    "generator_columns": "A generator that outputs several columns is used where only one column fits "
    "(withColumn, or a single name).",
    "group_item": "A grouping item is neither a column name nor an object.",
    "groupby_without_aggs": "A groupBy/rollup/cube has no 'aggs' and is not followed by an 'agg' step.",
    "incomplete_type": "A type names no concrete Spark type (a bare 'map', or a bare 'array' where its element "
    "type cannot be inferred).",
    "input_kind": "An input object is no known kind of source, or mixes several kinds "
    "(rows, table, files, range, sql, ref, plan).",
    "input_type": "An input is not an object.",
    "invalid_unicode": "A string or object key holds characters that are not valid Unicode (lone surrogates).",
    "join_on": "A join's 'on' holds something other than column names and condition objects "
    "(or a string that looks like a SQL condition).",
    "join_type": "A join type ('how') is not one of the known join types.",
    "json_encoding": "The plan's JSON text is not valid UTF-8.",
    "json_syntax": "The plan's JSON text is not valid JSON.",
    "json_too_deep": "The plan's JSON text is nested too deeply to parse.",
    "json_too_large": "The plan's JSON text is longer than connect_plan accepts.",
    "lambda_arity": "A lambda has a number of parameters its higher-order function does not take.",
    "lambda_expected": "A higher-order function's function argument is not a lambda, or a lambda has no 'params' list.",
    "lambda_not_allowed": "A lambda appears outside the function argument of a higher-order function.",
    "lambda_params": "A lambda's parameters are empty, not simple names, or repeated.",
    "lambda_var": "A 'var' names no lambda parameter in scope.",
    "length_mismatch": "A list of sort flags beside 'order_by' has a different length than the sort columns.",
    "literal_expected": "An argument that must be a literal (a number, a string, a struct field name, "
    "a date-part field) is something else.",
    "literal_range": "An integer literal has more than 38 digits.",
    "literal_type": "A literal (or a SQL parameter) is not a value of a type it can have.",
    "missing_key": "A required key is missing.",
    "needs_schema": "The column names of an input cannot be known without a server; translate with a client "
    "or name every computed column.",
    "nested_conf": "A nested plan document has a 'conf' (only the outermost document may).",
    "nested_output": "A nested plan writes output (only the outermost plan may).",
    "nested_with": "A nested plan document has 'with' definitions (only the outermost document may).",
    "not_applicable": "A key is given where it does not apply (e.g. 'ignorenulls' on sum, "
    "'partition_by' with insertInto).",
    "not_streamable": "A plan that writes its result was given to stream(), which needs a result to stream.",
    "not_window_function": "A window is given to a function that is neither a window nor an aggregate function.",
    "opaque_expression": 'The producer wrote an expression it could not serialize ({"type": "opaque", "repr": ...}); nothing is guessed.',
    "option_key": "An option name of a read or write is not a non-empty string.",
    "option_value": "An option value of a read or write is not a string, number or boolean.",
    "options_expected": "A function's options argument is not an object of scalar option values.",
    "options_type": "The 'options' of a read or write are not an object of string keys and scalar values.",
    "otherwise_target": "An 'otherwise' is attached to something other than a when expression.",
    "otherwise_twice": "An 'otherwise' is given to a when expression that already has an else branch.",
    "output_not_last": "An output step (a write, a view) is followed by other steps.",
    "paths": "A read's 'files' is neither a path string nor a list of them.",
    "payload_type": "A step's payload (or one of its parts) does not have the shape the step needs.",
    "placeholder": "A string of the document holds a ${...} placeholder connect-plan does not fill (it fills "
    "${tmp} and ${run}).",
    "plan_too_deep": "The plan nests more relations than Spark Connect servers accept.",
    "plan_too_large": "The plan expands to too many steps or values (shared sub-plans or reused Python "
    "objects are copied in at each use).",
    "plan_too_long": "The plan has more steps than connect_plan accepts.",
    "plan_type": "A plan is not a JSON array of steps.",
    "policy_conf": "The plan document's 'conf' sets a Spark conf key the caller's policy does not allow.",
    "policy_format": "A read or write uses a data source format the caller's policy does not allow (e.g. jdbc).",
    "policy_function": "The plan calls a function the caller's policy denies (reflect, java_method, "
    "input_file_name...).",
    "policy_hint": "The plan gives a hint the caller's policy does not allow.",
    "policy_join": "The plan joins without a condition (a cartesian product) and the caller's policy refuses that.",
    "policy_key": "A policy (Python or JSON) names a field that does not exist.",
    "policy_limit": "The caller's policy requires the plan to end with a limit (of at most its max_rows), and "
    "it does not.",
    "policy_option": "A read or write sets an option the caller's policy does not allow (e.g. 'path', 'url').",
    "policy_path": "A file read names a path the caller's policy does not allow (outside its prefixes, "
    "another scheme, or a form refused: '..', percent escapes, brace globs).",
    "policy_size": "The plan is over a size bound of the caller's policy (steps, nesting, inline rows or "
    "bytes, range length, partitions).",
    "policy_source": "The plan reads from a kind of source the caller's policy does not know.",
    "policy_sql": "The plan is a SQL query and the caller's policy refuses SQL sources.",
    "policy_table": "The plan reads a table or view the caller's policy does not allow (or names it in a form "
    "the policy does not compare).",
    "policy_udf": "The plan calls a UDF (or a function registered on the server) the caller's policy does not allow.",
    "policy_value": "A policy field has a value of the wrong kind (or a table pattern, path prefix or save "
    "mode that is not one).",
    "policy_view": "The plan creates a temporary view the caller's policy does not allow (or without its "
    "required prefix).",
    "policy_write": "The plan writes to a table or path, or with a save mode, the caller's policy does not allow.",
    "range": "A 'range' input is malformed ('end' missing, a bound not a 64-bit integer, step 0, bad partitions).",
    "read_not_first": "A 'read' step is not the first step, or the document also has an 'input'.",
    "ref_name": "A name in the document's 'with' is not a non-empty string.",
    "result_contract": "A Substrait plan's result differs from what the plan declares (RelRoot.names, the types "
    "it states): a column too many or too few, in another place, of another type class, a value that does not "
    "fit its declared type or a NULL in a required column (ResultContractError, once the query ran); or, before "
    "anything is sent (PlanError), the translation's column count differs or the declared output cannot be derived.",
    "row_key": "A row object has a key that names no column of the schema (case-insensitively unless the plan's conf sets "
    "spark.sql.caseSensitive), "
    "or names one column twice.",
    "row_length": "A row has a different number of values than the schema has columns.",
    "row_type": "A row is neither a list (in schema order) nor an object keyed by column name.",
    "row_value": "A value of the input data does not fit its column's type.",
    "rows_type": "The input's rows are not a list of rows.",
    "schema_field": "A schema field is malformed (no non-empty name, or no type string).",
    "schema_mismatch": "A schema given with Arrow or pandas data does not match the data's columns or types.",
    "schema_type": "A schema is neither a list of fields nor a non-empty schema string.",
    "seed": "A sampling 'seed' is not a 64-bit integer.",
    "select_item": "A select item is none of: a column name, a {name, expr} object, a column object or an expression.",
    "sort_direction": "A sort direction is not 'asc' or 'desc'.",
    "sort_item": "A sort item is neither a column name nor an object.",
    "sort_order": "A sort order function (asc, desc_nulls_last, ...) is used as a value.",
    "sparkless_operand": "A Sparkless-style op's 'left'/'right' operands are not the shape the op takes (a unary op with a 'right', between without its bounds).",
    "sql": "A 'sql' input is not a non-empty SQL query string.",
    "sql_parameter": "A SQL parameter is not a literal (or constructor of literals), or the parameters "
    "are neither an object nor a list.",
    "step_op": "A plan step has no 'op' string.",
    "step_type": "A plan step is not a JSON object.",
    "substrait_field_index": "A Substrait field reference, emit mapping, projection mask or grouping reference points past the columns its input has.",
    "substrait_function": "A Substrait function is declared nowhere in the plan's extensions, or its name (any URI/URN style, any signature) is not one connect_plan maps to Spark.",
    "substrait_invalid": "The input looks like a Substrait plan but cannot be read: bad binary or JSON, no root relation, a relation or expression with no kind set.",
    "substrait_tables": "The tables= argument is not a mapping of table names to sources, or is given with a plan that is not Substrait.",
    "substrait_type": "A Substrait type has no Spark type here: user-defined types, time types (Spark 4.3 refuses TIME by default), intervals finer than microseconds.",
    "substrait_unknown_field": "A binary Substrait plan has a field no known spec version has (refused, never ignored).",
    "substrait_unsupported": "A Substrait relation, expression or option connect_plan does not run (yet, or at all on Spark); the message says which.",
    "table_name": "A table or view name is not a non-empty string.",
    "too_deep": "Expressions or nested plans nest deeper than connect_plan accepts.",
    "type_expected": "A type argument is not a type name string.",
    "udf_kind": "A scalar UDF is used as a grouped-aggregate UDF.",
    "udf_return_type": "The return type a plan declares for a UDF differs from the one it was registered with.",
    "unknown_aggregate": "An aggregation names a function that is not a known aggregate function.",
    "unknown_column": "A step names a column its input does not have, found before the network where the "
    "input's columns are known (Spark's UNRESOLVED_COLUMN); a join condition names a column neither input has; "
    "unionByName's other input lacks a column; or a grouping set names a column outside 'group_by'.",
    "unknown_expr_op": "An expression 'op' is not a known operator.",
    "unknown_function": "A function name is not in the function catalog.",
    "unknown_key": "An object has a key connect_plan does not read there (a typo, or a key of another kind of object); "
    "null values and keys a known producer writes are allowed.",
    "unknown_op": "A plan step's 'op' is not a supported operation.",
    "unknown_ref": "A 'ref' names no definition of the document's 'with'.",
    "unknown_type": "A type name cannot be parsed as a Spark type.",
    "unsupported_column": "A column of a pandas DataFrame cannot be converted to Arrow.",
    "unsupported_join_type": "A join type Spark does not have ('single').",
    "unsupported_type": "A column of Arrow data has a type Spark cannot read.",
    "view_name": "A temporary-view step has no non-empty view 'name'.",
    "when_branch": "A branch of a when's 'branches'/'conditions' is not a [condition, value] pair.",
    "window_frame": "A window frame is malformed (two frames, a bad boundary, or a start after its end).",
    "window_in_filter": "A window function is used in a filter.",
    "window_required": "A window-only function (row_number, lag, ...) is called without a 'window'.",
    "window_spec": "A window spec is not an object, has an unknown key, or its partition_by/order_by are not lists.",
    "with_type": "The document's 'with' is not an object mapping names to plan documents.",
    "write_method": "A write's 'method' is not 'saveAsTable' or 'insertInto', or is given for a write to files.",
    "write_mode": "A write's 'mode' is not a known save mode (insertInto: only append or overwrite).",
    "write_target": "A write gives none or several of 'path', 'table' and 'insertInto', or one is not a non-empty string.",
}
