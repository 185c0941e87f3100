-- min/max of strings and booleans
SELECT g, min(s) AS mn, max(s) AS mx FROM t GROUP BY g
