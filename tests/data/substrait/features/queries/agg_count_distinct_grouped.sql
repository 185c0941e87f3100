-- COUNT(DISTINCT) per group
SELECT b, count(DISTINCT g) AS ng FROM t GROUP BY b
