-- a ranking window over a ROLLUP's rows
SELECT g, total, rank() OVER (ORDER BY total DESC NULLS LAST, g NULLS FIRST) AS r FROM (SELECT g, sum(ii) AS total FROM t GROUP BY ROLLUP (g)) x
