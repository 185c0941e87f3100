-- x > ALL (empty subquery) is true, even for NULL x (Spark SQL: the NOT EXISTS it means)
SELECT id FROM t WHERE ii > ALL (SELECT v FROM e)
