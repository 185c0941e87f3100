-- GROUPING SETS with one set of two keys (a plain GROUP BY)
SELECT g, b, count(*) AS n FROM t GROUP BY GROUPING SETS ((g, b))
