-- a date to its ISO string
SELECT id, cast(dt AS varchar(30)) AS r FROM t
