-- operator precedence and parentheses
SELECT id, ii + si * 2 - (ti - 1) * 3 AS r FROM t
