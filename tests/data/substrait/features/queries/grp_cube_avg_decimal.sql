-- CUBE with a decimal average
SELECT b, k, avg(d1) AS a FROM t GROUP BY CUBE (b, k)
