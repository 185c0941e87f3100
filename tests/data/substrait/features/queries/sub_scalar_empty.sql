-- a scalar subquery over no rows is NULL
SELECT id, (SELECT max(v) FROM e) AS mv FROM t WHERE id < 3
