-- EXCEPT of two-column rows with NULLs
SELECT g, s FROM u EXCEPT SELECT g, s FROM t
