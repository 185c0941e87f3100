-- ROLLUP over an expression key
SELECT upper(g) AS ug, sum(ii) AS total FROM t GROUP BY ROLLUP (upper(g))
