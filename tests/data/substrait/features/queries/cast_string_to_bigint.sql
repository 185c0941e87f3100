-- a string to bigint
SELECT id, cast(cast(k AS varchar(30)) AS bigint) AS r FROM t
