-- x < ALL (subquery with a NULL) is never true (Spark SQL: the NOT EXISTS it means)
SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE (t.ii < u.v) IS NOT TRUE)
