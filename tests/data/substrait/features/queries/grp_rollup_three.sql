-- ROLLUP over three keys
SELECT g, b, k, count(*) AS n FROM t GROUP BY ROLLUP (g, b, k)
