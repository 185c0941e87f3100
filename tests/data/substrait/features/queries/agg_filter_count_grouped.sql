-- COUNT(*) FILTER (WHERE ...) per group
SELECT g, count(*) FILTER (WHERE ii > 5) AS n FROM t GROUP BY g
