-- FULL JOIN with COALESCE of both keys
SELECT coalesce(t.k, u.k) AS key, t.id, u.id AS uid FROM t FULL JOIN u ON t.k = u.k AND t.g = u.g
