-- GROUPING(a) + GROUPING(b) as a level (the TPC-DS q36/q70/q86 shape)
SELECT g, b, grouping(g) + grouping(b) AS lvl, sum(d2) AS total FROM t GROUP BY ROLLUP (g, b)
