-- x = ANY (subquery), the same as IN (Spark SQL: the IN it means)
SELECT id FROM t WHERE k IN (SELECT k FROM u)
