-- x > ALL (empty subquery) is true, even for NULL x (Spark SQL: the NOT EXISTS it means)
SELECT id FROM t WHERE NOT EXISTS (SELECT 1 FROM e WHERE (t.ii > e.v) IS NOT TRUE)
