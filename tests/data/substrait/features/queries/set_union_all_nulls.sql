-- UNION ALL keeps duplicates and NULLs
SELECT k FROM t UNION ALL SELECT k FROM u
