-- a ranking window over a grouped aggregate
SELECT g, sum(ii) AS total, rank() OVER (ORDER BY sum(ii) DESC NULLS LAST) AS r FROM t GROUP BY g
