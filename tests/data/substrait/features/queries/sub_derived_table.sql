-- a derived table with its own aggregate and filter
SELECT g, n FROM (SELECT g, count(*) AS n FROM t GROUP BY g) x WHERE n > 1
