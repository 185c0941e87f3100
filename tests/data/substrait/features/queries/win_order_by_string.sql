-- row_number() ordered by a string with NULLs last and a tie-breaker
SELECT id, s, row_number() OVER (ORDER BY s ASC NULLS LAST, id) AS rn FROM t
