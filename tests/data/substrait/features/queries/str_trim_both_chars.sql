-- TRIM(BOTH 'a' FROM s)
SELECT id, trim(BOTH 'a' FROM s) AS c FROM t
