-- UNION of two-column rows with NULLs in either column
SELECT g, k FROM t UNION SELECT g, k FROM u
