-- HAVING on a ROLLUP's measure
SELECT g, b, count(*) AS n FROM t GROUP BY ROLLUP (g, b) HAVING count(*) > 1
