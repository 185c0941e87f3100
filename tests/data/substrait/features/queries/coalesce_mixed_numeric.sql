-- COALESCE of an int and a bigint column
SELECT id, coalesce(ii, bi, -1) AS c FROM t
