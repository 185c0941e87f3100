-- AND / OR / NOT over booleans with NULLs
SELECT id, b AND ii > 5 AS a1, b OR ii > 5 AS o1, NOT b AS n1 FROM t
