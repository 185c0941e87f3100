-- two COUNT(DISTINCT) of different columns per group
SELECT b, count(DISTINCT g) AS ng, count(DISTINCT k) AS nk FROM t GROUP BY b
