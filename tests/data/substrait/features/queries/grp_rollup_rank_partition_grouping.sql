-- rank() partitioned by GROUPING(a) + GROUPING(b) in the ROLLUP's own select (the TPC-DS q36 shape)
SELECT g, b, sum(ii) AS total, rank() OVER (PARTITION BY grouping(g) + grouping(b) ORDER BY sum(ii) DESC NULLS LAST) AS r FROM t GROUP BY ROLLUP (g, b)
