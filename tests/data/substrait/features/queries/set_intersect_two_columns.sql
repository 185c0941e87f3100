-- INTERSECT of two-column rows with NULLs
SELECT g, k FROM t INTERSECT SELECT g, k FROM u
