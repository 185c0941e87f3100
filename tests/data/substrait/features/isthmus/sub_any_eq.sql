-- x = ANY (subquery), the same as IN (Spark SQL: the IN it means)
SELECT id FROM t WHERE k = ANY (SELECT k FROM u)
