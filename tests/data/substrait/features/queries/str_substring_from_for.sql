-- SUBSTRING(s FROM 2 FOR 3)
SELECT id, substring(s FROM 2 FOR 3) AS c FROM t
