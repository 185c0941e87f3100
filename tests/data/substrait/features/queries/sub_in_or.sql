-- IN (subquery) under OR
SELECT id FROM t WHERE k IN (SELECT k FROM u) OR ii < 0
