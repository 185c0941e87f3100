-- SELECT without FROM: one row of expressions
SELECT 1 + 2 AS a, upper('x') AS b2
