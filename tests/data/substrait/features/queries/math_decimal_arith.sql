-- +, -, * on decimals of different scales
SELECT id, d1 + d2 AS a, d1 - d2 AS b2, d1 * d2 AS c FROM t
