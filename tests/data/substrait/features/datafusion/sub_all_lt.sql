-- x < ALL (subquery) over values without NULLs (Spark SQL: the NOT EXISTS it means)
SELECT id FROM t WHERE ii < ALL (SELECT v FROM u WHERE v IS NOT NULL)
