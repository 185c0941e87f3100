-- a correlated scalar subquery in WHERE
SELECT id FROM t WHERE ii >= (SELECT max(v) FROM u WHERE u.g = t.g)
