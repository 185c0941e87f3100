-- a decimal to integer
SELECT id, cast(d2 AS integer) AS r FROM t
