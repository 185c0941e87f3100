-- IN (subquery) with a correlated condition
SELECT id FROM t WHERE k IN (SELECT k FROM u WHERE u.g = t.g)
