-- UNION (DISTINCT) removes duplicates; NULLs are one value
SELECT k FROM t UNION SELECT k FROM u
