"""Known differences of Sail from Apache Spark, by test id: ``<file>::<test>[<param>]`` (the
file's base name, as in ``test_client.py::test_x[p]``). Under SPARK_REMOTE=sail these tests
are strict xfails: a Sail release that fixes one makes the run fail until the entry is
removed. docs/engines.md is generated from an actual run (scripts/engine_matrix.py) and
lists these by family.

Measured with pysail 0.7.2 and pyspark-client 4.2.0. Each reason says what Sail does or
lacks; where a batched test (many cases in one query) fails, the reason names every case
that differs (found by running the cases one by one).
"""

from __future__ import annotations

_RECORDINGS = "the tampered recordings need 5+ Arrow batches and chunked ones: Sail sends one batch and never chunks"
_ROWS = "no CollectMetrics: the write report's rows is null"

SAIL_DIFFERENCE_FAMILIES: dict[str, dict[str, str]] = {
    # Sail's errors carry PySpark's exception kind (AnalysisException ...) and a DataFusion
    # message, but no error class, SQLSTATE or message parameters (no FetchErrorDetails)
    "Error classes": {
        "test_client.py::test_server_errors_carry_spark_error_classes[plan0-1-UNRESOLVED_COLUMN]": "no error class or SQLSTATE ('attribute ... is missing from the schema')",
        "test_client.py::test_server_errors_carry_spark_error_classes[plan1-1-DATATYPE_MISMATCH]": "no error class or SQLSTATE ('Cannot infer common argument type for logical boolean operation')",
        "test_client.py::test_server_errors_carry_spark_error_classes[plan2-1-UNRESOLVED_COLUMN]": "no error class or SQLSTATE",
        "test_client.py::test_runtime_error_keeps_spark_class": "a failed cast is a NumberFormatException without CAST_INVALID_INPUT / 22018",
        "test_client.py::test_server_errors_carry_the_full_message_from_fetch_error_details": "no error class, SQLSTATE or message parameters (no FetchErrorDetails enrichment)",
        "test_cli_server.py::test_server_error_is_readable": "the CLI names the failing step, but Sail's message has no UNRESOLVED_COLUMN class",
        "test_first_hour.py::test_item8_explain_analyzed_names_the_failing_step": "the step is named, but Sail's message has no UNRESOLVED_COLUMN class",
        "test_tls.py::test_server_errors_come_through_whole": "no UNRESOLVED_COLUMN error class (the error and its step do come through TLS)",
        "test_fixtures.py::test_fixture[temp_view_create_fails_if_exists]": "'Temporary View already exists' without TEMP_TABLE_OR_VIEW_ALREADY_EXISTS",
        "test_functions_differential.py::test_runtime_errors_keep_sparks_error_class": "division by zero fails ('Division by zero') without the DIVIDE_BY_ZERO error class",
        # test_server_errors compares two descriptions of one failure; these do not fail on Sail
        "test_server_errors.py::test_server_error_described_as_pyspark_does[overflow]": "2147483647 + 1 as int does not fail (no ANSI overflow check)",
        "test_server_errors.py::test_server_error_described_as_pyspark_does[malformed_record]": "from_json with mode FAILFAST does not fail on malformed JSON",
        "test_server_errors.py::test_server_error_described_as_pyspark_does[invalid_conf_value]": "setting spark.sql.ansi.enabled to 'maybe' is accepted",
        "test_server_errors.py::test_invalid_session_handle": "a session id that is not a UUID is accepted (no INVALID_HANDLE.FORMAT)",
    },
    # Sail analyses some expressions only when the query runs
    "Analysis": {
        "test_client.py::test_server_errors_name_the_step[plan1-1-DATATYPE_MISMATCH]": "AnalyzePlan accepts a filter on `int AND boolean`; the type error comes only at "
        "execution, so no plan prefix reproduces it and no step is named",
    },
    "Functions": {
        "test_aggregates.py::test_every_kind_of_aggregate_entry_with_pyspark_names": "approx_count_distinct takes no rsd argument (approx_distinct(Any) only); "
        "approx_percentile takes no accuracy argument (approx_percentile_cont expects 2)",
        "test_aggregates.py::test_expression_entries_and_casts": "unknown functions collect_union, kll_sketch_agg_bigint",
        "test_aggregates.py::test_tracked_default_names_are_the_names_spark_gives": "unknown function collect_union",
        "test_expressions_differential.py::test_expression_family[math]": "factorial of a negative number is an error (Spark: null); try_add(int, bigint) and "
        "try_divide(double, int) are rejected (operands must have the same integer type)",
        "test_functions_differential.py::test_family[strings]": "conv of a bigint is rejected (spark_conv expects a string or int)",
        "test_functions_differential.py::test_family[math]": "try_add(bigint, int) is rejected (operands must have the same integer type)",
        "test_functions_differential.py::test_family[dates_try]": "try_make_timestamp/try_make_timestamp_ltz with a month of -1 fail ('Can't cast value -1 to "
        "type UInt32'); Spark's try_ forms return null",
        "test_functions_differential.py::test_family[arrays_maps_structs_lambdas]": "shuffle with a seed is rejected; no zip_with, transform_keys, transform_values, map_zip_with",
    },
    "Relational operators": {
        "test_ops_differential.py::test_op[join_cross_how_with_condition]": "a cross join with a join condition is rejected ('cross join with join criteria')",
        "test_ops_differential.py::test_op[union_by_position_widens_types]": "union by position does not widen int and double: the schema says int, the data is double",
        "test_ops_differential.py::test_union_by_name_without_missing_columns_fails_as_pyspark_does": "unionByName without allowMissingColumns accepts inputs whose columns differ (Spark: "
        "NUM_COLUMNS_MISMATCH); connect_plan refuses it before sending (its input columns are known), as on Spark",
        "test_generators.py::test_multi_column_generators_in_with_column_are_plan_errors_as_pyspark_fails": "withColumn of a multi-column generator (posexplode, inline, stack ...) is accepted, where "
        "Spark fails with UDTF_ALIAS_NUMBER_MISMATCH; connect_plan refuses it before sending, as on Spark",
        "test_ops_differential.py::test_op[union_by_name_camel_case_missing_columns]": "unionByName(allowMissingColumns) types a column filled with nulls as void "
        "though its data is string",
        "test_column_references.py::test_spark_resolves_it_so_it_is_accepted[union_by_name_missing_columns_allowed]": "unionByName("
        "allowMissingColumns) types a column filled with nulls as void though the other input's is string",
        "test_column_references.py::test_union_by_name_with_more_columns_on_the_other_side": "unionByName without "
        "allowMissingColumns accepts an other input with more columns (Spark: NUM_COLUMNS_MISMATCH); connect_plan "
        "refuses it before sending, as on Spark",
        "test_column_references.py::test_spark_resolves_it_so_it_is_accepted[lateral_alias]": "no lateral column "
        "aliases: a select item cannot use an alias defined earlier in the same select ('attribute ... is missing "
        "from the schema')",
        "test_fixtures.py::test_fixture[grouping_sets]": "GROUPING SETS over grouping expressions are rejected ('grouping sets with grouping expressions')",
        "test_fixtures.py::test_fixture[orders_pipeline]": "the example's groupingSets step: 'grouping sets with grouping expressions'",
        "test_fixtures.py::test_tmp_dir_puts_what_a_fixture_writes_where_the_server_sees_it": "it runs the orders_pipeline example: 'grouping sets with grouping expressions'",
        "test_first_hour.py::test_item2_every_example_runs_and_explains_as_it_is[orders_pipeline]": "the example's groupingSets step: 'grouping sets with grouping expressions'",
        "test_first_hour.py::test_item2_run_keeps_tmp_under_tmp_dir": "it runs the orders_pipeline example: 'grouping sets with grouping expressions'",
        "test_new_user_walk.py::test_every_example_with_every_command_and_format[orders_pipeline]": "the example's groupingSets step: 'grouping sets with grouping expressions'",
        "test_sources_differential.py::test_source_case[grouping_sets]": "'grouping sets with grouping expressions'",
        "test_sources_differential.py::test_source_case[grouping_sets_explicit_keys]": "'grouping sets with grouping expressions'",
        "test_fixtures.py::test_fixture[set_intersectAll]": "INTERSECT ALL returns each common row as often as the left input has it, not min(m, n) "
        "(5 rows, not 3)",
        "test_fixtures.py::test_fixture[sample_seeded]": "a seeded Bernoulli sample picks other rows than Spark's sampler (9 rows, not 7)",
        "test_sources_differential.py::test_substrait_set_types_over_three_inputs[minus_multiset_counts]": "INTERSECT ALL of the secondaries keeps each common row as often as the left input has it, "
        "not min(n1, n2), so EXCEPT ALL subtracts too much",
        "test_sources_differential.py::test_substrait_set_types_over_three_inputs[intersection_multiset_all]": "INTERSECT ALL returns each common row as often as the left input has it, not min(m, n1, n2)",
    },
    # Substrait plans (tests/integration/test_substrait_*.py) run on Sail through the same
    # Spark Connect relations; the oracle is Sail's own SQL for the same text
    "Substrait plans": {
        **{
            f"test_substrait_features.py::test_datafusion_plan_gives_spark_sqls_answer[{case}]": "the mark join is "
            "sent as a CASE over EXISTS subqueries (SubqueryExpression, in WithRelations) in a projection, which "
            "Sail does not plan ('Physical plan does not support logical expression Exists'); Sail's own SQL for "
            "the text runs (and so does its SQL with EXISTS in a select list)"
            for case in ("mark_join_in", "mark_join_exists")
        },
        "test_substrait_features.py::test_datafusion_plan_gives_spark_sqls_answer[mark_join_null]": "the mark join "
        "is sent as a CASE over EXISTS subqueries in a projection, which Sail does not plan ('Physical plan does not "
        "support logical expression Exists'); Sail's own SQL for the text (IN subquery in the select list) fails "
        "the same way",
        "test_substrait_features.py::test_datafusion_plan_gives_spark_sqls_answer[mark_join_null_both]": "the IN "
        "subquery of the select list is sent as a subquery expression in a projection, which Sail does not plan "
        "('Physical plan does not support logical expression InSubquery')",
        **{
            f"test_substrait_features.py::test_a_left_mark_join_on_one_key_gives_the_specs_three_valued_mark[{case}]": (
                "the mark join is sent as a CASE over EXISTS subqueries in a projection, which Sail does not plan "
                "('Physical plan does not support logical expression Exists'); the oracle's SQL is the same CASE"
            )
            for case in ("t-d > 20", "u-k > 0", "u-k > 100")
        },
        "test_substrait_features.py::test_a_filters_cheap_conjuncts_go_first_and_never_reach_a_row_the_producers_"
        "order_kept_out": "Sail evaluates every conjunct of a filter on the whole batch, with no short circuit: the "
        "division the string test guards raises 'Division by zero' in any order (checked in the thin profile)",
        "test_substrait_features.py::test_grouping_sets_with_the_set_index_last": "'grouping sets with grouping "
        "expressions' (the set index is computed from grouping_id() over grouping sets)",
        # the result contract's tests hold a grouping-sets plan to its declared output (the shape of
        # the wrong tables it exists for); Sail refuses the plan itself
        **{
            f"test_substrait_contract.py::{test}": "the test's plan has GROUPING SETS over grouping expressions, "
            "which Sail refuses ('grouping sets with grouping expressions')"
            for test in (
                "test_every_datafusion_feature_plan_declares_what_spark_returns[grouping_sets]",
                "test_every_datafusion_feature_plan_declares_what_spark_returns[rollup]",
                "test_each_mistranslation_is_refused_by_the_check[a column dropped]",
                "test_each_mistranslation_is_refused_by_the_check[a column added]",
                "test_each_mistranslation_is_refused_by_the_check[measures shifted by one]",
                "test_each_mistranslation_is_refused_by_the_check[columns reordered]",
                "test_each_mistranslation_is_refused_by_the_check[an extra grouping-set id column]",
                "test_a_measure_of_another_type_class_is_refused",
                "test_the_declared_types_are_what_the_caller_gets",
            )
        },
        # the cases below come with issue 15's new constructs (measured on that branch at 3cc86ec)
        **{
            f"test_substrait_features.py::test_any_all_subqueries[{case}]": "ANY/ALL is sent rewritten as EXISTS "
            "subqueries (SubqueryExpression) in a projection, which Sail does not plan ('Physical plan does not support logical "
            "expression Exists')"
            for case in (
                "ANY-GT-None",
                "ALL-GT-None",
                "ANY-EQ-None",
                "ALL-NE-None",
                "ALL-LT-empty",
                "ANY-GTE-with_null",
                "ALL-GTE-with_null",
            )
        },
        "test_substrait_features.py::test_unique_subquery": "UNIQUE is sent rewritten as a NOT EXISTS subquery in "
        "a projection, which Sail does not plan ('Physical plan does not support logical expression Exists')",
        "test_substrait_features.py::test_write_rel_insert_into_a_catalog_table": "Sail's catalog is per "
        "session: the table PySpark's session creates is not found by connect_plan's session "
        "(TABLE_OR_VIEW_NOT_FOUND); on Spark both see the same catalog",
        # the builder-made plans (the `substrait` package), measured on Sail 0.7.2 at 20ee2bc
        "test_substrait_features.py::test_any_all_and_unique_built_with_the_substrait_builders": "ANY/ALL and "
        "UNIQUE are sent rewritten as EXISTS subqueries (SubqueryExpression) in a projection, which Sail does not "
        "plan ('Physical plan does not support logical expression Exists')",
        "test_substrait_features.py::test_ddl_create_table_built_with_the_substrait_builders": "Sail's catalog is "
        "per session: the table connect_plan's session creates is not found by PySpark's session "
        "(TABLE_OR_VIEW_NOT_FOUND); on Spark both see the same catalog",
        "test_substrait_features.py::test_interval_types_as_cast_targets_and_typed_nulls_built_with_the_substrait_builders": "Sail "
        "casts a string to a day-time interval through its SQL parser, which refuses '1 02:03:04' "
        "('error in SQL parser: found 02 at 2:4'); Spark reads it as 1 day 02:03:04",
    },
    "Types and literals": {
        "test_fixtures.py::test_fixture[date_and_decimal_types]": "an integer literal in decimal arithmetic gets its type's precision (int: decimal(10,0)), "
        "not the literal's (2: decimal(1,0)): decimal(8,2) * 2 is decimal(19,2), Spark's decimal(10,2)",
    },
    "Session configuration and SQL": {
        "test_fixtures.py::test_fixture[conf_timezone]": "with the document's spark.sql.session.timeZone (Asia/Tokyo) a timestamp→string cast still "
        "shows UTC (see the same in test_sources_differential below)",
        "test_fixtures.py::test_fixture[source_sql_named_args]": "SQL with :named parameters fails ('Placeholder :n was not provided a value')",
        "test_client.py::test_schema_is_what_the_batches_carry[None]": "its SQL input's COLLATE UTF8_LCASE is a parse error ('found COLLATE ... expected ...')",
        "test_client.py::test_schema_is_what_the_batches_carry[America/New_York]": "its SQL input's COLLATE UTF8_LCASE is a parse error ('found COLLATE ... expected ...')",
        "test_sources_differential.py::test_source_case[sql_constructor_args]": "the same constructor parameters give other result types than PySpark's own query on Sail "
        "(struct(1.5, 12.34 as decimal(5,2)) comes back decimal(10,2); nullability differs)",
    },
    # Sail does not support CollectMetrics: connect_plan writes without the row count
    "Writes": {
        "test_fixtures.py::test_fixture[write_csv_append]": _ROWS,
        "test_fixtures.py::test_fixture[write_json_ignore]": _ROWS,
        "test_fixtures.py::test_fixture[write_parquet_partitioned_overwrite]": _ROWS,
        "test_fixtures.py::test_fixture[write_save_as_table_insert_into]": _ROWS,
        "test_sources_differential.py::test_write_every_mode_matches_pyspark[parquet]": _ROWS,
        "test_sources_differential.py::test_write_every_mode_matches_pyspark[csv]": _ROWS,
        "test_sources_differential.py::test_write_every_mode_matches_pyspark[json]": _ROWS,
        "test_sources_differential.py::test_write_partitioned_parquet_from_document_output": _ROWS,
        "test_sources_differential.py::test_save_as_table_and_insert_into_match_pyspark": _ROWS,
        "test_fixtures.py::test_fixture[write_error_if_exists]": "no ORC data source ('No data source found for: orc')",
        "test_sources_differential.py::test_write_every_mode_matches_pyspark[orc]": "no ORC data source",
        "test_sources_differential.py::test_source_case[files_orc]": "no ORC data source (the test's files cannot be written)",
        "test_sources_differential.py::test_source_case[files_orc_ddl_schema]": "no ORC data source (the test's files cannot be written)",
        "test_fixtures.py::test_fixture[files_orc_text]": "no ORC data source ('No data source found for: orc')",
    },
    # Sail sends each result as one Arrow batch per partition, whatever
    # spark.sql.execution.arrow.maxRecordsPerBatch says, never in chunks, has no artifact
    # cache (ArtifactStatus fails with INTERNAL) and no GetStatus
    "Protocol": {
        "test_compression.py::test_zstd_results_are_smaller_on_the_wire_and_decode_to_the_same_values": "Sail ignores spark.sql.execution.arrow.compression.codec: "
        "the zstd results are no smaller on the wire",
        "test_compression.py::test_a_codec_the_user_chose_wins": "Sail ignores the codec conf and sends this result in under 1 MB either way "
        "(Spark sends over 3 MB uncompressed)",
        "test_inputs.py::test_an_input_over_the_cache_threshold_is_a_chunked_cached_relation": "no artifact cache (ArtifactStatus: INTERNAL 'handle artifact statuses')",
        "test_inputs.py::test_an_input_under_the_threshold_stays_inline": "no artifact cache; the threshold Sail reports (2147483647) is not a real one",
        "test_inputs.py::test_json_rows_converted_column_wise_match_pyspark": "no artifact cache",
        "test_inputs.py::test_the_same_data_is_not_uploaded_twice": "no artifact cache",
        "test_inputs.py::test_servers_without_chunked_relations_get_one_cached_relation": "no artifact cache",
        "test_inputs.py::test_a_server_threshold_below_64_kib_is_followed": "no artifact cache",
        "test_inputs.py::test_a_plan_documents_conf_may_lower_the_threshold_for_its_execution": "no artifact cache",
        "test_inputs.py::test_a_sub_plan_used_several_times_is_weighed_by_its_uses": "no artifact cache",
        "test_inputs.py::test_equal_data_written_twice_is_weighed_together": "no artifact cache",
        "test_inputs.py::test_a_sub_plan_too_large_to_repeat_inline_is_cached_whatever_the_threshold": "no artifact cache",
        "test_streaming.py::test_dropping_a_stream_early_releases_its_execution": "no GetStatus RPC (UNIMPLEMENTED 'get status') to observe the execution's state",
        "test_integrity.py::test_many_small_batches": "spark.sql.execution.arrow.maxRecordsPerBatch is ignored: 2 batches, not 50+",
        "test_integrity.py::test_chunked_batches": "no Arrow batch chunking (arrow_batch_chunking)",
        "test_integrity.py::test_a_stream_cut_short_is_reattached_a_bounded_number_of_times": "the recording needs several Arrow batches; Sail sends one",
        **{
            f"test_integrity.py::{t}": _RECORDINGS
            for t in (
                "test_untampered_recordings_pass",
                *(
                    f"test_the_checker_catches_each_tampering[{k}]"
                    for k in (
                        "row_count_off",
                        "start_offset_off",
                        "batch_lost",
                        "batch_repeated",
                        "no_result_complete",
                        "truncated_after_two_batches",
                        "schema_drift",
                        "announced_schema_differs",
                        "corrupt_arrow",
                        "response_after_complete",
                        "chunk_missing",
                        "chunks_swapped",
                        "ends_inside_chunked_batch",
                    )
                ),
                "test_execute_never_returns_a_tampered_result[row_count_off-announced .* rows and held]",
                "test_execute_never_returns_a_tampered_result[schema_drift-changed the result schema]",
                "test_execute_never_returns_a_tampered_result[batch_lost-starts at row]",
            )
        },
    },
    # first seen in the thin job of 2026-11-29 (tests and functions added that day)
    "Tests of 2026-11-29": {
        "test_fixtures.py::test_every_fixture_runs_through_the_readmes_command": "the command runs every fixture, "
        "and the 13 whose Sail answers are listed above under test_fixture[...] fail in it too",
        "test_fixtures.py::test_every_example_runs_through_the_installed_command": "the orders_pipeline example's "
        "groupingSets step: 'grouping sets with grouping expressions'",
        "test_sources_differential.py::test_source_case[sql_typed_nested_args]": "a typed nested SQL argument "
        "(a map literal) is refused: 'Incorrect array length for StructArray field \"value\", expected 2 got 1'",
        "test_substrait_conformance.py::test_no_wrong_value_and_no_spark_error": "Sail's regular expressions are "
        "Rust's, not Java's: some of the spec's regexp cases fail ('Invalid regex') where Spark answers them",
        "test_substrait_conformance.py::test_outcomes_are_the_recorded_ones": "the record is Spark's; Sail's "
        "regexp and error outcomes differ (the test above)",
        "test_substrait_contract.py::test_datafusions_order_is_read_as_its_own_and_a_layout_read_wrong_is_refused": ""
        "the test's plan has GROUPING SETS over grouping expressions, which Sail refuses",
        "test_substrait_features.py::test_datafusion_plan_gives_spark_sqls_answer[grouping_sets]": "'grouping sets "
        "with grouping expressions'",
        "test_substrait_features.py::test_datafusion_plan_gives_spark_sqls_answer[rollup]": "'grouping sets with "
        "grouping expressions'",
        "test_substrait_functions.py::test_duckdb_function_gives_duckdbs_answer[mod_double]": "a floating-point "
        "remainder by zero fails ('Remainder by zero') where Spark gives NaN or NULL",
        "test_substrait_functions.py::test_the_specs_sum0_and_integer_avg": "the integer average's sum div count "
        "over no rows fails ('Division by zero') where Spark gives NULL",
        **{
            f"test_substrait_functions.py::test_where_duckdb_fails_spark_fails[{case}]": "Sail fails the query with "
            "raise_error's message but not Spark's error class USER_RAISED_EXCEPTION"
            for case in ("log_domain", "shift_negative", "shift_out_of_range", "shift_overflow")
        },
        "test_substrait_conformance.py::test_any_match_stays_kleene_when_exists_is_not": "Sail's exists is "
        "three-valued whatever spark.sql.legacy.followThreeValuedLogicInArrayExists says (the test's premise "
        "is Spark's setting)",
        "test_substrait_decimal_comparison.py::test_decimal_double_comparisons_give_spark_sqls_answer": "Sail "
        "compares a decimal with a double as decimals, failing on ±1e20 ('too small to store in a Decimal128 "
        "of precision 30') where Spark compares doubles",
        "test_substrait_decimal_comparison.py::test_the_decimal_comparison_is_pushed_into_the_scan": "Sail's "
        "EXPLAIN has no 'PushedFilters' line (its plan text is DataFusion's)",
        "test_substrait_in_lists.py::test_an_or_of_equalities_sent_as_in_gives_spark_sqls_answer": "Sail "
        "coerces IN and = apart: a boolean column against string constants answers as an OR of equalities "
        "and fails as IN ('Can not find compatible types to compare Boolean with [Utf8, Utf8]'); the test's "
        "premise is Spark's coercion",
        "test_substrait_in_lists.py::test_a_constant_the_column_cannot_hold_fails_both_ways": "Sail fails "
        "both ways but with its own message ('Cannot cast string 'TX' to value of Int64 type'), not Spark's "
        "error class CAST_INVALID_INPUT",
    },
    "Catalog and session": {
        "test_benchmarks_smoke.py::test_plan_quality_with_statistics_reads_analyzed_catalog_tables": "Sail has no "
        "ANALYZE TABLE ('CommandNode::AnalyzeTable' is unsupported): table statistics and the cost-based "
        "optimizer that --bind analyzed measures are Spark's",
        "test_sources_differential.py::test_case_sensitivity_default_document_and_connect_conf": "selecting 'ID' from a column 'id' names the output 'id' (Spark: 'ID', as written)",
        "test_sources_differential.py::test_document_conf_applies_for_one_execution_and_is_restored": "with the document's spark.sql.session.timeZone (America/New_York) the timestamp→string cast "
        "shows 12:00 (UTC); PySpark's session with the same setting gets 07:00 from the same server "
        "(connect_plan sends the same Cast; set_conf shows the same 12:00: not yet understood)",
        "test_sources_differential.py::test_document_conf_holds_for_stream_explain_and_schema": "the same time-zone difference as the test above, through stream() and execute_plan(stream=True)",
    },
}

SAIL_DIFFERENCES: dict[str, str] = {
    test: reason for family in SAIL_DIFFERENCE_FAMILIES.values() for test, reason in family.items()
}
# test_policy runs the fixtures with expected rows again under the strict policy: those Sail
# answers differently differ there for the same reason (the error fixtures are not run there)
SAIL_DIFFERENCES.update(
    {
        f"test_policy.py::test_fixture_runs_under_strict[{name}]": SAIL_DIFFERENCES[
            f"test_fixtures.py::test_fixture[{name}]"
        ]
        for name in ("date_and_decimal_types", "grouping_sets", "sample_seeded", "set_intersectAll")
    }
)
