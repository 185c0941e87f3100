-- integers to strings
SELECT id, cast(ii AS varchar(30)) AS a, cast(ti AS varchar(30)) AS b2 FROM t
