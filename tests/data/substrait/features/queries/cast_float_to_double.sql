-- float to double
SELECT id, cast(f4 AS double) AS r FROM t
