-- || with a number cast to string
SELECT id, g || cast(id AS varchar(30)) AS c FROM t
