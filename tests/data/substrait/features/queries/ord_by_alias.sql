-- ordered: ORDER BY a select alias
SELECT id, ii * 2 AS dbl FROM t ORDER BY dbl DESC NULLS FIRST, id
