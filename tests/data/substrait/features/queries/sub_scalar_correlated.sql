-- a correlated scalar subquery (NULL where nothing matches)
SELECT id, (SELECT sum(v) FROM u WHERE u.k = t.k) AS sv FROM t
