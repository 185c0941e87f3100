-- IN (subquery) without correlation
SELECT id FROM t WHERE k IN (SELECT k FROM u)
