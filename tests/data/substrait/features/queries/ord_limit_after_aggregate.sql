-- ordered: top groups by an aggregate
SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g NULLS FIRST LIMIT 2
