-- ROLLUP of one key: the groups and the grand total
SELECT g, sum(d1) AS total FROM t GROUP BY ROLLUP (g)
