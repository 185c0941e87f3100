-- simple CASE whose operand is NULL matches no WHEN (NULL = NULL is unknown)
SELECT id, CASE k WHEN 10 THEN 'ten' WHEN 20 THEN 'twenty' ELSE 'other' END AS c FROM t
