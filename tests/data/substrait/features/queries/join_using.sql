-- JOIN ... USING (k)
SELECT k, t.id, u.id AS uid FROM t JOIN u USING (k)
