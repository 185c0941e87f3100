-- boolean to string
SELECT id, cast(b AS varchar(30)) AS r FROM t
