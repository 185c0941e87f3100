-- inner join on two keys
SELECT t.id, u.id AS uid FROM t JOIN u ON t.k = u.k AND t.g = u.g
