-- ROLLUP (g, b) with sum and count
SELECT g, b, sum(bi) AS total, count(ii) AS n FROM t GROUP BY ROLLUP (g, b)
