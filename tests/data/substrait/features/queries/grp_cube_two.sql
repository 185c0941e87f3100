-- CUBE (g, b)
SELECT g, b, count(*) AS n, min(id) AS mn FROM t GROUP BY CUBE (g, b)
