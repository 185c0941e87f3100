-- NULLIF(s, '') turns empty strings into NULL
SELECT id, nullif(g, '') AS c FROM t
