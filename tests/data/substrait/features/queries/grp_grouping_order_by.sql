-- ORDER BY GROUPING() and a key after a ROLLUP
SELECT g, sum(ii) AS total FROM t GROUP BY ROLLUP (g) ORDER BY grouping(g), g NULLS FIRST
