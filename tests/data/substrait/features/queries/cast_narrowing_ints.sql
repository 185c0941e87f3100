-- bigint and int to smallint (values in range)
SELECT id, cast(k AS smallint) AS a, cast(ii AS smallint) AS b2 FROM t
