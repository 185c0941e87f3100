"""The vocabulary of the policy's rules: the functions the strict preset denies, the hints and
data source options it allows, the names a file source goes by, the save modes and UDF rules."""

from __future__ import annotations

__all__ = [
    "DENIED_FUNCTIONS",
    "FILE_SOURCE_NAMES",
    "JOIN_HINTS",
    "PARTITION_HINTS",
    "SAFE_OPTIONS",
    "UDF_RULES",
    "WRITE_MODES",
]

#: functions the strict preset refuses: they run Java code by name, reveal files or the
#: server's identity, or the session's state
DENIED_FUNCTIONS: tuple[str, ...] = (
    "reflect",
    "java_method",
    "try_reflect",
    "input_file_name",
    "input_file_block_start",
    "input_file_block_length",
    "current_user",
    "user",
    "session_user",
    "current_catalog",
    "current_database",
    "current_schema",
    "current_path",
    "version",
)

#: join strategy hints: they change how, not how much (the strict preset allows these only;
#: ``repartition``/``coalesce``/``rebalance`` hints take partition counts)
JOIN_HINTS: tuple[str, ...] = (
    "broadcast",
    "broadcastjoin",
    "mapjoin",
    "merge",
    "shuffle_merge",
    "mergejoin",
    "shuffle_hash",
    "shuffle_replicate_nl",
)

#: hints whose integer parameters are partition counts (bounded by ``max_partitions``)
PARTITION_HINTS: frozenset[str] = frozenset({"repartition", "coalesce", "repartition_by_range", "rebalance"})

#: read/write options that neither name a place nor change where data comes from: the
#: strict preset's ``source_options`` (``path``, ``paths``, ``url``, ``dbtable``, ``query``
#: and every other key are refused; keys are compared case-insensitively, as Spark does)
SAFE_OPTIONS: tuple[str, ...] = (
    "header",
    "inferschema",
    "sep",
    "delimiter",
    "quote",
    "escape",
    "comment",
    "encoding",
    "charset",
    "linesep",
    "multiline",
    "mode",
    "nullvalue",
    "nanvalue",
    "dateformat",
    "timestampformat",
    "samplingratio",
    "mergeschema",
    "compression",
    "ignoreleadingwhitespace",
    "ignoretrailingwhitespace",
    "emptyvalue",
    "primitivesasstring",
    "allowcomments",
    "wholetext",
)

#: data source short names: Spark reads a two-part table name ``parquet.`/some/path``` as
#: those files (``spark.sql.runSQLOnFiles``), so such a name is never a table to this check
FILE_SOURCE_NAMES: frozenset[str] = frozenset(
    {
        "parquet",
        "orc",
        "json",
        "csv",
        "text",
        "avro",
        "xml",
        "binaryfile",
        "image",
        "libsvm",
        "jdbc",
        "delta",
        "iceberg",
        "hudi",
        "kafka",
        "noop",
        "hive",
        "file",
        "files",
        "org",
        "com",
    }
)

#: the save modes a Write has after parsing
WRITE_MODES = ("error", "append", "overwrite", "ignore")
UDF_RULES = ("none", "registered", "any")
