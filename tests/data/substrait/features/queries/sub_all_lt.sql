-- x < ALL (subquery) over values without NULLs (Spark SQL: the NOT EXISTS it means)
SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.v IS NOT NULL AND (t.ii < u.v) IS NOT TRUE)
