-- x < ALL (subquery with a NULL) is never true (Spark SQL: the NOT EXISTS it means)
SELECT id FROM t WHERE ii < ALL (SELECT v FROM u)
