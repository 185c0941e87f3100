-- COALESCE of a column and a literal
SELECT id, coalesce(ii, 0) AS c FROM t
