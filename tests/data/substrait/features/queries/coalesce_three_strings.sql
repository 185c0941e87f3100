-- COALESCE over three string arguments
SELECT id, coalesce(g, s, 'none') AS c FROM t
