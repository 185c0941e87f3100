-- a correlated scalar count (0, not NULL, where nothing matches)
SELECT id, (SELECT count(*) FROM u WHERE u.k = t.k) AS n FROM t
