-- RIGHT JOIN keeps every right row
SELECT t.id, u.id AS uid, u.k FROM t RIGHT JOIN u ON t.k = u.k
