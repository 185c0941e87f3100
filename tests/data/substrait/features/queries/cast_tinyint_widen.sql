-- tinyint and smallint widened
SELECT id, cast(ti AS bigint) AS a, cast(si AS integer) AS b2 FROM t
