-- GROUP BY two keys, both with NULLs
SELECT g, b, count(*) AS n FROM t GROUP BY g, b
