-- NULLIF of an integer
SELECT id, nullif(k, 10) AS c FROM t
