-- GROUPING SETS ((g), (b), ()) with two measures
SELECT g, b, sum(ii) AS total, count(*) AS n FROM t GROUP BY GROUPING SETS ((g), (b), ())
