-- decimal to double
SELECT id, cast(d3 AS double) AS r FROM t
