-- GROUPING_ID over CUBE keys
SELECT g, b, grouping(g, b) AS gid, count(*) AS n FROM t GROUP BY CUBE (g, b)
