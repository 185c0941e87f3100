-- NOT IN over a subquery that has a NULL: no row qualifies
SELECT id FROM t WHERE k NOT IN (SELECT k FROM u)
