-- || propagates NULL
SELECT id, s || '|' || g AS c FROM t
