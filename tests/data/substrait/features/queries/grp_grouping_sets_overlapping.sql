-- GROUPING SETS ((g, b), (g)) sharing a key
SELECT g, b, max(id) AS m FROM t GROUP BY GROUPING SETS ((g, b), (g))
